#!/usr/bin/env bash
# Builds the plugin (release) and runs every test (unit and in-process pipeline tests).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh build
source scripts/env.sh
echo "test: building the plugin and arserve (release; the install tests install them)"
quiet_swift swift build -c release --product gstarbarcode
quiet_swift swift build -c release --product arserve
echo "test: checking that gst-inspect-1.0 loads it from $AR_PLUGIN_DIR"
gst-inspect-1.0 arbarcode >/dev/null
echo "test: make dist, unpacked and run without the Swift toolchain"
dist=$(mktemp -d)
scripts/dist-check.sh "$(scripts/dist.sh "$dist" | tail -n 1)"
rm -rf "$dist"
echo "test: running the test suite"
# The tests' files (frames, clips, clones, browser profiles) go to a directory of this run, removed at the end.
tests_tmp=$(mktemp -d -t arbarcode-test-run.XXXXXX)
trap 'rm -rf "$tests_tmp"' EXIT
TMPDIR="$tests_tmp" quiet_swift swift test --disable-swift-testing
