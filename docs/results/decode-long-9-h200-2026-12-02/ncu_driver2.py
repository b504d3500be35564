"""Run 2's profiled launches: for each NAME=DIR@BxL, one warm-up call and one
call of that bundle directory's split-KV plan at GQA 8/1, D=128, bf16,
contiguous K/V of B sequences of L keys (ncu profiles both)."""
import sys
import torch
from flash_mlir.runtime import KernelLibrary

libs = {}
for spec in sys.argv[1:]:
    name, rest = spec.split("=", 1)
    path, row = rest.split("@")
    b, length = (int(x) for x in row.split("x"))
    lib = libs.setdefault(path, KernelLibrary(path))
    q = torch.randn(b, 8, 1, 128, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, 1, length, 128, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, 1, length, 128, device="cuda", dtype=torch.bfloat16)
    out = torch.empty_like(q)
    for _ in range(2):
        lib.attention(q, k, v, out=out)
        torch.cuda.synchronize()
    print(spec, "done", flush=True)
    del q, k, v, out
