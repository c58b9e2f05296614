#!/usr/bin/env bash
# Builds a tarball that runs on a Debian 12 machine with only the GStreamer runtime packages: the
# plugin, arserve and the Swift runtime libraries they load, every RUNPATH relative to $ORIGIN.
# Usage: scripts/dist.sh [OUTDIR]   (default dist/; prints the tarball's path on its last line)
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-dist}")
scripts/deps.sh build >&2
source scripts/env.sh
quiet_swift swift build -c release --product gstarbarcode >&2
quiet_swift swift build -c release --product arserve >&2

toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
name="arbarcode-$version-linux-$(uname -m)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage="$work/$name"
mkdir -p "$stage/bin" "$stage/lib/gstreamer-1.0"
install -m 0755 .build/release/libgstarbarcode.so "$stage/lib/gstreamer-1.0/"
install -m 0755 .build/release/arserve "$stage/bin/"

# Every library the two load (ldd lists them transitively) that comes from the toolchain.
for f in "$stage/lib/gstreamer-1.0/libgstarbarcode.so" "$stage/bin/arserve"; do
  ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
  case "$(readlink -f "$lib")" in
    "$toolchain"/*) install -m 0644 "$lib" "$stage/lib/" ;;
  esac
done
patchelf --set-rpath '$ORIGIN/..' "$stage/lib/gstreamer-1.0/libgstarbarcode.so"
patchelf --set-rpath '$ORIGIN/../lib' "$stage/bin/arserve"
for lib in "$stage"/lib/*.so*; do patchelf --set-rpath '$ORIGIN' "$lib"; done

cat > "$stage/README" <<TXT
arbarcode $version: GStreamer elements for barcode AR, and arserve.

Needs the Debian 12 packages gstreamer1.0-plugins-base, -good, -bad, -ugly, gstreamer1.0-tools,
libzbar0, libqrencode4, libpangocairo-1.0-0, gstreamer1.0-rtsp (arserve); no Swift toolchain.

    export GST_PLUGIN_PATH=\$PWD/lib/gstreamer-1.0
    gst-inspect-1.0 arbarcode
    gst-launch-1.0 arcodesrc num-buffers=90 ! arbarcodetrack ! aroverlay ! videoconvert ! autovideosink
    bin/arserve --help
TXT
mkdir -p "$out"
tar -C "$work" -czf "$out/$name.tar.gz" "$name"
echo "dist: $(du -h "$out/$name.tar.gz" | cut -f1) with $(ls "$stage/lib" | grep -c '\.so') runtime libraries" >&2
echo "$out/$name.tar.gz"
