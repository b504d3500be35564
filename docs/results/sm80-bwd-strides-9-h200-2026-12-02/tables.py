#!/usr/bin/env python3
"""Tables of this folder's runs: python3 tables.py [RUN_DIR ...] (default run1, and run2 if present)."""
import json, os, sys

here = os.path.dirname(os.path.abspath(__file__))
runs = sys.argv[1:] or [d for d in ("run1", "run2") if os.path.isdir(os.path.join(here, d))]


def kind(name):
    """What a non-flash CUDA kernel of the backward call is."""
    if "FillFunctor" in name:
        return "fill (torch's NaN fill of torch.empty under use_deterministic_algorithms)"
    if "CatArrayBatchedCopy_vectorized" in name and "unsigned int, 3," in name:
        return "rank-3 cat (autograd's split backward into the fused QKV buffer's gradient)"
    if "CatArrayBatchedCopy<" in name and "unsigned int, 4," in name:
        return "rank-4 stack (the library's contiguous copies, _contiguous_all)"
    if "direct_copy_kernel" in name:
        return "copy (dK, dV written contiguous, copied into the view's layout)"
    return "other: " + name[:80]


for run in runs:
    d = os.path.join(here, run)
    for f in ("prof.json", "prof-plain.json"):
        p = os.path.join(d, f)
        if not os.path.exists(p):
            continue
        rs = json.load(open(p))
        ok = sum(all(r[g]["max_err"] <= r[g]["bound"] and not r[g]["nan"] for g in ("dq", "dk", "dv"))
                 for r in rs if "dq" in r)
        twin = sum(bool(r.get("twin")) for r in rs)
        kinds = {}
        for r in rs:
            for k in r.get("copies", []):
                kinds.setdefault(kind(k), set()).add(("fused" if r["fused_qkv"] else "separate")
                                                     + (", deterministic" if r["deterministic"] else ""))
        print(f"{run}/{f}: {len(rs)} calls, gradients within the criterion {ok}/{len(rs)}, "
              f"every flash kernel a twin in {twin}")
        for k, where in sorted(kinds.items()):
            print(f"   {k}: in {sorted(where)}")
    p = os.path.join(d, "bench-strided.json")
    if os.path.exists(p):
        print(f"\n{run}/bench-strided.json (ms per call, median; TFLOP/s at 2.5x forward FLOPs)")
        print("| D | N | B | causal | plan | shipped (copies) | twin | twin / shipped | shipped kernel, contiguous | twin kernel, contiguous | twin / shipped (contiguous) |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for r in json.load(open(p)):
            m, t = r["ms"], r["tflops"]
            print(f"| {r['D']} | {r['N']} | {r['B']} | {'yes' if r['causal'] else 'no'} | "
                  f"{'deterministic' if r['deterministic'] else 'atomics'} | "
                  f"{m['shipped']:.3f} ({t['shipped']:.1f}) | {m['twin']:.3f} ({t['twin']:.1f}) | "
                  f"**{m['shipped'] / m['twin']:.2f}x** | {m['shipped/contig']:.3f} | "
                  f"{m['twin/contig']:.3f} | {m['shipped/contig'] / m['twin/contig']:.3f} |")
    p = os.path.join(d, "bench256.json")
    if os.path.exists(p):
        print(f"\n{run}/bench256.json (TFLOP/s, median of the rounds)")
        print("| causal | N | this branch | main | this / main | same-round main / this (ms), min-max | SDPA FA2 | SDPA cuDNN | this / FA2 |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in json.load(open(p))["rows"]:
            t, m = r["tflops"], r["round_ms"]
            print(f"| {'yes' if r['causal'] else 'no'} | {r['N']} | {t['flash_mlir']:.1f} | "
                  f"{t['flash_mlir_main']:.1f} | **{t['flash_mlir'] / t['flash_mlir_main']:.3f}** | "
                  f"{min(a / b for a, b in zip(m['flash_mlir_main'], m['flash_mlir'])):.3f}-"
                  f"{max(a / b for a, b in zip(m['flash_mlir_main'], m['flash_mlir'])):.3f} | {t['sdpa_fa2']:.1f} | "
                  f"{t.get('sdpa_cudnn', float('nan')):.1f} | {t['flash_mlir'] / t['sdpa_fa2']:.2f} |")
    print()
