# Conveniences; the README's two commands are scripts/demo.sh and scripts/test.sh.
SHELL := /bin/bash
PREFIX ?=
PLUGIN_DIR := $(if $(PREFIX),$(PREFIX)/lib/gstreamer-1.0,$(HOME)/.local/share/gstreamer-1.0/plugins)
SWIFT := $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)

.PHONY: all build test demo install uninstall inspect clean accuracy bench dist

all: build

build:
	set -o pipefail; $(SWIFT) build -c release --product gstarbarcode 2>&1 | { grep -v "prohibited flag" || true; }

# A tarball that runs without the Swift toolchain (plugin, arserve, Swift runtime; RUNPATH $$ORIGIN-relative).
dist:
	./scripts/dist.sh dist

test:
	./scripts/test.sh

demo:
	./scripts/demo.sh

# Installs the plugin for this user (~/.local/share/gstreamer-1.0/plugins), or under PREFIX.
install: build
	install -d "$(PLUGIN_DIR)"
	install -m 0755 .build/release/libgstarbarcode.so "$(PLUGIN_DIR)/libgstarbarcode.so"
	@echo "installed $(PLUGIN_DIR)/libgstarbarcode.so"
	@if [ -n "$(PREFIX)" ]; then echo "GStreamer finds it with: export GST_PLUGIN_PATH=$(PLUGIN_DIR)"; fi

uninstall:
	rm -f "$(PLUGIN_DIR)/libgstarbarcode.so"

# Accuracy on an image corpus, stock zbar side by side: make accuracy [CORPUS=dir]
CORPUS ?= ../shared/corpus/zxing-cpp-samples
accuracy:
	./scripts/accuracy.sh $(CORPUS)

# Every benchmark table (release build): detector speed, tracking, overlay cost, RTSP latency.
bench:
	./scripts/bench.sh

inspect: build
	GST_PLUGIN_PATH=$(CURDIR)/.build/release gst-inspect-1.0 arbarcode

clean:
	rm -rf .build out dist
