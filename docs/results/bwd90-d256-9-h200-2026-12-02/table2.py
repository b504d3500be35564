"""The run-2 table of docs/benchmarks.md (nineteenth session) from run2/bench-backward.json:
python3 table2.py run2/bench-backward.json > run2/table.md"""
import json, statistics as st, sys
d = json.load(open(sys.argv[1]))
print("| causal | N | roles (named barriers) | main's kernel | roles / main | SDPA FA2 | SDPA cuDNN | roles / cuDNN | main / cuDNN |")
print("|---|---|---|---|---|---|---|---|---|")
spread = {}
for r in d['rows']:
    t = r['tflops']
    for k, v in r['round_ms'].items():
        spread.setdefault(k, []).append((max(v) - min(v)) / st.median(v))
    o, m, c = t['flash_mlir'], t['flash_mlir_main'], t['sdpa_cudnn']
    print(f"| {'yes' if r['causal'] else 'no'} | {r['N']} | {o:.1f} | {m:.1f} | {o/m:.2f} | {t['sdpa_fa2']:.1f} | {c:.1f} | {o/c:.2f} | {m/c:.2f} |")
allv = [x for v in spread.values() for x in v]
print(f"\n(max - min) / median of a cell's three rounds: median {st.median(allv):.3f}, max {max(allv):.3f}; "
      + ", ".join(f"{k} max {max(v):.3f}" for k, v in spread.items()))
