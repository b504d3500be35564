"""Per-row TFLOP/s (median over the rounds) and per-round time ratios of the backward bench:
python3 ratios.py bench.json ...   flash_mlir = conv (the candidate), flash_mlir_main = main ffd6bf8.
Time ratios per round (same round, interleaved): median [min, max] (rounds in which the
first is faster)."""
import json, statistics, sys
print("| row | main | conv | cuDNN | FA2 | conv/main time | conv/cuDNN time | main/cuDNN time | conv/cuDNN TF | main/cuDNN TF |")
print("|---|---|---|---|---|---|---|---|---|---|")
for path in sys.argv[1:]:
    for r in json.load(open(path))["rows"]:
        ms, t = r["round_ms"], r["tflops"]
        def ratio(a, b):
            rs = [x / y for x, y in zip(ms[a], ms[b])]
            return f"{statistics.median(rs):.4f} [{min(rs):.3f}, {max(rs):.3f}] {sum(x < 1 for x in rs)}/{len(rs)}"
        row = f"D={r['D']} {'causal ' if r['causal'] else ''}N={r['N']}"
        print(f"| {row} | {t['flash_mlir_main']:.1f} | {t['flash_mlir']:.1f} | {t['sdpa_cudnn']:.1f} | {t['sdpa_fa2']:.1f} | "
              f"{ratio('flash_mlir', 'flash_mlir_main')} | {ratio('flash_mlir', 'sdpa_cudnn')} | {ratio('flash_mlir_main', 'sdpa_cudnn')} | "
              f"{t['flash_mlir'] / t['sdpa_cudnn']:.3f} | {t['flash_mlir_main'] / t['sdpa_cudnn']:.3f} |")
