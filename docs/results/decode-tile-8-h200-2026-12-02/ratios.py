#!/usr/bin/env python3
"""Each build against main's (the [baseline] bundles), round by round: median us,
and the range of per-round ratios (variant / main); then geometric means of the
median ratios per build, contiguous and paged S=16."""
import json, math, sys
d = json.load(open(sys.argv[1]))
names = ["ours"] + [n for n in sys.argv[2:]]
geo = {}
for r in d["rows"]:
    imp = r["impls"]
    tag = f"GQA {r['Hq']}/{r['Hkv']} B={r['B']} L={r['L']}"
    for kind, base_key, ours_key, fmt in [("split_kv", "split_kv [baseline]", "split_kv contiguous", "split_kv [{}]"),
                                          ("paged S=16", "paged S=16 [baseline]", "paged S=16", "paged S=16 [{}]")]:
        base = imp.get(base_key)
        if not base:
            continue
        line = f"{tag:26s} {kind:10s} base {base['ms']*1e3:7.2f}"
        for n in names:
            key = ours_key if n == "ours" else fmt.format(n)
            x = imp.get(key)
            if not x:
                continue
            rs = [a / b for a, b in zip(x["all_ms"], base["all_ms"])]
            med = x["ms"] / base["ms"]
            geo.setdefault((n, kind), []).append(med)
            line += f" | {n} {x['ms']*1e3:7.2f} ({min(rs):.3f}-{max(rs):.3f})"
        for sd in ("SDPA cuDNN",):
            if kind == "split_kv" and sd in imp:
                line += f" | cuDNN {imp[sd]['ms']*1e3:7.2f}"
        print(line)
print()
for (n, kind), v in sorted(geo.items()):
    print(f"geomean {kind:10s} {n:6s} {math.exp(sum(map(math.log, v))/len(v)):.4f} over {len(v)} rows")
