#!/usr/bin/env python3
"""Every implementation of every row of a decode_bench JSON against main's
bundle ('[baseline]', same layout), round by round: median µs, the rounds,
and the per-round ratios (round i of the implementation / round i of main's)."""
import json, sys

data = json.load(open(sys.argv[1]))
for row in data["rows"]:
    impls = row["impls"]
    print(f"GQA {row['Hq']}/{row['Hkv']} B={row['B']} L={row['L']}")
    for name, r in impls.items():
        if "ms" not in r:
            continue
        layout = "paged S=16" if name.startswith("paged S=16") else \
            "paged S=64" if name.startswith("paged S=64") else \
            "split_kv" if name.startswith("split_kv") else None
        base = {"paged S=16": "paged S=16 [baseline]", "split_kv": "split_kv [baseline]"}.get(layout)
        rounds = " ".join(f"{1e3 * t:7.2f}" for t in r["all_ms"])
        line = f"  {name:24s} {1e3 * r['ms']:8.2f} us  rounds {rounds}"
        if base and base in impls and "all_ms" in impls[base] and name != base:
            ratios = [a / b for a, b in zip(r["all_ms"], impls[base]["all_ms"])]
            med = r["ms"] / impls[base]["ms"]
            line += f"  / main {med:.3f} (rounds {min(ratios):.3f}-{max(ratios):.3f})"
        print(line)
