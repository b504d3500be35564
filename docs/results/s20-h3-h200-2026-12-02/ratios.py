"""Median µs and per-round ratios to main's bundles (bench.json / bench-pad.json)."""
import json, statistics, sys
for path in sys.argv[1:]:
    d = json.load(open(path))
    print(f"== {path} (read ceiling {d['ceiling_TBps']:.2f} TB/s)")
    for row in d["rows"]:
        im = row["impls"]
        name = f"GQA {row['Hq']}/{row['Hkv']} B={row['B']} L={row['L']}"
        print(name)
        base16 = im["paged S=16 [baseline]"]["all_ms"]
        basec = im["split_kv [baseline]"]["all_ms"]
        for key in im:
            if "all_ms" not in im[key]:
                continue
            a = im[key]["all_ms"]
            ref = basec if key.startswith("split_kv") else base16 if "paged" in key else None
            r = ""
            if ref and len(ref) == len(a):
                rs = [x / y for x, y in zip(a, ref)]
                r = f" ratio {statistics.median(a)/statistics.median(ref):.3f} rounds " + " ".join(f"{x:.3f}" for x in rs)
            print(f"  {key:24s} {statistics.median(a)*1e3:8.2f}{r}")
