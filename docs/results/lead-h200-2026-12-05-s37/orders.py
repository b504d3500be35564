"""cuDNN's time over the paged kernels' with the pages shuffled, in key order (seq) and
shuffled within 2 MiB spans (local), min-max over decode_bench JSONs of one build (run 7).
usage: python3 orders.py FILE..."""
import json, sys
out = {}
for f in sys.argv[1:]:
    for r in json.load(open(f))["rows"]:
        im = r["impls"]
        cells = out.setdefault(f"GQA {r['Hq']}/{r['Hkv']} B={r['B']} L={r['L']}", {})
        cells.setdefault("cuDNN / contiguous", []).append(im["SDPA cuDNN"]["ms"] / im["split_kv contiguous"]["ms"])
        for s in (16, 64):
            for order, tag in (("shuffled", ""), ("seq", " seq"), ("local", " local")):
                cells.setdefault(f"S={s} {order}", []).append(im["SDPA cuDNN"]["ms"] / im[f"paged S={s}{tag}"]["ms"])
names = list(next(iter(out.values())))
print(f"<!-- python3 orders.py {' '.join(sys.argv[1:])} -->")
print("| row | " + " | ".join(names) + " |")
print("|---|" + "---|" * len(names))
for row, cells in out.items():
    print(f"| {row} | " + " | ".join(f"{min(v):.3f}-{max(v):.3f}" for v in cells.values()) + " |")
