#!/usr/bin/env python3
"""Prints the forty-first session's tables from decode_bench JSON files:
  pdl.py FILE:SLOT [FILE:SLOT ...]
SLOT says which build the file's main plans are ('pdl': --bundles pdl
--variant base=..., 'base': --bundles base --variant pdl=...). For every row:
pdl's time over base's (same rounds), and cuDNN's time over pdl's and over
base's for paged S=16, S=64 and contiguous; min-max over the files."""
import json
import sys


def forms(impls, slot):
    other = "base" if slot == "pdl" else "pdl"
    out = {}
    for form, mine, theirs in (("S=16", "paged S=16", f"paged S=16 [{other}]"),
                               ("S=64", "paged S=64", f"paged S=64 [{other}]"),
                               ("contiguous", "split_kv contiguous", f"split_kv [{other}]")):
        a, b = impls[mine]["ms"], impls[theirs]["ms"]
        out[form] = {slot: a, other: b}
    return out


def main(args):
    rows = {}
    for arg in args:
        path, slot = arg.rsplit(":", 1)
        for row in json.load(open(path))["rows"]:
            key = (row["Hq"], row["Hkv"], row["B"], row["L"])
            f = forms(row["impls"], slot)
            r = rows.setdefault(key, {"cudnn": [], "between": row.get("between", False)})
            r["cudnn"].append(row["impls"]["SDPA cuDNN"]["ms"])
            for form, t in f.items():
                r.setdefault(form, []).append(t)
    span = lambda xs: f"{min(xs):.3f}-{max(xs):.3f}"
    print("<!-- python3 pdl.py " + " ".join(args) + " -->")
    print("| row | contiguous µs (pdl) | pdl / base: contiguous | S=16 | S=64 "
          "| cuDNN / ours, pdl: contiguous | S=16 | S=64 | base: contiguous | S=16 | S=64 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for (hq, hkv, b, l), r in rows.items():
        cells = [f"GQA {hq}/{hkv} B={b} L={l}",
                 span([t["pdl"] * 1e3 for t in r["contiguous"]]).replace(".000", "")]
        for form in ("contiguous", "S=16", "S=64"):
            cells.append(span([t["pdl"] / t["base"] for t in r[form]]))
        for build in ("pdl", "base"):
            for form in ("contiguous", "S=16", "S=64"):
                cells.append(span([c / t[build] for c, t in zip(r["cudnn"], r[form])]))
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
