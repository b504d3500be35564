#!/usr/bin/env python3
"""flash_mlir.torch.scaled_dot_product_attention as a drop-in for
torch.nn.functional.scaled_dot_product_attention (GPU machine; never in CI).

    python3 scripts/gpu/torch-dropin-check.py [--sm80 DIR] [--json F] [--no-compile]
        [--only grads,compile,...]

Uses flash_mlir as installed (or on PYTHONPATH) and its default library
(flash_mlir.torch.default_library(): $FLASH_MLIR_BUNDLES or the wheel's
bundles). Each check is recorded, pass or fail, with its numbers:

- forward: bf16/f16, D 64/128, causal top-left and bottom-right with
  Nq != Nk, GQA (enable_gqa), 3-D inputs, each with contiguous inputs and
  with B×N×H×D views (transpose(1, 2)); criterion max|ours - ref_f32| <=
  2·max|torch same dtype - ref_f32| + 1e-5 (torch: SDPA with the explicit
  boolean mask of the alignment; rows that see no key are 0 on both), no NaN.
- grads: the same criterion on dQ, dK, dV through autograd, inputs B×N×H×D
  leaves viewed as B×H×N×D.
- planted bug: bottom-right where top-left is asked (Nq != Nk) must fail the
  criterion (the check can fail).
- no copy: torch.profiler over one call with B×N×H×D views: the CUDA kernels
  that ran (only flash_* kernels: no copy), and the output's layout
  (B×N×H×D: out.transpose(1, 2) contiguous). With --sm80 DIR (a library of
  sm_80 plans only, whose kernels compute addresses) the same call copies
  q, k, v and O, unless the library has strided twins (compile --strides
  variant): the kernels listed; where it has backward twins too, the
  backward (autograd of B×N×H×D leaves, dO a B×N×H×D view) must run no copy
  kernel either (added in the nineteenth session, not run by this script
  yet: docs/results/sm80-bwd-strides-9-h200-2026-12-02/strided-bwd-check.py
  ran the same check).
- prepared strided calls: a B×N×H×D call like one before (B = 1 and 3) is
  remembered and gives bitwise the first call's O and LSE, in q's layout.
- errors: f32, attn_mask, dropout_p, D=96 name the argument; fallback=True
  warns and equals SDPA; a key without a bundle names the compile command.
- CUDA graph: the forward captured and replayed; forward and backward
  captured (torch.cuda.graph, and make_graphed_callables on a module) and
  replayed on new inputs against eager, after one capture of torch's own SDPA
  (the first forward + backward capture of a process fails whichever
  attention it holds; its outcome is recorded with each case, not counted).
- torch.compile(fullgraph=True): forward and backward of a function around
  the drop-in against eager; and of one on B×N×H×D leaves (GQA), its
  gradients against the f32 reference with the criterion.
Exit status 0 only if every check passed.
"""
import argparse
import json
import math
import sys
import time
import traceback
import warnings


def make(shape, d, dtype, layout, gen, requires_grad=False):
    """q, k, v (B×H×N×D) for (B, Hq, Hkv, Nq, Nk): contiguous, or views of
    B×N×H×D tensors (the leaves when requires_grad)."""
    import torch
    b, hq, hkv, nq, nk = shape
    out, leaves = [], []
    for h, n in ((hq, nq), (hkv, nk), (hkv, nk)):
        if layout == "bnhd":
            base = torch.randn(b, n, h, d, device="cuda", dtype=dtype, generator=gen)
            base.requires_grad_(requires_grad)
            leaves.append(base)
            out.append(base.transpose(1, 2))
        else:
            base = torch.randn(b, h, n, d, device="cuda", dtype=dtype, generator=gen)
            base.requires_grad_(requires_grad)
            leaves.append(base)
            out.append(base)
    return out, leaves


def mask_of(nq, nk, causal, alignment, device):
    import torch
    if not causal:
        return None
    i = torch.arange(nq, device=device).view(-1, 1)
    j = torch.arange(nk, device=device).view(1, -1)
    return j <= i if alignment == "top_left" else j <= i + (nk - nq)


