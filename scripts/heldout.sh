#!/usr/bin/env bash
# Accuracy on held-out photos: the sample folders of a zxing-cpp checkout whose kinds the corpus
# has (ean13-*, qrcode-*, …) but which are not in the corpus, side by side as scripts/accuracy.sh.
# A check that results generalise beyond the development corpus; nothing is tuned on them.
#
#   git clone --depth 1 https://github.com/zxing-cpp/zxing-cpp /tmp/zxing-cpp
#   scripts/heldout.sh /tmp/zxing-cpp [CORPUS] [--verbose]
#
# CORPUS defaults to ../shared/corpus/zxing-cpp-samples.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=${1:?usage: scripts/heldout.sh ZXING_CPP_CHECKOUT [CORPUS] [--verbose]}
shift
corpus=../shared/corpus/zxing-cpp-samples
if [ $# -gt 0 ] && [ "$1" != --verbose ]; then corpus=$1; shift; fi
samples=$checkout/test/samples
[ -d "$samples" ] || { echo "heldout.sh: $samples is not a directory" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for folder in "$samples"/*/; do
    name=$(basename "$folder")
    kind=${name%-*}
    [ -d "$corpus/$name" ] && continue
    ls -d "$corpus/$kind"-* >/dev/null 2>&1 || continue
    ln -s "$(realpath "$folder")" "$dir/$name"
done
echo "held-out folders: $(ls "$dir" | tr '\n' ' ')" >&2
scripts/accuracy.sh "$dir" "$@"
