"""Run 3's read floors against ours and cuDNN, min-max over the processes (µs).
usage: python3 floors.py run3/rf-a.json run3/rf-b.json"""
import json, sys
cols = ["split_kv contiguous", "paged S=16", "paged S=64", "read floor contiguous",
        "read floor S=16", "read floor S=64", "SDPA cuDNN"]
rows = {}
for f in sys.argv[1:]:
    for r in json.load(open(f))["rows"]:
        row = rows.setdefault(f"GQA {r['Hq']}/{r['Hkv']} B={r['B']} L={r['L']}", {})
        for c in cols:
            row.setdefault(c, []).append(r["impls"][c]["ms"] * 1e3)
        for form in ("paged S=16", "paged S=64"):
            row.setdefault(form + " % of contiguous", []).append(
                100 * r["impls"]["split_kv contiguous"]["ms"] / r["impls"][form]["ms"])
        row.setdefault("contiguous / its floor", []).append(
            r["impls"]["split_kv contiguous"]["ms"] / r["impls"]["read floor contiguous"]["ms"])
keys = cols + ["paged S=16 % of contiguous", "paged S=64 % of contiguous", "contiguous / its floor"]
print(f"<!-- python3 floors.py {' '.join(sys.argv[1:])} -->")
print("| row | " + " | ".join(keys) + " |")
print("|---|" + "---|" * len(keys))
for name, row in rows.items():
    fmt = lambda v: f"{min(v):.2f}-{max(v):.2f}" if max(v) > 2 else f"{min(v):.3f}-{max(v):.3f}"
    print(f"| {name} | " + " | ".join(fmt(row[k]) for k in keys) + " |")