def reference(q, k, v, causal, alignment, scale, dtype):
    """Attention in `dtype` with the alignment's explicit mask: f32 by hand,
    else torch's SDPA (its backends that take a mask); rows that see no key
    are 0 (torch gives NaN there)."""
    import torch
    import torch.nn.functional as F
    nq, nk = q.shape[-2], k.shape[-2]
    mask = mask_of(nq, nk, causal, alignment, q.device)
    gqa = q.shape[-3] != k.shape[-3]
    if dtype == torch.float32:
        qf, kf, vf = (t.float() for t in (q, k, v))
        if gqa:
            rep = q.shape[-3] // k.shape[-3]
            kf, vf = (t.repeat_interleave(rep, dim=-3) for t in (kf, vf))
        s = (qf @ kf.transpose(-1, -2)) * scale
        if mask is not None:
            s = s.masked_fill(~mask, float("-inf"))
        p = torch.softmax(s, dim=-1)
        return torch.nan_to_num(p, nan=0.0) @ vf
    o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale,
                                       **({"enable_gqa": True} if gqa else {}))
    return torch.nan_to_num(o, nan=0.0)


def criterion(ours, ref32, same):
    import torch
    nan = bool(torch.isnan(ours).any())
    err = float((ours.float() - ref32.float()).abs().max())
    bound = 2 * float((same.float() - ref32.float()).abs().max()) + 1e-5
    return (not nan) and err <= bound, {"max_err": err, "bound": bound, "nan": nan}


FORWARD_CASES = [  # (B, Hq, Hkv, Nq, Nk), is_causal, alignment
    ((2, 8, 8, 512, 512), False, "top_left"),
    ((2, 8, 8, 512, 512), True, "top_left"),
    ((1, 8, 2, 300, 700), True, "top_left"),
    ((1, 8, 2, 300, 700), True, "bottom_right"),
    ((2, 4, 4, 700, 300), True, "top_left"),
    ((2, 4, 4, 700, 300), True, "bottom_right"),
    ((3, 4, 2, 129, 257), False, "top_left"),
]


def check_forward(results, sdpa, seed):
    import torch
    for dtype_name, dtype in (("bf16", torch.bfloat16), ("f16", torch.float16)):
        for d in (64, 128):
            for shape, causal, alignment in FORWARD_CASES:
                for layout in ("contiguous", "bnhd"):
                    seed += 1
                    r = {"check": "forward", "dtype": dtype_name, "D": d, "shape": list(shape),
                         "is_causal": causal, "alignment": alignment, "layout": layout}
                    try:
                        gen = torch.Generator(device="cuda").manual_seed(seed)
                        (q, k, v), _ = make(shape, d, dtype, layout, gen)
                        scale = 1.0 / math.sqrt(d)
                        o = sdpa(q, k, v, is_causal=causal, causal_alignment=alignment,
                                 enable_gqa=shape[1] != shape[2])
                        torch.cuda.synchronize()
                        ref32 = reference(q, k, v, causal, alignment, scale, torch.float32)
                        same = reference(q, k, v, causal, alignment, scale, dtype)
                        r["pass"], r["numbers"] = criterion(o, ref32, same)
                        if layout == "bnhd":
                            r["out_bnhd"] = bool(o.transpose(1, 2).is_contiguous())
                    except Exception as e:
                        r.update({"pass": False, "error": f"{type(e).__name__}: {str(e)[:400]}"})
                    results.append(r)
    # 3-D inputs (H×N×D), as SDPA takes them.
    r = {"check": "forward 3-D", "shape": [8, 256, 64]}
    try:
        gen = torch.Generator(device="cuda").manual_seed(seed + 1)
        q, k, v = (torch.randn(8, 256, 64, device="cuda", dtype=torch.bfloat16, generator=gen)
                   for _ in range(3))
        o = sdpa(q, k, v, is_causal=True)
        ref32 = reference(q, k, v, True, "top_left", 0.125, torch.float32)
        same = reference(q, k, v, True, "top_left", 0.125, torch.bfloat16)
        r["pass"], r["numbers"] = criterion(o, ref32, same)
        r["pass"] &= tuple(o.shape) == (8, 256, 64)
    except Exception as e:
        r.update({"pass": False, "error": f"{type(e).__name__}: {str(e)[:400]}"})
    results.append(r)


GRAD_CASES = [
    ((2, 8, 8, 512, 512), True, "top_left", 64),
    ((2, 8, 2, 384, 384), True, "top_left", 128),
    ((1, 4, 4, 200, 450), True, "top_left", 64),
    ((1, 4, 4, 450, 200), True, "top_left", 128),
    ((2, 4, 4, 256, 256), False, "top_left", 128),
]


