#!/usr/bin/env python3
"""Draws on every tracked code from Python with pycairo, through aroverlay's `draw` signal.

  python3 docs/examples/draw_on_codes.py                        # generated codes (arcodesrc), in a window
  python3 docs/examples/draw_on_codes.py --png last.png         # no display: the last frame as a PNG
  python3 docs/examples/draw_on_codes.py --source "v4l2src ! videoconvert"

`draw` is emitted per code per frame, only while a handler is connected, with a cairo context
(`CairoContext`, a cairo.Context in Python) in frame pixels and the code's `arbarcode` structure
(`data`, `symbology`, `quad`: 8 doubles x0,y0 ... x3,y3 clockwise from the code's own top-left,
`track-id`, `opacity` 0-1, `present`). What the handler draws is composited like aroverlay's own
overlays, over them and with the same fade in and out (`opacity` is applied to it): here a magenta
disc on the code's centre and its track id beside it. It runs on the streaming thread, so keep it
short.

--source is a gst-launch description giving raw video (default: arcodesrc, grey frames: aroverlay
hands downstream colour frames so the magenta stays magenta); the script adds
`! arbarcodetrack ! aroverlay name=overlay ! videoconvert ! autovideosink` (with --png: `pngenc`
writing every frame over FILE, so FILE ends as the last frame) and prints how many discs it drew.

Needs Debian's python3 with python3-gi, gir1.2-gstreamer-1.0 and python3-gi-cairo (scripts/deps.sh
build installs them), and the plugin: `make install-user`, or GST_PLUGIN_PATH=.build/release.
"""
import argparse
import math
import sys
import warnings

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

import cairo  # noqa: E402,F401  (pycairo: PyGObject turns the CairoContext into a cairo.Context)

DISC_RADIUS = 8  # pixels


def quad_of(track):
    """The code's four corners [(x, y), ...] in frame pixels."""
    _, quad = track.get_array("quad")
    with warnings.catch_warnings():  # GValueArray is deprecated in GLib, but get_array returns it
        warnings.simplefilter("ignore", DeprecationWarning)
        q = [quad.get_nth(i) for i in range(quad.n_values)]
    return [(q[i], q[i + 1]) for i in range(0, 8, 2)]


def main():
    parser = argparse.ArgumentParser(description="Draw on tracked codes with pycairo")
    parser.add_argument("--source", default="arcodesrc num-buffers=90 codes=4", help="gst-launch description of raw video")
    parser.add_argument("--png", help="write the frames as PNG to this file (the last one stays) instead of a window")
    args = parser.parse_args()

    Gst.init(None)
    sink = f"videoconvert ! pngenc ! multifilesink location={args.png}" if args.png else "videoconvert ! autovideosink"
    pipeline = Gst.parse_launch(f"{args.source} ! arbarcodetrack ! aroverlay name=overlay ! {sink}")
    drawn = 0

    def on_draw(overlay, cr, track):
        nonlocal drawn
        quad = quad_of(track)
        cx = sum(x for x, _ in quad) / 4
        cy = sum(y for _, y in quad) / 4
        cr.set_source_rgb(1, 0, 1)
        cr.arc(cx, cy, DISC_RADIUS, 0, 2 * math.pi)
        cr.fill()
        cr.move_to(cx + DISC_RADIUS + 4, cy + DISC_RADIUS)
        cr.set_font_size(2 * DISC_RADIUS)
        cr.show_text(str(track.get_value("track-id")))
        drawn += 1

    pipeline.get_by_name("overlay").connect("draw", on_draw)
    pipeline.set_state(Gst.State.PLAYING)
    message = pipeline.get_bus().timed_pop_filtered(Gst.CLOCK_TIME_NONE, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if message.type == Gst.MessageType.ERROR:
        error, debug = message.parse_error()
        print(f"draw_on_codes: {error.message} ({debug})", file=sys.stderr)
        return 1
    print(f"drew {drawn} discs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
