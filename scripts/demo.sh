#!/usr/bin/env bash
# The main job on an embedded default: a generated clip of moving codes (no camera, no display)
# through arbarcodetrack ! aroverlay ! arexport, written as an annotated MP4, JSON Lines and a PNG.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh demo
source scripts/env.sh
out="$AR_ROOT/out"
mkdir -p "$out"
echo "demo: building the plugin and arserve (release)"
quiet_swift swift build -c release --product gstarbarcode
quiet_swift swift build -c release --product arserve
W=1280 H=720 FRAMES=300
echo "demo: running pipelines/demo.pipeline for $FRAMES frames (${W}x${H}, 30 fps, not paced)"
rm -f "$out"/demo-snapshot-*.png "$out/demo.jsonl"
# The file's pipeline ends in raw video; this tail writes the metadata, the MP4 and snapshots.
AR_SINK="arexport location=$out/demo.jsonl ! tee name=t \
  t. ! queue ! videoconvert ! x264enc tune=zerolatency speed-preset=veryfast ! mp4mux ! filesink location=$out/demo.mp4 \
  t. ! queue ! videorate drop-only=true max-rate=1 ! videoconvert ! pngenc ! multifilesink async=false sync=false location=$out/demo-snapshot-%05d.png" \
WIDTH=$W HEIGHT=$H FRAMES=$FRAMES LIVE=false \
  scripts/arlaunch pipelines/demo.pipeline -q &
pid=$!
# Progress from the metadata file (one line per frame), once a second, until the pipeline ends.
prev=0
while kill -0 "$pid" 2>/dev/null; do
  sleep 1
  done_frames=$( [ -f "$out/demo.jsonl" ] && wc -l < "$out/demo.jsonl" || echo 0)
  echo "demo: $done_frames/$FRAMES frames, $((done_frames - prev)) fps"
  prev=$done_frames
done
wait "$pid"
mv "$(ls "$out"/demo-snapshot-*.png | tail -n 1)" "$out/demo.png"
rm -f "$out"/demo-snapshot-*.png
lines=$(wc -l < "$out/demo.jsonl")
ids=$(grep -o '"id":[0-9]*' "$out/demo.jsonl" | sort -u | wc -l)
echo
echo "demo: done"
echo "  annotated video : $out/demo.mp4"
echo "  metadata        : $out/demo.jsonl ($lines frames, $ids distinct track ids)"
echo "  snapshot        : $out/demo.png"
echo "  watch it live   : .build/release/arserve pipelines/demo.pipeline"
# Only players this machine has (gst-play-1.0 comes with the demo's packages).
players=$(for p in gst-play-1.0 ffplay vlc mpv; do command -v "$p" >/dev/null && printf '%s, ' "$p"; done)
echo "                    then open rtsp://127.0.0.1:8554/ar in an RTSP player (installed here: ${players%, })"
echo "  load the plugin : export GST_PLUGIN_PATH=$AR_PLUGIN_DIR   (or: make install-user)"
