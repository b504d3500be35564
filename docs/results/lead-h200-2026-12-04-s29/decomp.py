"""Twenty-ninth session, run 1: the GQA 8/1 B = 1 rows' time with parts of the work left
out (main; nomma, noload, none; -nm: the plan's merge kernel removed), medians and the
rounds' range, and the 90% line of the issue against torch's sum in the same process.
Usage: python3 decomp.py run1/warm.json [run1/cold.json ...]."""
import json
import sys

NAMES = ["", "main-nm", "nomma", "nomma-nm", "noload", "noload-nm", "none", "none-nm"]
for path in sys.argv[1:]:
    d = json.load(open(path))
    print(f"\n{path}: torch sum {d['ceiling_TBps']:.2f} TB/s, read kernel {d['kernel_ceiling_TBps']:.2f} TB/s\n")
    print("| row | form | " + " | ".join(n or "main" for n in NAMES) + " | 90% line |")
    print("|---|---|" + "---|" * (len(NAMES) + 1))
    for r in d["rows"]:
        line = r["bytes"] / (0.9 * d["ceiling_TBps"] * 1e12) * 1e6
        for form, base in (("contiguous", "split_kv contiguous"), ("paged S=16", "paged S=16")):
            cells = []
            for n in NAMES:
                key = base if not n else (f"split_kv [{n}]" if form == "contiguous" else f"paged S=16 [{n}]")
                v = r["impls"][key]
                cells.append(f"{v['ms'] * 1000:.2f}")
            print(f"| L={r['L'] // 1024}k | {form} | " + " | ".join(cells) + f" | {line:.2f} |")
