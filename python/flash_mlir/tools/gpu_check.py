"""GPU correctness check of FlashMLIR kernels against torch SDPA in float32.

  python3 -m flash_mlir.gpu_check --bundles bundles/ [--quick] [--json out.json]

Kernels run through libflash_runtime.so (flash_mlir.runtime), the launcher
that tools/flash-runtime-check also uses.

For every case: fresh random inputs, output and LSE poisoned with NaN before
the launch, reference = torch SDPA on the same inputs upcast to float32 with an
explicit bottom-right causal mask and K/V repeated for GQA (rows that see no key
are 0 by definition; SDPA gives NaN there, so they are set to 0). Passes when
||out - ref|| / ||ref|| <= 2e-3 (f16) or 1e-2 (bf16), no NaN anywhere, and the LSE
matches (to 1e-3 relative on finite rows, -inf exactly where a row sees no key).

Besides standard-normal inputs, "rising" cases add a score that grows along the
keys by `rise` per 64 keys (a shared direction in Q and K), so that a row's
maximum keeps growing from one K/V tile to the next: by more than the sm_90a
kernels' lazy-rescale threshold per tile (rise 16) and by less (rise 1.5),
where a row's stale maximum is kept over several tiles.

--mode backward checks the backward plans (KernelLibrary.attention_backward)
with FlashAttention's own test criterion: for each of dQ, dK, dV,
max|ours - ref_f32| <= 2·max|torch same dtype - ref_f32| + 1e-5, where ref_f32
is torch autograd through the attention in f32 on the same inputs and "torch
same dtype" the same autograd computed in the 16-bit type (K/V repeated for
GQA, an explicit bottom-right causal mask, rows that see no key giving 0 and
no gradient). The backward is given the f32 reference's O (rounded to the
element type) and LSE, so that it is checked alone. dQ, dK, dV are poisoned
with NaN first; NaN never passes. The deterministic plans (variant
"deterministic") are checked the same way, and must give bitwise identical
dQ, dK, dV over --repeat runs of one case per element type, head
dimension and causal flag.
"""

import argparse
import json
import math
import sys
import time

TOLERANCE = {"f16": 2e-3, "bf16": 1e-2}


def cases(quick: bool, dtypes=("bf16", "f16"), head_dims=(64, 128, 256), causals=(False, True)):
    """(B, Hq, Hkv, Nq, Nk) shapes: odd lengths, GQA 32/8, causal Nq != Nk."""
    shapes = [
        (2, 4, 4, 1, 1),
        (1, 4, 4, 77, 77),
        (1, 8, 2, 1000, 1000),
        (1, 2, 1, 4097, 4097),
        (1, 32, 8, 333, 333),
        (2, 4, 2, 100, 1000),     # Nq < Nk: bottom-right diagonal
        (1, 4, 4, 1, 4097),       # one query row (decode-like)
        (1, 4, 2, 1000, 100),     # Nq > Nk: the first 900 rows see no key when causal
        (1, 5, 1, 2500, 4097),    # sm_90a grouped tile order: 3 heads a group at D=256, the last partial
    ]
    # 1.5 per 64 keys is 2.7-4.3 per K/V tile of 80-128 keys in the exp2 domain
    # (below the threshold of 8: a row keeps a stale max over tiles); 16 is
    # 23-46 (above it: a row's max grows at every tile).
    rising = [((1, 4, 2, 1000, 1000), 1.5), ((1, 4, 2, 1000, 1000), 16.0)]
    if quick:
        shapes = [(1, 4, 2, 77, 77), (1, 4, 2, 100, 300), (1, 4, 2, 300, 100)]
        rising = [((1, 4, 2, 300, 300), 16.0)]
    for dtype in dtypes:
        for d in head_dims:
            for causal in causals:
                for shape in shapes:
                    yield dtype, d, causal, shape, 0.0
                for shape, rise in rising:
                    yield dtype, d, causal, shape, rise


