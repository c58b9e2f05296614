#!/usr/bin/env bash
# Every benchmark table, release build, stock GStreamer elements side by side where they apply:
# detector speed, tracking against ground truth, overlay cost, RTSP latency, corpus accuracy.
# Takes about 10 minutes on 2 cores. Figures in README come from this script.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh bench
source scripts/env.sh
quiet_swift swift build -c release --product arbench
quiet_swift swift build -c release --product arserve
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
for command in detect track overlay stream; do
  echo
  echo "## arbench $command"
  .build/release/arbench "$command"
done
echo
echo "## accuracy"
.build/release/arbench accuracy "${CORPUS:-../shared/corpus/zxing-cpp-samples}"
