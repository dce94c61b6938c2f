#!/usr/bin/env python3
"""Sends exactly COUNT requests of one shape, one after another over keep-alive connections,
and checks each answer (status 200, the body read to its end, its length when known).

Usage: drive.py PORT SHAPE COUNT [--connections C] [--host H]
  SHAPE is a path of handlers.js (tiny, medium, large, static1m, proxy, ...); `echo` POSTs
  64 KiB (as post.lua does) and checks that they come back.
For scripts/instructions-http: a fixed number of requests, so that a server's instruction
count over them is the same from run to run (wrk runs for a time instead)."""
import http.client
import sys
import threading

LENGTHS = {
    "tiny": 64 * 256, "small": 256 * 100, "medium": 4096 * 100, "large": 65536 * 16,
    "static1m": 1 << 20, "proxy": 1 << 20, "echo": 65536, "ok": 2,
}


def main():
    args = sys.argv[1:]
    connections, host = 1, "127.0.0.1"
    while "--connections" in args:
        i = args.index("--connections")
        connections = int(args[i + 1])
        del args[i:i + 2]
    while "--host" in args:
        i = args.index("--host")
        host = args[i + 1]
        del args[i:i + 2]
    port, shape, count = int(args[0]), args[1], int(args[2])
    base = shape.split("-")[0]
    expect = LENGTHS.get(shape, LENGTHS.get(base))
    body = b"x" * 65536 if shape == "echo" else None
    errors = []

    def run(n):
        conn = http.client.HTTPConnection(host, port)
        for _ in range(n):
            if body is None:
                conn.request("GET", "/" + shape)
            else:
                conn.request("POST", "/" + shape, body,
                             {"Content-Type": "application/octet-stream"})
            response = conn.getresponse()
            data = response.read()
            if response.status != 200 or (expect is not None and len(data) != expect):
                errors.append(f"{shape}: status {response.status}, {len(data)} bytes")
                return
            if body is not None and data != body:
                errors.append(f"{shape}: the echo differs")
                return
        conn.close()

    per = [count // connections + (1 if i < count % connections else 0) for i in range(connections)]
    threads = [threading.Thread(target=run, args=(n,)) for n in per]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        print("\n".join(errors[:5]), file=sys.stderr)
        sys.exit(1)


main()
