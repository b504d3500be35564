"""One forward + backward of the installed wheel (no source tree, no LLVM):
B×N×H×D views, causal, bf16, D 64 and 128; O, dQ, dK, dV against f32 torch
(criterion: ours <= 2 * torch bf16's error + 1e-5)."""
import json, os, shutil, torch
import torch.nn.functional as F
import flash_mlir
from flash_mlir.torch import scaled_dot_product_attention as sdpa, default_library
from flash_mlir.runtime import capi
lib = default_library()
arches = sorted({b.arch for b in lib.all})
ops = sorted({b.op for b in lib.all})
print("package:", flash_mlir.__file__)
print("runtime:", capi._LIB._name)
print("bundles:", lib.dir, len(lib.all), "plans; arches", arches, "ops", ops)
print("compilers on PATH:", {t: shutil.which(t) for t in ("flash-opt", "mlir-opt", "llc", "ptxas", "clang")})
ok_all = True
for (b, n, h, d) in ((2, 512, 8, 128), (4, 512, 12, 64)):
    g = torch.Generator(device="cuda").manual_seed(d)
    leaves = [torch.randn(b, n, h, d, device="cuda", dtype=torch.bfloat16, generator=g).requires_grad_() for _ in range(3)]
    do = torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16, generator=g)
    def run(fn, dtype):
        ls = [t.detach().to(dtype).requires_grad_() for t in leaves]
        o = fn(*[t.transpose(1, 2) for t in ls], is_causal=True)
        grads = torch.autograd.grad(o, ls, do.to(dtype))
        return [o.float()] + [x.float() for x in grads]
    ours = run(sdpa, torch.bfloat16)
    ref = run(F.scaled_dot_product_attention, torch.float32)
    same = run(F.scaled_dot_product_attention, torch.bfloat16)
    r = {"shape BNHD": [b, n, h, d]}
    for name, a, x, y in zip(("O", "dQ", "dK", "dV"), ours, ref, same):
        e, bound = float((a - x).abs().max()), 2 * float((y - x).abs().max()) + 1e-5
        ok = e <= bound and not torch.isnan(a).any()
        ok_all &= bool(ok)
        r[name] = [round(e, 5), round(bound, 5), "pass" if ok else "FAIL"]
    print(json.dumps(r))
print("wheel forward+backward:", "PASS" if ok_all else "FAIL")
