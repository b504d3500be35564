#!/usr/bin/env python3
"""Tables of the forty-seventh session's prefetch A/B: per row, each variant's paged time
over base's in the same rounds (one column per process), and cuDNN's time over each
build's paged time.  usage: pf.py FILE:MAINSLOT ... (MAINSLOT: the build in the
unbracketed slot of that file). Times are read by flash_mlir.tools.decode_goals."""
import json
import sys

from flash_mlir.tools.decode_goals import build_times


def load(arg):
    """{build: {row name: times}} of one decode_bench process."""
    path, main = arg.split(":")
    data = json.load(open(path))
    tags = {k.split("[")[1].rstrip("]") for r in data["rows"] for k in r["impls"] if "[" in k}
    return {b: build_times(data, main, b) for b in tags | {main}}


files = [load(a) for a in sys.argv[1:]]
builds = sorted(set(files[0]) - {"base"})
names = list(files[0]["base"])
print(f"<!-- python3 pf.py {' '.join(sys.argv[1:])} -->")
cols = [f"{b} / base {s}" for s in ("S=16", "S=64") for b in builds]
cols += [f"cuDNN / {s} {b}" for s in ("S=16", "S=64") for b in ["base"] + builds]
print("| row | " + " | ".join(cols) + " |")
print("|---" * (len(cols) + 1) + "|")
for name in names:
    t = lambda f, b, s: f[b][name]["times"][s]
    cells = []
    for s in ("S=16", "S=64"):
        for b in builds:
            cells.append(" / ".join(f"{t(f, b, s) / t(f, 'base', s):.3f}" for f in files))
    for s in ("S=16", "S=64"):
        for b in ["base"] + builds:
            cells.append(" / ".join(f"{t(f, b, 'cudnn') / t(f, b, s):.3f}" for f in files))
    print(f"| {name} | " + " | ".join(cells) + " |")
