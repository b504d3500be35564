"""pair.py's JSON as a table: per row, min-max over the files of cuDNN's time over ours
(contiguous, paged, the pair kernel alone) and the pair kernel's time over the paged plan's.

  python3 pair_table.py run1/pair64-a.json run1/pair64-b.json > pair64.md
"""
import json
import sys


def main(files):
    rows = {}
    for path in files:
        for r in json.load(open(path))["rows"]:
            ms = {n: i["ms"] for n, i in r["impls"].items() if "ms" in i}
            key = "GQA %d/%d B=%d L=%d D=%d" % (r["Hq"], r["Hkv"], r["B"], r["L"], r["D"])
            cells = rows.setdefault(key, {})
            c = ms["SDPA cuDNN"]
            vals = {"cuDNN / contiguous": c / ms["split_kv contiguous"]}
            for p in (16, 64):
                vals["cuDNN / S=%d" % p] = c / ms["paged S=%d" % p]
                vals["cuDNN / S=%d pair" % p] = c / ms["paged S=%d pair" % p]
                vals["S=%d pair / S=%d" % (p, p)] = ms["paged S=%d pair" % p] / ms["paged S=%d" % p]
            for k, v in vals.items():
                cells.setdefault(k, []).append(v)
    cols = list(next(iter(rows.values())))
    print("<!-- python3 pair_table.py %s -->" % " ".join(files))
    print("| row | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for key, cells in rows.items():
        print("| %s | %s |" % (key, " | ".join(
            "%.3f" % min(cells[c]) if len(set("%.3f" % x for x in cells[c])) == 1
            else "%.3f-%.3f" % (min(cells[c]), max(cells[c])) for c in cols)))


if __name__ == "__main__":
    main(sys.argv[1:])
