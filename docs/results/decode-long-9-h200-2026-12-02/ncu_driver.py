"""One call each (after one warm-up call) of the split-KV kernels of the
given bundle directories at GQA 8/1 B=1 L=131072 D=128 bf16 (contiguous),
then torch sum over the same K + V bytes: the launches ncu profiles."""
import sys
import torch
from flash_mlir.runtime import KernelLibrary

length = int(sys.argv[1])
q = torch.randn(1, 8, 1, 128, device="cuda", dtype=torch.bfloat16)
k = torch.randn(1, 1, length, 128, device="cuda", dtype=torch.bfloat16)
v = torch.randn(1, 1, length, 128, device="cuda", dtype=torch.bfloat16)
for spec in sys.argv[2:]:
    name, path = spec.split("=", 1)
    lib = KernelLibrary(path)
    out = torch.empty_like(q)
    lib.attention(q, k, v, out=out)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push(name)
    lib.attention(q, k, v, out=out)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    print(name, "done", flush=True)
x = torch.ones(2 * length * 128, device="cuda", dtype=torch.bfloat16)
x.sum()
torch.cuda.synchronize()
