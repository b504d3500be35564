"""ncu driver: a warm-up and a profiled call of a bundle's split-KV plan at GQA 8/1,
D = 128, bf16, contiguous K/V, B x L (argv: DIR BxL ...)."""
import sys
import torch
from flash_mlir.runtime import KernelLibrary

lib = KernelLibrary(sys.argv[1])
for row in sys.argv[2:]:
    b, length = (int(x) for x in row.split("x"))
    q = torch.randn(b, 8, 1, 128, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, 1, length, 128, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, 1, length, 128, device="cuda", dtype=torch.bfloat16)
    out = torch.empty_like(q)
    for _ in range(2):
        lib.attention(q, k, v, out=out)
        torch.cuda.synchronize()
    print(row, "done", flush=True)
