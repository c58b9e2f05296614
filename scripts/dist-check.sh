#!/usr/bin/env bash
# Checks a tarball from scripts/dist.sh: unpacked into a fresh directory, with the toolchain hidden
# from the dynamic loader (no LD_LIBRARY_PATH; the loader's trace must never look into it), the
# plugin loads in gst-inspect-1.0, a pipeline with the elements runs and arserve starts.
# Usage: scripts/dist-check.sh TARBALL
set -euo pipefail
tarball=$(realpath "$1")
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)")")")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
tar -C "$dir" -xzf "$tarball"
root=$(echo "$dir"/arbarcode-*)
fail() { echo "dist-check: FAIL: $*" >&2; exit 1; }

# Runs a command with only the unpacked tree and the system (fresh registry, no toolchain paths),
# tracing the loader; fails when any library is looked for in the toolchain.
run() {
  local trace="$dir/ld-trace"
  env -i PATH=/usr/bin:/bin HOME="$dir" GST_PLUGIN_PATH="$root/lib/gstreamer-1.0" GST_REGISTRY="$dir/registry.bin" \
      GST_PLUGIN_SYSTEM_PATH=/usr/lib/x86_64-linux-gnu/gstreamer-1.0 LD_DEBUG=libs LD_DEBUG_OUTPUT="$trace" "$@" \
      > "$dir/out" 2> "$dir/err" || { cat "$dir/err" >&2; fail "$* exited with an error"; }
  if grep -h "$toolchain" "$trace".* >/dev/null 2>&1; then
    grep -h "$toolchain" "$trace".* | head -3 >&2
    fail "$1 looked for libraries in the toolchain ($toolchain)"
  fi
  grep -h "cannot open\|not found" "$trace".* >/dev/null 2>&1 && fail "$1: a library was not found"
  rm -f "$trace".*
}

run gst-inspect-1.0 arbarcode
grep -q "arbarcodetrack" "$dir/out" || fail "gst-inspect-1.0 does not list arbarcodetrack"
run gst-launch-1.0 -q arcodesrc num-buffers=20 ! arbarcodetrack ! aroverlay ! arexport location="$dir/codes.jsonl" ! fakesink
[ "$(wc -l < "$dir/codes.jsonl")" -eq 20 ] || fail "expected 20 JSON lines from the pipeline"
grep -q '"state":"detected"' "$dir/codes.jsonl" || fail "no code detected by the unpacked plugin"
run "$root/bin/arserve" --help
echo "dist-check: $(basename "$tarball") runs without the toolchain (gst-inspect-1.0, a pipeline, arserve --help)"
