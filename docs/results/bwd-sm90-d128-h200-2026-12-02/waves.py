"""Does the last partial wave explain ours vs cuDNN? Times one backward of ours
(main's sm_90a kernel: one block per K/V tile) and of SDPA's cuDNN backend, bf16,
non-causal, N = 8192, B = 1, for head counts whose K/V tile count is or is not a
whole number of waves over 132 SMs (D = 128: 64 tiles per head, H = 32: 15.52
waves, H = 33: 16; D = 256: 128 tiles per head, H = 16: 15.52, H = 33: 32).
CUDA events, 5 warm-up calls, median of 15 interleaved calls.
  python3 waves.py BUNDLE_DIR"""
import statistics, sys
import torch
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
from flash_mlir.runtime import KernelLibrary
lib = KernelLibrary(sys.argv[1])
n, b = 8192, 1
for d, heads in ((128, (32, 33)), (256, (16, 33))):
    for h in heads:
        q, k, v, do = (torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(4))
        qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            out = F.scaled_dot_product_attention(qg, kg, vg)
        o, lse = lib.attention(q, k, v, causal=False, return_lse=True)
        fns = {"ours": lambda: lib.attention_backward(q, k, v, o, do, lse),
               "cudnn": lambda: torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True)}
        times = {x: [] for x in fns}
        for _ in range(5):
            for f in fns.values():
                f()
        torch.cuda.synchronize()
        for _ in range(15):
            for x, f in fns.items():
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record(); f(); e.record(); e.synchronize(); times[x].append(s.elapsed_time(e))
        work = 2.5 * 4.0 * b * h * n * n * d
        tf = {x: work / (statistics.median(t) * 1e-3) / 1e12 for x, t in times.items()}
        bc = 128 if d == 128 else 64
        tiles = b * h * n // bc
        print(f"D={d} H={h} tiles={tiles} waves={tiles / 132:.2f} ours={tf['ours']:.1f} cudnn={tf['cudnn']:.1f} "
              f"ours/cudnn={tf['ours'] / tf['cudnn']:.3f}", flush=True)
        del q, k, v, do, qg, kg, vg, out, o, lse, fns
