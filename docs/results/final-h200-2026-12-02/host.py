import os, sys, time
root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(root, "python"))
import torch
from flash_mlir.runtime import KernelLibrary
from flash_mlir.torch import register_torch_op
lib = KernelLibrary(sys.argv[1]); op = register_torch_op(lib)
q, k, v = (torch.randn(8, 8, 1024, 64, device="cuda", dtype=torch.bfloat16) for _ in range(3))
o, lse = lib.attention(q, k, v, True, return_lse=True); do = torch.randn_like(o)
def host(name, f, n=200):
    for _ in range(10): f()
    torch.cuda.synchronize(); t = time.perf_counter()
    for _ in range(n): f()
    h = (time.perf_counter() - t) / n * 1e6
    torch.cuda.synchronize(); w = (time.perf_counter() - t) / n * 1e6
    print(f"{name:50s} host {h:8.1f} us/call  wall {w:8.1f} us/call", flush=True)
host("lib.attention(return_lse) fwd", lambda: lib.attention(q, k, v, True, return_lse=True))
host("lib.attention_backward", lambda: lib.attention_backward(q, k, v, o, do, lse, causal=True))
b = lib.find_backward("bf16", 64, True, 1024, 90)
host("find_backward", lambda: lib.find_backward("bf16", 64, True, 1024, 90))
dq, dk, dv = (torch.empty_like(t) for t in (q, k, v))
named = {"q": q, "k": k, "v": v, "o": o, "dout": do, "lse": lse, "dq": dq, "dk": dk, "dv": dv}
host("bundle.named_args", lambda: b.named_args(named, 0.125))
host("bundle.launch_named (3 kernels)", lambda: b.launch_named(named, 0.125, q.device))
host("torch.ops.flash_mlir.attention_backward", lambda: torch.ops.flash_mlir.attention_backward(do, q, k, v, o, lse, True, 0.0, False))
qg, kg, vg = (t.clone().requires_grad_() for t in (q, k, v))
host("op fwd+bwd autograd", lambda: op(qg, kg, vg, True).backward(do))
from torch.nn.functional import scaled_dot_product_attention as sdpa
host("sdpa fwd+bwd autograd", lambda: sdpa(qg, kg, vg, is_causal=True).backward(do))
