"""Ratios of decode_bench JSON files: per row the median us of each paged/contiguous
build, its ratio to main's paged S=16 ('paged S=16 [baseline]') with the per-round
range [min, max] (rounds are interleaved: round r of one build against round r of
main's), and paged / contiguous (main's split_kv) as a percentage.
  python3 ratios.py [--name NAME] raw/bench.json [raw/bench-gap.json ...]
NAME labels the --bundles build's plans (untagged in the JSON; default "cand").
Copied from docs/results/s21-h2-h200-2026-12-03/ with --name added."""
import json
import statistics
import sys



NAME = "cand"
if len(sys.argv) > 2 and sys.argv[1] == "--name":
    NAME = sys.argv[2]
    del sys.argv[1:3]


def columns(impls):
    """main's paged S=16, then every other paged build at S=16, then at S=64."""
    out = [("main S=16", "paged S=16 [baseline]")]
    for page in (16, 64):
        for name in impls:
            if name.startswith(f"paged S={page}") and "baseline" not in name:
                tag = name.split("[")[1].rstrip("]") if "[" in name else NAME
                out.append((f"{tag} S={page}", name))
    return out

for path in sys.argv[1:]:
    data = json.load(open(path))
    print(f"== {path}")
    for row in data["rows"]:
        im = row["impls"]
        base = im["paged S=16 [baseline]"]["all_ms"]
        contig = im["split_kv [baseline]"]["ms"]
        print(f"GQA {row['Hq']}/{row['Hkv']} B={row['B']} L={row['L']}: contiguous main "
              f"{contig * 1e3:.2f} us ({NAME}'s split_kv {im['split_kv contiguous']['ms'] * 1e3:.2f}),"
              f" cuDNN {im['SDPA cuDNN']['ms'] * 1e3:.2f} us")
        for label, name in columns(im):
            if "all_ms" not in im.get(name, {}):
                continue
            ms = im[name]["all_ms"]
            med = statistics.median(ms)
            per = [a / b for a, b in zip(ms, base)]
            print(f"  {label:11s} {med * 1e3:7.2f} us  /main {med / statistics.median(base):.3f}"
                  f" [{min(per):.3f}, {max(per):.3f}]  of contiguous {100 * contig / med:5.1f}%")

# Noise floor: the contiguous split_kv kernel is byte-identical in every build of a run
# (the --bundles build, baseline, each variant); the spread of their medians per row.
for path in sys.argv[1:]:
    data = json.load(open(path))
    print(f"== {path}: identical contiguous kernels, max/min of their medians")
    for row in data["rows"]:
        meds = [statistics.median(v["all_ms"]) for k, v in row["impls"].items()
                if k.startswith("split_kv") and "all_ms" in v]
        print(f"  GQA {row['Hq']}/{row['Hkv']} B={row['B']} L={row['L']}: {max(meds) / min(meds):.4f}"
              f" ({len(meds)} copies)")
