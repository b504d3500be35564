#!/usr/bin/env python3
"""The forty-first session's summary table of the shipped form (run 4): for every row,
its path on 132 SMs (separate merge: at most 8 work units), and the shipped plans' time
over main's in the same rounds, back to back (a, b) and behind a torch kernel (c, d),
min-max over the two processes of each.
  shipped.py run4/a.json:pdl run4/b.json:base run4/c.json:pdl run4/d.json:base"""
import json
import sys

FORMS = (("contiguous", "split_kv contiguous", "split_kv [{}]"),
         ("S=16", "paged S=16", "paged S=16 [{}]"), ("S=64", "paged S=64", "paged S=64 [{}]"))


def ratios(files):
    out = {}
    for arg in files:
        path, slot = arg.rsplit(":", 1)
        other = "base" if slot == "pdl" else "pdl"
        for row in json.load(open(path))["rows"]:
            key = (row["Hq"], row["Hkv"], row["B"], row["L"])
            for form, mine, theirs in FORMS:
                a, b = row["impls"][mine]["ms"], row["impls"][theirs.format(other)]["ms"]
                pdl, base = (a, b) if slot == "pdl" else (b, a)
                out.setdefault(key, {}).setdefault(form, []).append(pdl / base)
    return out


def main(args):
    b2b, between = ratios(args[:2]), ratios(args[2:])
    span = lambda xs: f"{min(xs):.3f}-{max(xs):.3f}"
    print("<!-- python3 shipped.py " + " ".join(args) + " -->")
    print("| row | path | back to back: contiguous | S=16 | S=64 | behind a torch kernel: "
          "contiguous | S=16 | S=64 |")
    print("|---|---|---|---|---|---|---|---|")
    for (hq, hkv, b, l) in b2b:
        path = "separate" if b * hkv <= 8 else "fused"
        cells = [f"GQA {hq}/{hkv} B={b} L={l}", path]
        cells += [span(b2b[(hq, hkv, b, l)][f]) for f, _, _ in FORMS]
        cells += [span(between[(hq, hkv, b, l)][f]) for f, _, _ in FORMS]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
