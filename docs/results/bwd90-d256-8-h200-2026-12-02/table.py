"""The bench table of docs/benchmarks.md (eighteenth session) from run1/bench-backward.json:
python3 table.py run1/bench-backward.json > run1/table.md"""
import json, statistics as st, sys
d = json.load(open(sys.argv[1]))
print("| causal | N | ring (new) | blocked | main's kernel | ring / main | blocked / main | nored (ring, timing only) | SDPA FA2 | SDPA cuDNN | ring / cuDNN | main / cuDNN |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
spread = 0
for r in d['rows']:
    t = r['tflops']
    for v in r['round_ms'].values():
        spread = max(spread, (max(v) - min(v)) / st.median(v))
    f = lambda k: t[k]
    print(f"| {'yes' if r['causal'] else 'no'} | {r['N']} | {f('flash_mlir'):.1f} | {f('flash_mlir_blocked'):.1f} | {f('flash_mlir_main'):.1f} | {f('flash_mlir')/f('flash_mlir_main'):.2f} | {f('flash_mlir_blocked')/f('flash_mlir_main'):.2f} | {f('flash_mlir_nored'):.1f} | {f('sdpa_fa2'):.1f} | {f('sdpa_cudnn'):.1f} | {f('flash_mlir')/f('sdpa_cudnn'):.2f} | {f('flash_mlir_main')/f('sdpa_cudnn'):.2f} |")
print(f"\nlargest (max-min)/median of round times over all rows and columns: {spread:.3f}")
