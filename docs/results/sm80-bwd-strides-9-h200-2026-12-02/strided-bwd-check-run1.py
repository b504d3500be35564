#!/usr/bin/env python3
"""sm_80 backward on B×N×H×D leaves through autograd (GPU): q, k, v are
leaves of B×N×H×D buffers (separate, or one fused QKV buffer) viewed as
B×H×N×D; flash_mlir.torch.scaled_dot_product_attention(..., library=L)
forward, then torch.autograd.grad of O viewed back as B×N×H×D with a
B×N×H×D output gradient (what a model's projections give). Checks dQ, dK,
dV against the f32 reference (FlashAttention's criterion, gpu_check's
backward_reference) and lists every CUDA kernel of the backward call
(torch.profiler): `copies` = kernels not named flash_* (copy/stack
kernels). With twins (compile --strides variant) none may run; a library
without twins (--expect-copies) must copy.

  python3 strided-bwd-check.py DIR [--expect-copies] [--json F]
"""
import argparse, json, sys
import torch
from torch.profiler import profile, ProfilerActivity


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir"); ap.add_argument("--json")
    ap.add_argument("--head-dims", default="64,128,256"); ap.add_argument("--dtypes", default="bf16,f16")
    ap.add_argument("--expect-copies", action="store_true",
                    help="a library without strided backward twins: copies expected")
    ap.add_argument("--deterministic", default="both", choices=["both", "yes", "no"])
    a = ap.parse_args()
    dims = {int(x) for x in a.head_dims.split(",")}
    dtypes = [{"bf16": torch.bfloat16, "f16": torch.float16}[x] for x in a.dtypes.split(",")]
    dets = {"both": (False, True), "yes": (True,), "no": (False,)}[a.deterministic]
    from flash_mlir.runtime import KernelLibrary
    from flash_mlir.torch import scaled_dot_product_attention as sdpa
    from flash_mlir.tools.gpu_check import backward_reference, gradient_criterion
    lib = KernelLibrary(a.dir)
    gen = torch.Generator(device="cuda").manual_seed(1901)
    results = []
    cases = [(1, 4, 4, 77, 64, False), (2, 8, 2, 300, 64, True), (3, 6, 6, 129, 128, True),
             (4, 8, 1, 513, 128, False), (2, 4, 2, 257, 256, True), (2, 4, 4, 200, 256, False)]
    for b, hq, hkv, n, d, causal in [c for c in cases if c[4] in dims]:
        for dtype in dtypes:
            if d == 256 and dtype == torch.float16:
                continue
            for fused in (False, True):
                for det in dets:
                    r = {"shape": [b, hq, hkv, n, d], "causal": causal, "dtype": str(dtype),
                         "fused_qkv": fused, "deterministic": det}
                    try:
                        if fused:
                            buf = torch.randn(b, n, (hq + 2 * hkv) * d, device="cuda", dtype=dtype,
                                              generator=gen).requires_grad_()
                            leaves = (buf,)
                            qf, kf, vf = buf.split([hq * d, hkv * d, hkv * d], dim=2)
                            q = qf.view(b, n, hq, d).transpose(1, 2)
                            k = kf.view(b, n, hkv, d).transpose(1, 2)
                            v = vf.view(b, n, hkv, d).transpose(1, 2)
                        else:
                            ql, kl, vl = (torch.randn(b, n, h, d, device="cuda", dtype=dtype,
                                                      generator=gen).requires_grad_()
                                          for h in (hq, hkv, hkv))
                            leaves = (ql, kl, vl)
                            q, k, v = (t.transpose(1, 2) for t in leaves)
                        dy = torch.randn(b, n, hq, d, device="cuda", dtype=dtype, generator=gen)
                        o = sdpa(q, k, v, is_causal=causal, enable_gqa=hq != hkv, library=lib)
                        y = o.transpose(1, 2)  # B×N×H×D, as a model reads O back
                        torch.cuda.synchronize()
                        # The deterministic plan: torch's switch, read by the op's backward.
                        torch.use_deterministic_algorithms(det, warn_only=True)
                        try:
                            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                                grads = torch.autograd.grad(y, leaves, dy)
                                torch.cuda.synchronize()
                        finally:
                            torch.use_deterministic_algorithms(False)
                        names = sorted({e.name for e in prof.events()
                                        if e.device_type.name == "CUDA"})
                        if fused:
                            gq, gk, gv = grads[0].split([hq * d, hkv * d, hkv * d], dim=2)
                            grads = tuple(g.reshape(b, n, h, d) for g, h in
                                          ((gq, hq), (gk, hkv), (gv, hkv)))
                        grads = tuple(g.transpose(1, 2) for g in grads)
                        qc, kc, vc = (t.detach().contiguous() for t in (q, k, v))
                        _, _, ref, same = backward_reference(qc, kc, vc,
                                                             dy.transpose(1, 2).contiguous(),
                                                             causal, d ** -0.5)
                        ok, details = gradient_criterion(grads, ref, same)
                        copies = [x for x in names if not x.startswith("flash_")]
                        ran = [x for x in names if x.startswith("flash_")]
                        r.update(kernels=names, copies=copies, o_layout_bnhd=y.is_contiguous(),
                                 twin=all("strided" in x for x in ran) and bool(ran),
                                 **{g: v_ for g, v_ in details.items()})
                        r["pass"] = ok and (bool(copies) if a.expect_copies else not copies)
                    except Exception as e:
                        r.update({"pass": False, "error": f"{type(e).__name__}: {str(e)[:300]}"})
                    results.append(r)
                    print(("PASS " if r["pass"] else "FAIL ") + json.dumps(r), flush=True)
    npass = sum(r["pass"] for r in results)
    print(f"{npass} passed, {len(results) - npass} failed")
    if a.json:
        json.dump(results, open(a.json, "w"), indent=1)
    return 0 if npass == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
