"""Host time per call of the Python runtime, against torch SDPA (GPU machine).

  PYTHONPATH=python python3 scripts/bench/host-overhead.py BUNDLE_DIR OUT.json [LABEL]

Calls lib.attention 3000 times on 1x1x128xD bf16 tensors, small enough that the
GPU is not the bottleneck, and reports the wall time per call (µs); the same
for SDPA's cuDNN and FlashAttention backends, and a cProfile of 2000 calls at
D=64 causal. Run it with another PYTHONPATH to measure another runtime.
"""
import cProfile
import io
import json
import pstats
import sys
import time

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

import flash_mlir.runtime as runtime


def per_call_us(fn, calls=3000, warmup=200):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
    return elapsed / calls * 1e6


def main():
    lib = runtime.KernelLibrary(sys.argv[1])
    result = {"label": sys.argv[3] if len(sys.argv) > 3 else "", "runtime_file": runtime.__file__}
    for d, causal in ((64, True), (128, False), (256, True)):
        q = torch.randn(1, 1, 128, d, device="cuda", dtype=torch.bfloat16)
        o = torch.empty_like(q)
        name = f"d{d}_{'causal' if causal else 'plain'}_us_per_call"
        result[name] = per_call_us(lambda: lib.attention(q, q, q, causal=causal, out=o))
    q = torch.randn(1, 1, 128, 64, device="cuda", dtype=torch.bfloat16)
    for backend in ("CUDNN_ATTENTION", "FLASH_ATTENTION"):
        with sdpa_kernel(getattr(SDPBackend, backend)):
            result[f"sdpa_{backend}_us_per_call"] = per_call_us(
                lambda: torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True))
    o = torch.empty_like(q)
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(2000):
        lib.attention(q, q, q, causal=True, out=o)
    profile.disable()
    torch.cuda.synchronize()
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(14)
    print(json.dumps(result), flush=True)
    result["profile"] = text.getvalue()
    with open(sys.argv[2], "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
