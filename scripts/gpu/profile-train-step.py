#!/usr/bin/env python3
"""Where a Hugging Face training step spends its time with FlashMLIR's
attention against "sdpa" (GPU machine; never in CI).

    python3 scripts/gpu/profile-train-step.py --out DIR [--batch 4] [--seq 512]
        [--steps 8] [--models gpt2,llama] [--baseline-bundles DIR2]

The models of scripts/gpu/hf-check.py (GPT-2: 4 layers, 12 heads of D=64;
Llama-style: 4 layers, 8/2 heads of D=128; random init, bf16, the same
weights in every implementation), trained with AdamW by three attention
implementations interleaved step by step:
- "sdpa": transformers' own;
- "mlir_attention": flash_mlir.torch.hf (eager calls with gradients go
  through flash_mlir.torch.eager_attention_function(), an autograd.Function
  over the library);
- "mlir_attention_op": the same, but through the custom ops
  torch.ops.flash_mlir.attention_with_lse / attention_backward (what
  mlir_attention did before; torch.compile traces these);
  with --baseline-bundles DIR2 instead "mlir_attention_base": mlir_attention's
  path on the library of DIR2 (e.g. plans with rank-3 tensor maps, where
  B×N×H×D views of B > 1 launch once per batch entry and the backward copies
  q, k, v), so that two libraries are compared in one process.
Per step: wall time (synchronised) and host time (until the optimizer step
returns, before the synchronisation). Then one step of each under
torch.profiler (CPU and CUDA): the tables sorted by self CPU time and by
CUDA time (DIR/<model>-<impl>-cpu.txt, -cuda.txt), the attention's host time
per layer under autograd, the copy kernels and the host synchronisations
(DIR/profile.json). Also one attention call (forward + backward) alone, at the
GPT-2 layer's shape on its views, host time per call for the three paths.
"""
import argparse
import importlib.util
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def hf_check_module():
    spec = importlib.util.spec_from_file_location("hf_check", os.path.join(HERE, "hf-check.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SYNC_NAMES = ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize",
              "cudaMemcpy", "cudaMemcpyAsync", "cuStreamSynchronize", "cuCtxSynchronize")


def summarize_profile(prof):
    """What the report needs from one profiled step."""
    events = prof.key_averages()
    out = {"cpu_ops": {}, "cuda_kernels": {}, "sync_calls": {}, "copy_kernels": {}}
    for e in events:
        name = e.key
        cpu_self = e.self_cpu_time_total
        cuda = getattr(e, "self_device_time_total", None)
        if cuda is None:
            cuda = getattr(e, "self_cuda_time_total", 0)
        if any(s in name for s in SYNC_NAMES):
            out["sync_calls"][name] = {"count": e.count, "cpu_us": e.cpu_time_total}
        if e.device_type is not None and "CUDA" in str(e.device_type):
            out["cuda_kernels"][name] = {"count": e.count, "us": cuda}
            if "copy" in name.lower() or "elementwise" in name.lower() and "Copy" in name:
                out["copy_kernels"][name] = {"count": e.count, "us": cuda}
        elif cuda and ("kernel" in name.lower() or "void" in name or name.startswith("flash_")):
            out["cuda_kernels"][name] = {"count": e.count, "us": cuda}
            if "copy" in name.lower():
                out["copy_kernels"][name] = {"count": e.count, "us": cuda}
        if any(s in name for s in ("flash_mlir", "EagerAttention", "scaled_dot_product",
                                   "_flash_attention", "_efficient_attention", "cudnn",
                                   "aten::copy_", "aten::contiguous", "aten::clone",
                                   "aten::empty", "cudaLaunchKernel", "cuLaunchKernel",
                                   "ProfilerStep", "## ")):
            out["cpu_ops"][name] = {"count": e.count, "cpu_total_us": e.cpu_time_total,
                                    "cpu_self_us": cpu_self}
    return out


def dry_run_cpu(torch, ft, fsdpa):
    """A CPU stand-in for the library (forward and backward from torch's SDPA
    math in f32) and the CUDA calls the script makes made harmless."""

    class CpuLibrary:
        all = []

        def attention(self, q, k, v, causal=False, scale=None, return_lse=False, out=None):
            rep = q.shape[1] // k.shape[1]
            kk, vv = (t.repeat_interleave(rep, 1).float() for t in (k, v))
            s = (q.float() @ kk.transpose(-1, -2)) * (scale or q.shape[-1] ** -0.5)
            if causal:
                s = s.masked_fill(torch.ones(s.shape[-2:], dtype=torch.bool).triu(
                    1 + k.shape[2] - q.shape[2]), float("-inf"))
            lse = torch.logsumexp(s, -1)
            o = (torch.softmax(s, -1) @ vv).to(q.dtype)
            return (o, lse) if return_lse else o

        def attention_backward(self, q, k, v, o, do, lse, causal=False, scale=None,
                               deterministic=False):
            b, hq, nq, d = q.shape
            hkv, nk = k.shape[1], k.shape[2]
            rep = hq // hkv
            scale = scale or d ** -0.5
            qf, dof, of = q.float(), do.float(), o.float()
            kk, vv = (t.repeat_interleave(rep, 1).float() for t in (k, v))
            s = (qf @ kk.transpose(-1, -2)) * scale
            if causal:
                s = s.masked_fill(torch.ones(s.shape[-2:], dtype=torch.bool).triu(
                    1 + nk - nq), float("-inf"))
            p = torch.softmax(s, -1)
            dv = p.transpose(-1, -2) @ dof
            dp = dof @ vv.transpose(-1, -2)
            ds = p * (dp - (dof * of).sum(-1, keepdim=True))
            dq = ds @ kk * scale
            dk = ds.transpose(-1, -2) @ qf * scale
            dk, dv = (t.view(b, hkv, rep, nk, d).sum(2) for t in (dk, dv))
            return dq.to(q.dtype), dk.to(q.dtype), dv.to(q.dtype)

    lib = CpuLibrary()
    ft.register_torch_op(lib)
    ft._TORCH_OP_LIBRARY = lib
    fsdpa.check_call = lambda *a, **k: None
    fsdpa._head_dims = lambda *a: None
    torch.cuda.synchronize = lambda *a: None
    torch.cuda.get_device_capability = lambda *a: (9, 0)
    torch.cuda.current_device = lambda: 0
    torch.cuda.empty_cache = lambda: None
    import flash_mlir.torch.hf as fhf
    fhf._OPTIONS["library"] = lib
    return lib


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--models", default="gpt2,llama")
    ap.add_argument("--baseline-bundles", default=None,
                    help="a second library: its implementation mlir_attention_base replaces "
                    "mlir_attention_op")
    ap.add_argument("--dry-run-cpu", action="store_true",
                    help="check the script on a CPU: a stand-in library (torch's SDPA math) "
                    "behind both FlashMLIR paths (the numbers mean nothing)")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    import torch
    import transformers
    from torch.profiler import ProfilerActivity, profile, record_function
    import flash_mlir.torch as ft
    import flash_mlir.torch.hf as fhf
    from flash_mlir.torch import sdpa as fsdpa

    hfc = hf_check_module()
    device = "cpu" if args.dry_run_cpu else "cuda"
    if args.dry_run_cpu:
        lib = dry_run_cpu(torch, ft, fsdpa)
    else:
        lib = ft.default_library()
    report = {"torch": torch.__version__, "transformers": transformers.__version__,
              "device": device if args.dry_run_cpu else torch.cuda.get_device_name(),
              "batch": args.batch, "seq": args.seq, "models": []}
    # Each implementation names its library: the eager path makes the library
    # it runs on the registered one (use_library), and a call that passes no
    # library takes the registered one, so with two libraries in one process
    # mlir_attention would otherwise run on whichever ran last (it did, on the
    # H200 on 2026-12-02: docs/results/torch-dropin-5-h200-2026-12-02/README.md).
    fhf.register_hf(library=None if args.dry_run_cpu else lib)

    def op_attention_forward(module, query, key, value, attention_mask, dropout=0.0,
                             scaling=None, is_causal=None, **kwargs):
        # fhf.attention_forward's call, through the custom ops (the path
        # before eager_attention_function; sdpa._run with no library).
        is_causal = is_causal if is_causal is not None else getattr(module, "is_causal", True)
        is_causal = bool(query.shape[2] > 1 and attention_mask is None and is_causal)
        if attention_mask is not None or dropout:
            raise RuntimeError("mlir_attention_op: no mask, no dropout here")
        out = fsdpa._run(None, True, query, key, value, is_causal, scaling, "top_left")
        return out.transpose(1, 2).contiguous(), None

    transformers.AttentionInterface.register("mlir_attention_op", op_attention_forward)
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask
    AttentionMaskInterface.register("mlir_attention_op", sdpa_mask)
    third = "mlir_attention_op"
    base_lib = None
    if args.baseline_bundles:
        from flash_mlir.runtime import KernelLibrary
        base_lib = KernelLibrary(args.baseline_bundles)
        third = "mlir_attention_base"
        report["baseline_bundles"] = args.baseline_bundles

        def base_attention_forward(module, query, key, value, attention_mask, dropout=0.0,
                                   scaling=None, is_causal=None, **kwargs):
            # fhf.attention_forward's call on the baseline library.
            is_causal = is_causal if is_causal is not None else getattr(module, "is_causal",
                                                                        True)
            is_causal = bool(query.shape[2] > 1 and attention_mask is None and is_causal)
            out = fsdpa.scaled_dot_product_attention(
                query, key, value, attn_mask=attention_mask, dropout_p=dropout,
                is_causal=is_causal, scale=scaling, enable_gqa=query.shape[1] != key.shape[1],
                library=base_lib)
            return out.transpose(1, 2).contiguous(), None

        transformers.AttentionInterface.register(third, base_attention_forward)
        AttentionMaskInterface.register(third, sdpa_mask)
    impls = ("sdpa", fhf.NAME, third)
    activities = [ProfilerActivity.CPU] + ([] if args.dry_run_cpu else [ProfilerActivity.CUDA])

    # One attention call (forward + backward) at GPT-2's layer shape on its
    # views (a fused QKV projection split), host time per call, no sync.
    b, n, h, d = args.batch, args.seq, 12, 64
    x = torch.randn(b, n, 3 * h * d, device=device, dtype=torch.bfloat16, requires_grad=True)

    def views():
        q, k, v = x.split(h * d, dim=2)
        return [t.view(b, n, h, d).transpose(1, 2) for t in (q, k, v)]

    def one_sdpa():
        q, k, v = views()
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)

    def one_eager():
        q, k, v = views()
        return fsdpa.scaled_dot_product_attention(
            q, k, v, is_causal=True, library=None if args.dry_run_cpu else lib)

    def one_op():
        q, k, v = views()
        return fsdpa._run(None, True, q, k, v, True, None, "top_left")

    def one_base():
        q, k, v = views()
        return fsdpa.scaled_dot_product_attention(q, k, v, is_causal=True, library=base_lib)

    calls = {"sdpa": one_sdpa, fhf.NAME: one_eager,
             third: one_base if base_lib is not None else one_op}
    grad = torch.ones(b, h, n, d, device=device, dtype=torch.bfloat16)
    for f in calls.values():
        for _ in range(5):
            torch.autograd.backward(f(), grad)
    torch.cuda.synchronize()
    per_call = {name: {"fwd": [], "fwd_bwd": [], "fwd_bwd_sync": []} for name in calls}
    for rnd in range(7):
        for name in (list(calls) if rnd % 2 == 0 else list(calls)[::-1]):
            f = calls[name]
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            o = f()
            t1 = time.perf_counter()
            torch.autograd.backward(o, grad)
            t2 = time.perf_counter()
            torch.cuda.synchronize()
            t3 = time.perf_counter()
            per_call[name]["fwd"].append(1e6 * (t1 - t0))
            per_call[name]["fwd_bwd"].append(1e6 * (t2 - t0))
            per_call[name]["fwd_bwd_sync"].append(1e6 * (t3 - t0))
    report["one_call_us"] = {name: {k: statistics.median(v) for k, v in r.items()}
                             for name, r in per_call.items()}
    report["one_call_shape"] = [b, h, n, d]
    print(json.dumps({"one_call_us": report["one_call_us"]}), flush=True)
    del x

    configs, build = hfc.hf_models(torch, transformers)
    keys = {"gpt2": "GPT-2", "llama": "Llama"}
    for wanted in args.models.split(","):
        name = next(k for k in configs if k.startswith(keys[wanted]))
        cfg = configs[name]
        torch.manual_seed(0)
        models = {}
        state = None
        for impl in impls:
            m = build(cfg, impl).to(device, torch.bfloat16)
            if state is None:
                state = m.state_dict()
            else:
                m.load_state_dict(state)
            m.train()
            models[impl] = m
        opts = {impl: torch.optim.AdamW(models[impl].parameters(), lr=1e-4) for impl in impls}
        gen = torch.Generator(device=device).manual_seed(1)
        ids = torch.randint(0, 8192, (args.batch, args.seq), device=device, generator=gen)

        def step(impl, marks=False):
            m, opt = models[impl], opts[impl]
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            with record_function("## forward"):
                out = m(ids, labels=ids)
            with record_function("## backward"):
                out.loss.backward()
            with record_function("## optimizer"):
                opt.step()
                opt.zero_grad(set_to_none=True)
            t1 = time.perf_counter()
            loss = float(out.loss.detach())
            torch.cuda.synchronize()
            t2 = time.perf_counter()
            return 1e3 * (t2 - t0), 1e3 * (t1 - t0), loss

        r = {"model": name, "impls": list(impls),
             "attn_implementation": {i: models[i].config._attn_implementation for i in impls}}
        for _ in range(3):
            for impl in impls:
                step(impl)
        wall = {i: [] for i in impls}
        host = {i: [] for i in impls}
        losses = {i: [] for i in impls}
        for s in range(args.steps):
            order = impls[s % len(impls):] + impls[:s % len(impls)]
            for impl in order:
                w, hst, loss = step(impl)
                wall[impl].append(w)
                host[impl].append(hst)
                losses[impl].append(loss)
        r["step_ms_median"] = {i: statistics.median(v) for i, v in wall.items()}
        r["step_ms_min"] = {i: min(v) for i, v in wall.items()}
        r["host_ms_median"] = {i: statistics.median(v) for i, v in host.items()}
        r["losses"] = losses
        r["tokens_per_s"] = {i: args.batch * args.seq / (1e-3 * v)
                             for i, v in r["step_ms_median"].items()}
        print(json.dumps({k: r[k] for k in ("model", "step_ms_median", "host_ms_median")}),
              flush=True)
        r["profile"] = {}
        stem = keys[wanted].lower().replace("-", "")
        for impl in impls:
            with profile(activities=activities) as prof:
                step(impl)
            s = summarize_profile(prof)
            r["profile"][impl] = s
            table = prof.key_averages()
            with open(os.path.join(args.out, f"{stem}-{impl}-cpu.txt"), "w") as f:
                f.write(table.table(sort_by="self_cpu_time_total", row_limit=45,
                                    max_name_column_width=70))
            with open(os.path.join(args.out, f"{stem}-{impl}-cuda.txt"), "w") as f:
                try:
                    f.write(table.table(sort_by="self_device_time_total", row_limit=30,
                                        max_name_column_width=70))
                except Exception:  # older torch
                    f.write(table.table(sort_by="self_cuda_time_total", row_limit=30,
                                        max_name_column_width=70))
        report["models"].append(r)
        with open(os.path.join(args.out, "profile.json"), "w") as f:
            json.dump(report, f, indent=1)
        del models, opts
        torch.cuda.empty_cache()
    with open(os.path.join(args.out, "profile.json"), "w") as f:
        json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