def reference(q, k, v, causal, scale):
    import torch
    qf, kf, vf = q.float(), k.float(), v.float()
    group = q.shape[1] // k.shape[1]
    kf = kf.repeat_interleave(group, dim=1)
    vf = vf.repeat_interleave(group, dim=1)
    nq, nk = q.shape[2], k.shape[2]
    mask = None
    if causal:
        mask = torch.ones(nq, nk, dtype=torch.bool, device=q.device).tril(diagonal=nk - nq)
    out = torch.nn.functional.scaled_dot_product_attention(qf, kf, vf, attn_mask=mask, scale=scale)
    scores = torch.matmul(qf, kf.transpose(-1, -2)) * scale
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
        empty = ~mask.any(dim=-1)               # rows that see no key
        out[..., empty, :] = 0.0
    lse = torch.logsumexp(scores, dim=-1)
    return out, lse


def check_case(lib, dtype, d, causal, shape, seed, bundle=None, rise=0.0):
    import torch
    b, hq, hkv, nq, nk = shape
    torch_dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[dtype]
    gen = torch.Generator(device="cuda").manual_seed(seed)
    q = torch.randn(b, hq, nq, d, device="cuda", dtype=torch_dtype, generator=gen)
    k = torch.randn(b, hkv, nk, d, device="cuda", dtype=torch_dtype, generator=gen)
    v = torch.randn(b, hkv, nk, d, device="cuda", dtype=torch_dtype, generator=gen)
    scale = 1.0 / math.sqrt(d)
    if rise:
        # q·u = 4 for a unit u; key j gets (rise·j/64)·sqrt(d)/4 along u, so
        # its score (times scale) grows by rise per 64 keys.
        u = torch.randn(d, device="cuda", generator=gen)
        u = u / u.norm()
        ramp = torch.arange(nk, device="cuda", dtype=torch.float32) * (rise / 64) * math.sqrt(d) / 4
        q = (q.float() + 4 * u).to(torch_dtype)
        k = (k.float() + ramp[:, None] * u).to(torch_dtype)
    out = torch.full_like(q, float("nan"))
    lse = torch.full((b, hq, nq), float("nan"), device="cuda", dtype=torch.float32)
    lib.attention(q, k, v, causal=causal, scale=scale, return_lse=True, out=out, lse_out=lse,
                  bundle=bundle)
    torch.cuda.synchronize()
    ref, ref_lse = reference(q, k, v, causal, scale)
    result = {"dtype": dtype, "D": d, "causal": causal, "shape": list(shape), "rise": rise,
              "kernel": (bundle or lib.find(dtype, d, causal, True, max(nq, nk))).name}
    nan = bool(torch.isnan(out).any()) or bool(torch.isnan(lse).any())
    ref_norm = float(ref.norm())
    err = float((out.float() - ref).norm()) / ref_norm if ref_norm > 0 else float((out.float()).norm())
    finite = torch.isfinite(ref_lse)
    lse_ok = bool(torch.equal(torch.isneginf(lse), torch.isneginf(ref_lse)))
    lse_err = 0.0
    if bool(finite.any()):
        lse_err = float(((lse[finite] - ref_lse[finite]).abs() / (1 + ref_lse[finite].abs())).max())
    result.update(rel_err=err, lse_err=lse_err, nan=nan)
    result["pass"] = (not nan) and err <= TOLERANCE[dtype] and lse_ok and lse_err <= 1e-3
    return result


def backward_cases(quick: bool, dtypes=("bf16", "f16"), head_dims=(64, 128),
                   causals=(False, True)):
    """(B, Hq, Hkv, Nq, Nk): odd lengths, GQA 8/2, Nq != Nk causal with rows
    that see no key, ragged K/V tails, one row."""
    shapes = [
        (2, 2, 2, 1, 1),
        (1, 2, 2, 77, 77),
        (1, 8, 2, 257, 257),      # GQA 8/2, ragged tails on both sides
        (2, 4, 2, 100, 1000),     # Nq < Nk: bottom-right diagonal
        (1, 4, 2, 1000, 100),     # Nq > Nk: the first 900 rows see no key when causal
        (1, 2, 1, 1, 513),        # one query row
        (1, 4, 4, 513, 130),      # a 2-row tail of keys
        (1, 2, 1, 2049, 2049),
    ]
    if quick:
        shapes = [(1, 4, 2, 77, 77), (1, 4, 2, 100, 300), (1, 4, 2, 300, 100)]
    for dtype in dtypes:
        for d in head_dims:
            for causal in causals:
                for shape in shapes:
                    yield dtype, d, causal, shape


