"""Run 3's S = 64 goals for main (tile90) and the variant sep64 in the same processes: paged
S = 64 % of contiguous and cuDNN / paged S = 64, min-max over the processes (the contiguous
kernels of both are the same).
usage: python3 goals64.py run3/a.json:main run3/b.json:sep64 run3/c.json:main"""
import json, sys
rows = {}
for arg in sys.argv[1:]:
    f, prim = arg.split(":")
    for r in json.load(open(f))["rows"]:
        im = r["impls"]
        mine = lambda form, who: im[form if who == prim else f"{form} [{who}]"]["ms"]
        c = im["split_kv contiguous" if prim == "main" else "split_kv [main]"]["ms"]
        pm, ps, cud = mine("paged S=64", "main"), mine("paged S=64", "sep64"), im["SDPA cuDNN"]["ms"]
        d = rows.setdefault(f"GQA {r['Hq']}/{r['Hkv']} B={r['B']} L={r['L']}", {})
        for k, v in (("main: paged S=64 % of contiguous", 100 * c / pm),
                     ("sep64: paged S=64 % of contiguous", 100 * c / ps),
                     ("main: cuDNN / paged S=64", cud / pm), ("sep64: cuDNN / paged S=64", cud / ps)):
            d.setdefault(k, []).append(v)
names = list(next(iter(rows.values())))
print(f"<!-- python3 goals64.py {' '.join(sys.argv[1:])} -->")
print("| row | " + " | ".join(names) + " |")
print("|---|" + "---|" * len(names))
for row, d in rows.items():
    print(f"| {row} | " + " | ".join(
        f"{min(v):.1f}-{max(v):.1f}" if "%" in n else f"{min(v):.3f}-{max(v):.3f}"
        for n, v in d.items()) + " |")
