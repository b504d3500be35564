"""Medians (us) and round-by-round ratios to main's bundles (base90, the
'split_kv contiguous' / 'paged S=16' rows of the bench) for every variant of a
decode_bench JSON: python3 ratios.py bench.json"""
import json, math, sys

d = json.load(open(sys.argv[1]))
print(f"read ceiling {d['ceiling_TBps']:.2f} TB/s")
geo = {}
for row in d["rows"]:
    im = row["impls"]
    name = f"GQA {row['Hq']}/{row['Hkv']} B={row['B']} L={row['L']}"
    print(f"== {name}")
    for form, main in (("contiguous", "split_kv contiguous"), ("paged S=16", "paged S=16")):
        base = im[main]
        for k, v in im.items():
            if "ms" not in v or k == main:
                continue
            if form == "contiguous" and not k.startswith("split_kv ["):
                continue
            if form == "paged S=16" and not k.startswith("paged S=16 ["):
                continue
            var = k[k.index("[") + 1:-1]
            r = [a / b for a, b in zip(v["all_ms"], base["all_ms"])]
            med = v["ms"] / base["ms"]
            geo.setdefault((form, var), []).append(med)
            print(f"  {form:11s} {var:8s} {v['ms'] * 1e3:7.2f} vs main {base['ms'] * 1e3:7.2f}  "
                  f"ratio {med:.3f}  rounds " + " ".join(f"{x:.3f}" for x in r))
print("== geometric means of the median ratios over the rows")
for (form, var), xs in sorted(geo.items()):
    print(f"  {form:11s} {var:8s} {math.exp(sum(map(math.log, xs)) / len(xs)):.3f}")