def check_grads(results, sdpa, seed):
    import torch
    for shape, causal, alignment, d in GRAD_CASES:
        for layout in ("bnhd", "contiguous"):
            seed += 1
            r = {"check": "grads", "dtype": "bf16", "D": d, "shape": list(shape),
                 "is_causal": causal, "alignment": alignment, "layout": layout}
            try:
                gen = torch.Generator(device="cuda").manual_seed(seed)
                (q, k, v), leaves = make(shape, d, torch.bfloat16, layout, gen, True)
                o = sdpa(q, k, v, is_causal=causal, causal_alignment=alignment,
                         enable_gqa=shape[1] != shape[2])
                do = torch.randn(o.shape, device="cuda", dtype=o.dtype, generator=gen)
                grads = torch.autograd.grad(o, leaves, do)
                scale = 1.0 / math.sqrt(d)
                refs = {}
                for name, dt in (("f32", torch.float32), ("same", torch.bfloat16)):
                    ls = [t.detach().to(dt).requires_grad_() for t in leaves]
                    views = [t.transpose(1, 2) if layout == "bnhd" else t for t in ls]
                    ro = reference(*views, causal, alignment, scale, dt)
                    refs[name] = torch.autograd.grad(ro, ls, do.to(dt))
                ok, numbers = True, {}
                for name, g, g32, gs in zip(("dq", "dk", "dv"), grads, refs["f32"], refs["same"]):
                    p, numbers[name] = criterion(g, g32, gs)
                    ok &= p
                r["pass"], r["numbers"] = ok, numbers
            except Exception as e:
                r.update({"pass": False, "error": f"{type(e).__name__}: {str(e)[:400]}"})
            results.append(r)


def check_planted_bug(results, sdpa):
    import torch
    r = {"check": "planted bug: bottom_right computed where top_left is asked (must fail)"}
    try:
        gen = torch.Generator(device="cuda").manual_seed(7)
        (q, k, v), _ = make((1, 4, 4, 300, 700), 64, torch.bfloat16, "bnhd", gen)
        o = sdpa(q, k, v, is_causal=True, causal_alignment="bottom_right")
        ref32 = reference(q, k, v, True, "top_left", 0.125, torch.float32)
        same = reference(q, k, v, True, "top_left", 0.125, torch.bfloat16)
        failed, numbers = criterion(o, ref32, same)
        r["pass"], r["numbers"] = not failed, numbers
    except Exception as e:
        r.update({"pass": False, "error": f"{type(e).__name__}: {str(e)[:400]}"})
    results.append(r)


