#!/usr/bin/env python3
"""Tables of the forty-seventh session's prefetch A/B: per row, each variant's paged time
over base's in the same rounds (one column per process), and cuDNN's time over each
build's paged time.  usage: pf.py FILE:MAINSLOT ... (MAINSLOT: the build in the
unbracketed slot of that file)."""
import json
import sys

def load(arg):
    path, main = arg.split(":")
    d = json.load(open(path))
    out = []
    for r in d["rows"]:
        t = {}
        for k, v in r["impls"].items():
            if v.get("ms") is None:
                continue
            if k.startswith("paged S="):
                s = k.split()[1]
                build = k.split("[")[1].rstrip("]") if "[" in k else main
                t[(s, build)] = v["ms"] * 1e3
            elif k.startswith("split_kv"):
                build = k.split("[")[1].rstrip("]") if "[" in k else main
                t[("contig", build)] = v["ms"] * 1e3
            elif k == "SDPA cuDNN":
                t["cudnn"] = v["ms"] * 1e3
        out.append((f"GQA {r['Hq']}/{r['Hkv']} B={r['B']} L={r['L']}", t))
    return out

files = [load(a) for a in sys.argv[1:]]
builds = sorted({k[1] for _, t in files[0] for k in t if isinstance(k, tuple)} - {"base"})
print(f"<!-- python3 pf.py {' '.join(sys.argv[1:])} -->")
cols = [f"{b} / base {s}" for s in ("S=16", "S=64") for b in builds]
cols += [f"cuDNN / {s} {b}" for s in ("S=16", "S=64") for b in ["base"] + builds]
print("| row | " + " | ".join(cols) + " |")
print("|---" * (len(cols) + 1) + "|")
for i, (name, _) in enumerate(files[0]):
    cells = []
    for s in ("S=16", "S=64"):
        for b in builds:
            cells.append(" / ".join(f"{f[i][1][(s, b)] / f[i][1][(s, 'base')]:.3f}" for f in files))
    for s in ("S=16", "S=64"):
        for b in ["base"] + builds:
            cells.append(" / ".join(f"{f[i][1]['cudnn'] / f[i][1][(s, b)]:.3f}" for f in files))
    print(f"| {name} | " + " | ".join(cells) + " |")