def attention_for_grad(q, k, v, causal, scale):
    """softmax(scale·Q·Kᵀ + mask)·V in q's dtype, differentiable, with K/V
    repeated for GQA; a row that sees no key gives 0 and no gradient (never
    NaN); also its LSE (-inf for such a row)."""
    import torch
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    nq, nk = q.shape[2], k.shape[2]
    scores = torch.matmul(q, k.transpose(-1, -2)) * scale
    if causal:
        mask = torch.ones(nq, nk, dtype=torch.bool, device=q.device).tril(diagonal=nk - nq)
        empty = ~mask.any(dim=-1)
        scores = scores.masked_fill(~mask, float("-inf"))
        scores = scores.masked_fill(empty[:, None], 0.0)
        probs = torch.softmax(scores, dim=-1).masked_fill(empty[:, None], 0.0)
        lse = torch.logsumexp(scores.float(), dim=-1).masked_fill(empty, float("-inf"))
    else:
        probs = torch.softmax(scores, dim=-1)
        lse = torch.logsumexp(scores.float(), dim=-1)
    return torch.matmul(probs.to(v.dtype), v), lse


def backward_reference(q, k, v, do, causal, scale):
    """(O, LSE, grads in f32, grads in q's dtype): torch autograd of
    attention_for_grad on the inputs upcast to f32 and as they are."""
    import torch
    out = {}
    for name, dtype in (("f32", torch.float32), ("same", q.dtype)):
        qg, kg, vg = (t.detach().to(dtype).requires_grad_() for t in (q, k, v))
        o, lse = attention_for_grad(qg, kg, vg, causal, scale)
        grads = torch.autograd.grad(o, (qg, kg, vg), do.to(dtype))
        out[name] = (o.detach(), lse.detach(), [g.float() for g in grads])
    return out["f32"][0], out["f32"][1], out["f32"][2], out["same"][2]


def gradient_criterion(grads, ref, same):
    """FlashAttention's test criterion on dQ, dK, dV: max|ours - ref_f32| <=
    2·max|torch same dtype - ref_f32| + 1e-5, and no NaN. Returns (pass,
    {"dq": {max_err, bound, nan}, ...})."""
    import torch
    ok, details = True, {}
    for name, ours, r32, rsame in zip(("dq", "dk", "dv"), grads, ref, same):
        nan = bool(torch.isnan(ours).any())
        err = float((ours.float() - r32).abs().max())
        bound = 2 * float((rsame - r32).abs().max()) + 1e-5
        details[name] = {"max_err": err, "bound": bound, "nan": nan}
        ok &= (not nan) and err <= bound
    return ok, details


def backward_inputs(shape, d, dtype, seed):
    """Q, K, V, dO for (B, Hq, Hkv, Nq, Nk) at head dimension d, standard
    normal in dtype ("bf16" or "f16"), from `seed` on the GPU."""
    import torch
    b, hq, hkv, nq, nk = shape
    torch_dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[dtype]
    gen = torch.Generator(device="cuda").manual_seed(seed)
    q, do = (torch.randn(b, hq, nq, d, device="cuda", dtype=torch_dtype, generator=gen)
             for _ in range(2))
    k, v = (torch.randn(b, hkv, nk, d, device="cuda", dtype=torch_dtype, generator=gen)
            for _ in range(2))
    return q, k, v, do


def bnhd(t):
    """`t` (B×H×N×D) with the same values in a B×N×H×D buffer, viewed as
    B×H×N×D (transpose(1, 2)): the layout a model's projections give."""
    return t.transpose(1, 2).contiguous().transpose(1, 2)


