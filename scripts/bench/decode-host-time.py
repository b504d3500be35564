"""Host time per call of decode attention, against torch SDPA (GPU machine).

  PYTHONPATH=python python3 scripts/bench/decode-host-time.py BUNDLE_DIR [--json OUT.json]
      [--rounds 11] [--calls 300] [--label TEXT]

One decode step small enough that the GPU never holds the host back (B=1, GQA
32/8, Nq=1, D=128, bf16, 1024 keys, pages of 16): every implementation runs
`calls` back-to-back calls without synchronisation (µs per call from the wall
time), interleaved with the others over `rounds` rounds in a rotating order,
synchronised between rounds; the report gives each one's median and minimum
over the rounds. Ours: KernelLibrary.paged_attention, KernelLibrary.attention
(split-KV), the torch op (its packet and its .default overload); SDPA: the
default choice and the cuDNN and FA2 backends on the same contiguous K/V
(enable_gqa). Parts of ours: the output's allocation (three ways), the
runtime's launch alone (flash_plan_launch on a described call), the prepared
call alone (what KernelLibrary.paged_attention runs once its checks pass),
the signature a call is looked up by, the five contiguity checks, and the
torch dispatcher's cost of a Python kernel (an op of a test fragment whose
CUDA kernel returns its argument). Works with
any checkout's python/ (PYTHONPATH) and runtime (FLASH_RUNTIME_LIB), so two
builds can be compared in turn on one machine.
"""

import argparse
import contextlib
import ctypes
import json
import sys

from host_time_rounds import summarize, time_rounds, warm_up


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bundles")
    ap.add_argument("--json", default=None)
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--label", default="")
    args = ap.parse_args(argv)

    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import flash_mlir
    from flash_mlir.runtime import KernelLibrary, capi
    from flash_mlir.torch import register_torch_op

    lib = KernelLibrary(args.bundles)
    register_torch_op(lib)
    op = torch.ops.flash_mlir.paged_attention
    t, d, hq, hkv, length, page = torch.bfloat16, 128, 32, 8, 1024, 16
    q = torch.randn(1, hq, 1, d, device="cuda", dtype=t)
    k = torch.randn(1, hkv, length, d, device="cuda", dtype=t)
    v = torch.randn(1, hkv, length, d, device="cuda", dtype=t)
    kc = k.permute(0, 2, 1, 3).reshape(length // page, page, hkv, d).contiguous()
    vc = v.permute(0, 2, 1, 3).reshape(length // page, page, hkv, d).contiguous()
    table = torch.arange(length // page, dtype=torch.int32, device="cuda").view(1, -1)
    lens = torch.full((1,), length, dtype=torch.int32, device="cuda")
    bundle = lib.find("bf16", d, False, False, None, op="paged_attention",
                      compute_capability=lib._capability(q.device),
                      shared_memory=lib._shared_memory(q.device))
    described = bundle.named_args({"q": q, "k": kc, "v": vc, "block_table": table,
                                   "seq_lens": lens, "o": torch.empty_like(q)}, 0.0)
    launch, ref = capi.lib().flash_plan_launch, ctypes.byref(described)
    stream = torch.cuda.current_stream().cuda_stream
    shape, dev = tuple(q.shape), q.device
    tensors = (q, kc, vc, table, lens)
    lib.paged_attention(*tensors)
    signature = lib._signature("paged", tensors, False, None, False)
    prepared = lib._prepared[signature]
    fragment = torch.library.Library("flash_mlir_host_time", "FRAGMENT")
    fragment.define("same(Tensor(a) q) -> Tensor(a)")
    fragment.impl("same", lambda x: x, "CUDA")
    same = torch.ops.flash_mlir_host_time.same.default

    def sdpa(backend=None):
        def context():
            return sdpa_kernel([backend]) if backend is not None else contextlib.nullcontext()
        return context, lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)

    plain = contextlib.nullcontext
    impls = {
        "paged (KernelLibrary)": (plain, lambda: lib.paged_attention(q, kc, vc, table, lens)),
        "split_kv (KernelLibrary)": (plain, lambda: lib.attention(q, k, v)),
        "torch.ops.flash_mlir.paged_attention": (plain, lambda: op(q, kc, vc, table, lens)),
        "torch.ops.flash_mlir.paged_attention.default": (
            plain, lambda: op.default(q, kc, vc, table, lens)),
        "SDPA default": sdpa(),
        "SDPA cuDNN": sdpa(SDPBackend.CUDNN_ATTENTION),
        "SDPA FA2": sdpa(SDPBackend.FLASH_ATTENTION),
        "part: torch.empty_like(q)": (plain, lambda: torch.empty_like(q)),
        "part: q.new_empty(shape)": (plain, lambda: q.new_empty(shape)),
        "part: torch.empty(shape, dtype, device)": (
            plain, lambda: torch.empty(shape, dtype=t, device=dev)),
        "part: flash_plan_launch (runtime alone)": (
            plain, lambda: launch(bundle._handle, ref, stream)),
        "part: the prepared call": (plain, lambda: prepared(*tensors)),
        "part: the signature": (
            plain, lambda: lib._signature("paged", tensors, False, None, False)),
        "part: five is_contiguous()": (plain, lambda: (
            q.is_contiguous() and kc.is_contiguous() and vc.is_contiguous()
            and table.is_contiguous() and lens.is_contiguous())),
        "part: a torch op whose CUDA kernel returns q": (plain, lambda: same(q)),
    }
    names = warm_up(impls, 20, lambda name, e: print(
        f"{args.label:8s} {name:46s} not timed: {str(e)[:100]}", flush=True))
    torch.cuda.synchronize()
    samples = time_rounds(impls, names, args.rounds, args.calls, torch.cuda.synchronize)
    result = {"label": args.label, "package": flash_mlir.__file__, "torch": torch.__version__,
              "calls": args.calls, "rounds": args.rounds}
    result["us_per_call"] = summarize(samples, names)
    for name, s in result["us_per_call"].items():
        print(f"{args.label:8s} {name:46s} median {s['median']:6.1f} us  min {s['min']:6.1f} us", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
