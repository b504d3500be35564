"""One backward of SDPA's cuDNN backend and of ours (and timing variants), each
between cudaProfilerStart/Stop, for `ncu --profile-from-start off`; with
--kineto, torch.profiler's view of the same calls instead (kernel names,
grid, block, registers, shared memory, duration), which needs no counters.

  python3 ncu-bwd.py BUNDLE_DIR [--head-dims 128,256] [--seqlen 8192] [--variants nored] [--impls cudnn,ours] [--kineto]

bf16, B*N = 16k, H*D = 2048, non-causal, (B, H, N, D) tensors as flash_mlir.bench.
"""
import argparse, json, math, sys

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bundles")
    ap.add_argument("--head-dims", default="128,256")
    ap.add_argument("--seqlen", type=int, default=8192)
    ap.add_argument("--variants", default="")
    ap.add_argument("--kineto", action="store_true")
    ap.add_argument("--impls", default="cudnn,ours")
    args = ap.parse_args()
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import sdpa_kernel, SDPBackend
    from flash_mlir.runtime import KernelLibrary
    lib = KernelLibrary(args.bundles)
    cudart = torch.cuda.cudart()
    n = args.seqlen
    for d in [int(x) for x in args.head_dims.split(",")]:
        b, h = max(1, 16384 // n), 2048 // d
        q, k, v, do = (torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(4))
        qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            out = F.scaled_dot_product_attention(qg, kg, vg)
        cudnn = lambda: torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True)
        o, lse = lib.attention(q, k, v, causal=False, return_lse=True)
        default = lib.find_backward("bf16", d, False, n, lib._capability(q.device))
        calls = [("cudnn", cudnn), ("ours", lambda: lib.attention_backward(q, k, v, o, do, lse, bundle=default))]
        for var in filter(None, args.variants.split(",")):
            for plan in lib.all:
                if (plan.op == "attention_backward" and plan.dtype == "bf16" and plan.head_dim == d
                        and not plan.causal and plan.variant == var):
                    calls.append((var, lambda plan=plan: lib.attention_backward(q, k, v, o, do, lse, bundle=plan)))
        calls = [(name, fn) for name, fn in calls if name in args.impls.split(",") or name not in ("cudnn", "ours")]
        for name, fn in calls:
            for _ in range(3):
                fn()
            torch.cuda.synchronize()
            print(f"== D={d} N={n} B={b} H={h} {name}", flush=True)
            if args.kineto:
                with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                    fn(); torch.cuda.synchronize()
                path = f"/tmp/kineto-{d}-{name}.json"
                prof.export_chrome_trace(path)
                for ev in json.load(open(path))["traceEvents"]:
                    if ev.get("cat") == "kernel":
                        a = ev.get("args", {})
                        print(f"  {ev['name'][:150]} dur={ev.get('dur')}us grid={a.get('grid')} block={a.get('block')} "
                              f"regs={a.get('registers per thread')} smem={a.get('shared memory')} "
                              f"occ={a.get('est. achieved occupancy %')}", flush=True)
            else:
                cudart.cudaProfilerStart(); fn(); torch.cuda.synchronize(); cudart.cudaProfilerStop()
    return 0

if __name__ == "__main__":
    sys.exit(main())
