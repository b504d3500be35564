"""Paged variants over main's contiguous time, per row, on sequential pages.
usage: deps.py FILE:PRIMARY ... (variants named main, seqpro, seqloop, both, lenM, seqpages)"""
import json, sys
names = ["main", "lenM", "seqpro", "seqloop", "seqpages", "both"]
out = {}
for arg in sys.argv[1:]:
    f, prim = arg.split(":")
    for r in json.load(open(f))["rows"]:
        im = r["impls"]
        key = lambda n, form: form if n == prim else f"{form} [{n}]"
        c = im["split_kv contiguous" if prim == "main" else "split_kv [main]"]["ms"]
        row = out.setdefault(f"GQA {r['Hq']}/{r['Hkv']} B={r['B']} L={r['L']}", {})
        row.setdefault("contiguous µs", []).append(c * 1e3)
        for form in ("paged S=16 seq", "paged S=64 seq"):
            for n in names:
                k = key(n, form)
                if k in im:
                    row.setdefault(f"{form[6:10]} {n}", []).append(im[k]["ms"] / c)
cols = [c for c in next(iter(out.values()))]
print(f"<!-- python3 deps.py {' '.join(sys.argv[1:])} -->")
print("| row | " + " | ".join(cols) + " |")
print("|---|" + "---|" * len(cols))
for row, v in out.items():
    print(f"| {row} | " + " | ".join(
        f"{min(v[c]):.2f}-{max(v[c]):.2f}" if "µs" in c else " / ".join(f"{x:.3f}" for x in v[c])
        for c in cols) + " |")
