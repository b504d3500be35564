"""Tables of the twenty-fourth session's lead runs: python3 tables.py run1|run2
(RUN/bench-bwd.json: backward, ours (ours / cuDNN); RUN/bench-train.json: forward + backward)."""
import json, os, sys
here = os.path.dirname(os.path.abspath(__file__))
run = sys.argv[1] if len(sys.argv) > 1 else "run1"
Ns = (512, 1024, 2048, 4096, 8192, 16384)
def k(n): return f"{n // 1024}k" if n >= 1024 else str(n)
d = json.load(open(os.path.join(here, run, "bench-bwd.json")))
tab = {(r["D"], r["causal"], r["N"]): r["tflops"] for r in d["rows"]}
print(f"backward ({run}), TFLOP/s: ours (ours / cuDNN)\n")
print("| D | causal | " + " | ".join(k(n) for n in Ns) + " |")
print("|---|---|" + "---|" * len(Ns))
below, fa2 = [], []
for D in (64, 128, 256):
    for c in (False, True):
        cells = []
        for n in Ns:
            t = tab[(D, c, n)]; r = t["flash_mlir"] / t["sdpa_cudnn"]; fa2.append(t["flash_mlir"] / t["sdpa_fa2"])
            cells.append(f"{t['flash_mlir']:.0f} ({r:.3f})")
            if r < 1: below.append(f"D{D} {'causal' if c else 'nc'} {k(n)} {r:.3f}")
        print(f"| {D} | {'yes' if c else 'no'} | " + " | ".join(cells) + " |")
print(f"\nat or above cuDNN: {36 - len(below)} of 36; below: {', '.join(below) or 'none'}; against FA2 {min(fa2):.2f}-{max(fa2):.2f}x")
d = json.load(open(os.path.join(here, run, "bench-train.json")))
print(f"\nforward + backward ({run}): ours / cuDNN (ours / FA2)\n")
print("| D | non-causal 2k | non-causal 8k | causal 2k | causal 8k |\n|---|---|---|---|---|")
tt = {(r["D"], r["causal"], r["N"]): r["tflops"] for r in d["rows"]}
nb = 0
for D in (64, 128, 256):
    cells = []
    for c in (False, True):
        for n in (2048, 8192):
            t = tt[(D, c, n)]; r = t["flash_mlir"] / t["sdpa_cudnn"]; nb += r < 1
            cells.append(f"{r:.3f} ({t['flash_mlir'] / t['sdpa_fa2']:.2f})")
    print(f"| {D} | " + " | ".join(cells) + " |")
print(f"\nat or above cuDNN: {12 - nb} of 12")
