#!/usr/bin/env python3
"""Run 2's table: each build's time over base's (same rounds) for paged S=16,
S=64 and contiguous, min-max over the files; and cuDNN / ours per build.
  var.py FILE:MAIN [FILE:MAIN ...]   (MAIN: the build of the file's --bundles)"""
import json
import sys

FORMS = (("S=16", "paged S=16"), ("S=64", "paged S=64"), ("contig", "split_kv"))


def times(impls, main):
    out = {}
    for name, r in impls.items():
        if "ms" not in r:
            continue
        for form, prefix in FORMS:
            if name == prefix or name.startswith(prefix + " ") :
                build = name[name.index("[") + 1:-1] if "[" in name else main
                out[(build, form)] = r["ms"]
    return out


def main(args):
    rows, builds = {}, []
    for arg in args:
        path, main_build = arg.rsplit(":", 1)
        for row in json.load(open(path))["rows"]:
            t = times(row["impls"], main_build)
            key = (row["Hq"], row["Hkv"], row["B"], row["L"])
            r = rows.setdefault(key, [])
            r.append((t, row["impls"]["SDPA cuDNN"]["ms"]))
            for b, _ in t:
                if b not in builds:
                    builds.append(b)
    others = [b for b in builds if b != "base"]
    span = lambda xs: f"{min(xs):.3f}-{max(xs):.3f}"
    print("<!-- python3 var.py " + " ".join(args) + " -->")
    head = ["row"] + [f"{b} / base {f}" for b in others for f, _ in FORMS]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for (hq, hkv, b, l), r in rows.items():
        cells = [f"GQA {hq}/{hkv} B={b} L={l}"]
        for bld in others:
            for f, _ in FORMS:
                cells.append(span([t[(bld, f)] / t[("base", f)] for t, _ in r]))
        print("| " + " | ".join(cells) + " |")
    print()
    head = ["row"] + [f"cuDNN / {b} {f}" for b in builds for f, _ in FORMS[:2]]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for (hq, hkv, b, l), r in rows.items():
        cells = [f"GQA {hq}/{hkv} B={b} L={l}"]
        for bld in builds:
            for f, _ in FORMS[:2]:
                cells.append(span([c / t[(bld, f)] for t, c in r]))
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