def kernels_of(fn):
    """Names of the CUDA kernels (and memcpy/memset) one call of fn ran."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    names = []
    for e in prof.events():
        device_type = str(getattr(e, "device_type", ""))
        if device_type.endswith("CUDA") and e.name not in names:
            names.append(e.name)
    return names


COPY_WORDS = ("copy", "memcpy", "memset", "elementwise", "contiguous", "transpose")


def check_no_copy(results, sdpa, sm80_dir):
    import torch
    import torch.nn.functional as F
    for shape, d in (((1, 16, 16, 1024, 1024), 128), ((4, 16, 16, 1024, 1024), 128),
                     ((4, 12, 12, 512, 512), 64)):
        r = {"check": "no copy (profiler)", "shape": list(shape), "D": d, "layout": "bnhd"}
        try:
            gen = torch.Generator(device="cuda").manual_seed(11)
            (q, k, v), _ = make(shape, d, torch.bfloat16, "bnhd", gen)
            ours = kernels_of(lambda: sdpa(q, k, v, is_causal=True))
            r["kernels"] = ours
            r["sdpa_kernels"] = kernels_of(
                lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
            o = sdpa(q, k, v, is_causal=True)
            r["out_bnhd"] = bool(o.transpose(1, 2).is_contiguous())
            copies = [nm for nm in ours if any(w in nm.lower() for w in COPY_WORDS)]
            r["copy_kernels"] = copies
            r["pass"] = any(nm.startswith("flash_") for nm in ours) and not copies and \
                r["out_bnhd"]
        except Exception as e:
            r.update({"pass": False, "error": f"{type(e).__name__}: {str(e)[:400]}"})
        results.append(r)
    if sm80_dir:
        from flash_mlir.runtime import KernelLibrary
        import flash_mlir.torch as ft
        before = ft.default_library()
        r = {"check": "sm_80 library, B×N×H×D views (no copy where it has strided twins)",
             "dir": sm80_dir}
        try:
            lib80 = KernelLibrary(sm80_dir)
            gen = torch.Generator(device="cuda").manual_seed(12)
            (q, k, v), _ = make((2, 8, 8, 512, 512), 64, torch.bfloat16, "bnhd", gen)
            with torch.no_grad():
                o = sdpa(q, k, v, is_causal=True, library=lib80)
                r["kernels"] = kernels_of(lambda: sdpa(q, k, v, is_causal=True, library=lib80))
            ref32 = reference(q, k, v, True, "top_left", 0.125, torch.float32)
            same = reference(q, k, v, True, "top_left", 0.125, torch.bfloat16)
            ok, r["numbers"] = criterion(o, ref32, same)
            # A library compiled --strides variant runs the views on its
            # strided twins (no copy); one without copies q, k, v.
            r["strided_twins"] = any(b.variant == "strided" for b in lib80.all)
            r["copy_kernels"] = [nm for nm in r["kernels"]
                                 if any(w in nm.lower() for w in COPY_WORDS)]
            r["pass"] = ok and not (r["strided_twins"] and r["copy_kernels"])
            r["loaded_from"] = [b.loaded_from for b in lib80.all if b.loaded_from]
        except Exception as e:
            r.update({"pass": False, "error": f"{type(e).__name__}: {str(e)[:400]}"})
        finally:
            ft.use_library(before)
        results.append(r)
        r = {"check": "sm_80 library, backward of B×N×H×D leaves (no copy where it has "
                      "strided backward twins)", "dir": sm80_dir}
        try:
            lib80 = KernelLibrary(sm80_dir)
            twins = any(b.op == "attention_backward" and "strided" in b.variant
                        for b in lib80.all)
            gen = torch.Generator(device="cuda").manual_seed(13)
            shape = (2, 8, 8, 512, 512)
            (q, k, v), _ = make(shape, 64, torch.bfloat16, "bnhd", gen, requires_grad=True)
            do = torch.randn(2, 512, 8, 64, device="cuda", dtype=torch.bfloat16,
                             generator=gen).transpose(1, 2)
            o = sdpa(q, k, v, is_causal=True, library=lib80)
            grads = torch.autograd.grad(o, (q, k, v), do, retain_graph=True)
            r["kernels"] = kernels_of(lambda: torch.autograd.grad(o, (q, k, v), do,
                                                                  retain_graph=True))
            r["copy_kernels"] = [nm for nm in r["kernels"]
                                 if any(w in nm.lower() for w in COPY_WORDS)
                                 or "cat" in nm.lower()]
            r["strided_backward_twins"] = twins
            r["grads_in_input_layout"] = all(g.stride() == t.stride()
                                             for g, t in zip(grads, (q, k, v)))
            # FlashAttention's criterion: max|ours - f32| <= 2·max|torch bf16 - f32| + 1e-5.
            refs = {}
            for dtype in (torch.float32, torch.bfloat16):
                qd, kd, vd = (t.detach().to(dtype).requires_grad_() for t in (q, k, v))
                out = reference(qd, kd, vd, True, "top_left", 0.125, dtype)
                refs[dtype] = torch.autograd.grad(out, (qd, kd, vd), do.to(dtype))
            r["max_err"] = [float((g.float() - rg).abs().max())
                            for g, rg in zip(grads, refs[torch.float32])]
            r["bound"] = [2 * float((s_.float() - rg).abs().max()) + 1e-5
                          for s_, rg in zip(refs[torch.bfloat16], refs[torch.float32])]
            ok = all(e <= bnd for e, bnd in zip(r["max_err"], r["bound"]))
            r["pass"] = ok and not (twins and (r["copy_kernels"]
                                               or not r["grads_in_input_layout"]))
        except Exception as e:
            r.update({"pass": False, "error": f"{type(e).__name__}: {str(e)[:400]}"})
        finally:
            ft.use_library(before)
        results.append(r)


def check_prepared_strided(results, sdpa):
    """A strided call like one made before is a prepared call (the library
    remembers it): its O (and LSE) bitwise equal to the first call's, for
    B×N×H×D views with B = 1 (one launch) and B = 3 (one launch with
    rank-4 maps, compile --batch-maps; one per entry with rank-3 maps), through
    KernelLibrary.attention and the differentiable op's forward."""
    import torch
    from flash_mlir.torch import default_library
    lib = default_library()
    for b in (1, 3):
        r = {"check": "prepared strided call equals the first call", "shape": [b, 6, 6, 320, 320],
             "D": 64, "layout": "bnhd"}
        try:
            gen = torch.Generator(device="cuda").manual_seed(51 + b)
            (q, k, v), _ = make((b, 6, 6, 320, 320), 64, torch.bfloat16, "bnhd", gen)
            before = len(lib._prepared)
            first = lib.attention(q, k, v, True, return_lse=True)
            r["remembered"] = len(lib._prepared) - before
            again = lib.attention(q, k, v, True, return_lse=True)
            op_first = torch.ops.flash_mlir.attention_with_lse(q, k, v, True, 0.0)
            op_again = torch.ops.flash_mlir.attention_with_lse(q, k, v, True, 0.0)
            torch.cuda.synchronize()
            r["equal"] = [bool(torch.equal(first[i], again[i])) for i in range(2)] + \
                [bool(torch.equal(first[i], op_first[i])) for i in range(2)] + \
                [bool(torch.equal(op_first[i], op_again[i])) for i in range(2)]
            r["o_layout_like_q"] = [t.stride() == q.stride() for t in (again[0], op_again[0])]
            ref32 = reference(q, k, v, True, "top_left", 0.125, torch.float32)
            same = reference(q, k, v, True, "top_left", 0.125, torch.bfloat16)
            ok, r["numbers"] = criterion(again[0], ref32, same)
            r["pass"] = ok and r["remembered"] == 1 and all(r["equal"]) and \
                all(r["o_layout_like_q"])
        except Exception as e:
            r.update({"pass": False, "error": f"{type(e).__name__}: {str(e)[:400]}"})
        results.append(r)


