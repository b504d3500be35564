"""Run 3: the merge-address candidate (the bench's base bundles, cand90) against
main's bundles (variant 'main'), round by round: candidate / main for the
contiguous, paged S=16 and paged S=64 rows. python3 ratios3.py bench3.json"""
import json, math, sys

d = json.load(open(sys.argv[1]))
print(f"read ceiling {d['ceiling_TBps']:.2f} TB/s; ratio = candidate / main (below 1: the candidate is faster)")
geo = {}
for row in d["rows"]:
    im = row["impls"]
    print(f"== GQA {row['Hq']}/{row['Hkv']} B={row['B']} L={row['L']}")
    for form, cand, main in (("contiguous", "split_kv contiguous", "split_kv [main]"),
                             ("paged S=16", "paged S=16", "paged S=16 [main]"),
                             ("paged S=64", "paged S=64", "paged S=64 [main]")):
        c, m = im[cand], im[main]
        r = [a / b for a, b in zip(c["all_ms"], m["all_ms"])]
        med = c["ms"] / m["ms"]
        geo.setdefault(form, []).append(med)
        print(f"  {form:11s} cand {c['ms'] * 1e3:7.2f} main {m['ms'] * 1e3:7.2f} us  ratio {med:.3f}  rounds "
              + " ".join(f"{x:.3f}" for x in r))
print("== geometric means of the median ratios over the rows")
for form, xs in geo.items():
    print(f"  {form:11s} {math.exp(sum(map(math.log, xs)) / len(xs)):.3f}  (min {min(xs):.3f}, max {max(xs):.3f})")