def check_backward_case(lib, dtype, d, causal, shape, seed, deterministic=False,
                        bundle=None, layout="bhnd"):
    """One backward call against the f32 reference. layout "bnhd": q, k,
    v, O, dO and the (NaN-poisoned) gradient buffers are B×N×H×D views."""
    import torch
    q, k, v, do = backward_inputs(shape, d, dtype, seed)
    nq, nk = shape[3], shape[4]
    scale = 1.0 / math.sqrt(d)
    o32, lse, ref, same = backward_reference(q, k, v, do, causal, scale)
    o = o32.to(q.dtype).contiguous()
    lse = lse.float().contiguous()
    grads = tuple(torch.full_like(t, float("nan")) for t in (q, k, v))
    if layout == "bnhd":
        q, k, v, o, do = (bnhd(t) for t in (q, k, v, o, do))
        grads = tuple(bnhd(t) for t in grads)
    bundle = bundle or lib.find(dtype, d, causal, False, max(nq, nk),
                                compute_capability=lib._capability(q.device),
                                variant="deterministic" if deterministic else None,
                                op="attention_backward",
                                shared_memory=lib._shared_memory(q.device))
    lib.attention_backward(q, k, v, o, do, lse, causal=causal, scale=scale,
                           deterministic=deterministic, out=grads, bundle=bundle)
    torch.cuda.synchronize()
    result = {"mode": "backward", "dtype": dtype, "D": d, "causal": causal,
              "shape": list(shape), "deterministic": deterministic, "kernel": bundle.name,
              "layout": layout}
    result["pass"], details = gradient_criterion(grads, ref, same)
    result.update(details)
    return result


def check_repeatable(lib, dtype, d, causal, shape, seed, repeat):
    """The deterministic plan `repeat` times on one case: bitwise equal?"""
    import torch
    q, k, v, do = backward_inputs(shape, d, dtype, seed)
    scale = 1.0 / math.sqrt(d)
    o32, lse, _, _ = backward_reference(q, k, v, do, causal, scale)
    o = o32.to(q.dtype).contiguous()
    first, same = None, True
    for _ in range(repeat):
        grads = lib.attention_backward(q, k, v, o, do, lse.float().contiguous(), causal=causal,
                                       scale=scale, deterministic=True)
        bits = [g.view(torch.int16).clone() for g in grads]
        if first is None:
            first = bits
        else:
            same &= all(bool(torch.equal(a, b_)) for a, b_ in zip(first, bits))
    return {"mode": "repeatable", "dtype": dtype, "D": d, "causal": causal,
            "shape": list(shape), "runs": repeat, "kernel": "deterministic", "pass": same}


def check_backward_graph(lib, dtype, d, causal, shape, seed, deterministic, replays=3):
    """The backward plan captured in a CUDA graph (torch.cuda.graph, stream
    capture: on sm_90a the programmatic dependent launches of the main
    kernel and the convert become programmatic edges) and replayed on new
    inputs copied into the captured buffers, the gradient buffers poisoned
    with NaN before each replay: every replay meets the criterion against the
    f32 reference of its inputs, and the deterministic plan's gradients are
    bitwise an eager call's."""
    import torch
    scale = 1.0 / math.sqrt(d)
    q, k, v, do = backward_inputs(shape, d, dtype, seed)
    o32, lse, _, _ = backward_reference(q, k, v, do, causal, scale)
    o, lse = o32.to(q.dtype).contiguous(), lse.float().contiguous()
    grads = tuple(torch.empty_like(t) for t in (q, k, v))
    call = lambda: lib.attention_backward(q, k, v, o, do, lse, causal=causal, scale=scale,
                                          deterministic=deterministic, out=grads)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(2):  # warm-up: module load, the stream's workspaces
            call()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        call()
    ok, worst = True, {}
    for r in range(replays):
        nq, nk, nd, ndo = backward_inputs(shape, d, dtype, seed + 1000 * (r + 1))
        n_o32, n_lse, ref, same = backward_reference(nq, nk, nd, ndo, causal, scale)
        for dst, src in ((q, nq), (k, nk), (v, nd), (do, ndo), (o, n_o32.to(q.dtype)),
                         (lse, n_lse.float())):
            dst.copy_(src)
        for g in grads:
            g.fill_(float("nan"))
        torch.cuda.synchronize()
        graph.replay()
        torch.cuda.synchronize()
        passed, details = gradient_criterion(grads, ref, same)
        ok &= passed
        for g, det in details.items():
            worst[g] = max(worst.get(g, 0.0), det["max_err"] / det["bound"])
        if deterministic:
            eager = lib.attention_backward(q, k, v, o, do, lse, causal=causal, scale=scale,
                                           deterministic=True)
            torch.cuda.synchronize()
            ok &= all(bool(torch.equal(a.view(torch.int16), b_.view(torch.int16)))
                      for a, b_ in zip(grads, eager))
    return {"mode": "graph", "dtype": dtype, "D": d, "causal": causal, "shape": list(shape),
            "deterministic": deterministic, "replays": replays, "pass": ok,
            "kernel": "graph", "worst_err_over_bound": worst}