def check_errors(results, sdpa):
    import torch
    import torch.nn.functional as F
    from flash_mlir.torch import Unsupported, default_library
    q = torch.randn(1, 4, 64, 64, device="cuda", dtype=torch.bfloat16)
    cases = {
        "f32": (lambda: sdpa(q.float(), q.float(), q.float()), "dtype f32"),
        "attn_mask": (lambda: sdpa(q, q, q, attn_mask=torch.ones(64, 64, device="cuda",
                                                                   dtype=torch.bool)),
                      "attn_mask"),
        "dropout_p": (lambda: sdpa(q, q, q, dropout_p=0.1), "dropout_p=0.1"),
        "D=96": (lambda: sdpa(*(torch.randn(1, 4, 64, 96, device="cuda", dtype=torch.bfloat16)
                                for _ in range(3))), "head dimension 96"),
    }
    for name, (fn, text) in cases.items():
        r = {"check": f"error: {name}"}
        try:
            fn()
            r.update({"pass": False, "error": "no error"})
        except Unsupported as e:
            r["message"] = str(e)
            r["pass"] = text in str(e)
        except Exception as e:
            r.update({"pass": False, "error": f"{type(e).__name__}: {str(e)[:400]}"})
        results.append(r)
    r = {"check": "fallback=True: f32 runs torch's SDPA, with a warning"}
    try:
        qf = q.float()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            o = sdpa(qf, qf, qf, is_causal=True, fallback=True)
        ref = F.scaled_dot_product_attention(qf, qf, qf, is_causal=True)
        r["warning"] = [str(w.message) for w in caught][:2]
        r["pass"] = bool(torch.equal(o, ref)) and bool(caught)
    except Exception as e:
        r.update({"pass": False, "error": f"{type(e).__name__}: {str(e)[:400]}"})
    results.append(r)
    r = {"check": "missing bundle names the compile command"}
    try:
        default_library().find("bf16", 256, True, False, compute_capability=90)
        r.update({"pass": False, "error": "found a D=256 plan (the check expects none)"})
    except ValueError as e:
        r["message"] = str(e)[:600]
        r["pass"] = "python3 -m flash_mlir.compile" in str(e)
    results.append(r)


def check_cuda_graph(results, sdpa):
    import torch
    r = {"check": "CUDA graph: forward captured and replayed (B×N×H×D views)"}
    try:
        gen = torch.Generator(device="cuda").manual_seed(21)
        (q, k, v), _ = make((2, 8, 8, 256, 256), 64, torch.bfloat16, "bnhd", gen)
        with torch.no_grad():
            expect = sdpa(q, k, v, is_causal=True).clone()
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                sdpa(q, k, v, is_causal=True)
            torch.cuda.current_stream().wait_stream(s)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                out = sdpa(q, k, v, is_causal=True)
            out.fill_(float("nan"))
            g.replay()
            torch.cuda.synchronize()
        r["pass"] = bool(torch.equal(out, expect))
    except Exception as e:
        r.update({"pass": False, "error": f"{type(e).__name__}: {str(e)[:400]}"})
    results.append(r)


