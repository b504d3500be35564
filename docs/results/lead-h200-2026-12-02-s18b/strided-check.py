#!/usr/bin/env python3
"""Strided views through a library (GPU): for B×N×H×D buffers viewed as
B×H×N×D (q, k, v separate, and views of a fused QKV buffer), O of
flash_mlir.torch.scaled_dot_product_attention(..., library=L) against an f32
reference with FlashAttention's criterion (max|ours - ref32| <= 2·max|torch
bf16 - ref32| + 1e-5), outputs compared after NaN-poisoning nothing is
needed (O is allocated). Reports which plans ran (profiler kernel names).

  python3 strided-check.py DIR [--json F]
"""
import argparse, json, sys
import torch
import torch.nn.functional as F


def ref(q, k, v, causal, dtype):
    hq, hkv = q.shape[1], k.shape[1]
    k = k.repeat_interleave(hq // hkv, 1); v = v.repeat_interleave(hq // hkv, 1)
    q, k, v = (t.to(dtype) for t in (q, k, v))
    nq, nk = q.shape[2], k.shape[2]
    mask = None
    if causal:  # SDPA's is_causal: top-left
        mask = torch.ones(nq, nk, dtype=torch.bool, device=q.device).tril()
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def main():
    ap = argparse.ArgumentParser(); ap.add_argument("dir"); ap.add_argument("--json")
    ap.add_argument("--head-dims", default="64,128"); ap.add_argument("--dtypes", default="bf16,f16")
    a = ap.parse_args()
    dims = {int(x) for x in a.head_dims.split(",")}
    dtypes = [{"bf16": torch.bfloat16, "f16": torch.float16}[x] for x in a.dtypes.split(",")]
    from flash_mlir.runtime import KernelLibrary
    from flash_mlir.torch import scaled_dot_product_attention as sdpa
    from torch.profiler import profile, ProfilerActivity
    lib = KernelLibrary(a.dir)
    gen = torch.Generator(device="cuda").manual_seed(1811)
    results = []
    cases = [(1, 4, 4, 77, 64, False), (2, 8, 2, 300, 64, True), (3, 6, 6, 129, 128, True),
             (4, 8, 1, 513, 128, False), (2, 12, 12, 1000, 64, True), (3, 16, 4, 257, 128, True)]
    for b, hq, hkv, n, d, causal in [c for c in cases if c[4] in dims]:
        for dtype in dtypes:
            for fused in (False, True):
                r = {"shape": [b, hq, hkv, n, d], "causal": causal, "dtype": str(dtype), "fused_qkv": fused}
                try:
                    if fused:
                        buf = torch.randn(b, n, (hq + 2 * hkv) * d, device="cuda", dtype=dtype, generator=gen)
                        qf, kf, vf = buf.split([hq * d, hkv * d, hkv * d], dim=2)
                        q = qf.view(b, n, hq, d).transpose(1, 2)
                        k = kf.view(b, n, hkv, d).transpose(1, 2)
                        v = vf.view(b, n, hkv, d).transpose(1, 2)
                    else:
                        q = torch.randn(b, n, hq, d, device="cuda", dtype=dtype, generator=gen).transpose(1, 2)
                        k = torch.randn(b, n, hkv, d, device="cuda", dtype=dtype, generator=gen).transpose(1, 2)
                        v = torch.randn(b, n, hkv, d, device="cuda", dtype=dtype, generator=gen).transpose(1, 2)
                    with torch.no_grad():
                        with profile(activities=[ProfilerActivity.CUDA]) as prof:
                            o = sdpa(q, k, v, is_causal=causal, enable_gqa=hq != hkv, library=lib)
                            torch.cuda.synchronize()
                        names = sorted({e.name for e in prof.events() if e.device_type.name == "CUDA"})
                        r32 = ref(q, k, v, causal, torch.float32)
                        same = ref(q, k, v, causal, dtype).float()
                        err = (o.float() - r32).abs().max().item()
                        bound = 2 * (same - r32).abs().max().item() + 1e-5
                    r.update(err=err, bound=bound, kernels=names,
                             copies=[x for x in names if not x.startswith("flash_")],
                             nan=bool(torch.isnan(o).any()))
                    r["pass"] = err <= bound and not r["nan"]
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
