"""Benchmark FlashMLIR kernels against torch SDPA's FlashAttention-2 and cuDNN backends.

  python3 -m flash_mlir.bench --bundles bundles/ --json bench.json --plot bench.png

Rows: bf16, B·N = 16k tokens, H·D = 2048, N from 512 to 16k, D 64 and 128,
causal and not (Nq = Nk, so causal is the same mask for every implementation).
All implementations run on the same inputs in one process. A row times every
implementation once per round, the order rotated from round to round, for
--rounds rounds; its time is the median over the rounds of
triton.testing.do_bench's median (which flushes L2 between runs, after
warm-up). Timing each implementation in one block instead, one after the
other, measured identical kernels up to 4% apart on the H200, by their place
in the order (docs/benchmarks.md, seventh session).
TFLOP/s = 4·B·H·N²·D / time, halved for causal (DESIGN.md). Every row also
records our output's error against SDPA's, so a fast wrong kernel cannot hide.

--mode backward times the backward alone (2.5× the forward's FLOPs): ours is
KernelLibrary.attention_backward on the forward's saved O and LSE (its three
kernels: preprocess, main, dQ convert); SDPA's is torch.autograd.grad over a
graph its backend built once (retain_graph), i.e. that backend's backward
kernels; with --variants also every other backward plan of the row's key
(the deterministic plan, variants), each as flash_mlir_<variant>. --mode
train times forward + backward (3.5×): ours through
torch.ops.flash_mlir.attention's autograd, SDPA's per backend, each
torch.autograd.grad(attention(q, k, v), (q, k, v), dO). Rows record dQ's,
dK's and dV's error against SDPA FA2's.
"""

import argparse
import datetime
import json
import math
import statistics
import sys


def flops(b, h, n, d, causal, mode="forward"):
    f = 4.0 * b * h * n * n * d * {"forward": 1.0, "backward": 2.5, "train": 3.5}[mode]
    return f / 2 if causal else f


def rel_err(x, ref):
    return float((x.float() - ref.float()).norm() / ref.float().norm())


def gradient_row(lib, args, torch, sdpa_kernel, SDPBackend, q, k, v, causal, d, n, row):
    """The timed callables of a backward or train row, and the errors of our
    gradients against SDPA FA2's."""
    import torch.nn.functional as F
    qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
    do = torch.randn_like(q)

    def sdpa_graph(kind):
        with sdpa_kernel(kind):
            return F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal)

    kinds = {"sdpa_fa2": SDPBackend.FLASH_ATTENTION, "sdpa_cudnn": SDPBackend.CUDNN_ATTENTION}
    timed, ref = {}, None
    for name, kind in kinds.items():
        try:
            out = sdpa_graph(kind)
            grads = torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True)
        except RuntimeError as e:  # a backend may refuse a shape
            row[name + "_error"] = str(e).splitlines()[0]
            continue
        if ref is None:
            ref = grads
        if args.mode == "backward":
            timed[name] = (lambda out=out: torch.autograd.grad(out, (qg, kg, vg), do,
                                                               retain_graph=True))
        else:
            timed[name] = (lambda kind=kind: torch.autograd.grad(sdpa_graph(kind),
                                                                 (qg, kg, vg), do))
    try:
        if args.mode == "backward":
            o, lse = lib.attention(q, k, v, causal=causal, return_lse=True)
            ours = lambda: lib.attention_backward(q, k, v, o, do, lse, causal=causal)
            mine = ours()
            if args.variants:
                # Every other backward plan of the key on the default's arch (the
                # deterministic plan, other warp counts), timed in the same rounds.
                default = lib.find_backward("bf16", d, causal, n, lib._capability(q.device),
                                            shared_memory=lib._shared_memory(q.device))
                for plan in lib.all:
                    if (plan.op == "attention_backward" and plan.dtype == "bf16"
                            and plan.head_dim == d and plan.causal == causal
                            and plan.arch == default.arch and plan.name != default.name):
                        run = (lambda plan=plan: lib.attention_backward(
                            q, k, v, o, do, lse, causal=causal, bundle=plan))
                        theirs = run()
                        row.setdefault("variants", {})[plan.variant or plan.name] = {
                            "kernel": plan.name,
                            "rel_err_vs_fa2": {g: rel_err(a, b) for g, a, b in
                                               zip(("dq", "dk", "dv"), theirs, ref)}}
                        timed["flash_mlir_" + (plan.variant or plan.name)] = run
        else:
            from flash_mlir.torch import register_torch_op
            op = register_torch_op(lib)
            ours = lambda: torch.autograd.grad(op(qg, kg, vg, causal, 0.0), (qg, kg, vg), do)
            mine = ours()
    except (ValueError, TypeError, LookupError, NotImplementedError) as e:
        # No plan for this key (e.g. a head dimension not compiled): the row
        # keeps SDPA's times and says why ours is missing.
        row["flash_mlir_error"] = str(e).splitlines()[0]
        return timed
    torch.cuda.synchronize()
    row["rel_err_vs_fa2"] = {g: rel_err(a, b) for g, a, b in zip(("dq", "dk", "dv"), mine, ref)}
    timed["flash_mlir"] = ours
    return timed


