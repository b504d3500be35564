"""Where the backward plans spend their time (GPU machine, hand-run).

  python3 scripts/gpu/profile-backward.py BUNDLE_DIR [--seqlen 8192] [--head-dim 128]

For every backward plan of the key (bf16, D, causal or not; the default plan
and its variants: deterministic, other warp counts): the whole plan's time
(CUDA events, median of --reps calls after warm-up) as TFLOP/s (2.5× the
forward's 4·B·H·N²·D, halved for causal), and each kernel's share from one
call under torch.profiler (CUPTI sees the driver-API launches). B·N = 16k,
H·D = 2048, as flash_mlir.bench. Prints one line per plan and kernel.
"""

import argparse
import json
import math
import statistics
import sys


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("bundles")
    ap.add_argument("--seqlen", type=int, default=8192)
    ap.add_argument("--head-dim", type=int, default=128)
    ap.add_argument("--causal", default="both", choices=["both", "yes", "no"])
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    import torch
    from flash_mlir.runtime import KernelLibrary
    lib = KernelLibrary(args.bundles)
    n, d = args.seqlen, args.head_dim
    b, h = max(1, 16384 // n), 2048 // d
    rows = []
    for causal in {"both": (False, True), "yes": (True,), "no": (False,)}[args.causal]:
        q, k, v, do = (torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16)
                       for _ in range(4))
        o = torch.randn_like(q)
        lse = (torch.randn(b, h, n, device="cuda") + math.log(n)).float()
        plans = [p for p in lib.all if p.op == "attention_backward" and p.dtype == "bf16"
                 and p.head_dim == d and p.causal == causal]
        work = 2.5 * 4.0 * b * h * n * n * d / (2 if causal else 1)
        for plan in sorted(plans, key=lambda p: p.name):
            run = lambda: lib.attention_backward(q, k, v, o, do, lse, causal=causal,
                                                 deterministic="deterministic" in plan.variant,
                                                 bundle=plan)
            for _ in range(3):
                run()
            torch.cuda.synchronize()
            times = []
            for _ in range(args.reps):
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                run()
                end.record()
                end.synchronize()
                times.append(start.elapsed_time(end))
            ms = statistics.median(times)
            kernels = {}
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                run()
                torch.cuda.synchronize()
            for event in prof.events():
                if event.device_type == torch.autograd.DeviceType.CUDA:
                    kernels[event.name] = kernels.get(event.name, 0.0) + event.device_time / 1e3
            row = {"plan": plan.name, "variant": plan.variant, "causal": causal, "N": n, "D": d,
                   "B": b, "H": h, "ms": ms, "tflops": work / (ms * 1e-3) / 1e12,
                   "kernels_ms": kernels}
            rows.append(row)
            print(f"{plan.name:<48} causal={int(causal)} N={n} {ms:7.3f} ms "
                  f"{row['tflops']:6.1f} TFLOP/s  " +
                  " ".join(f"{name.replace(plan.name, '') or 'main'}={t:.3f}"
                           for name, t in kernels.items()), flush=True)
    if args.json:
        json.dump(rows, open(args.json, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
