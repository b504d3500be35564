"""Time of min2 (parts of at least 2 tiles) over main's (4) per row and form, in
processes where min2 is the variant (`FILE:a`) or main is (`FILE:b`):

    python3 abmin2.py run8/ab-a.json:a run8/ab-b.json:b run9/s90-a.json:a run9/s90-b.json:b
"""
import json
import sys

FORMS = [("split_kv contiguous", "split_kv [{}]"), ("paged S=16", "paged S=16 [{}]"),
         ("paged S=64", "paged S=64 [{}]")]


def ratios(path, slot):
    d = json.load(open(path))
    out = {}
    for r in d["rows"]:
        key = f"GQA {r['Hq']}/{r['Hkv']} B={r['B']} L={r['L']}"
        im = r["impls"]
        cells = []
        for base, var in FORMS:
            tag = "min2" if slot == "a" else "main"
            v, b = im[var.format(tag)]["ms"], im[base]["ms"]
            cells.append(v / b if slot == "a" else b / v)
        cudnn = im["SDPA cuDNN"]["ms"]
        mine = im[FORMS[0][1].format("min2")]["ms"] if slot == "a" else im[FORMS[0][0]]["ms"]
        out[key] = cells + [cudnn / mine]
    return out


def main(args):
    per = [ratios(*a.split(":")) for a in args]
    print(f"<!-- python3 abmin2.py {' '.join(args)} -->")
    print("| row | contiguous min2/main | paged S=16 | paged S=64 | cuDNN / min2 contiguous |")
    print("|---|---|---|---|---|")
    rows = []
    for p in per:
        rows += [k for k in p if k not in rows]
    for k in rows:
        cols = []
        for i in range(4):
            vals = [p[k][i] for p in per if k in p]
            cols.append(" / ".join(f"{v:.3f}" for v in vals))
        print(f"| {k} | " + " | ".join(cols) + " |")
    print(f"\nProcesses: {', '.join(a.split(':')[0] for a in args)} (slot a: min2 the variant; b: main the variant).")


if __name__ == "__main__":
    main(sys.argv[1:])
