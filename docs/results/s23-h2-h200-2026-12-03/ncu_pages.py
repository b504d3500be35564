"""The launches ncu profiles (H2, twenty-third session): for each row BxL at GQA
8/1, D = 128 bf16 (argv: BUNDLES ROW [ROW ...]), one call each (after a warm-up
call) of the contiguous split-KV plan, paged S = 16 with shuffled pages and paged
S = 16 with sequential pages (decode_bench's tables: page_placement), in an NVTX
range named after the form."""
import sys

import torch

from flash_mlir.runtime import KernelLibrary
from flash_mlir.tools.decode_bench import page_placement

lib = KernelLibrary(sys.argv[1])
d, hq, hkv, page, t = 128, 8, 1, 16, torch.bfloat16
for text in sys.argv[2:]:
    b, length = (int(x) for x in text.split("x"))
    q = torch.randn(b, hq, 1, d, device="cuda", dtype=t)
    k = torch.randn(b, hkv, length, d, device="cuda", dtype=t)
    v = torch.randn(b, hkv, length, d, device="cuda", dtype=t)
    lens = torch.full((b,), length, dtype=torch.int32, device="cuda")
    pages = b * length // page
    calls = {"contiguous": lambda out=torch.empty_like(q): lib.attention(q, k, v, out=out)}
    for order in ("shuffled", "sequential"):
        perm = page_placement(b, length, page, order,
                              lambda n: torch.randperm(n, device="cuda"),
                              lambda n: torch.arange(n, device="cuda"))
        kc = torch.empty(pages, page, hkv, d, device="cuda", dtype=t)
        vc = torch.empty_like(kc)
        kc[perm] = k.permute(0, 2, 1, 3).reshape(pages, page, hkv, d)
        vc[perm] = v.permute(0, 2, 1, 3).reshape(pages, page, hkv, d)
        table = perm.view(b, length // page).to(torch.int32).contiguous()
        calls[order] = (lambda kc=kc, vc=vc, table=table, out=torch.empty_like(q):
                        lib.paged_attention(q, kc, vc, table, lens, out=out))
    for name, fn in calls.items():
        fn()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push(f"{text} {name}")
        fn()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        print(text, name, "done", flush=True)
    del q, k, v, calls
    torch.cuda.empty_cache()