def interleaved(timed, args, do_bench):
    """Rounds: every implementation once per round, the order rotated."""
    names = list(timed)
    ms = {name: [] for name in names}
    for r in range(args.rounds):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            ms[name].append(do_bench(timed[name], warmup=25, rep=args.rep_ms,
                                     return_mode="median"))
    return ms


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bundles", required=True)
    ap.add_argument("--json", default="bench.json")
    ap.add_argument("--plot", default=None)
    ap.add_argument("--seqlens", default="512,1024,2048,4096,8192,16384")
    ap.add_argument("--head-dims", default="64,128")
    ap.add_argument("--causal", default="both", choices=["both", "yes", "no"])
    ap.add_argument("--variants", action="store_true",
                    help="also time non-default schedules (backward: the key's other plans, "
                         "e.g. the deterministic one)")
    ap.add_argument("--mode", default="forward", choices=["forward", "backward", "train"],
                    help="forward; backward alone; forward + backward")
    ap.add_argument("--rep-ms", type=int, default=100, help="do_bench's time per measurement")
    ap.add_argument("--rounds", type=int, default=5,
                    help="measurements per implementation and row, interleaved (median)")
    args = ap.parse_args(argv)

    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from triton.testing import do_bench
    from flash_mlir.runtime import KernelLibrary

    lib = KernelLibrary(args.bundles)
    if args.mode != "forward" and not hasattr(lib, "attention_backward"):
        sys.exit("bench --mode %s: not supported yet: this library has no backward "
                 "kernels" % args.mode)
    causals = {"both": [False, True], "yes": [True], "no": [False]}[args.causal]
    rows = []
    for d in (int(x) for x in args.head_dims.split(",")):
        for causal in causals:
            for n in (int(x) for x in args.seqlens.split(",")):
                b, h = max(1, 16384 // n), 2048 // d
                q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
                row = {"D": d, "causal": causal, "N": n, "B": b, "H": h, "mode": args.mode}
                work = flops(b, h, n, d, causal, args.mode)
                if args.mode != "forward":
                    timed = gradient_row(lib, args, torch, sdpa_kernel, SDPBackend, q, k, v,
                                         causal, d, n, row)
                    ms = interleaved(timed, args, do_bench)
                    row["round_ms"] = ms
                    row["tflops"] = {name: work / (statistics.median(v_) * 1e-3) / 1e12
                                     for name, v_ in ms.items()}
                    rows.append(row)
                    t = row["tflops"]
                    errors = row.get("rel_err_vs_fa2")
                    print(f"{args.mode} D={d:<3} causal={int(causal)} N={n:<5} B={b:<2} H={h:<2} "
                          + " ".join(f"{name}={t[name]:6.1f}" for name in t)
                          + (" err(dq,dk,dv)=" + ",".join(f"{e:.1e}" for e in errors.values())
                             if errors else f" ours: {row.get('flash_mlir_error')}"),
                          flush=True)
                    del q, k, v
                    continue
                sdpa = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)

                def backend(kind):
                    def run():
                        with sdpa_kernel(kind):
                            return sdpa()
                    return run

                timed = {"sdpa_fa2": backend(SDPBackend.FLASH_ATTENTION)}
                ref = timed["sdpa_fa2"]()
                try:
                    timed["sdpa_cudnn"] = backend(SDPBackend.CUDNN_ATTENTION)
                    timed["sdpa_cudnn"]()
                except RuntimeError as e:  # cuDNN may refuse a shape
                    del timed["sdpa_cudnn"]
                    row["sdpa_cudnn_error"] = str(e).splitlines()[0]
                candidates = [lib.find("bf16", d, causal, False, seq_len=n)]
                if args.variants:
                    # Everything else compiled for this key: schedule variants,
                    # and the model's bundles for other ranges of lengths.
                    candidates += [bb for bb in lib.all
                                   if bb.key() == ("attention_forward", "bf16", d, causal, False)
                                   and bb.name != candidates[0].name]
                row["ours"] = {}
                for bundle in candidates:
                    out = torch.empty_like(q)
                    run = lambda bundle=bundle, out=out: lib.attention(q, k, v, causal=causal, out=out,
                                                                        bundle=bundle)
                    run()
                    torch.cuda.synchronize()
                    err = float((out.float() - ref.float()).norm() / ref.float().norm())
                    row["ours"][bundle.name] = {"rel_err_vs_fa2": err, "schedule": bundle.meta["schedule"]}
                    timed[bundle.name] = run
                ms = interleaved(timed, args, do_bench)
                tflops = {name: work / (statistics.median(v) * 1e-3) / 1e12 for name, v in ms.items()}
                row["round_ms"] = ms
                row["sdpa_fa2_tflops"] = tflops["sdpa_fa2"]
                row["sdpa_cudnn_tflops"] = tflops.get("sdpa_cudnn")
                for bundle in candidates:
                    row["ours"][bundle.name].update(tflops=tflops[bundle.name],
                                                    ms=statistics.median(ms[bundle.name]))
                default = candidates[0].name
                row["arch"] = candidates[0].meta["arch"]
                row["flashmlir_tflops"] = row["ours"][default]["tflops"]
                row["best_variant"] = max(row["ours"], key=lambda k_: row["ours"][k_]["tflops"])
                rows.append(row)
                best = row["ours"][row["best_variant"]]["tflops"]
                cudnn = row["sdpa_cudnn_tflops"]
                print(f"D={d:<3} causal={int(causal)} N={n:<5} B={b:<2} H={h:<2} "
                      f"ours={row['flashmlir_tflops']:6.1f} best_variant={best:6.1f} "
                      f"FA2={row['sdpa_fa2_tflops']:6.1f} cuDNN={cudnn if cudnn is None else round(cudnn, 1)} "
                      f"err={row['ours'][default]['rel_err_vs_fa2']:.1e}", flush=True)
                del q, k, v, ref
    result = {"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(),
              "torch": torch.__version__, "rounds": args.rounds, "rep_ms": args.rep_ms, "rows": rows}
    with open(args.json, "w") as f:
        json.dump(result, f, indent=1)
    if args.plot and args.mode == "forward":
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, 4, figsize=(18, 4), sharey=True)
        panels = [(d, c) for d in sorted({r["D"] for r in rows}) for c in sorted({r["causal"] for r in rows})]
        for ax, (d, c) in zip(axes, panels):
            sel = [r for r in rows if r["D"] == d and r["causal"] == c]
            ns = [r["N"] for r in sel]
            arch = sel[0].get("arch", "") if sel else ""
            for key, label in (("flashmlir_tflops", f"FlashMLIR {arch}"), ("sdpa_fa2_tflops", "SDPA FA2"),
                               ("sdpa_cudnn_tflops", "SDPA cuDNN")):
                ax.plot(ns, [r[key] or 0 for r in sel], marker="o", label=label)
            ax.set_xscale("log", base=2)
            ax.set_title(f"bf16 D={d} {'causal' if c else 'non-causal'}")
            ax.set_xlabel("N (B·N = 16k)")
        axes[0].set_ylabel("TFLOP/s")
        axes[0].legend()
        fig.suptitle(f"{result['device']} {result['date']}")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=100)
    return 0


if __name__ == "__main__":
    sys.exit(main())
