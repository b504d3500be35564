"""Per-row TFLOP/s (median over the rounds) and per-round time ratios against main's kernel
of the backward bench: python3 ratios.py bench.json ...
flash_mlir = se (skip + exit), _skip, _exit, _all (skip + exit + pre), _main (main 2485bd3).
Time ratios: per round (same round, interleaved), median [min, max] over the rounds;
'wins' = rounds in which the variant's time is below main's."""
import json, statistics, sys
V = [("skip", "flash_mlir_skip"), ("exit", "flash_mlir_exit"), ("se", "flash_mlir"), ("all", "flash_mlir_all")]
print(f"{'row':<16} {'main':>6} " + " ".join(f"{n:>6}" for n, _ in V) + f" {'cuDNN':>6} | "
      + " | ".join(f"{n + '/main time (wins)':>30}" for n, _ in V) + " | main/cuDNN se/cuDNN all/cuDNN (TF)")
for path in sys.argv[1:]:
    for r in json.load(open(path))["rows"]:
        ms, t = r["round_ms"], r["tflops"]
        def ratio(a, b):
            rs = [x / y for x, y in zip(ms[a], ms[b])]
            return f"{statistics.median(rs):.4f} [{min(rs):.3f},{max(rs):.3f}] ({sum(x < 1 for x in rs)}/{len(rs)})"
        row = f"D={r['D']} c={int(r['causal'])} N={r['N']}"
        print(f"{row:<16} {t['flash_mlir_main']:6.1f} " + " ".join(f"{t[k]:6.1f}" for _, k in V)
              + f" {t['sdpa_cudnn']:6.1f} | " + " | ".join(f"{ratio(k, 'flash_mlir_main'):>30}" for _, k in V)
              + f" | {t['flash_mlir_main'] / t['sdpa_cudnn']:.3f} {t['flash_mlir'] / t['sdpa_cudnn']:.3f} {t['flash_mlir_all'] / t['sdpa_cudnn']:.3f}")
