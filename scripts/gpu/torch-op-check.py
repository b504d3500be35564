#!/usr/bin/env python3
"""torch.ops.flash_mlir.attention as a PyTorch user meets it: gradients,
eager and under torch.compile(fullgraph=True), and the deterministic mode.

    python3 scripts/gpu/torch-op-check.py --bundles DIR [DIR ...] [--json F]

DIRs hold the forward plans with LSE and the backward plans (one arch or
several: the files are linked into one directory that one KernelLibrary
opens). Runs on the GPU machine (torch there); never in CI.

1. eager: for bf16 and f16, D 64/128/256, causal or not, on awkward shapes
   (odd lengths, GQA 8/2, Nq != Nk causal with rows that see no key), the
   gradients of `op(q, k, v)` through autograd (our forward with LSE, then
   our backward) meet FlashAttention's criterion against torch's f32
   autograd: max|ours - ref_f32| <= 2·max|torch same dtype - ref_f32| +
   1e-5, no NaN. A key the bundles lack is reported as "unsupported" with
   the library's message (a failure: the issue asks for every one).
2. torch.compile(fullgraph=True): a small function around the op (a scale,
   the op, a sum of squares) compiled with fullgraph, its loss and
   gradients against the same function run eagerly (the same kernels, so
   equal within the criterion; a graph break is an error under fullgraph).
3. deterministic: with torch.use_deterministic_algorithms(True) the op's
   backward takes the deterministic plan: ten backward passes give bitwise
   identical dQ, dK, dV.
Exit status 0 only if everything passed.
"""
import argparse
import json
import math
import os
import sys
import tempfile

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(root, "python"))

SHAPES = [  # B, Hq, Hkv, Nq, Nk
    (1, 8, 2, 257, 257),
    (2, 4, 2, 100, 1000),
    (1, 4, 2, 1000, 100),
    (1, 2, 1, 1, 513),
]


def one_dir(dirs):
    if len(dirs) == 1:
        return dirs[0]
    merged = tempfile.mkdtemp(prefix="flash-bundles-")
    for d in dirs:
        for name in os.listdir(d):
            target = os.path.join(merged, name)
            if not os.path.exists(target):
                os.symlink(os.path.abspath(os.path.join(d, name)), target)
    return merged


def eager_cases(op, seed):
    import torch
    from flash_mlir.tools.gpu_check import backward_inputs, backward_reference, gradient_criterion
    results = []
    for dtype_name, dtype in (("bf16", torch.bfloat16), ("f16", torch.float16)):
        for d in (64, 128, 256):
            for causal in (False, True):
                for shape in SHAPES:
                    seed += 1
                    q, k, v, do = backward_inputs(shape, d, dtype_name, seed)
                    scale = 1.0 / math.sqrt(d)
                    r = {"check": "eager", "dtype": dtype_name, "D": d, "causal": causal,
                         "shape": list(shape)}
                    try:
                        qg, kg, vg = (t.clone().requires_grad_() for t in (q, k, v))
                        o = op(qg, kg, vg, causal, 0.0)
                        grads = torch.autograd.grad(o, (qg, kg, vg), do)
                        torch.cuda.synchronize()
                        _, _, ref, same = backward_reference(q, k, v, do, causal, scale)
                        r["pass"], r["grads"] = gradient_criterion(grads, ref, same)
                    except (ValueError, RuntimeError, NotImplementedError,
                            FileNotFoundError, LookupError) as e:
                        r.update({"pass": False, "unsupported": True, "error": str(e)[:300]})
                    results.append(r)
                    print(f"{'PASS' if r['pass'] else 'FAIL'} eager {dtype_name} D={d} "
                          f"causal={int(causal)} {shape} "
                          + (r.get("error", "") or " ".join(
                              f"{g}={v['max_err']:.2e}/{v['bound']:.2e}"
                              for g, v in r["grads"].items())), flush=True)
    return results, seed


