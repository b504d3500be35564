"""Twenty-ninth session, run 9: fastonly (the paged separate kernel without its other copy
paths) against main: time ratios per page size and order (process a, slots swapped in b),
paged S = 16 as a share of contiguous, and fastonly's largest max error.
Usage: python3 fastonly.py run9."""
import json
import sys

R = sys.argv[1]


def load(f):
    d = json.load(open(f"{R}/{f}.json"))
    return {f"GQA {r['Hq']}/{r['Hkv']} B={r['B']} L={r['L'] // 1024}k":
            ({k: v["ms"] * 1000 for k, v in r["impls"].items()},
             {k: v["max_err"] for k, v in r["impls"].items()}) for r in d["rows"]}


a, b = load("a"), load("b")
print("| row | S=16 fastonly/main (a, b) | S=16 seq | S=64 | S=64 seq | paged S=16 % of contiguous: fastonly (a, b) | main (a, b) | max err fastonly |")
print("|---|---|---|---|---|---|---|---|")
for k in a:
    (A, Ea), (B, _) = a[k], b[k]
    cells = [f"{A[f + ' [fastonly]'] / A[f]:.3f} / {B[f] / B[f + ' [main]']:.3f}"
             for f in ("paged S=16", "paged S=16 seq", "paged S=64", "paged S=64 seq")]
    ours = f"{100 * A['split_kv contiguous'] / A['paged S=16 [fastonly]']:.1f} / {100 * B['split_kv contiguous'] / B['paged S=16']:.1f}"
    main = f"{100 * A['split_kv contiguous'] / A['paged S=16']:.1f} / {100 * B['split_kv contiguous'] / B['paged S=16 [main]']:.1f}"
    err = max(v for n, v in Ea.items() if "fastonly" in n)
    print(f"| {k} | " + " | ".join(cells) + f" | {ours} | {main} | {err:.2e} |")
