#!/bin/sh
# Accuracy of arbarcodedetect next to the stock GStreamer zbar element, per folder of a corpus of
# images with expected texts (N.png + N.txt; falsepositives-* folders: no code).
#
#   scripts/accuracy.sh [CORPUS] [arbarcodedetect-property=value ...] [--verbose]
#
# CORPUS defaults to ../shared/corpus/zxing-cpp-samples. Prints a Markdown table; --verbose also
# prints one line per image. Needs gstreamer1.0-plugins-bad (zbar, webpdec).
set -eu
cd "$(dirname "$0")/.."
corpus=${1:-../shared/corpus/zxing-cpp-samples}
[ $# -gt 0 ] && shift
PATH="$PATH:/opt/swift/usr/bin"
swift build -c release --scratch-path "${SCRATCH:-.build-detect}" --product arbench >&2
exec "${SCRATCH:-.build-detect}/release/arbench" accuracy "$corpus" "$@"
