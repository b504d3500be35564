"""The issue-17 table of run 4 (main after the grid change = 'new90'): per row the
two warm processes (a: new90 in the first slot, main as a variant; b: main first, new90
as the variant 'new') and the cold one, as markdown.

    python3 issue_table.py run4
"""
import json
import sys

d = sys.argv[1] if len(sys.argv) > 1 else "run4"
runs = {"a": (json.load(open(f"{d}/warm-a.json")), ""),
        "b": (json.load(open(f"{d}/warm-b.json")), "new"),
        "cold": (json.load(open(f"{d}/cold-a.json")), "")}


def name(kind, tag):
    base = {"c": "split_kv contiguous", "p16": "paged S=16", "p64": "paged S=64"}[kind]
    if not tag:
        return base
    return {"c": f"split_kv [{tag}]", "p16": f"paged S=16 [{tag}]",
            "p64": f"paged S=64 [{tag}]"}[kind]


print("| row | contiguous µs a / b / cold | paged S=16 | paged S=64 | cuDNN | FA2 "
      "| cuDNN / contiguous | cuDNN / paged S=16, S=64 | paged / contiguous S=16, S=64 |")
print("|---|---|---|---|---|---|---|---|---|")
rows_a = runs["a"][0]["rows"]
for i, r in enumerate(rows_a):
    cells = {}
    for k, (data, tag) in runs.items():
        imp = data["rows"][i]["impls"]
        cells[k] = {x: imp[name(x, tag)]["ms"] * 1e3 for x in ("c", "p16", "p64")}
        cells[k]["cu"] = imp["SDPA cuDNN"]["ms"] * 1e3
        cells[k]["fa2"] = imp["SDPA FA2"]["ms"] * 1e3
    f = lambda x: " / ".join(f"{cells[k][x]:.1f}" for k in runs)
    rat = lambda num, den: " / ".join(f"{cells[k][num] / cells[k][den]:.3f}" for k in runs)
    pc = lambda p: " / ".join(f"{100 * cells[k]['c'] / cells[k][p]:.1f}%" for k in runs)
    print(f"| GQA {r['Hq']}/{r['Hkv']} B={r['B']} L={r['L'] // 1024}k | {f('c')} | {f('p16')} "
          f"| {f('p64')} | {f('cu')} | {f('fa2')} | {rat('cu', 'c')} "
          f"| {rat('cu', 'p16')}; {rat('cu', 'p64')} | {pc('p16')}; {pc('p64')} |")
