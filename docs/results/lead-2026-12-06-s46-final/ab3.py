"""Main f018569's plans (new) against the plans before the forty-fourth session's split
rule (pre) and main b141daa's (b141: the rule, a 512-entry window), timed in the same
rounds (decode_bench JSON, medians per call); cuDNN's time over new's. FILE:NAME names the
build in FILE's main slot (the variants are named by their tags).

  python3 ab3.py run1/a.json:new run1/b.json:pre
  python3 ab3.py run2/c1.json:new run2/d1.json:b141 run2/c2.json:new run2/d2.json:b141
"""
import json
import sys

FORMS = [("contiguous", "split_kv contiguous", "split_kv"), ("S=16", "paged S=16", "paged S=16"),
         ("S=64", "paged S=64", "paged S=64")]
NAMES = ("new", "pre", "b141")


def times(arg):
    """{row: {(form, name): µs, 'cudnn': µs}}."""
    path, first = arg.split(":")
    data = json.load(open(path))
    out = {}
    for row in data["rows"]:
        impls = row["impls"]
        tags = {k[k.index("[") + 1:-1] for k in impls if k.endswith("]")}
        t = {"cudnn": impls["SDPA cuDNN"]["ms"] * 1e3}
        for form, plain, tagged in FORMS:
            t[(form, first)] = impls[plain]["ms"] * 1e3
            for tag in tags:
                t[(form, tag)] = impls["%s [%s]" % (tagged, tag)]["ms"] * 1e3
        out["GQA %d/%d B=%d L=%d" % (row["Hq"], row["Hkv"], row["B"], row["L"])] = t
    return out


def span(values, fmt="%.3f"):
    lo, hi = min(values), max(values)
    return fmt % lo if fmt % lo == fmt % hi else (fmt + "-" + fmt) % (lo, hi)


def main(paths):
    runs = [times(p) for p in paths]
    others = [o for o in NAMES[1:] if all(("contiguous", o) in t[r] for t in runs for r in t)]
    head = ["row", "contiguous µs (new)", "cuDNN µs"]
    head += ["new/%s %s" % (o, f) for o in others for f, _, _ in FORMS]
    head += ["cuDNN/new %s" % f for f, _, _ in FORMS]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in runs[0]:
        cells = [r, span([t[r][("contiguous", "new")] for t in runs], "%.1f"),
                 span([t[r]["cudnn"] for t in runs], "%.1f")]
        for o in others:
            for f, _, _ in FORMS:
                cells.append(span([t[r][(f, "new")] / t[r][(f, o)] for t in runs]))
        for f, _, _ in FORMS:
            cells.append(span([t[r]["cudnn"] / t[r][(f, "new")] for t in runs]))
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
