"""Each variant against main fused, round by round (the rounds interleave),
and the median of those ratios; bench.json of pdl_bench.py."""
import json, statistics, sys
rows = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "bench.json"))
names = ["split only (nocount)", "split+merge s32", "split+merge s32 PDL notrig",
         "split+merge s32 PDL", "split+merge s16 PDL", "split+merge s128 PDL", "SDPA cuDNN"]
print(f"{'row':24s} {'parts':>5s} {'main us':>8s} " + " ".join(f"{n.replace('split+merge ', 'sm ').replace('split only (nocount)', 'split only'):>14s}" for n in names))
for r in rows:
    m = r["impls"]["main fused"]["all_us"]
    cells = []
    for n in names:
        a = r["impls"][n]["all_us"]
        ratio = statistics.median(x / y for x, y in zip(a, m))
        cells.append(f"{r['impls'][n]['us']:6.2f} {ratio:5.3f}".rjust(14))
    print(f"GQA {r['Hq']}/{r['Hkv']} B={r['B']} L={r['L']}".ljust(24) + f" {r['parts']:5d} {statistics.median(m):8.2f} " + " ".join(cells))
