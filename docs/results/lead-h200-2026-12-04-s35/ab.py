"""Ratios of variant over base per row and form, from decode_bench JSONs.
usage: ab.py BASE VAR FILE:slotname... where slotname is the primary's name in that file."""
import json, sys
base, var = sys.argv[1], sys.argv[2]
forms = ["split_kv", "paged S=16", "paged S=64"]
ALIAS = {"s80main": "main"}
def key(form, name, prim, d=None):
    if name == prim or ALIAS.get(name) == prim:
        return "split_kv contiguous" if form == "split_kv" else form
    return f"{form} [{name}]"
out = {}
for arg in sys.argv[3:]:
    f, prim = arg.split(":")
    d = json.load(open(f))
    for r in d["rows"]:
        im = r["impls"]
        row = f"GQA {r['Hq']}/{r['Hkv']} B={r['B']} L={r['L']}"
        for form in forms:
            try:
                a = im[key(form, base, prim)]["ms"]; b = im[key(form, var, prim)]["ms"]
            except KeyError:
                continue
            out.setdefault(row, {}).setdefault(form, []).append((b / a, a * 1e3, b * 1e3))
print(f"| row | " + " | ".join(f"{f} {var}/{base}" for f in forms) + " |")
print("|---|" + "---|" * len(forms))
for row, fs in out.items():
    cells = []
    for form in forms:
        v = fs.get(form, [])
        cells.append(" / ".join(f"{x[0]:.3f}" for x in v) + (f" ({v[0][1]:.2f} µs)" if v else ""))
    print(f"| {row} | " + " | ".join(cells) + " |")
