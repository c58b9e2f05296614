#!/usr/bin/env bash
# Accuracy of arbarcodedetect next to the stock GStreamer zbar element, per folder of a corpus of
# images with expected texts (N.png + N.txt; falsepositives-* folders: no code).
#
#   scripts/accuracy.sh [CORPUS] [arbarcodedetect-property=value ...] [--verbose]
#
# CORPUS defaults to ../shared/corpus/zxing-cpp-samples. Columns: stock zbar, arbarcodedetect and
# zxing-cpp (PyPI, via scripts/zxing_read.py). Prints a Markdown table; --verbose also
# prints one line per image. Needs gstreamer1.0-plugins-bad (zbar, webpdec), zxing-cpp and Pillow,
# installed by deps.sh bench.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-../shared/corpus/zxing-cpp-samples}
[ $# -gt 0 ] && shift
scripts/deps.sh bench >&2
source scripts/env.sh
quiet_swift swift build -c release --product arbench >&2
exec .build/release/arbench accuracy "$corpus" "$@"
