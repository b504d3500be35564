"""ncu driver (thirty-fourth session): warm-up calls, then profiled calls of a bundle folder's
split-KV plan on contiguous K/V and its paged plan (S = 16, shuffled pages holding the same
keys), GQA 8/1, D = 128, bf16, B sequences of L keys (argv: DIR B L)."""
import sys
import torch
from flash_mlir.runtime import KernelLibrary

lib = KernelLibrary(sys.argv[1])
B, L, S = int(sys.argv[2]), int(sys.argv[3]), 16
torch.manual_seed(0)
q = torch.randn(B, 8, 1, 128, device="cuda", dtype=torch.bfloat16)
k = torch.randn(B, 1, L, 128, device="cuda", dtype=torch.bfloat16)
v = torch.randn(B, 1, L, 128, device="cuda", dtype=torch.bfloat16)
M = L // S
perm = torch.randperm(B * M, device="cuda")
table = perm.reshape(B, M).to(torch.int32)
kc = torch.empty(B * M, S, 1, 128, device="cuda", dtype=torch.bfloat16)
vc = torch.empty_like(kc)
kc[perm] = k.reshape(B, M, S, 1, 128).reshape(B * M, S, 1, 128)
vc[perm] = v.reshape(B, M, S, 1, 128).reshape(B * M, S, 1, 128)
lens = torch.full((B,), L, device="cuda", dtype=torch.int32)
out = torch.empty_like(q)
out2 = torch.empty_like(q)
for _ in range(3):
    lib.attention(q, k, v, out=out)
    lib.paged_attention(q, kc, vc, table, lens, out=out2)
torch.cuda.synchronize()
print("max diff paged vs contiguous", (out.float() - out2.float()).abs().max().item(), flush=True)
