"""Per-row TFLOP/s (median over the rounds) and per-round time ratios against main's kernels
of the backward bench: python3 ratios.py bench.json ...
Variants: flash_mlir = p8 (loads of 8 row passes together), _p4, _p16, _main (55d5f04).
Time ratios: per round (same round, interleaved), median [min, max] over the rounds."""
import json, statistics, sys
V = [("p4", "flash_mlir_p4"), ("p8", "flash_mlir"), ("p16", "flash_mlir_p16")]
print(f"{'row':<20} {'main':>6} {'p4':>6} {'p8':>6} {'p16':>6} {'cuDNN':>6} | "
      + " | ".join(f"{n + '/main time':>24}" for n, _ in V) + " | main/cuDNN p16/cuDNN (TF)")
for path in sys.argv[1:]:
    for r in json.load(open(path))["rows"]:
        ms, t = r["round_ms"], r["tflops"]
        def ratio(a, b):
            rs = [x / y for x, y in zip(ms[a], ms[b])]
            return f"{statistics.median(rs):.4f} [{min(rs):.3f},{max(rs):.3f}]"
        row = f"D={r['D']} c={int(r['causal'])} N={r['N']}"
        print(f"{row:<20} {t['flash_mlir_main']:6.1f} {t['flash_mlir_p4']:6.1f} {t['flash_mlir']:6.1f} "
              f"{t['flash_mlir_p16']:6.1f} {t['sdpa_cudnn']:6.1f} | "
              + " | ".join(f"{ratio(k, 'flash_mlir_main'):>24}" for _, k in V)
              + f" | {t['flash_mlir_main'] / t['sdpa_cudnn']:.3f} {t['flash_mlir_p16'] / t['sdpa_cudnn']:.3f}")
