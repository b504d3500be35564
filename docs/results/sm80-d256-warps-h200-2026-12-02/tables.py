"""Prints the docs/benchmarks.md tables from run1/bench.json and run2/bench.json."""
import json, sys
def rows(path):
    return json.load(open(path))["rows"]
def t(r, k):
    return r["tflops"][k]
def spread(r, k):
    ms = r["round_ms"][k]; return (max(ms) - min(ms)) / min(ms)
one = lambda r: "flash_mlir_flash_bwd_sm_80_bf16_d256" + ("_causal" if r["causal"] else "")
print("run 2: | causal | N | ours (2 stages, dQ 32×32 ×2) | main (2 stages) | ours / main | dQ 32×64 (2 stages) | ours 1 stage (dQ 32×64) | main 1 stage | 1 stage / main | SDPA FA2 | SDPA cuDNN | ours / FA2 | main / FA2 | worst round spread |")
for r in rows("run2/bench.json"):
    o, m, fa = t(r, "flash_mlir_dqhalf"), t(r, "flash_mlir_main"), t(r, "sdpa_fa2")
    o1, m1 = t(r, one(r)), t(r, "flash_mlir_main1")
    sp = max(spread(r, k) for k in r["round_ms"])
    print(f"| {'yes' if r['causal'] else 'no'} | {r['N']} | **{o:.1f}** | {m:.1f} | {o/m:.2f} | {t(r,'flash_mlir'):.1f} | {o1:.1f} | {m1:.1f} | {o1/m1:.2f} | {fa:.1f} | {t(r,'sdpa_cudnn'):.1f} | **{o/fa:.2f}** | {m/fa:.2f} | {100*sp:.1f}% |")
print()
print("run 1: | causal | N | Queries (2 stages) | Queries + dQ 32×64 (2 stages) | main (2 stages) | Queries / main | Queries + dQ / main | Queries 1 stage | main 1 stage | SDPA FA2 | SDPA cuDNN |")
for r in rows("run1/bench.json"):
    q, qd, m = t(r, "flash_mlir"), t(r, "flash_mlir_dq32"), t(r, "flash_mlir_main")
    print(f"| {'yes' if r['causal'] else 'no'} | {r['N']} | {q:.1f} | {qd:.1f} | {m:.1f} | {q/m:.2f} | {qd/m:.2f} | {t(r, one(r)):.1f} | {t(r,'flash_mlir_main1'):.1f} | {t(r,'sdpa_fa2'):.1f} | {t(r,'sdpa_cudnn'):.1f} |")
