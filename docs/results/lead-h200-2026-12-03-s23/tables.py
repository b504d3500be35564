"""Tables of the twenty-third session's lead run (bench-dec.json, bench-bwd.json, bench-train.json)."""
import json, re, sys, os
here = os.path.dirname(os.path.abspath(__file__))
d = json.load(open(os.path.join(here, "bench-dec.json")))
ceil = d["ceiling_TBps"]
def k(L): return f"{L // 1024}k"
print(f"decode: read ceiling {ceil:.2f} TB/s")
for g in ("32/8", "8/1"):
    hq, hkv = map(int, g.split("/"))
    rows = [r for r in d["rows"] if r["Hq"] == hq and r["Hkv"] == hkv]
    print(f"\nGQA {g}\n")
    print("| µs (TB/s) | " + " | ".join(f"B={r['B']} L={k(r['L'])}" for r in rows) + " |")
    print("|---" * (len(rows) + 1) + "|")
    names = ["split_kv contiguous", "split_kv [again]", "paged S=16", "paged S=16 [again]",
             "paged S=64", "paged S=64 [again]", "SDPA cuDNN", "SDPA FA2"]
    for n in names:
        print(f"| {n} | " + " | ".join(f"{r['impls'][n]['ms']*1e3:.1f} ({r['impls'][n]['TBps']:.2f})" for r in rows) + " |")
    t = lambda r, n: r["impls"][n]["ms"]
    print("| contiguous vs cuDNN (cuDNN time / ours) | " + " | ".join(f"{t(r,'SDPA cuDNN')/t(r,'split_kv contiguous'):.3f}" for r in rows) + " |")
    print("| paged S=16 / S=64 vs cuDNN | " + " | ".join(f"{t(r,'SDPA cuDNN')/t(r,'paged S=16'):.3f} / {t(r,'SDPA cuDNN')/t(r,'paged S=64'):.3f}" for r in rows) + " |")
    print("| paged S=16 / S=64 vs contiguous | " + " | ".join(f"{100*t(r,'split_kv contiguous')/t(r,'paged S=16'):.1f}% / {100*t(r,'split_kv contiguous')/t(r,'paged S=64'):.1f}%" for r in rows) + " |")
    print("| contiguous, % of the read ceiling | " + " | ".join(f"{100*r['impls']['split_kv contiguous']['TBps']/ceil:.0f}%" for r in rows) + " |")
print("\nhost time per call (µs):", ", ".join(f"{n} {v:.1f}" for n, v in d["host_us"].items()) if isinstance(d["host_us"], dict) else d["host_us"])

def bwd(fname, mode):
    rows = []
    for line in open(os.path.join(here, fname)):
        m = re.match(rf"{mode} D=(\d+)\s+causal=(\d) N=(\d+).*sdpa_fa2=\s*([\d.]+) sdpa_cudnn=\s*([\d.]+) flash_mlir=\s*([\d.]+)", line)
        if m: rows.append((int(m[1]), int(m[2]), int(m[3]), float(m[4]), float(m[5]), float(m[6])))
    return rows
print(f"\nbackward TFLOP/s, ours (ours/cuDNN):\n")
rows = bwd("bench-bwd.log", "backward")
Ns = sorted({r[2] for r in rows})
print("| D | causal | " + " | ".join(f"{n//1024}k" if n >= 1024 else str(n) for n in Ns) + " |")
print("|---|---" + "|---" * len(Ns) + "|")
below = 0
for D in (64, 128, 256):
    for c in (0, 1):
        cells = []
        for n in Ns:
            r = [x for x in rows if x[:3] == (D, c, n)][0]
            below += r[5] < r[4]
            cells.append(f"{r[5]:.0f} ({r[5]/r[4]:.3f})")
        print(f"| {D} | {'yes' if c else 'no'} | " + " | ".join(cells) + " |")
print(f"rows below cuDNN: {below} of {len(rows)}; ours/FA2 {min(r[5]/r[3] for r in rows):.2f}-{max(r[5]/r[3] for r in rows):.2f}")
print("\nforward + backward (train), ours/cuDNN (ours/FA2):\n")
rows = bwd("bench-train.log", "train")
for r in rows:
    print(f"D={r[0]} causal={r[1]} N={r[2]}: {r[5]:.1f} TFLOP/s, {r[5]/r[4]:.3f} ({r[5]/r[3]:.2f})")
