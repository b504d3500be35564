#!/usr/bin/env python3
"""The benchmarks.md table of run 1 (bench.json): per row, the shipped form
(b8late: bound 8, trigger after the K/V loop) against main 67f485d
('[baseline]'), main f4eef72 ('[prev]', before the separate merge), the
three-kernel form at bound 1 (ours) and cuDNN; contiguous and paged S=16.
Ratios: median time / main's median time."""
import json, sys

d = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "bench.json"))
def us(r, k):
    return 1e3 * r["impls"][k]["ms"]
print("| row (work units) | contiguous: bound 8 | main | bound 1, 3 kernels | main f4eef72 | paged S=16: bound 8 | main | cuDNN |")
print("|---|---|---|---|---|---|---|---|")
for r in d["rows"]:
    units = r["B"] * r["Hkv"]
    c8, cm, c1, cp = (us(r, k) for k in ("split_kv [b8late]", "split_kv [baseline]",
                                         "split_kv contiguous", "split_kv [prev]"))
    p8, pm = us(r, "paged S=16 [b8late]"), us(r, "paged S=16 [baseline]")
    print(f"| GQA {r['Hq']}/{r['Hkv']} B={r['B']} L={r['L'] // 1024}k ({units}) | "
          f"{c8:.2f} ({c8 / cm:.3f}) | {cm:.2f} | {c1:.2f} ({c1 / cm:.3f}) | {cp:.2f} ({cp / cm:.3f}) | "
          f"{p8:.2f} ({p8 / pm:.3f}) | {pm:.2f} | {us(r, 'SDPA cuDNN'):.2f} |")