def check_torch_autograd(lib, seed):
    """torch.ops.flash_mlir.attention's gradients (the forward plan with LSE,
    then the backward plan, through autograd) against the f32 reference, by
    the same criterion: causal GQA 8/2, Nq != Nk."""
    import torch
    from flash_mlir.torch import register_torch_op
    result = {"mode": "torch_autograd", "kernel": "torch.ops.flash_mlir.attention (autograd)"}
    try:
        op = register_torch_op(lib)
        gen = torch.Generator(device="cuda").manual_seed(seed)
        q, do = (torch.randn(1, 8, 300, 64, device="cuda", dtype=torch.bfloat16, generator=gen)
                 for _ in range(2))
        k, v = (torch.randn(1, 2, 200, 64, device="cuda", dtype=torch.bfloat16, generator=gen)
                for _ in range(2))
        qg, kg, vg = (t.clone().requires_grad_() for t in (q, k, v))
        grads = torch.autograd.grad(op(qg, kg, vg, True, 0.125), (qg, kg, vg), do)
        _, _, ref, same = backward_reference(q, k, v, do, True, 0.125)
        ok, details = gradient_criterion(grads, ref, same)
        result.update(detail=" ".join(f"{g}={v['max_err']:.2e}/{v['bound']:.2e}"
                                      for g, v in details.items()))
        result["pass"] = ok
    except (ValueError, RuntimeError) as e:
        result.update(detail=f"error: {e}", **{"pass": False})
    return result


