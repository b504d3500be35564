"""The bench table of docs/benchmarks.md (nineteenth session) from run1/bench-backward.json:
python3 table.py run1/bench-backward.json > run1/table.md"""
import json, statistics as st, sys
d = json.load(open(sys.argv[1]))
cols = [("flash_mlir_main", "main"), ("flash_mlir_v1", "v1"), ("flash_mlir_v5", "v5*"),
        ("flash_mlir_v66", "v66"), ("flash_mlir", "v67"), ("flash_mlir_v71", "v71*"),
        ("flash_mlir_red50", "red50 (v67)"), ("flash_mlir_nored", "nored (v67)"),
        ("sdpa_fa2", "SDPA FA2"), ("sdpa_cudnn", "SDPA cuDNN")]
print("| causal | N | " + " | ".join(n for _, n in cols) + " | v1 / main | v66 / main | v67 / main | nored / main | main / cuDNN |")
print("|---" * (2 + len(cols) + 5) + "|")
spread = {}
for r in d['rows']:
    t = r['tflops']
    for k, v in r['round_ms'].items():
        spread.setdefault(k, []).append((max(v) - min(v)) / st.median(v))
    m = t['flash_mlir_main']
    print(f"| {'yes' if r['causal'] else 'no'} | {r['N']} | " + " | ".join(f"{t[k]:.1f}" for k, _ in cols)
          + f" | {t['flash_mlir_v1']/m:.2f} | {t['flash_mlir_v66']/m:.2f} | {t['flash_mlir']/m:.2f} | {t['flash_mlir_nored']/m:.2f} | {m/t['sdpa_cudnn']:.2f} |")
allv = [x for v in spread.values() for x in v]
print(f"\n(max - min) / median of a cell's rounds: median {st.median(allv):.3f}, max {max(allv):.3f}; "
      + ", ".join(f"{n} max {max(spread[k]):.3f}" for k, n in cols))
