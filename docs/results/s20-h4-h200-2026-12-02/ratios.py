"""Per-row medians (TFLOP/s, median over the rounds) and per-round time ratios of the backward bench: python3 ratios.py bench.json ...
Time ratios: per round (same round, interleaved), median [min, max] over the rounds."""
import json, statistics, sys
print(f"{'row':<22} {'ours TF':>8} {'pre TF':>8} {'main TF':>8} {'cuDNN TF':>8} | "
      f"{'ours/main time':>26} | {'pre/main time':>26} | {'ours/pre time':>26} | ours/cuDNN")
for path in sys.argv[1:]:
    for r in json.load(open(path))["rows"]:
        ms, t = r["round_ms"], r["tflops"]
        def ratio(a, b):
            rs = [x / y for x, y in zip(ms[a], ms[b])]
            return f"{statistics.median(rs):.4f} [{min(rs):.3f},{max(rs):.3f}]"
        row = f"D={r['D']} c={int(r['causal'])} N={r['N']}"
        print(f"{row:<22} {t['flash_mlir']:8.1f} {t['flash_mlir_pre']:8.1f} {t['flash_mlir_main']:8.1f} "
              f"{t['sdpa_cudnn']:8.1f} | {ratio('flash_mlir', 'flash_mlir_main'):>26} | "
              f"{ratio('flash_mlir_pre', 'flash_mlir_main'):>26} | {ratio('flash_mlir', 'flash_mlir_pre'):>26} | "
              f"{t['flash_mlir'] / t['sdpa_cudnn']:.3f}")
