"""Read-floor table: per row, µs of ours, cuDNN and the read floors (median of 5 rounds), per process."""
import json, sys
cols = ["paged S=16", "read floor S=16", "read floor S=16 pages", "paged S=64", "read floor S=64",
        "read floor S=64 pages", "split_kv contiguous", "read floor contiguous", "SDPA cuDNN"]
files = sys.argv[1:]
data = [json.load(open(f)) for f in files]
print("<!-- python3 rf.py " + " ".join(files) + " -->")
print("| row | " + " | ".join(cols) + " |")
print("|---|" + "---|" * len(cols))
for i, r in enumerate(data[0]["rows"]):
    cells = []
    for c in cols:
        vals = []
        for d in data:
            im = d["rows"][i]["impls"]
            if c in im and "ms" in im[c]:
                vals.append("%.2f" % (im[c]["ms"] * 1000))
        cells.append(" / ".join(vals) if vals else "")
    print("| GQA %d/%d B=%d L=%d | " % (r["Hq"], r["Hkv"], r["B"], r["L"]) + " | ".join(cells) + " |")
print()
print("Processes: " + ", ".join(files) + ". µs per call.")
