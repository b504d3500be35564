"""Runs 4-5 (thirty-second session): paged time of the whole-page variants against main's
paged and cuDNN, per process. Usage: python3 ph.py VARIANT[,VARIANT] FILE..."""
import json
import sys

variants = sys.argv[1].split(",")
files = sys.argv[2:]
ds = [json.load(open(f)) for f in files]
print("<!-- python3 ph.py " + " ".join(sys.argv[1:]) + " -->")
head = ["row"]
for s in (16, 64):
    head += [f"S={s} main µs"] + [f"S={s} {v} / main" for v in variants] + \
        [f"cuDNN / S={s} {v}" for v in variants] + [f"cuDNN / S={s} main"]
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))


def span(vals, fmt="%.3f"):
    return (fmt % min(vals)) + "-" + (fmt % max(vals)) if vals else ""


for i, r in enumerate(ds[0]["rows"]):
    cells = ["GQA %d/%d B=%d L=%d" % (r["Hq"], r["Hkv"], r["B"], r["L"])]
    for s in (16, 64):
        ms = lambda d, k: d["rows"][i]["impls"].get(k, {}).get("ms")
        main = [ms(d, f"paged S={s}") for d in ds]
        cells.append(span([m * 1000 for m in main], "%.1f"))
        for v in variants:
            cells.append(span([ms(d, f"paged S={s} [{v}]") / ms(d, f"paged S={s}") for d in ds]))
        for v in variants:
            cells.append(span([ms(d, "SDPA cuDNN") / ms(d, f"paged S={s} [{v}]") for d in ds]))
        cells.append(span([ms(d, "SDPA cuDNN") / ms(d, f"paged S={s}") for d in ds]))
    print("| " + " | ".join(cells) + " |")
print()
print("Processes: " + ", ".join(files) + ".")
