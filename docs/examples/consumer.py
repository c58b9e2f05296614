#!/usr/bin/env python3
"""Receives arexport's JSON lines over the network and prints each code as it changes.

  python3 docs/examples/consumer.py tcp 5000   # then: ... ! arexport location=tcp://THIS_HOST:5000 ! ...
  python3 docs/examples/consumer.py udp 5000   # then: ... ! arexport location=udp://THIS_HOST:5000 ! ...

Each line is one frame: {"frame", "pts", "width", "height", "objects": [{"id", "symbology",
"data", "quad", "state"}]} (see README). Regions seen but not read (state "located": id 0, a class
"1D"/"2D", no "data") are skipped. Standard library only.
"""
import json
import socket
import sys


def frames(kind, port):
    if kind == "udp":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("0.0.0.0", port))
        while True:
            data, _ = s.recvfrom(65536)
            yield json.loads(data)
    else:
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("0.0.0.0", port))
        server.listen(1)
        conn, peer = server.accept()
        print(f"connected: {peer[0]}", file=sys.stderr)
        for line in conn.makefile("r", encoding="utf-8"):
            yield json.loads(line)


def main():
    kind, port = sys.argv[1], int(sys.argv[2])
    seen = {}
    for frame in frames(kind, port):
        for obj in frame["objects"]:
            if obj["state"] == "located":
                continue
            if seen.get(obj["id"]) != obj["state"]:
                seen[obj["id"]] = obj["state"]
                cx = sum(p[0] for p in obj["quad"]) / 4
                cy = sum(p[1] for p in obj["quad"]) / 4
                print(f'frame {frame["frame"]}: #{obj["id"]} {obj["symbology"]} "{obj["data"]}" '
                      f'{obj["state"]} at ({cx:.0f}, {cy:.0f})')


if __name__ == "__main__":
    main()
