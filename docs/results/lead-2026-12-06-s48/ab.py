"""The pair merge (`new`, run 4; `cl`, run 3's experiment) against main's plans (`base`) in
the same rounds, from decode_bench JSON (medians per call); FILE:NAME names the build in
FILE's main slot, the variant slot holds the other. Per row: the pair merge's time over
base's and cuDNN's time over the pair merge's, min-max over the files, for the contiguous
form and pages of 16 and 64 slots.

  python3 ab.py run4/a.json:new run4/b.json:base     # ab-run4.md
  python3 ab.py run3/a81.json:base run3/b81.json:cl run3/a328.json:base run3/b328.json:cl   # ab-run3.md
"""
import json
import sys

FORMS = [("contiguous", "split_kv contiguous", "split_kv"), ("S=16", "paged S=16", "paged S=16"),
         ("S=64", "paged S=64", "paged S=64")]


def times(arg):
    """({row: {(form, build): µs, 'cudnn': µs}}, the pair merge's build name)."""
    path, first = arg.split(":")
    out = {}
    for row in json.load(open(path))["rows"]:
        impls = row["impls"]
        other = next(k[k.index("[") + 1:-1] for k in impls if k.endswith("]"))
        pair = first if first != "base" else other
        t = {"cudnn": impls["SDPA cuDNN"]["ms"] * 1e3}
        for form, plain, tagged in FORMS:
            t[(form, first)] = impls[plain]["ms"] * 1e3
            t[(form, other)] = impls["%s [%s]" % (tagged, other)]["ms"] * 1e3
        t["pair"] = pair
        out["GQA %d/%d B=%d L=%d" % (row["Hq"], row["Hkv"], row["B"], row["L"])] = t
    return out


def span(values, digits=3):
    lo, hi = min(values), max(values)
    return f"{lo:.{digits}f}" if round(lo, digits) == round(hi, digits) else \
        f"{lo:.{digits}f}-{hi:.{digits}f}"


runs = [times(a) for a in sys.argv[1:]]
print("<!-- python3 ab.py " + " ".join(sys.argv[1:]) + " -->")
head = ["row", "contiguous µs (pair merge)"] + [f"pair/base {f}" for f, _, _ in FORMS] + \
    [f"cuDNN/pair {f}" for f, _, _ in FORMS]
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
rows = list(dict.fromkeys(row for r in runs for row in r))
for row in rows:
    have = [r[row] for r in runs if row in r]
    cells = [row, span([t[("contiguous", t["pair"])] for t in have], 1)]
    cells += [span([t[(f, t["pair"])] / t[(f, "base")] for t in have]) for f, _, _ in FORMS]
    cells += [span([t["cudnn"] / t[(f, t["pair"])] for t in have]) for f, _, _ in FORMS]
    print("| " + " | ".join(cells) + " |")
