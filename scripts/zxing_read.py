#!/usr/bin/env python3
"""zxing-cpp's readings, for arbench (a benchmark-only helper; needs the PyPI packages zxing-cpp and Pillow).

    zxing_read.py [--formats F1,F2]                      image paths on stdin, one per line
    zxing_read.py --i420 WIDTH HEIGHT FILE [--formats …]  every frame of a raw I420 clip (its luma plane)

Prints JSON lines: first {"version": "<zxing-cpp version>"}, then one line per image or frame:
{"index": N, "ms": <milliseconds in zxingcpp.read_barcodes>, "codes": [{"format": "QRCode", "text": "…",
"bytes": "<base64 of the exact bytes>", "quad": [[x, y] × 4]}]} (an unreadable image: "error" instead
of "codes"). read_barcodes runs with zxing-cpp's defaults (try_rotate, try_downscale, try_invert,
text mode HRI); --formats restricts the formats (default: all). Timing: time.perf_counter around the
one read_barcodes call, in this process, single-threaded; reading and converting the image are not
counted.
"""
import base64
import importlib.metadata
import json
import sys
import time

import zxingcpp
from PIL import Image


def codes(image, formats):
    start = time.perf_counter()
    found = zxingcpp.read_barcodes(image, formats) if formats else zxingcpp.read_barcodes(image)
    ms = (time.perf_counter() - start) * 1000
    out = []
    for b in found:
        p = b.position
        out.append({"format": b.format.name, "text": b.text, "bytes": base64.b64encode(b.bytes).decode(),
                    "quad": [[c.x, c.y] for c in (p.top_left, p.top_right, p.bottom_right, p.bottom_left)]})
    return ms, out


def main(argv):
    formats = None
    if "--formats" in argv:
        i = argv.index("--formats")
        formats = zxingcpp.BarcodeFormats([getattr(zxingcpp.BarcodeFormat, name) for name in argv[i + 1].split(",")])
        del argv[i:i + 2]
    print(json.dumps({"version": importlib.metadata.version("zxing-cpp")}), flush=True)
    if argv[:1] == ["--i420"]:
        width, height, path = int(argv[1]), int(argv[2]), argv[3]
        frame_bytes = width * height + 2 * ((width + 1) // 2) * ((height + 1) // 2)
        with open(path, "rb") as f:
            index = 0
            while len(data := f.read(frame_bytes)) == frame_bytes:
                ms, found = codes(Image.frombuffer("L", (width, height), data[:width * height], "raw", "L", 0, 1), formats)
                print(json.dumps({"index": index, "ms": ms, "codes": found}), flush=True)
                index += 1
        return
    for index, path in enumerate(line.rstrip("\n") for line in sys.stdin):
        try:
            with Image.open(path) as image:
                ms, found = codes(image.convert("RGB") if image.mode not in ("L", "RGB") else image, formats)
            print(json.dumps({"index": index, "ms": ms, "codes": found}), flush=True)
        except Exception as error:  # one unreadable image must not end the run
            print(json.dumps({"index": index, "error": str(error)}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
