"""Host time per call of attention for a small shape, against torch SDPA (GPU machine).

  python3 scripts/bench/attention-host-time.py [BUNDLE_DIR] [--json OUT.json]
      [--rounds 11] [--calls 300] [--shape B,H,N,D]

A call small enough that the GPU never holds the host back (default B=1,
H=8, N=128, D=64, bf16, causal): every implementation runs `calls`
back-to-back calls without synchronisation (µs per call from the wall time),
interleaved with the others over `rounds` rounds in a rotating order,
synchronised between rounds; the report gives each one's median and minimum
over the rounds (as scripts/bench/decode-host-time.py does for decoding).
Ours: flash_mlir.torch.scaled_dot_product_attention (contiguous and on
B×N×H×D views), torch.ops.flash_mlir.attention, KernelLibrary.attention
(contiguous and on the views; views with B > 1 launch once per entry), and
the runtime's launch alone; SDPA: the default choice and the cuDNN and FA2
backends, contiguous and on the views. Without BUNDLE_DIR the default library
(flash_mlir.torch.default_library(): $FLASH_MLIR_BUNDLES or the wheel's).
"""

import argparse
import contextlib
import ctypes
import json
import sys

from host_time_rounds import summarize, time_rounds, warm_up


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bundles", nargs="?", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--shape", default="1,8,128,64")
    ap.add_argument("--label", default="")
    args = ap.parse_args(argv)

    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import flash_mlir
    from flash_mlir.runtime import KernelLibrary, capi
    import flash_mlir.torch as ft

    lib = KernelLibrary(args.bundles) if args.bundles else ft.default_library()
    ft.register_torch_op(lib)
    op = torch.ops.flash_mlir.attention
    b, h, n, d = (int(x) for x in args.shape.split(","))
    t = torch.bfloat16
    q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=t) for _ in range(3))
    qs, ks, vs = (torch.randn(b, n, h, d, device="cuda", dtype=t).transpose(1, 2)
                  for _ in range(3))
    bundle = lib.find("bf16", d, True, False, n, compute_capability=lib._capability(q.device),
                      shared_memory=lib._shared_memory(q.device))
    described = bundle.args(q, k, v, torch.empty_like(q), None, d ** -0.5)
    launch, ref = capi.lib().flash_plan_launch, ctypes.byref(described)
    stream = torch.cuda.current_stream().cuda_stream
    sdpa = ft.scaled_dot_product_attention

    def torch_sdpa(backend, qq, kk, vv):
        def context():
            return sdpa_kernel([backend]) if backend is not None else contextlib.nullcontext()
        return context, lambda: F.scaled_dot_product_attention(qq, kk, vv, is_causal=True)

    plain = contextlib.nullcontext
    impls = {
        "flash_mlir.torch.scaled_dot_product_attention": (
            plain, lambda: sdpa(q, k, v, is_causal=True)),
        "flash_mlir.torch.scaled_dot_product_attention (B×N×H×D views)": (
            plain, lambda: sdpa(qs, ks, vs, is_causal=True)),
        "torch.ops.flash_mlir.attention": (plain, lambda: op(q, k, v, True, 0.0)),
        "KernelLibrary.attention": (plain, lambda: lib.attention(q, k, v, True)),
        "KernelLibrary.attention (B×N×H×D views)": (
            plain, lambda: lib.attention(qs, ks, vs, True)),
        "part: flash_plan_launch (runtime alone)": (
            plain, lambda: launch(bundle._handle, ref, stream)),
        "SDPA default": torch_sdpa(None, q, k, v),
        "SDPA cuDNN": torch_sdpa(SDPBackend.CUDNN_ATTENTION, q, k, v),
        "SDPA FA2": torch_sdpa(SDPBackend.FLASH_ATTENTION, q, k, v),
        "SDPA default (B×N×H×D views)": torch_sdpa(None, qs, ks, vs),
        "SDPA FA2 (B×N×H×D views)": torch_sdpa(SDPBackend.FLASH_ATTENTION, qs, ks, vs),
    }
    names = warm_up(impls, 20, lambda name, e: print(
        f"{name:64s} not timed: {str(e)[:100]}", flush=True))
    torch.cuda.synchronize()
    with torch.no_grad():
        samples = time_rounds(impls, names, args.rounds, args.calls,
                              torch.cuda.synchronize)
    result = {"label": args.label, "package": flash_mlir.__file__, "torch": torch.__version__,
              "shape": [b, h, n, d], "causal": True, "dtype": "bf16", "calls": args.calls,
              "rounds": args.rounds, "bundle": bundle.name}
    result["us_per_call"] = summarize(samples, names)
    for name, s in result["us_per_call"].items():
        print(f"{name:64s} median {s['median']:6.1f} us  min {s['min']:6.1f} us", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
