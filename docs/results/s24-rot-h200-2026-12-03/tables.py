"""Prints the rotation runs' tables from run1..run4/bench.json (median TFLOP/s per row):
python3 docs/results/s24-rot-h200-2026-12-03/tables.py"""
import json, os
here = os.path.dirname(os.path.abspath(__file__))
runs = {1: "full rotation (r1 = kvTile mod numTiles, every N), remainder per step",
        2: "full rotation again, and windows r16/r8/r4 (offset kvTile mod W)",
        3: "the bound (rotate iff numTiles <= 64), remainder per step = the shipped D = 128 kernel",
        4: "the bound, a compare per step instead of the remainder"}
def rows(n):
    d = json.load(open(os.path.join(here, f"run{n}", "bench.json")))
    rs = d["rows"] if isinstance(d, dict) and "rows" in d else d
    return rs
for n, what in runs.items():
    print(f"run {n}: {what}")
    print("| D | N | main | candidate | cand / main | cuDNN | cand / cuDNN | main / cuDNN |" + (" r16 | r8 | r4 |" if n == 2 else ""))
    print("|---|---|---|---|---|---|---|---|" + ("---|---|---|" if n == 2 else ""))
    for r in rows(n):
        t = r["tflops"]; m, c, cu = t["flash_mlir_main"], t["flash_mlir"], t["sdpa_cudnn"]
        extra = "".join(f" {t['flash_mlir_'+w]:.1f} ({t['flash_mlir_'+w]/m:.3f}) |" for w in ("r16", "r8", "r4")) if n == 2 else ""
        print(f"| {r['D']} | {r['N']} | {m:.1f} | {c:.1f} | {c/m:.3f} | {cu:.1f} | {c/cu:.3f} | {m/cu:.3f} |{extra}")
    print()
