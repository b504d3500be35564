#!/usr/bin/env python3
"""One launch per call for B×N×H×D views (GPU machine; never in CI).

    python3 scripts/gpu/one-launch-profile.py --bundles DIR [--label L] [--json F]

For B = 4 views of a fused QKV projection (GPT-2's layer: 4×512×12×64, and a
Llama-style one: 4×512×8/2×128, causal, bf16), one call of
flash_mlir.torch.scaled_dot_product_attention under torch.profiler (CPU and
CUDA), after a warm-up call: the CUDA kernels that ran and how often, for
(a) the forward without gradients and (b) forward + backward through
autograd (gradients of the QKV buffer). Pass for (a): exactly one flash_
forward kernel launch and no copy kernel. For (b) the kernels are recorded
as they are (the backward plan's three kernels, and whatever copies remain).
With DIR a library compiled with --batch-maps (rank-4 tensor maps) the
forward is one launch; with rank-3 maps it is one launch per batch entry.

The "-leaves" cases take q, k, v as separate B×N×H×D leaves (no fused QKV
buffer, whose split's backward is a copy in any attention) and the output
gradient as the B×N×H×D view of O: they pass only if forward + backward is
one forward launch, the backward plan's three kernels and no copy kernel at
all (the backward reads O, dO with their strides and writes dQ, dK, dV in
q, k, v's layout).
"""
import argparse
import json
import sys

COPY_WORDS = ("copy", "memcpy", "memset", "elementwise", "contiguous", "transpose", "cat",
              "stack")


def kernels(fn):
    """{kernel name: launches} of one call of fn (after one warm-up call)."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    counts = {}
    for e in prof.events():
        if str(getattr(e, "device_type", "")).endswith("CUDA"):
            counts[e.name] = counts.get(e.name, 0) + 1
    return counts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bundles", required=True)
    ap.add_argument("--label", default="")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    import torch
    from flash_mlir.runtime import KernelLibrary
    import flash_mlir.torch as ft
    lib = KernelLibrary(args.bundles)
    ft.use_library(lib)
    sdpa = ft.scaled_dot_product_attention
    results = []
    cases = []
    for name, shape in (("gpt2", (4, 512, 12, 12, 64)), ("llama", (4, 512, 8, 2, 128))):
        cases += [(name, shape, False), (name + "-leaves", shape, True)]
    for name, (b, n, hq, hkv, d), separate in cases:
        gen = torch.Generator(device="cuda").manual_seed(7)
        if separate:
            leaves = [torch.randn(b, n, h, d, device="cuda", dtype=torch.bfloat16,
                                  generator=gen).requires_grad_(True) for h in (hq, hkv, hkv)]

            def views(_):
                return tuple(t.transpose(1, 2) for t in leaves)
            qkv = None
        else:
            width = (hq + 2 * hkv) * d
            qkv = torch.randn(b, n, width, device="cuda", dtype=torch.bfloat16, generator=gen)
            qkv.requires_grad_(True)
            leaves = [qkv]

            def views(t):
                q, k, v = t.split([hq * d, hkv * d, hkv * d], dim=2)
                return (q.view(b, n, hq, d).transpose(1, 2),
                        k.view(b, n, hkv, d).transpose(1, 2),
                        v.view(b, n, hkv, d).transpose(1, 2))

        def forward():
            with torch.no_grad():
                q, k, v = views(qkv)
                return sdpa(q, k, v, is_causal=True, enable_gqa=hq != hkv)

        grad = torch.randn(b, n, hq * d, device="cuda", dtype=torch.bfloat16, generator=gen)

        def step():
            q, k, v = views(qkv)
            o = sdpa(q, k, v, is_causal=True, enable_gqa=hq != hkv)
            o.transpose(1, 2).reshape(b, n, hq * d).backward(grad)
            for t in leaves:
                t.grad = None

        r = {"model": name, "shape": [b, n, hq, hkv, d], "label": args.label}
        try:
            fwd = kernels(forward)
            both = kernels(step)
            flash = {k: c for k, c in fwd.items() if k.startswith("flash_")}
            copies = {k: c for k, c in fwd.items() if any(w in k.lower() for w in COPY_WORDS)}
            r.update({
                "forward_kernels": fwd, "forward_flash_launches": sum(flash.values()),
                "forward_copy_kernels": copies,
                "fwd_bwd_kernels": both,
                "fwd_bwd_flash_launches": sum(c for k, c in both.items() if k.startswith("flash_")),
                "fwd_bwd_copy_launches": sum(c for k, c in both.items()
                                             if any(w in k.lower() for w in COPY_WORDS)),
                "out_bnhd": bool(forward().transpose(1, 2).is_contiguous()),
            })
            r["pass"] = r["forward_flash_launches"] == 1 and not copies and r["out_bnhd"]
            if separate:
                r["pass"] = (r["pass"] and r["fwd_bwd_copy_launches"] == 0
                             and r["fwd_bwd_flash_launches"] == 4)
        except Exception as e:  # recorded, not raised
            r.update({"pass": False, "error": f"{type(e).__name__}: {str(e)[:400]}"})
        results.append(r)
        print(("PASS " if r["pass"] else "FAIL ") + json.dumps(r), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    print(f"{sum(r['pass'] for r in results)} passed, "
          f"{sum(not r['pass'] for r in results)} failed")
    return 0 if all(r["pass"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
