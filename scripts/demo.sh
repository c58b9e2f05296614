#!/usr/bin/env bash
# The main job on an embedded default: a generated clip of moving codes (no camera, no display)
# through arbarcodetrack ! aroverlay ! arexport, written as an annotated MP4, JSON Lines and a PNG.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh demo
source scripts/env.sh
out="$AR_ROOT/out"
mkdir -p "$out"
echo "demo: building (release)"
swift build -c release
W=640 H=480 FPS=30 FRAMES=150
echo "demo: generating a ${W}x${H} clip of $FRAMES frames with moving codes"
.build/release/arclip --width $W --height $H --fps $FPS --frames $FRAMES --format i420 \
  --out "$out/demo-clip.i420" --truth "$out/demo-truth.jsonl"
rm -f "$out"/demo-snapshot-*.png
echo "demo: running the pipeline"
gst-launch-1.0 -q -e \
  filesrc location="$out/demo-clip.i420" \
  ! rawvideoparse width=$W height=$H format=i420 framerate=$FPS/1 \
  ! arbarcodetrack ! aroverlay ! arexport location="$out/demo.jsonl" \
  ! tee name=t \
  t. ! queue ! videoconvert ! x264enc tune=zerolatency speed-preset=veryfast ! mp4mux ! filesink location="$out/demo.mp4" \
  t. ! queue ! videoconvert ! pngenc ! multifilesink location="$out/demo-snapshot-%05d.png" max-files=1
mv "$(ls "$out"/demo-snapshot-*.png | tail -n 1)" "$out/demo.png"
rm -f "$out/demo-clip.i420"
lines=$(wc -l < "$out/demo.jsonl")
ids=$(grep -o '"id":[0-9]*' "$out/demo.jsonl" | sort -u | wc -l)
echo
echo "demo: done"
echo "  annotated video : $out/demo.mp4"
echo "  metadata        : $out/demo.jsonl ($lines frames, $ids distinct track ids)"
echo "  snapshot        : $out/demo.png (last frame)"
echo "  ground truth    : $out/demo-truth.jsonl"
echo "  load the plugin : export GST_PLUGIN_PATH=$AR_PLUGIN_DIR   (or: make install)"
