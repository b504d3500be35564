"""Run 1's table: each variant's time over main's (base) in the same rounds, per process,
and main's contiguous time against its read floor and cuDNN.

  python3 ratios.py run1/a.json run1/b.json     # ratios-run1.md
"""
import json
import sys


def times(path):
    d = json.load(open(path))
    out = {}
    for r in d["rows"]:
        im = {k: v["ms"] * 1000 for k, v in r["impls"].items()}
        base_first = "split_kv [base]" not in im
        t = {}
        for form, key in (("contiguous", "split_kv"), ("paged S=16", "paged S=16"), ("paged S=64", "paged S=64")):
            plain = "split_kv contiguous" if form == "contiguous" else key
            if base_first:   # --bundles base --variant nocompute --variant qk2
                t[form] = {"base": im[plain], "nocompute": im[key + " [nocompute]"], "qk2": im[key + " [qk2]"]}
            else:            # --bundles qk2 --variant base --variant nocompute
                t[form] = {"base": im[key + " [base]"], "nocompute": im[key + " [nocompute]"], "qk2": im[plain]}
        t["floor"] = im.get("read floor contiguous")
        t["cudnn"] = im["SDPA cuDNN"]
        out["GQA %d/%d B=%d L=%d" % (r["Hq"], r["Hkv"], r["B"], r["L"])] = t
    return out


def main(paths):
    runs = [times(p) for p in paths]
    print("<!-- python3 ratios.py %s -->" % " ".join(paths))
    print("| row | contiguous µs (base) | its read floor µs | cuDNN µs | nocompute / base: contiguous | S=16 | S=64 | qk2 / base: contiguous | S=16 | S=64 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in runs[0]:
        def span(f):
            vals = [f(r[row]) for r in runs if r[row] is not None and f(r[row]) is not None]
            lo, hi = min(vals), max(vals)
            a, b = "%.3f" % lo, "%.3f" % hi
            return a if a == b else "%s-%s" % (a, b)

        def us(f):
            vals = [f(r[row]) for r in runs if f(r[row]) is not None]
            return "-".join(sorted({"%.1f" % v for v in vals}, key=float)) if vals else ""
        cells = [us(lambda t: t["contiguous"]["base"]), us(lambda t: t["floor"]), us(lambda t: t["cudnn"])]
        for v in ("nocompute", "qk2"):
            for form in ("contiguous", "paged S=16", "paged S=64"):
                cells.append(span(lambda t: t[form][v] / t[form]["base"]))
        print("| %s | %s |" % (row, " | ".join(cells)))


if __name__ == "__main__":
    main(sys.argv[1:])
