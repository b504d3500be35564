"""Item 5's goals from one build's numbers in decode_bench JSONs where that build (main, or
--name NAME) is the primary or a variant: paged % of contiguous and cuDNN / ours, min-max over
the processes.
usage: python3 goals.py [--name NAME] FILE:PRIMARY_NAME ... (PRIMARY_NAME: the primary's name
in FILE)"""
import json, sys
args = sys.argv[1:]
build = "main"
if args[:1] == ["--name"]:
    build, args = args[1], args[2:]
out = {}
for arg in args:
    f, prim = arg.split(":")
    for r in json.load(open(f))["rows"]:
        im = r["impls"]
        k = lambda form: (("split_kv contiguous" if form == "split_kv" else form)
                          if prim == build else f"{form} [{build}]")
        c, p16, p64, cud = (im[k("split_kv")]["ms"], im[k("paged S=16")]["ms"],
                            im[k("paged S=64")]["ms"], im["SDPA cuDNN"]["ms"])
        row = out.setdefault(f"GQA {r['Hq']}/{r['Hkv']} B={r['B']} L={r['L']}", {})
        for name, v in (("contiguous µs", c * 1e3), ("cuDNN / contiguous", cud / c),
                        ("paged S=16 % of contiguous", 100 * c / p16),
                        ("paged S=64 % of contiguous", 100 * c / p64),
                        ("cuDNN / paged S=16", cud / p16), ("cuDNN / paged S=64", cud / p64)):
            row.setdefault(name, []).append(v)
names = list(next(iter(out.values())))
print(f"<!-- python3 goals.py {' '.join(sys.argv[1:])} -->")
print("| row | " + " | ".join(names) + " |")
print("|---|" + "---|" * len(names))
for row, vals in out.items():
    cells = []
    for n in names:
        v = vals[n]
        cells.append(f"{min(v):.{1 if '%' in n else 2 if 'µs' in n else 3}f}-{max(v):.{1 if '%' in n else 2 if 'µs' in n else 3}f}")
    print(f"| {row} | " + " | ".join(cells) + " |")
