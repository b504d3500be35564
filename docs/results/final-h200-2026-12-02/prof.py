import os, sys, time, importlib.util
root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(root, "python"))
spec = importlib.util.spec_from_file_location("tc", os.path.join(root, "scripts/gpu/train-check.py"))
tc = importlib.util.module_from_spec(spec); spec.loader.exec_module(tc)
import torch, torch.nn.functional as F
from flash_mlir.runtime import KernelLibrary
from flash_mlir.torch import register_torch_op
op = register_torch_op(KernelLibrary(sys.argv[1]))
ours = lambda q, k, v: op(q, k, v, True)
class A: pass
args = A(); args.vocab=4096; args.width=512; args.heads=8; args.layers=4; args.length=1024; args.lr=3e-4; args.seed=1234; args.steps=30; args.batch=8
batches = tc.synthetic_batches(args)
for name, att in (("sdpa", tc.sdpa), ("ours", ours)):
    losses, times = tc.train(att, args, batches)
    print(name, "median step ms", sorted(times)[len(times)//2]*1e3, flush=True)
# attention alone at the training shape, fwd+bwd, host and device
q, k, v = (torch.randn(8, 8, 1024, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
for name, att in (("sdpa", tc.sdpa), ("ours", ours)):
    for _ in range(5):
        att(q, k, v).sum().backward()
    torch.cuda.synchronize(); t=time.perf_counter()
    for _ in range(50):
        att(q, k, v).sum().backward()
    torch.cuda.synchronize(); print(name, "fwd+bwd ms/call (synced loop)", (time.perf_counter()-t)/50*1e3, flush=True)
from torch.profiler import profile, ProfilerActivity
torch.manual_seed(args.seed)
model = tc.GPT(args.vocab, args.width, args.heads, args.layers, args.length, ours).cuda().to(torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
def step(x, y):
    loss = F.cross_entropy(model(x).float().view(-1, args.vocab), y.view(-1)); opt.zero_grad(); loss.backward(); opt.step()
for x, y in batches[:3]: step(x, y)
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for x, y in batches[3:8]: step(x, y)
    torch.cuda.synchronize()
print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=25))
print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=25))
