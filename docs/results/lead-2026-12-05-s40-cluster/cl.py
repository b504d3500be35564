"""Run 1's table: each cluster variant's time over main's (base) in the same rounds, per
row and form, min-max over the processes (a.json: base primary, b.json: cl8 primary).
usage: python3 cl.py run1/a.json:base run1/b.json:cl8"""
import json
import sys

FORMS = ("split_kv contiguous", "paged S=16", "paged S=64")
out = {}
for arg in sys.argv[1:]:
    path, primary = arg.split(":")
    for r in json.load(open(path))["rows"]:
        im = r["impls"]

        def ms(form, build):
            if build == primary:
                return im[form]["ms"]
            return im[("split_kv" if form == "split_kv contiguous" else form) + " [%s]" % build]["ms"]

        row = out.setdefault("GQA %d/%d B=%d L=%d" % (r["Hq"], r["Hkv"], r["B"], r["L"]), {})
        row.setdefault("contiguous µs (base)", []).append(ms("split_kv contiguous", "base") * 1e3)
        row.setdefault("cuDNN µs", []).append(im["SDPA cuDNN"]["ms"] * 1e3)
        for c in ("cl2", "cl4", "cl8"):
            for form in FORMS:
                key = "%s: %s" % (c, form.split()[-1] if form.startswith("paged") else "contiguous")
                row.setdefault(key, []).append(ms(form, c) / ms(form, "base"))
names = list(next(iter(out.values())))
print("<!-- python3 cl.py %s -->" % " ".join(sys.argv[1:]))
print("| row | " + " | ".join(names) + " |")
print("|---|" + "---|" * len(names))
for row, vals in out.items():
    cells = []
    for n in names:
        lo, hi = min(vals[n]), max(vals[n])
        f = "%.1f" if "µs" in n else "%.3f"
        cells.append(f % lo if f % lo == f % hi else (f % lo) + "-" + (f % hi))
    print("| %s | %s |" % (row, " | ".join(cells)))
