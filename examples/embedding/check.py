#!/usr/bin/env python3
"""Runs the embedding example's driver on the GPU and checks it against torch.

  python3 check.py --dir DIR [--seq N] [--head-dim D] [--out RESULTS] [--plant-scale S]

DIR holds what examples/embedding/build.sh built (driver, libflash_runtime.so,
bundles/). Seeded random bf16 Q, K, V (1x2xNxD) are written for the driver, which
runs @forward (the raised attention: causal, scale 1/4) and @block (that attention,
then a second one over views: head 1 of its output against head 0's first N/2 keys,
scale 1/8) on device buffers poisoned with NaN. Each output is compared with an f32
reference by FlashAttention's criterion: max|ours - ref_f32| <= 2 * max|torch bf16 -
ref_f32| + 1e-5 (torch's SDPA in bf16 on the same inputs); NaN never passes.
--plant-scale changes the reference's second scale (a planted bug: must fail).
"""
import argparse
import json
import os
import subprocess
import sys

import torch
import torch.nn.functional as F


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--seq", type=int, default=1024)
    ap.add_argument("--head-dim", type=int, default=64)
    ap.add_argument("--out", default=None, help="JSON results file")
    ap.add_argument("--plant-scale", type=float, default=None)
    ap.add_argument("--wrapper", default="", help="e.g. 'compute-sanitizer --tool memcheck'")
    args = ap.parse_args()
    n, d, heads = args.seq, args.head_dim, 2
    io = os.path.join(args.dir, "io")
    os.makedirs(io, exist_ok=True)
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, heads, n, d, dtype=torch.bfloat16, device="cuda") for _ in range(3))
    for name, t in (("q", q), ("k", k), ("v", v)):
        t.cpu().view(torch.int16).numpy().tofile(os.path.join(io, name + ".bin"))
    for name in ("forward.bin", "block.bin"):
        if os.path.exists(os.path.join(io, name)):
            os.remove(os.path.join(io, name))
    cmd = args.wrapper.split() + [os.path.join(args.dir, "driver"), os.path.join(args.dir, "bundles"),
                                  io, io]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    print(proc.stdout + proc.stderr)
    result = {"command": " ".join(cmd), "driver_rc": proc.returncode,
              "driver_output": proc.stdout + proc.stderr, "seq": n, "head_dim": d, "heads": heads,
              "device": torch.cuda.get_device_name(), "torch": torch.__version__, "checks": []}
    ok = proc.returncode == 0
    if ok:
        def load(name, shape):
            import numpy as np
            raw = np.fromfile(os.path.join(io, name), dtype=np.int16)
            return torch.from_numpy(raw).view(torch.bfloat16).reshape(shape).cuda()

        forward = load("forward.bin", (1, heads, n, d))
        block = load("block.bin", (1, 1, n, d))
        ref1 = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=True,
                                              scale=0.25)
        same1 = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.25)
        k2, v2 = k[:, 0:1, : n // 2], v[:, 0:1, : n // 2]
        scale2 = 0.125 if args.plant_scale is None else args.plant_scale
        ref2 = F.scaled_dot_product_attention(ref1[:, 1:2], k2.float(), v2.float(), scale=scale2)
        same2 = F.scaled_dot_product_attention(same1[:, 1:2], k2, v2, scale=scale2)
        for name, ours, ref, same in (("forward (raised, causal)", forward, ref1, same1),
                                      ("block (second attention over views)", block, ref2, same2)):
            err = (ours.float() - ref).abs().max().item()
            torch_err = (same.float() - ref).abs().max().item()
            nan = bool(torch.isnan(ours).any().item())
            passed = not nan and err <= 2 * torch_err + 1e-5
            ok &= passed
            row = {"name": name, "max_err": err, "torch_bf16_err": torch_err, "nan": nan,
                   "passed": passed}
            result["checks"].append(row)
            print(f"{'PASS' if passed else 'FAIL'} {name}: max|ours-ref| {err:.3e}, "
                  f"max|torch bf16-ref| {torch_err:.3e}, NaN {nan}")
    result["passed"] = ok
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
    print("embedding check:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
