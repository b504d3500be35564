"""One D = 256 backward of SDPA's FA2 backend and of our two sm_80 plans (the
one the runtime selects on this device, and every other plan of the key), each
between cudaProfilerStart/Stop for `ncu --profile-from-start off`; with
--kineto, torch.profiler's view of the same calls (kernel names, grid, block,
registers, shared memory, duration; no counters needed).

  python3 prof-d256.py BUNDLE_DIR [--seqlen 8192] [--causal] [--kineto]

bf16, B*N = 16k, H = 8, (B, H, N, D) tensors as flash_mlir.bench.
"""
import argparse, json, sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bundles")
    ap.add_argument("--seqlen", type=int, default=8192)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--kineto", action="store_true")
    args = ap.parse_args()
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import sdpa_kernel, SDPBackend
    from flash_mlir.runtime import KernelLibrary
    lib = KernelLibrary(args.bundles)
    cudart = torch.cuda.cudart()
    n, d, c = args.seqlen, 256, args.causal
    b, h = max(1, 16384 // n), 8
    q, k, v, do = (torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(4))
    qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        out = F.scaled_dot_product_attention(qg, kg, vg, is_causal=c)
    fa2 = lambda: torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True)
    o, lse = lib.attention(q, k, v, causal=c, return_lse=True)
    chosen = lib.find_backward("bf16", d, c, n, lib._capability(q.device),
                               shared_memory=lib._shared_memory(q.device))
    calls = [("fa2", fa2), (chosen.name, lambda: lib.attention_backward(q, k, v, o, do, lse, causal=c,
                                                                        bundle=chosen))]
    for plan in lib.all:
        if (plan.op == "attention_backward" and plan.dtype == "bf16" and plan.head_dim == d
                and plan.causal == c and plan.name != chosen.name):
            calls.append((plan.name, lambda plan=plan: lib.attention_backward(
                q, k, v, o, do, lse, causal=c, bundle=plan)))
    print(f"device shared memory per block (opt-in): {lib._shared_memory(q.device)}; "
          f"selected: {chosen.name}", flush=True)
    for name, fn in calls:
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        print(f"== D={d} N={n} B={b} H={h} causal={int(c)} {name}", flush=True)
        if args.kineto:
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                fn(); torch.cuda.synchronize()
            path = f"/tmp/kineto-{name}.json"
            prof.export_chrome_trace(path)
            for ev in json.load(open(path))["traceEvents"]:
                if ev.get("cat") == "kernel":
                    a = ev.get("args", {})
                    print(f"  {ev['name'][:150]} dur={ev.get('dur')}us grid={a.get('grid')} "
                          f"block={a.get('block')} regs={a.get('registers per thread')} "
                          f"smem={a.get('shared memory')} occ={a.get('est. achieved occupancy %')}",
                          flush=True)
        else:
            cudart.cudaProfilerStart(); fn(); torch.cuda.synchronize(); cudart.cudaProfilerStop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
