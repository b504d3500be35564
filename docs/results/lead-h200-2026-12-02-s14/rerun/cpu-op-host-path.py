import sys, time, statistics, torch
from flash_mlir.torch import register_torch_op
class Fake:
    def attention(self, q, k, v, *a, **kw):
        lse = kw.get("return_lse", len(a) >= 3 and a[2])
        o = torch.empty_like(q)
        return (o, q.new_empty(q.shape[:3], dtype=torch.float32)) if lse else o
    def attention_backward(self, dout, q, k, v, o, lse, *a, **kw):
        return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
op = register_torch_op(Fake())
b, n, h, d = 1, 16, 2, 16
x = torch.randn(b, n, 3 * h * d, requires_grad=True)
def step():
    q, k, v = x.split(h * d, dim=2)
    q, k, v = (t.view(b, n, h, d).transpose(1, 2) for t in (q, k, v))
    o = op(q, k, v, True, 0.0)
    o.transpose(1, 2).reshape(b, n, h * d).sum().backward()
def sdpa_step():
    q, k, v = x.split(h * d, dim=2)
    q, k, v = (t.view(b, n, h, d).transpose(1, 2) for t in (q, k, v))
    o = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    o.transpose(1, 2).reshape(b, n, h * d).sum().backward()
for f in (step, sdpa_step):
    for _ in range(20): f()
res = {}
for name, f in (("op", step), ("sdpa_cpu", sdpa_step)):
    ts = []
    for r in range(7):
        t0 = time.perf_counter()
        for _ in range(50): f()
        ts.append((time.perf_counter() - t0) / 50 * 1e6)
    res[name] = statistics.median(ts)
print(sys.argv[1], {k: round(v, 1) for k, v in res.items()})
