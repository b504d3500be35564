"""ncu driver (thirtieth session): warm-up calls, then profiled calls of a bundle folder's
split-KV plan on contiguous K/V and its paged plan (S = 16, sequential pages: the same
bytes in the same order), GQA 8/1, D = 128, bf16, B = 1 (argv: DIR L ...)."""
import sys
import torch
from flash_mlir.runtime import KernelLibrary

lib = KernelLibrary(sys.argv[1])
S = 16
for length in (int(x) for x in sys.argv[2:]):
    q = torch.randn(1, 8, 1, 128, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(1, 1, length, 128, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(1, 1, length, 128, device="cuda", dtype=torch.bfloat16)
    kc = k.reshape(length // S, S, 1, 128)
    vc = v.reshape(length // S, S, 1, 128)
    table = torch.arange(length // S, device="cuda", dtype=torch.int32).reshape(1, -1)
    lens = torch.tensor([length], device="cuda", dtype=torch.int32)
    out = torch.empty_like(q)
    for _ in range(3):
        lib.attention(q, k, v, out=out)
        lib.paged_attention(q, kc, vc, table, lens, out=out)
    torch.cuda.synchronize()
    print(length, "done", flush=True)