def compiled_cases(op, seed):
    import torch
    from flash_mlir.tools.gpu_check import backward_inputs, backward_reference, gradient_criterion
    results = []

    def loss_fn(q, k, v, causal):
        o = op(q * 1.0, k, v, causal, 0.0)
        return (o.float() ** 2).sum() * 0.5, o

    compiled = torch.compile(loss_fn, fullgraph=True)
    for dtype_name, dtype in (("bf16", torch.bfloat16), ("f16", torch.float16)):
        for d in (64, 128):
            for causal in (False, True):
                seed += 1
                shape = (2, 8, 2, 300, 300)
                q, k, v, _ = backward_inputs(shape, d, dtype_name, seed)
                r = {"check": "torch.compile(fullgraph=True)", "dtype": dtype_name, "D": d,
                     "causal": causal, "shape": list(shape)}
                try:
                    qg, kg, vg = (t.clone().requires_grad_() for t in (q, k, v))
                    loss, o = compiled(qg, kg, vg, causal)
                    grads = torch.autograd.grad(loss, (qg, kg, vg))
                    torch.cuda.synchronize()
                    # d(loss)/dO = O (in f32): the reference gradient of the
                    # same O against torch's f32 and same-dtype attention.
                    do = o.detach().to(dtype)
                    _, _, ref, same = backward_reference(q, k, v, do, causal,
                                                         1.0 / math.sqrt(d))
                    ok, detail = gradient_criterion(grads, ref, same)
                    r.update({"pass": ok and math.isfinite(float(loss)), "grads": detail,
                              "loss": float(loss)})
                except Exception as e:  # a graph break or a failed trace
                    r.update({"pass": False, "error": f"{type(e).__name__}: {str(e)[:300]}"})
                results.append(r)
                print(f"{'PASS' if r['pass'] else 'FAIL'} compiled {dtype_name} D={d} "
                      f"causal={int(causal)} {shape} "
                      + (r.get("error", "") or " ".join(
                          f"{g}={v['max_err']:.2e}/{v['bound']:.2e}"
                          for g, v in r["grads"].items())), flush=True)
    return results, seed


def deterministic_cases(op, seed, repeat=10):
    import torch
    from flash_mlir.tools.gpu_check import backward_inputs
    results = []
    torch.use_deterministic_algorithms(True)
    try:
        for dtype_name, dtype in (("bf16", torch.bfloat16),):
            for d in (64, 128):
                seed += 1
                shape = (2, 8, 2, 1000, 1000)
                q, k, v, do = backward_inputs(shape, d, dtype_name, seed)
                r = {"check": "deterministic", "dtype": dtype_name, "D": d, "causal": True,
                     "shape": list(shape), "runs": repeat}
                try:
                    first, same = None, True
                    for _ in range(repeat):
                        qg, kg, vg = (t.clone().requires_grad_() for t in (q, k, v))
                        grads = torch.autograd.grad(op(qg, kg, vg, True, 0.0), (qg, kg, vg), do)
                        bits = [g.view(torch.int16).clone() for g in grads]
                        if first is None:
                            first = bits
                        else:
                            same &= all(bool(torch.equal(a, b)) for a, b in zip(first, bits))
                    r["pass"] = same
                except Exception as e:
                    r.update({"pass": False, "error": f"{type(e).__name__}: {str(e)[:300]}"})
                results.append(r)
                print(f"{'PASS' if r['pass'] else 'FAIL'} deterministic {dtype_name} D={d} "
                      f"{shape}: " + (r.get("error") or f"bitwise identical over {repeat} runs"
                                      if r["pass"] else r.get("error", "results differ")),
                      flush=True)
    finally:
        torch.use_deterministic_algorithms(False)
    return results, seed


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bundles", nargs="+", required=True)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--json")
    args = p.parse_args()
    import torch
    from flash_mlir.runtime import KernelLibrary
    from flash_mlir.torch import register_torch_op
    op = register_torch_op(KernelLibrary(one_dir(args.bundles)))
    seed = args.seed
    eager, seed = eager_cases(op, seed)
    compiled, seed = compiled_cases(op, seed)
    determ, seed = deterministic_cases(op, seed)
    results = eager + compiled + determ
    failed = sum(not r["pass"] for r in results)
    unsupported = sum(bool(r.get("unsupported")) for r in results)
    summary = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
               "seed": args.seed, "bundles": args.bundles, "passed": len(results) - failed,
               "failed": failed, "unsupported": unsupported, "cases": results}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    print(f"{len(results) - failed} passed, {failed} failed ({unsupported} unsupported keys)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