GRAPH_CASES = [  # (B, Hq, Hkv, Nq, Nk), D, layout, capture stream: forward+backward captured
    # A fresh stream each, warmed up on itself: the backward's runtime-owned
    # workspaces (per stream) exist before the capture.
    ((2, 8, 8, 256, 256), 64, "bnhd", "warmed"),
    ((1, 4, 4, 450, 200), 128, "contiguous", "warmed"),  # top-left Nq > Nk: padded backward
    # A fresh stream warmed up elsewhere: the first backward on it runs inside
    # the capture (in autograd's thread), where the runtime allocates its
    # workspaces (relaxed capture mode).
    ((2, 8, 8, 256, 256), 64, "bnhd", "cold"),
]


def capture_case(sdpa, shape, d, layout, stream):
    """One GRAPH_CASES case: forward + torch.autograd.grad of `sdpa` captured
    in one torch.cuda.graph, replayed on new inputs; the check's record."""
    import torch
    r = {"check": f"CUDA graph: forward+backward captured ({stream} stream), replayed "
         "on new inputs", "shape": list(shape), "D": d, "layout": layout,
         "alignment": "top_left"}
    try:
        gen = torch.Generator(device="cuda").manual_seed(41)
        (q, k, v), leaves = make(shape, d, torch.bfloat16, layout, gen, True)
        do = torch.randn(shape[0], shape[1], shape[3], d, device="cuda",
                         dtype=torch.bfloat16, generator=gen)

        def step():
            o = sdpa(q, k, v, is_causal=True)
            return (o,) + tuple(torch.autograd.grad(o, leaves, do))

        capture = torch.cuda.Stream()
        s = capture if stream == "warmed" else torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                step()
        torch.cuda.current_stream().wait_stream(s)
        capture.wait_stream(torch.cuda.current_stream())
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=capture):
            static = step()
        # New inputs into the captured tensors, outputs poisoned.
        with torch.no_grad():
            for t in leaves + [do]:
                t.copy_(torch.randn(t.shape, device="cuda", dtype=t.dtype, generator=gen))
            for t in static:
                t.fill_(float("nan"))
        g.replay()
        torch.cuda.synchronize()
        eager = step()
        torch.cuda.synchronize()
        r["o_equal"] = bool(torch.equal(static[0], eager[0]))
        ok, numbers = r["o_equal"], {}
        scale = 1.0 / math.sqrt(d)
        refs = {}
        for name, dt in (("f32", torch.float32), ("same", torch.bfloat16)):
            ls = [t.detach().to(dt).requires_grad_() for t in leaves]
            views = [t.transpose(1, 2) if layout == "bnhd" else t for t in ls]
            ro = reference(*views, True, "top_left", scale, dt)
            refs[name] = torch.autograd.grad(ro, ls, do.to(dt))
        for i, name in enumerate(("dq", "dk", "dv")):
            noise = float((refs["same"][i].float() - refs["f32"][i].float()).abs().max())
            diff = float((static[1 + i].float() - eager[1 + i].float()).abs().max())
            p, numbers[name] = criterion(static[1 + i], refs["f32"][i], refs["same"][i])
            numbers[name].update({"graph_vs_eager": diff, "noise": noise,
                                  "bitwise": bool(torch.equal(static[1 + i],
                                                              eager[1 + i]))})
            ok &= p and diff <= noise
        r["pass"], r["numbers"] = bool(ok), numbers
    except Exception as e:
        r.update({"pass": False, "error": f"{type(e).__name__}: {str(e)[:600]}"})
    return r


