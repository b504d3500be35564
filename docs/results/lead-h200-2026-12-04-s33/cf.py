"""Prints the combine-floor table of the thirty-third session's runs (µs per call,
min-max over the processes given; each process's best (blocks, unroll) per case).

    python3 cf.py run1/cf-a.json run1/cf-b.json run2/cf-a.json ...   > cf-table.md
    python3 cf.py --ours run1/db-a.json run2/db-a.json ...            (decode_bench rows)
"""
import json
import statistics
import sys

MODES = {0: "read", 1: "last", 2: "pdl", 3: "cp.async", 4: "bulk", 5: "cluster"}
SIZES = ["8/1 B=1 L=8k", "8/1 B=1 L=32k", "8/1 B=1 L=128k"]


def label(c):
    mode = MODES[c["mode"]]
    if mode == "cluster":
        room = ", in 128 KiB" if c["stages"] == 4 else ""
        return (f"cp.async {c['blocks']} blocks, 3 stages{room}, clusters of "
                f"{c['cluster']} reduced in shared memory, then 1024-word partials + pdl merge")
    if mode in ("cp.async", "bulk"):
        text = f"{mode} {c['blocks']} blocks, {c['stages']} stages"
        if c.get("decode_order"):
            text += ", decode order"
        if c["len"]:
            text += ", length first"
        if c["words"]:
            text += f", {c['words']}-word partials + pdl merge"
        return text
    text = {"read": "ld read", "last": "ld read + last-block combine",
            "pdl": "ld read + pdl merge"}[mode]
    if mode != "read":
        text += f", {c['words']}-word partials"
    if c["len"]:
        text += ", length first"
    return text


def best_per_file(path):
    out = {}
    cases = json.load(open(path))["cases"]
    # Runs 2-4 wrote words = 1 for a cp.async or bulk stream without partials (no
    # merge); from run 5 on that is words = 0, and 1 means one word + merge.
    old = not any(c["mode"] == 3 and c["words"] == 0 for c in cases)
    for c in cases:
        if c["mode"] == 1 and c["words"] == 1024:
            continue  # run 1 only: one block reading every part's 4 KB
        if old and c["mode"] in (3, 4) and c["words"] == 1:
            c["words"] = 0
        us = statistics.median(c["us_per_call"])
        key = (c["size"], c["cold"], label(c))
        out[key] = min(out.get(key, 1e30), us)
    return out


def floors(paths):
    per = [best_per_file(p) for p in paths]
    keys = []
    for d in per:
        keys += [k for k in d if k not in keys]
    print(f"<!-- python3 cf.py {' '.join(paths)} -->")
    print("| case | " + " | ".join(f"{s}{' cold' if c else ''}" for c in (False, True)
                                    for s in SIZES) + " |")
    print("|---" * 7 + "|")
    labels = []
    for k in keys:
        if k[2] not in labels:
            labels.append(k[2])
    for lab in labels:
        cells = []
        for cold in (False, True):
            for s in SIZES:
                vals = [d[(s, cold, lab)] for d in per if (s, cold, lab) in d]
                cells.append(f"{min(vals):.2f}-{max(vals):.2f}" if vals else "")
        print(f"| {lab} | " + " | ".join(cells) + " |")
    print(f"\nProcesses: {', '.join(paths)}. µs per call.")


def ours(paths):
    print(f"<!-- python3 cf.py --ours {' '.join(paths)} -->")
    for p in paths:
        d = json.load(open(p))
        print(f"{p}: read ceilings {d['ceiling_TBps']:.2f} TB/s (sum over 4 GiB), "
              f"{d['kernel_ceiling_TBps']:.2f} (read_ceiling.ptx)")
        for row in d["rows"]:
            line90 = row["bytes"] / (0.9 * row["ceiling_TBps"] * 1e12) * 1e6
            cells = ", ".join(f"{name} {i['ms'] * 1000:.2f}"
                              for name, i in row["impls"].items())
            print(f"  GQA {row['Hq']}/{row['Hkv']} B={row['B']} L={row['L']}: "
                  f"90% of the sum's ceiling {line90:.2f} us; {cells}")


if __name__ == "__main__":
    if sys.argv[1] == "--ours":
        ours(sys.argv[2:])
    else:
        floors(sys.argv[1:])
