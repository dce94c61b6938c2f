#!/usr/bin/env python3
"""Replaces placeholder reasons in wpt-runner/expectations.txt with the area's standing reason.

Only entries whose reason is one of PLACEHOLDERS are touched; a hand-written reason is kept.
Usage: scripts/expectation-reasons.py [PATH]
"""
import re
import sys

PLACEHOLDERS = {"not implemented yet", "TODO: explain"}

# (path prefix, subtest-name pattern or None, reason); first match wins.
RULES = [
    ("streams/readable-streams/owning-type", None,
     "tentative proposal (owning type, transfer lists), not in the Streams Standard"),
    ("streams/idlharness.any.js", r"ReadableByteStreamController|ReadableStreamBYOB|readableByteStreamController|readableStreamByob",
     "byte streams not implemented yet (#6)"),
    ("streams/idlharness.any.js", r"TransformStream|transformStream",
     "TransformStream not implemented yet (#5)"),
    ("streams/idlharness.any.js", r"WritableStream|writableStream",
     "WritableStream not implemented yet (#4)"),
    ("streams/idlharness.any.js", r"ReadableStream|readableStream",
     "ReadableStream not implemented yet (#3)"),
    ("streams/readable-streams/", None, "ReadableStream not implemented yet (#3)"),
    ("streams/readable-byte-streams/", None, "byte streams not implemented yet (#6)"),
    ("streams/writable-streams/", None, "WritableStream not implemented yet (#4)"),
    ("streams/transform-streams/", None, "TransformStream not implemented yet (#5)"),
    ("streams/piping/", None, "pipeTo/pipeThrough not implemented yet (#5)"),
    ("streams/transferable/", None,
     "needs TransformStream (#5) and structuredClone transfer of streams (DataCloneError)"),
    ("encoding/streams/", None,
     "TextEncoderStream/TextDecoderStream not implemented (no issue covers them yet)"),
    ("compression/", None,
     "CompressionStream/DecompressionStream not implemented (no issue covers them yet)"),
]


def reason_for(path, name):
    for prefix, pattern, reason in RULES:
        if path.startswith(prefix) and (pattern is None or re.search(pattern, name)):
            return reason
    return None


def main():
    target = sys.argv[1] if len(sys.argv) > 1 else "wpt-runner/expectations.txt"
    out, path, changed = [], None, 0
    for line in open(target, encoding="utf-8").read().split("\n"):
        m = re.match(r"^\[(.*)\]$", line)
        if m:
            path = m.group(1)
        elif path and " # " in line:
            head, _, reason = line.rpartition("  # ")
            if reason.strip() in PLACEHOLDERS:
                new = reason_for(path, head)
                if new:
                    line = f"{head}  # {new}"
                    changed += 1
        out.append(line)
    open(target, "w", encoding="utf-8").write("\n".join(out))
    print(f"{changed} reasons set")


if __name__ == "__main__":
    main()