def check_cuda_graph_backward(results, sdpa):
    """Forward and backward (torch.autograd.grad) captured in one CUDA graph
    (torch.cuda.graph), replayed on new inputs copied into the captured
    ones: O bitwise equal to eager, dQ, dK, dV within the bf16 noise
    (max|graph - eager| <= max|torch bf16 - ref_f32|: dQ's f32 reductions
    are unordered) and each passing the criterion against f32. Then
    torch.cuda.make_graphed_callables on a module (QKV projection, the
    drop-in, output projection): output and weight gradients against eager."""
    import torch
    # The first forward + backward capture of a process is invalidated
    # ("operation failed due to a previous error during capture") whichever
    # attention it captures: on the H200 (2026-12-02, probe.py in
    # docs/results/lead-h200-2026-12-02) torch's own SDPA failed its first
    # case in this harness just as ours did, and every later case passed for
    # both. So torch's SDPA is captured once first, on the first case, and its
    # outcome is recorded with every case (not counted).
    warmup = capture_case(torch.nn.functional.scaled_dot_product_attention,
                          *GRAPH_CASES[0])
    warmup = {"pass": warmup["pass"], "error": warmup.get("error", "")[:120]}
    for shape, d, layout, stream in GRAPH_CASES:
        r = capture_case(sdpa, shape, d, layout, stream)
        r["harness_warmup_torch_sdpa"] = warmup
        results.append(r)
    r = {"check": "CUDA graph: torch.cuda.make_graphed_callables(module), fwd+bwd vs eager"}
    try:
        class Attention(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.qkv = torch.nn.Linear(512, 1536, bias=False)
                self.out = torch.nn.Linear(512, 512, bias=False)

            def forward(self, x):
                b, n, _ = x.shape
                qkv = self.qkv(x).view(b, n, 3, 8, 64)
                q, k, v = (qkv[:, :, i].transpose(1, 2) for i in range(3))
                o = sdpa(q, k, v, is_causal=True)
                return self.out(o.transpose(1, 2).reshape(b, n, 512))

        torch.manual_seed(43)
        eager_m = Attention().to("cuda", torch.bfloat16)
        graph_m = Attention().to("cuda", torch.bfloat16)
        graph_m.load_state_dict(eager_m.state_dict())
        gen = torch.Generator(device="cuda").manual_seed(44)
        x = torch.randn(2, 256, 512, device="cuda", dtype=torch.bfloat16, generator=gen,
                        requires_grad=True)
        graphed = torch.cuda.make_graphed_callables(graph_m, (x,))
        x2 = torch.randn(x.shape, device="cuda", dtype=x.dtype, generator=gen,
                         requires_grad=True)
        y_g = graphed(x2)
        y_g.float().square().mean().backward()
        x3 = x2.detach().clone().requires_grad_()
        y_e = eager_m(x3)
        y_e.float().square().mean().backward()
        torch.cuda.synchronize()
        r["out_equal"] = bool(torch.equal(y_g, y_e))
        diffs = {}
        for (name, pg), pe in zip(graph_m.named_parameters(), eager_m.parameters()):
            diffs[name] = [float((pg.grad.float() - pe.grad.float()).abs().max()),
                           float(pe.grad.float().abs().max())]
        diffs["x"] = [float((x2.grad.float() - x3.grad.float()).abs().max()),
                      float(x3.grad.float().abs().max())]
        r["max_diff_and_max"] = diffs
        diffs["out"] = [float((y_g.float() - y_e.float()).abs().max()),
                        float(y_e.float().abs().max())]
        r["pass"] = all(dv <= 1e-2 * m + 1e-6 for dv, m in diffs.values())
    except Exception as e:
        r.update({"pass": False, "error": f"{type(e).__name__}: {str(e)[:600]}"})
    results.append(r)


def check_compile(results, sdpa):
    import torch
    r = {"check": "torch.compile(fullgraph=True): forward and backward vs eager"}
    try:
        def f(x, w):
            b, n, _ = x.shape
            qkv = (x @ w).view(b, n, 3, 8, 64)
            q, k, v = (qkv[:, :, i].transpose(1, 2) for i in range(3))
            o = sdpa(q, k, v, is_causal=True)
            return o.transpose(1, 2).reshape(b, n, 512).float().square().sum()

        gen = torch.Generator(device="cuda").manual_seed(31)
        x = torch.randn(2, 256, 512, device="cuda", dtype=torch.bfloat16, generator=gen)
        w = (torch.randn(512, 1536, device="cuda", dtype=torch.bfloat16, generator=gen) /
             24).requires_grad_()
        start = time.time()
        compiled = torch.compile(f, fullgraph=True)
        loss_c = compiled(x, w)
        (gc,) = torch.autograd.grad(loss_c, w)
        r["compile_s"] = time.time() - start
        loss_e = f(x, w)
        (ge,) = torch.autograd.grad(loss_e, w)
        r["loss"] = [float(loss_c), float(loss_e)]
        r["grad_max_diff"] = float((gc.float() - ge.float()).abs().max())
        r["grad_max"] = float(ge.float().abs().max())
        r["pass"] = abs(float(loss_c) - float(loss_e)) <= 1e-2 * abs(float(loss_e)) and \
            r["grad_max_diff"] <= 1e-2 * r["grad_max"] + 1e-3
    except Exception as e:
        r.update({"pass": False, "error": f"{type(e).__name__}: {str(e)[:600]}"})
    results.append(r)
    # B×N×H×D leaves (dense views: the custom op's gradients are in their
    # layout, as its fake says), GQA, against eager and the f32 reference.
    r = {"check": "torch.compile(fullgraph=True): B×N×H×D leaves, gradients vs eager and f32"}
    try:
        def g(q, k, v):
            o = sdpa(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True,
                     enable_gqa=True)
            return o.transpose(1, 2)

        gen = torch.Generator(device="cuda").manual_seed(37)
        shape = (2, 8, 2, 300, 300)
        (_, _, _), leaves = make(shape, 64, torch.bfloat16, "bnhd", gen, True)
        do = torch.randn(2, 300, 8, 64, device="cuda", dtype=torch.bfloat16, generator=gen)
        compiled = torch.compile(g, fullgraph=True)
        grads_c = torch.autograd.grad(compiled(*leaves), leaves, do)
        grads_e = torch.autograd.grad(g(*leaves), leaves, do)
        refs = {}
        for name, dt in (("f32", torch.float32), ("same", torch.bfloat16)):
            ls = [t.detach().to(dt).requires_grad_() for t in leaves]
            ro = reference(*(t.transpose(1, 2) for t in ls), True, "top_left", 0.125, dt)
            refs[name] = torch.autograd.grad(ro, ls, do.transpose(1, 2).to(dt))
        ok, numbers = True, {}
        for name, gc, ge, g32, gs in zip(("dq", "dk", "dv"), grads_c, grads_e, refs["f32"],
                                         refs["same"]):
            p, numbers[name] = criterion(gc, g32, gs)
            numbers[name]["max_diff_vs_eager"] = float((gc.float() - ge.float()).abs().max())
            ok &= p  # (dQ's reductions are unordered: not bitwise eager's)
        r["grad_strides"] = [list(t.stride()) for t in grads_c]
        r["leaf_strides"] = [list(t.stride()) for t in leaves]
        r["pass"], r["numbers"] = ok, numbers
    except Exception as e:
        r.update({"pass": False, "error": f"{type(e).__name__}: {str(e)[:600]}"})
    results.append(r)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sm80", default=None, help="a directory of sm_80 plans only")
    ap.add_argument("--json", default=None)
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--only", default=None,
                    help="comma-separated steps to run (forward, grads, planted, no copy, "
                    "prepared strided, errors, cuda graph, cuda graph backward, compile); "
                    "default: all")
    args = ap.parse_args(argv)
    import torch
    import flash_mlir
    from flash_mlir.torch import default_library, scaled_dot_product_attention as sdpa
    lib = default_library()
    info = {"flash_mlir": flash_mlir.__file__, "bundles": lib.dir, "torch": torch.__version__,
            "device": torch.cuda.get_device_name()}
    print(json.dumps(info), flush=True)
    results = []
    steps = [("forward", lambda: check_forward(results, sdpa, 100)),
             ("grads", lambda: check_grads(results, sdpa, 500)),
             ("planted", lambda: check_planted_bug(results, sdpa)),
             ("no copy", lambda: check_no_copy(results, sdpa, args.sm80)),
             ("prepared strided", lambda: check_prepared_strided(results, sdpa)),
             ("errors", lambda: check_errors(results, sdpa)),
             ("cuda graph", lambda: check_cuda_graph(results, sdpa)),
             ("cuda graph backward", lambda: check_cuda_graph_backward(results, sdpa))]
    if not args.no_compile:
        steps.append(("compile", lambda: check_compile(results, sdpa)))
    if args.only:
        wanted = [w.strip() for w in args.only.split(",")]
        unknown = set(wanted) - {name for name, _ in steps}
        if unknown:
            ap.error(f"--only: unknown steps {sorted(unknown)}")
        steps = [(name, step) for name, step in steps if name in wanted]
    for name, step in steps:
        start = time.time()
        try:
            step()
        except Exception:
            results.append({"check": name, "pass": False, "error": traceback.format_exc()[-800:]})
        print(f"[{name}: {time.time() - start:.1f} s]", flush=True)
        if args.json:  # after each step: a run cut short keeps what it did
            with open(args.json, "w") as f:
                json.dump({"info": info, "results": results, "done": name}, f, indent=1)
    for r in results:
        tag = "PASS" if r.get("pass") else "FAIL"
        extra = {k: v for k, v in r.items() if k not in ("check", "pass")}
        print(f"{tag} {r['check']} {json.dumps(extra)[:600]}", flush=True)
    passed = sum(1 for r in results if r.get("pass"))
    print(f"{passed} passed, {len(results) - passed} failed", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"info": info, "results": results}, f, indent=1)
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
