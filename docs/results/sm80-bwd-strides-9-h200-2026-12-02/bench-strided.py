#!/usr/bin/env python3
"""sm_80 backward on B×N×H×D views (GPU timing): KernelLibrary.attention_backward
of a library with strided twins (`twin`: the twin runs, nothing copied)
against one without (`shipped`: the shipped kernels after contiguous copies
of q, k, v, O, dO and with dK, dV written contiguous), both on the same
B×N×H×D views, and both plans' kernels on contiguous inputs (`shipped/contig`,
`twin/contig`: the twin's stride arithmetic alone). Every column in the same
interleaved rounds (CUDA events around `reps` calls); median of the rounds, ms
per call and TFLOP/s at 2.5x the forward's FLOPs (half for causal).

  python3 bench-strided.py --twins DIR --plain DIR [--json F]
"""
import argparse, json, statistics, sys
import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--twins", required=True); ap.add_argument("--plain", required=True)
    ap.add_argument("--head-dims", default="64,128,256"); ap.add_argument("--seqlens", default="2048,8192")
    ap.add_argument("--rounds", type=int, default=5); ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--heads", type=int, default=8); ap.add_argument("--tokens", type=int, default=16384)
    ap.add_argument("--deterministic", default="no", choices=["no", "yes", "both"])
    ap.add_argument("--json")
    a = ap.parse_args()
    from flash_mlir.runtime import KernelLibrary
    twins, plain = KernelLibrary(a.twins), KernelLibrary(a.plain)
    gen = torch.Generator(device="cuda").manual_seed(1902)
    rows = []
    dets = {"no": (False,), "yes": (True,), "both": (False, True)}[a.deterministic]
    for d in (int(x) for x in a.head_dims.split(",")):
        for n in (int(x) for x in a.seqlens.split(",")):
            for causal in (False, True):
                for det in dets:
                    b, h = max(1, a.tokens // n), a.heads
                    q, k, v, do = (torch.randn(b, n, h, d, device="cuda", dtype=torch.bfloat16,
                                               generator=gen).transpose(1, 2) for _ in range(4))
                    qc, kc, vc, doc = (t.contiguous() for t in (q, k, v, do))
                    oc, lse = plain.attention(qc, kc, vc, causal=causal, return_lse=True)
                    o = oc.transpose(1, 2).contiguous().transpose(1, 2)
                    dev = q.device
                    shipped_b = plain.find_backward("bf16", d, causal, n, plain._capability(dev), det,
                                                    plain._shared_memory(dev))
                    twin_b = twins._layout_twin(
                        twins.find_backward("bf16", d, causal, n, twins._capability(dev), det,
                                            twins._shared_memory(dev)),
                        (("q", q),), n, dev)
                    assert "strided" in twin_b.variant, twin_b.name
                    cols = {
                        "shipped": lambda: plain.attention_backward(q, k, v, o, do, lse, causal,
                                                                    deterministic=det),
                        "twin": lambda: twins.attention_backward(q, k, v, o, do, lse, causal,
                                                                 deterministic=det),
                        "shipped/contig": lambda: plain.attention_backward(
                            qc, kc, vc, oc, doc, lse, causal, deterministic=det, bundle=shipped_b),
                        "twin/contig": lambda: twins.attention_backward(
                            qc, kc, vc, oc, doc, lse, causal, deterministic=det, bundle=twin_b),
                    }
                    for f in cols.values():  # warm-up (and the runtime's planning)
                        f(); f()
                    torch.cuda.synchronize()
                    times = {c: [] for c in cols}
                    for _ in range(a.rounds):
                        for c, f in cols.items():
                            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                            s.record()
                            for _ in range(a.reps):
                                f()
                            e.record(); torch.cuda.synchronize()
                            times[c].append(s.elapsed_time(e) / a.reps)
                    flops = 2.5 * 4 * b * h * n * n * d * (0.5 if causal else 1.0)
                    row = {"D": d, "N": n, "B": b, "H": h, "causal": causal, "deterministic": det,
                           "shipped_plan": shipped_b.name, "twin_plan": twin_b.name,
                           "ms": {c: statistics.median(t) for c, t in times.items()},
                           "round_ms": times}
                    row["tflops"] = {c: flops / ms / 1e9 for c, ms in row["ms"].items()}
                    rows.append(row)
                    m = row["ms"]
                    print(f"D={d} N={n} B={b} causal={int(causal)} det={int(det)} "
                          + " ".join(f"{c}={m[c]:.3f}ms/{row['tflops'][c]:.1f}" for c in cols)
                          + f" | twin/shipped={m['shipped'] / m['twin']:.3f}x"
                          + f" twin-contig/shipped-contig={m['shipped/contig'] / m['twin/contig']:.3f}x",
                          flush=True)
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
