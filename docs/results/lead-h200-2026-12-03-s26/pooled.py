"""Main after the grid change (7a19741's decode kernels and plans), pooled over every
process of runs 4 and 5 that timed it: the median over all their rounds per row and
implementation, warm (4 processes) and cold (2).

    python3 pooled.py
"""
import json
import statistics

# (file, the name suffix of main's bundles in it: '' = the --bundles slot)
WARM = [("run4/warm-a.json", ""), ("run4/warm-b.json", "new"),
        ("run5/warm-a.json", "main"), ("run5/warm-b.json", "")]
COLD = [("run4/cold-a.json", ""), ("run5/cold-a.json", "main")]


def name(kind, tag):
    base = {"c": "split_kv contiguous", "p16": "paged S=16", "p64": "paged S=64"}[kind]
    if not tag:
        return base
    return {"c": f"split_kv [{tag}]", "p16": f"paged S=16 [{tag}]",
            "p64": f"paged S=64 [{tag}]"}[kind]


def pooled(files):
    data = [(json.load(open(f)), tag) for f, tag in files]
    out = []
    for i, r in enumerate(data[0][0]["rows"]):
        rounds = {k: [] for k in ("c", "p16", "p64", "cu", "fa2")}
        for d, tag in data:
            imp = d["rows"][i]["impls"]
            for k in ("c", "p16", "p64"):
                rounds[k] += imp[name(k, tag)]["all_ms"]
            rounds["cu"] += imp["SDPA cuDNN"]["all_ms"]
            rounds["fa2"] += imp["SDPA FA2"]["all_ms"]
        med = {k: statistics.median(v) * 1e3 for k, v in rounds.items()}
        out.append((r, med, len(rounds["c"])))
    return out


for label, files in (("warm", WARM), ("cold", COLD)):
    print(f"\n{label}: median over every round of {len(files)} processes, µs")
    print("| row | rounds | contiguous | paged S=16 | paged S=64 | cuDNN | FA2 | cuDNN / contiguous "
          "| cuDNN / paged S=16, S=64 | paged / contiguous S=16, S=64 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r, m, n in pooled(files):
        print(f"| GQA {r['Hq']}/{r['Hkv']} B={r['B']} L={r['L'] // 1024}k | {n} | {m['c']:.2f} "
              f"| {m['p16']:.2f} | {m['p64']:.2f} | {m['cu']:.2f} | {m['fa2']:.2f} "
              f"| {m['cu'] / m['c']:.3f} | {m['cu'] / m['p16']:.3f}, {m['cu'] / m['p64']:.3f} "
              f"| {100 * m['c'] / m['p16']:.1f}%, {100 * m['c'] / m['p64']:.1f}% |")