def backward_main(args, lib):
    results = []
    seed = args.seed
    causals = {"both": (False, True), "yes": (True,), "no": (False,)}[args.causal]
    head_dims = [int(x) for x in args.head_dims.split(",")]
    variants = [False, True] if args.deterministic == "both" else [args.deterministic == "yes"]

    def report(r):
        results.append(r)
        if r["mode"] == "graph":
            print(f"{'PASS' if r['pass'] else 'FAIL'} graph replay {r['dtype']} D={r['D']} "
                  f"causal={int(r['causal'])} deterministic={int(r['deterministic'])} "
                  f"{r['shape']}: {r['replays']} replays on new inputs"
                  + (", bitwise = eager" if r["deterministic"] else "")
                  + " (max err/bound " + ", ".join(f"{g} {x:.2f}" for g, x in
                                                    r["worst_err_over_bound"].items()) + ")",
                  flush=True)
            return
        if r["mode"] == "repeatable":
            print(f"{'PASS' if r['pass'] else 'FAIL'} deterministic {r['dtype']} D={r['D']} "
                  f"causal={int(r['causal'])} {r['shape']}: bitwise identical over {r['runs']} runs"
                  if r["pass"] else
                  f"FAIL deterministic {r['dtype']} D={r['D']} causal={int(r['causal'])} "
                  f"{r['shape']}: results differ over {r['runs']} runs", flush=True)
            return
        errs = " ".join(f"{g}={r[g]['max_err']:.2e}/{r[g]['bound']:.2e}{' NaN' if r[g]['nan'] else ''}"
                        for g in ("dq", "dk", "dv"))
        print(f"{'PASS' if r['pass'] else 'FAIL'} {r['kernel']:<46} B,Hq,Hkv,Nq,Nk={r['shape']} "
              f"{r.get('layout', 'bhnd')} {errs}", flush=True)

    cases_ = list(backward_cases(args.quick, args.dtypes.split(","), head_dims, causals))
    if args.shape:
        shapes = [tuple(int(x) for x in text.split(",")) for text in args.shape]
        cases_ = [(dt, d, c, shape) for dt in args.dtypes.split(",") for d in head_dims
                  for c in causals for shape in shapes]
    for dtype, d, causal, shape in cases_:
        # The default plans (with atomics, deterministic), then with
        # --variants every other backward plan of the key (e.g. other warps).
        plans = [(deterministic, None) for deterministic in variants]
        if args.variants:
            import torch
            device = torch.device("cuda")
            default_names = {lib.find(dtype, d, causal, False, max(shape[3], shape[4]),
                                      compute_capability=lib._capability(device),
                                      variant="deterministic" if det else None,
                                      op="attention_backward",
                                      shared_memory=lib._shared_memory(device)).name
                             for det, _ in plans}
            plans += [("deterministic" in bb.variant, bb) for bb in lib.all
                      if bb.key() == ("attention_backward", dtype, d, causal, False)
                      and bb.name not in default_names
                      and ("deterministic" in bb.variant) in variants]
        layouts = ["bhnd", "bnhd"] if args.layout == "both" else [args.layout]
        for (deterministic, bundle), layout in [(p, l) for p in plans for l in layouts]:
            seed += 1
            try:
                report(check_backward_case(lib, dtype, d, causal, shape, seed, deterministic,
                                           bundle, layout))
            except (ValueError, RuntimeError) as e:
                report({"mode": "backward", "dtype": dtype, "D": d, "causal": causal,
                        "shape": list(shape), "deterministic": deterministic,
                        "kernel": "?", "error": str(e), "pass": False,
                        **{g: {"max_err": float("nan"), "bound": 0.0, "nan": True}
                           for g in ("dq", "dk", "dv")}})
                print(f"  error: {e}", flush=True)
    if args.torch_op:
        results.append(check_torch_autograd(lib, seed + 1))
        r = results[-1]
        print(f"{'PASS' if r['pass'] else 'FAIL'} {r['kernel']}: {r.get('detail', '')}", flush=True)
    if args.graph:
        # CUDA-graph capture and replay of each plan (sm_90a: the
        # programmatic dependent launches captured as programmatic edges).
        for dtype in args.dtypes.split(","):
            for d in head_dims:
                for causal in causals:
                    for deterministic in variants:
                        seed += 1
                        try:
                            report(check_backward_graph(lib, dtype, d, causal, (2, 4, 2, 300, 270),
                                                        seed, deterministic))
                        except (ValueError, RuntimeError) as e:
                            report({"mode": "graph", "dtype": dtype, "D": d, "causal": causal,
                                    "shape": [2, 4, 2, 300, 270], "deterministic": deterministic,
                                    "replays": 0, "pass": False, "kernel": "graph",
                                    "worst_err_over_bound": {}})
                            print(f"  error: {e}", flush=True)
    if args.repeat and True in variants:
        # Causal and not: without causal masking every block reaches a Q tile
        # at the same step, where unordered sums would differ from run to run.
        for dtype in args.dtypes.split(","):
            for d in head_dims:
                for causal in causals:
                    seed += 1
                    report(check_repeatable(lib, dtype, d, causal, (2, 8, 2, 1000, 1000),
                                            seed, args.repeat))
    return results


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bundles", required=True)
    ap.add_argument("--quick", action="store_true", help="a few small cases (for compute-sanitizer)")
    ap.add_argument("--variants", action="store_true",
                    help="also check every non-default schedule in the bundle directory "
                         "(backward: every other plan of the key)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--dtypes", default="bf16,f16")
    ap.add_argument("--head-dims", default="64,128,256",
                    help="forward: the head dimensions to check (default 64,128,256); "
                         "backward: default the ones the library has backward plans for")
    ap.add_argument("--causal", default="both", choices=["both", "yes", "no"])
    ap.add_argument("--seed", type=int, default=int(time.time()) % 100000)
    ap.add_argument("--mode", default="forward", choices=["forward", "backward"],
                    help="forward: the attention plans; backward: the gradients' plans "
                         "(dQ, dK, dV against torch autograd in f32)")
    ap.add_argument("--deterministic", default="both", choices=["both", "yes", "no"],
                    help="backward: which plans to check")
    ap.add_argument("--shape", action="append", default=[],
                    help="backward: check only this B,Hq,Hkv,Nq,Nk (repeatable)")
    ap.add_argument("--layout", default="bhnd", choices=["bhnd", "bnhd", "both"],
                    help="backward: bhnd (default) contiguous B×H×N×D tensors; bnhd: q, k, v, "
                         "O, dO and the NaN-poisoned gradient buffers as B×N×H×D views "
                         "(transpose(1, 2) of contiguous buffers), which sm_80's strided "
                         "twins (compile --strides variant) take as they are and other "
                         "plans through copies; both: each case in both layouts")
    ap.add_argument("--torch-op", action="store_true",
                    help="backward: also torch.ops.flash_mlir.attention's autograd (needs "
                         "forward plans with LSE for bf16 D=64 causal)")
    ap.add_argument("--graph", action="store_true",
                    help="backward: also capture each plan in a CUDA graph and replay it on new "
                         "inputs (criterion per replay; deterministic: bitwise = eager)")
    ap.add_argument("--repeat", type=int, default=10,
                    help="backward: runs of the deterministic plan that must be bitwise "
                         "identical (0: skip)")
    args = ap.parse_args(argv)
    import torch
    from flash_mlir.runtime import KernelLibrary
    lib = KernelLibrary(args.bundles)
    if args.mode == "backward":
        if args.head_dims == "64,128,256":
            # The head dimensions the library has backward plans for.
            dims = sorted({b.head_dim for b in lib.all if b.op == "attention_backward"})
            args.head_dims = ",".join(str(d) for d in dims) or "64,128"
        results = backward_main(args, lib)
        return summarize(args, results)
    results = []
    seed = args.seed
    causals = {"both": (False, True), "yes": (True,), "no": (False,)}[args.causal]
    for dtype, d, causal, shape, rise in cases(args.quick, args.dtypes.split(","),
                                               [int(x) for x in args.head_dims.split(",")],
                                               causals):
        # Every bundle with the model's schedule for this key (one per range
        # of lengths where the model's choice changes), on every shape.
        bundles = list(lib.defaults(dtype, d, causal, True))
        if args.variants:
            bundles += [bb for bb in lib.all if bb.key() == ("attention_forward", dtype, d, causal, True)
                        and bb.is_variant() and bb.name not in {x.name for x in bundles}]
        for bundle in bundles:
            seed += 1
            r = check_case(lib, dtype, d, causal, shape, seed, bundle, rise)
            results.append(r)
            print(f"{'PASS' if r['pass'] else 'FAIL'} {r['kernel']:<48} B,Hq,Hkv,Nq,Nk={r['shape']} "
                  f"{f'rise={rise:g} ' if rise else ''}"
                  f"rel_err={r['rel_err']:.2e} lse_err={r['lse_err']:.1e}{' NaN' if r['nan'] else ''}",
                  flush=True)
    # The torch custom op dispatches to the same kernels.
    from flash_mlir.torch import register_torch_op
    op = register_torch_op(lib)
    q = torch.randn(1, 4, 130, 64, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(1, 2, 200, 64, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(1, 2, 200, 64, device="cuda", dtype=torch.bfloat16)
    ref, _ = reference(q, k, v, True, 0.125)
    got = op(q, k, v, True, 0.125)
    err = float((got.float() - ref).norm() / ref.norm())
    ok = err <= TOLERANCE["bf16"] and not bool(torch.isnan(got).any())
    results.append({"kernel": "torch.ops.flash_mlir.attention", "rel_err": err, "pass": ok})
    print(f"{'PASS' if ok else 'FAIL'} torch.ops.flash_mlir.attention (causal GQA 4/2, 130x200) rel_err={err:.2e}")
    return summarize(args, results)


def summarize(args, results):
    import torch
    failed = sum(not r["pass"] for r in results)
    from flash_mlir.runtime import capi
    summary = {"device": torch.cuda.get_device_name(), "seed": args.seed,
               "runtime": capi.lib().flash_version().decode(), "bundles": args.bundles,
               "passed": len(results) - failed, "failed": failed, "cases": results}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    print(f"{len(results) - failed} passed, {failed} failed (seed {args.seed})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
