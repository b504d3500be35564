"""Variants against main's plans timed in the same rounds (decode_bench JSON, median per
call): for each row and form, the variant's time over main's in each process, min-max over
the processes. FILE:NAME names the build in FILE's main slot (variants by their tags).

  python3 ab.py main v3,r1 run2/d256-a.json:main run2/d256-b.json:v3 run2/d256-c.json:r1
"""
import json
import sys

FORMS = [("contiguous", "split_kv contiguous", "split_kv"), ("S=16", "paged S=16", "paged S=16"),
         ("S=64", "paged S=64", "paged S=64")]


def times(arg):
    path, first = arg.split(":")
    out = {}
    for row in json.load(open(path))["rows"]:
        impls = row["impls"]
        tags = {k[k.index("[") + 1:-1] for k in impls if k.endswith("]")}
        t = {}
        for form, plain, tagged in FORMS:
            t[(form, first)] = impls[plain]["ms"] * 1e3
            for tag in tags:
                t[(form, tag)] = impls["%s [%s]" % (tagged, tag)]["ms"] * 1e3
        out["GQA %d/%d B=%d L=%d" % (row["Hq"], row["Hkv"], row["B"], row["L"])] = t
    return out


def main(base, variants, files):
    runs = [times(f) for f in files]
    print("<!-- python3 ab.py %s %s %s -->" % (base, ",".join(variants), " ".join(files)))
    head = ["row"] + ["%s %s" % (v, f) for v in variants for f, _, _ in FORMS]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in runs[0]:
        cells = [row]
        for v in variants:
            for form, _, _ in FORMS:
                r = [t[row][(form, v)] / t[row][(form, base)] for t in runs]
                cells.append("%.3f-%.3f" % (min(r), max(r)))
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2].split(","), sys.argv[3:])
