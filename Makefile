# Conveniences; the README's two commands are scripts/demo.sh and scripts/test.sh.
SHELL := /bin/bash
# make install: arserve to $(PREFIX)/bin, the plugin to $(PREFIX)/lib/gstreamer-1.0 (DESTDIR stages
# the files elsewhere, for packaging). make install-user: the plugin where GStreamer looks for this
# user's plugins, arserve in ~/.local/bin. make install-service: the systemd unit (README).
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR := $(PREFIX)/bin
PLUGIN_DIR := $(PREFIX)/lib/gstreamer-1.0
USER_BINDIR := $(HOME)/.local/bin
USER_PLUGIN_DIR := $(HOME)/.local/share/gstreamer-1.0/plugins
SYSCONFDIR ?= /etc
UNITDIR ?= /etc/systemd/system
SYSUSERSDIR ?= /etc/sysusers.d
SWIFT := $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
QUIET := 2>&1 | { grep -v "prohibited flag" || true; }

.PHONY: all build test demo install install-built install-user install-service uninstall uninstall-user \
	uninstall-service inspect clean accuracy bench dist

all: build

# The plugin and arserve, release builds in .build/release.
build:
	set -o pipefail; $(SWIFT) build -c release --product gstarbarcode $(QUIET)
	set -o pipefail; $(SWIFT) build -c release --product arserve $(QUIET)

# A tarball that runs without the Swift toolchain (plugin, arserve, Swift runtime; RUNPATH $$ORIGIN-relative).
dist:
	./scripts/dist.sh dist

test:
	./scripts/test.sh

demo:
	./scripts/demo.sh

# For the system (default PREFIX /usr/local: run as root). Debian's GStreamer does not look in
# /usr/local/lib/gstreamer-1.0: gst-launch-1.0 and applications find the plugin with
# GST_PLUGIN_PATH=$(PLUGIN_DIR); arserve needs nothing (the elements are built into it).
install: build
	@$(MAKE) --no-print-directory install-built

# What `make build` built, installed (no Swift run).
install-built:
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(PLUGIN_DIR)"
	install -m 0755 .build/release/arserve "$(DESTDIR)$(BINDIR)/arserve"
	install -m 0755 .build/release/libgstarbarcode.so "$(DESTDIR)$(PLUGIN_DIR)/libgstarbarcode.so"
	@echo "installed $(DESTDIR)$(BINDIR)/arserve and $(DESTDIR)$(PLUGIN_DIR)/libgstarbarcode.so"
	@echo "GStreamer finds the plugin with: export GST_PLUGIN_PATH=$(PLUGIN_DIR)"

# For this user only: GStreamer finds the plugin in its per-user folder without any setting.
install-user: build
	install -d "$(USER_BINDIR)" "$(USER_PLUGIN_DIR)"
	install -m 0755 .build/release/arserve "$(USER_BINDIR)/arserve"
	install -m 0755 .build/release/libgstarbarcode.so "$(USER_PLUGIN_DIR)/libgstarbarcode.so"
	@echo "installed $(USER_BINDIR)/arserve and $(USER_PLUGIN_DIR)/libgstarbarcode.so"

# The arserve service (after make install, as root): the unit (ExecStart=$(BINDIR)/arserve), the
# settings in $(SYSCONFDIR)/arserve/arserve.env (kept if present: it holds the password), an empty
# $(SYSCONFDIR)/arserve/pipelines and the arserve user (systemd-sysusers). Then edit the settings,
# add the cameras' files and: systemctl enable --now arserve. With DESTDIR, the files only.
install-service:
	install -d "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(SYSUSERSDIR)" "$(DESTDIR)$(SYSCONFDIR)/arserve/pipelines"
	sed -e 's|/usr/local/bin/arserve|$(BINDIR)/arserve|' -e 's|/etc/arserve/|$(SYSCONFDIR)/arserve/|' \
	  deploy/arserve.service > "$(DESTDIR)$(UNITDIR)/arserve.service"
	chmod 0644 "$(DESTDIR)$(UNITDIR)/arserve.service"
	install -m 0644 deploy/arserve.sysusers.conf "$(DESTDIR)$(SYSUSERSDIR)/arserve.conf"
	@if [ -e "$(DESTDIR)$(SYSCONFDIR)/arserve/arserve.env" ]; then \
	  echo "kept $(DESTDIR)$(SYSCONFDIR)/arserve/arserve.env"; \
	else \
	  sed 's|/etc/arserve/|$(SYSCONFDIR)/arserve/|' deploy/arserve.env > "$(DESTDIR)$(SYSCONFDIR)/arserve/arserve.env"; \
	  chmod 0640 "$(DESTDIR)$(SYSCONFDIR)/arserve/arserve.env"; \
	fi
ifeq ($(DESTDIR),)
	systemd-sysusers "$(SYSUSERSDIR)/arserve.conf"
	chgrp arserve "$(SYSCONFDIR)/arserve/arserve.env"
	@if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
	@echo "now: edit $(SYSCONFDIR)/arserve/arserve.env, put .pipeline files in $(SYSCONFDIR)/arserve/pipelines, systemctl enable --now arserve"
endif

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/arserve" "$(DESTDIR)$(PLUGIN_DIR)/libgstarbarcode.so"

uninstall-user:
	rm -f "$(USER_BINDIR)/arserve" "$(USER_PLUGIN_DIR)/libgstarbarcode.so"

# Leaves $(SYSCONFDIR)/arserve (settings, pipelines) and the user in place.
uninstall-service:
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then systemctl disable --now arserve || true; fi
	rm -f "$(DESTDIR)$(UNITDIR)/arserve.service" "$(DESTDIR)$(SYSUSERSDIR)/arserve.conf"

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
