"""Run 14: a short one-work-unit call's time split into the split kernel alone (the plan's
merge kernel removed from its JSON: `nm`) and the rest, for the shipped rule (min2) and
main's (main), µs per process:  python3 nm.py run14/a.json run14/b.json"""
import json
import sys

print(f"<!-- python3 nm.py {' '.join(sys.argv[1:])} -->")
print("| row | form | min2 | min2 split alone | main | main split alone |")
print("|---|---|---|---|---|---|")
rows = {}
for f in sys.argv[1:]:
    for r in json.load(open(f))["rows"]:
        im = r["impls"]
        for form, base in (("contiguous", "split_kv"), ("paged S=16", "paged S=16"), ("paged S=64", "paged S=64")):
            own = im["split_kv contiguous" if base == "split_kv" else base]["ms"]
            cells = [own] + [im[f"{base} [{v}]"]["ms"] for v in ("nm", "main", "mainnm")]
            rows.setdefault((r["L"], form), []).append(cells)
for (length, form), per in rows.items():
    cols = [" / ".join(f"{p[i] * 1e3:.2f}" for p in per) for i in range(4)]
    print(f"| GQA 8/1 B=1 L={length} | {form} | " + " | ".join(cols) + " |")
