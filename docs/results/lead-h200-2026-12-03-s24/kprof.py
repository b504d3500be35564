"""Per-kernel GPU durations and the gaps between the kernels of one backward call,
ours (each bundle directory given, its default plan) and SDPA cuDNN's, in interleaved
rounds (torch.profiler, CUDA activity; every kernel event kept, not averaged by name).
python3 kprof.py ROUNDS CALLS NAME=DIR [NAME=DIR ...]   (rows: ROWS env, "D:N:causal,...")
Prints per row and implementation: median over all calls of each kernel's duration,
the gaps (next kernel's start - previous kernel's end; negative = overlap), the span
(first start to last end) and the per-round medians of the span.
Then the waves test (WAVES env "D:N:B:H,..."): the main kernels' median durations."""
import os, sys, statistics, json, torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import profile, ProfilerActivity
from flash_mlir.runtime import KernelLibrary

rounds, calls = int(sys.argv[1]), int(sys.argv[2])
libs = {}
for a in sys.argv[3:]:
    n, d = a.split("=", 1); libs[n] = KernelLibrary(d)
rows = [tuple(int(x) for x in r.split(":")) for r in os.environ.get(
    "ROWS", "128:1024:0,128:2048:0,128:4096:0,64:1024:0").split(",") if r]
waves = [tuple(int(x) for x in r.split(":")) for r in os.environ.get("WAVES", "").split(",") if r]
med = statistics.median

def kernel_events(p):
    out = []
    try:
        for e in p.profiler.kineto_results.events():
            if "cuda" in str(e.device_type()).lower() or "CUDA" in str(e.device_type()):
                out.append((e.start_ns() / 1e3, (e.start_ns() + e.duration_ns()) / 1e3, e.name()))
        if out:
            return sorted(out)
    except Exception as ex:
        print("kineto path failed:", ex)
    for e in p.events():
        if "CUDA" in str(getattr(e, "device_type", "")):
            out.append((e.time_range.start, e.time_range.end, e.name))
    return sorted(out)

def kind(name):
    n = name.lower()
    if "memset" in n or "memcpy" in n: return "memset"
    if "preprocess" in n or "dot_do_o" in n: return "pre"
    if "convert" in n: return "conv"
    return "main"

def profiled(fn, ncalls):
    fn(); torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        for _ in range(ncalls): fn()
        torch.cuda.synchronize()
    ev = kernel_events(p)
    # split into calls: equal runs of consecutive kernels when they divide evenly,
    # else at each preprocess (ours) / dot_do_o (cuDNN)
    if ev and len(ev) % ncalls == 0:
        per = len(ev) // ncalls
        return [ev[i * per:(i + 1) * per] for i in range(ncalls)]
    groups, cur = [], []
    for s, e, n in ev:
        k = kind(n)
        if k == "pre" and cur and any(kind(x[2]) == "pre" for x in cur):
            groups.append(cur); cur = []
        cur.append((s, e, n))
    if cur: groups.append(cur)
    return groups

def summarize(groups):
    """per call: ordered list of (kind, dur), gaps, span"""
    res = []
    for g in groups:
        g = sorted(g)
        ks = [(kind(n), e - s, n) for s, e, n in g]
        gaps = [g[i + 1][0] - g[i][1] for i in range(len(g) - 1)]
        res.append((ks, gaps, g[-1][1] - g[0][0]))
    return res

def make_inputs(d, n, b, h, causal, lib0):
    q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    do = torch.randn_like(q)
    o, lse = lib0.attention(q, k, v, causal=causal, return_lse=True)
    return q, k, v, do, o, lse

lib0 = next(iter(libs.values()))
report = {}
print("env:", torch.__version__, torch.backends.cudnn.version(), torch.cuda.get_device_name())
for d, n, causal in rows:
    b, h = max(1, 16384 // n), 2048 // d
    q, k, v, do, o, lse = make_inputs(d, n, b, h, bool(causal), lib0)
    impls = {name: (lambda lib=lib: lib.attention_backward(q, k, v, o, do, lse, causal=bool(causal)))
             for name, lib in libs.items()}
    qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        out = F.scaled_dot_product_attention(qg, kg, vg, is_causal=bool(causal))
    impls["cudnn"] = lambda: torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True)
    per = {name: [] for name in impls}
    rspan = {name: [] for name in impls}
    names = list(impls)
    for r in range(rounds):
        order = names if r % 2 == 0 else names[::-1]
        for name in order:
            s = summarize(profiled(impls[name], calls))
            per[name].extend(s)
            rspan[name].append(med([x[2] for x in s]))
    flops = 4.0 * b * h * n * n * d * 2.5 / (2 if causal else 1)
    print(f"\n== D={d} N={n} causal={causal} B={b} H={h}  ({rounds} rounds x {calls} calls)")
    report[f"{d}:{n}:{causal}"] = {}
    for name in names:
        s = per[name]
        # kernels by position within the call
        L = min(len(x[0]) for x in s)
        cols = []
        for i in range(L):
            durs = [x[0][i][1] for x in s if len(x[0]) > i]
            cols.append((s[0][0][i][0], med(durs), min(durs), max(durs), s[0][0][i][2][:70]))
        gaps = [med([x[1][i] for x in s if len(x[1]) > i]) for i in range(L - 1)]
        span = med([x[2] for x in s])
        print(f"  {name:8s} span {span:8.1f} us ({flops / span / 1e6:6.1f} TFLOP/s)  per-round span medians: "
              + " ".join(f"{x:.1f}" for x in rspan[name]) + f"  calls={len(s)} kernels/call={[len(x[0]) for x in s[:1]]}")
        for i, (kd, m, lo, hi, nm) in enumerate(cols):
            print(f"     {kd:6s} {m:8.1f} us [{lo:8.1f}, {hi:8.1f}]  {nm}")
            if i < len(gaps):
                print(f"       gap {gaps[i]:7.2f} us")
        report[f"{d}:{n}:{causal}"][name] = {"span": span, "round_spans": rspan[name],
            "kernels": [(kd, m, lo, hi, nm) for kd, m, lo, hi, nm in cols], "gaps": gaps}
    sys.stdout.flush()
    del q, k, v, do, o, lse, qg, kg, vg, out
    torch.cuda.empty_cache()

for d, n, b, h in waves:
    q, k, v, do, o, lse = make_inputs(d, n, b, h, False, lib0)
    impls = {name: (lambda lib=lib: lib.attention_backward(q, k, v, o, do, lse))
             for name, lib in libs.items()}
    qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        out = F.scaled_dot_product_attention(qg, kg, vg)
    impls["cudnn"] = lambda: torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True)
    line = f"waves D={d} N={n} B={b} H={h} blocks(128-key tiles)={(n // 128) * h * b}:"
    for name, fn in impls.items():
        ms, ss = [], []
        for r in range(3):
            for ks, gaps, span in summarize(profiled(fn, calls)):
                ms.append(sum(x[1] for x in ks if x[0] == "main")); ss.append(span)
        line += f"  {name} main {med(ms):8.1f} span {med(ss):8.1f}"
    print(line); sys.stdout.flush()
    del q, k, v, do, o, lse, qg, kg, vg, out
    torch.cuda.empty_cache()
json.dump(report, open(os.environ.get("KPROF_JSON", "/dev/null"), "w"), indent=1)
