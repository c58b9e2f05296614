#!/usr/bin/env python3
"""Reads the codes arbarcode found on every buffer, in a Python application (PyGObject).

  python3 docs/examples/read_codes.py                      # generated codes (arcodesrc), 60 frames
  python3 docs/examples/read_codes.py "v4l2src ! videoconvert ! arbarcodetrack"
  python3 docs/examples/read_codes.py "filesrc location=clip.mp4 ! decodebin ! videoconvert ! arbarcodetrack"

PIPELINE (a gst-launch description) must give raw video that passed arbarcodetrack (or
arbarcodedetect, or arbarcodedetect ! artrack); the script ends it with a fakesink and reads each
buffer there with a pad probe. Prints one line per code per frame:

  frame 12 id 3 QR-Code detected quad 431.0,71.0 529.0,70.0 530.0,170.0 430.0,169.0 data "HELLO"

`data` is the payload as JSON text (exact: decoded from the payload bytes); a payload that is not
UTF-8 is printed as `payload_base64 ...` instead. Quads are in pixels of the frame the probe sees.

Where the codes are: the per-frame custom meta `ArBarcodeMeta`, a structure `arbarcode-frame` with
the `width` and `height` its quads refer to and a `codes` list of `arbarcode` structures (`data`,
`payload`, `symbology`, `quad`, `state`, `track-id`, ...; see README, "Metadata on buffers").
Converters and scalers (videoconvert, videoscale) copy it unchanged, so a reader rescales the quads
from `width` x `height` to the frame it sees. The standard GstVideoRegionOfInterestMeta of each code
is there too, but GStreamer 1.22 drops its `arbarcode` params when videoconvert or videoscale
copies it: read the custom meta.

Needs Debian's python3 with python3-gi and gir1.2-gstreamer-1.0 (scripts/deps.sh build installs
them), and the plugin: `make install-user`, or GST_PLUGIN_PATH=.build/release.
"""
import base64
import json
import sys
import warnings

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

DEFAULT = ("arcodesrc num-buffers=60 codes=4 ! arbarcodetrack"
           " ! videoconvert ! videoscale ! video/x-raw,format=BGRx,width=640,height=360")


def items(array):
    """The values of a GObject.ValueArray, as Gst.Structure.get_list and get_array return them."""
    with warnings.catch_warnings():  # GValueArray is deprecated in GLib, but it is what they return
        warnings.simplefilter("ignore", DeprecationWarning)
        return [array.get_nth(i) for i in range(array.n_values)]


def codes(buffer, width, height):
    """The codes on `buffer` (a frame of width x height pixels) as dicts; [] without the meta."""
    meta = buffer.get_custom_meta("ArBarcodeMeta")
    if meta is None:
        return []
    frame = meta.get_structure()
    ok, listed = frame.get_list("codes")
    if not ok:
        return []
    sx, sy = width / frame.get_value("width"), height / frame.get_value("height")
    found = []
    for code in items(listed):
        if code.get_value("state") == "located":  # seen, not read: no payload, no id
            continue
        _, quad = code.get_array("quad")
        q = items(quad)
        payload = code.get_value("payload").get_data()
        found.append({
            "id": code.get_value("track-id") if code.has_field("track-id") else 0,
            "symbology": code.get_value("symbology"),
            "state": code.get_value("state"),
            "quad": [(q[i] * sx, q[i + 1] * sy) for i in range(0, 8, 2)],
            "payload": bytes(payload),
        })
    return found


def describe(code):
    quad = " ".join(f"{x:.1f},{y:.1f}" for x, y in code["quad"])
    try:
        text = "data " + json.dumps(code["payload"].decode("utf-8"), ensure_ascii=False)
    except UnicodeDecodeError:
        text = "payload_base64 " + base64.b64encode(code["payload"]).decode("ascii")
    return f"id {code['id']} {code['symbology']} {code['state']} quad {quad} {text}"


def main():
    Gst.init(None)
    description = sys.argv[1] if len(sys.argv) > 1 else DEFAULT
    pipeline = Gst.parse_launch(description + " ! fakesink name=ar_sink")
    pad = pipeline.get_by_name("ar_sink").get_static_pad("sink")
    frame = 0

    def on_buffer(pad, info):
        nonlocal frame
        caps = pad.get_current_caps().get_structure(0)
        for code in codes(info.get_buffer(), caps.get_value("width"), caps.get_value("height")):
            print(f"frame {frame} {describe(code)}", flush=True)
        frame += 1
        return Gst.PadProbeReturn.OK

    pad.add_probe(Gst.PadProbeType.BUFFER, on_buffer)
    pipeline.set_state(Gst.State.PLAYING)
    message = pipeline.get_bus().timed_pop_filtered(Gst.CLOCK_TIME_NONE, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if message.type == Gst.MessageType.ERROR:
        error, debug = message.parse_error()
        print(f"read_codes: {error.message} ({debug})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
