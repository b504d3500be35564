"""Where the sm_90a backward's time goes at short N: per-kernel GPU time
(torch.profiler) of ours (the default plan and each variant of the key) and
SDPA cuDNN, plus the whole call's time by CUDA events.
python3 prof.py BUNDLES D[,D] N[,N]"""
import sys, statistics, torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import profile, ProfilerActivity
from flash_mlir.runtime import KernelLibrary

lib = KernelLibrary(sys.argv[1])
dims = [int(x) for x in sys.argv[2].split(",")]
seqs = [int(x) for x in sys.argv[3].split(",")]

def events(fn, reps=20):
    for _ in range(3): fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(5):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(reps): fn()
        b.record(); torch.cuda.synchronize()
        ts.append(a.elapsed_time(b) * 1e3 / reps)
    return statistics.median(ts)

def kernels(fn, reps=10):
    fn(); torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        for _ in range(reps): fn()
        torch.cuda.synchronize()
    out = {}
    for e in p.key_averages():
        t = getattr(e, "device_time_total", None)
        if t is None: t = e.cuda_time_total
        if t > 0 and e.count >= reps:
            out[e.key] = (t / reps, e.count // reps)
    return out

for d in dims:
    for causal in (False, True):
        for n in seqs:
            b, h = max(1, 16384 // n), 2048 // d
            q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
            do = torch.randn_like(q)
            o, lse = lib.attention(q, k, v, causal=causal, return_lse=True)
            impls = {}
            default = lib.find_backward("bf16", d, causal, n, lib._capability(q.device),
                                        shared_memory=lib._shared_memory(q.device))
            for plan in lib.all:
                if (plan.op == "attention_backward" and plan.dtype == "bf16" and plan.head_dim == d
                        and plan.causal == causal and plan.arch == default.arch
                        and "deterministic" not in plan.name):
                    impls[plan.variant or "default"] = (lambda plan=plan: lib.attention_backward(
                        q, k, v, o, do, lse, causal=causal, bundle=plan))
            qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                out = F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal)
            impls["cudnn"] = lambda out=out: torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True)
            for name, fn in impls.items():
                total = events(fn)
                ks = kernels(fn)
                flops = 4.0 * b * h * n * n * d * 2.5 / (2 if causal else 1)
                print(f"D={d} causal={int(causal)} N={n} {name}: call {total:8.1f} us "
                      f"({flops / total / 1e6:6.1f} TFLOP/s) kernels sum {sum(t for t, _ in ks.values()):8.1f} us")
                for key, (t, c) in sorted(ks.items(), key=lambda x: -x[1][0]):
                    print(f"    {t:8.1f} us x{c}  {key[:110]}")
            sys.stdout.flush()
