"""Runs 8 and 9 (thirty-second session): paged time of the grouped page kernels against
main's, per process, in either slot. Usage: python3 ab89.py"""
import json

print("<!-- python3 ab89.py -->")
print("| row | S=16 run 8 (3 processes, new as variant) | S=16 run 9 (new as primary) "
      "| S=64 run 8 | S=64 run 9 |")
print("|---|---|---|---|---|")
r8 = [json.load(open(f"run8/{n}.json")) for n in ("g-a", "g-b", "g-cold")]
r9 = json.load(open("run9/ab-b.json"))
for i, r in enumerate(r9["rows"]):
    cells = ["GQA %d/%d B=%d L=%d" % (r["Hq"], r["Hkv"], r["B"], r["L"])]
    for s in (16, 64):
        v = [d["rows"][i]["impls"][f"paged S={s} [grp]"]["ms"] /
             d["rows"][i]["impls"][f"paged S={s}"]["ms"] for d in r8]
        cells.append("%.3f-%.3f" % (min(v), max(v)))
        im = r["impls"]
        cells.append("%.3f" % (im[f"paged S={s}"]["ms"] / im[f"paged S={s} [main]"]["ms"]))
    cells = [cells[0], cells[1], cells[2], cells[3], cells[4]]
    print("| " + " | ".join(cells) + " |")
