"""Twenty-ninth session, runs 3-4: paged S = 16 on sequential pages, main against the
variants without dependent loads (seqpages: no table read; lenM: no seq_lens read; both;
nowin: both and no block-table window), and contiguous, in µs (process a / b).
Usage: python3 deps.py run3 run4."""
import json
import sys


def load(path):
    d = json.load(open(path))
    return {(r["Hq"], r["Hkv"], r["B"], r["L"]): {k: v["ms"] * 1000 for k, v in r["impls"].items()}
            for r in d["rows"]}


for run in sys.argv[1:]:
    a, b = load(f"{run}/a.json"), load(f"{run}/b.json")
    names = [n for n in ("seqpages", "lenM", "seqpages-lenM", "nowin")
             if f"paged S=16 seq [{n}]" in next(iter(a.values()))]
    print(f"\n{run}\n\n| row | main | " + " | ".join(names) + " | contiguous |")
    print("|---|---|" + "---|" * (len(names) + 1))
    for key in a:
        cell = lambda k: f"{a[key][k]:.2f} / {b[key][k]:.2f}"
        print(f"| GQA {key[0]}/{key[1]} B={key[2]} L={key[3] // 1024}k | {cell('paged S=16 seq')} | "
              + " | ".join(cell(f"paged S=16 seq [{n}]") for n in names)
              + f" | {cell('split_kv contiguous')} |")
