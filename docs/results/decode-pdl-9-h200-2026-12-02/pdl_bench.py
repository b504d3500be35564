"""Prototype timing (nineteenth session, helper H4, issue 17 item 5): main's
fused split-KV decode kernel against the nocount split kernel (partials
written, no count, no merge) followed by a separate merge kernel (merge.cu),
launched without and with programmatic dependent launch (PDL), and SDPA cuDNN,
interleaved in the same rounds. Timing as flash_mlir.tools.decode_bench: the
median over replays of a CUDA graph of 20 back-to-back calls, implementations
interleaved over --rounds rounds in a rotating order, a row reports each one's
median over the rounds. Not shipped.

  python3 pdl_bench.py --stage DIR [--rows 1x8192,...] [--gqa 8/1,32/8]
      [--rounds 5] [--json out.json] [--check-only]
"""
import argparse, ctypes as C, json, math, statistics, sys

ap = argparse.ArgumentParser()
ap.add_argument("--stage", required=True)
ap.add_argument("--rows", default="1x8192,1x32768,1x131072,8x32768,64x1024")
ap.add_argument("--gqa", default="8/1,32/8")
ap.add_argument("--rounds", type=int, default=5)
ap.add_argument("--json", default=None)
ap.add_argument("--check-only", action="store_true")
ap.add_argument("--impls", default=None, help="check-only: only impls whose name contains this")
args = ap.parse_args()

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from flash_mlir.runtime import KernelLibrary
sys.path.insert(0, args.stage)
from flash_mlir.tools.decode_bench import graph_time

torch.zeros(1, device="cuda")
cu = C.CDLL("libcuda.so.1")
def ck(r, what):
    if r != 0:
        s = C.c_char_p()
        cu.cuGetErrorName(r, C.byref(s))
        raise RuntimeError(f"{what}: {r} {s.value}")
ctx = C.c_void_p()
ck(cu.cuCtxGetCurrent(C.byref(ctx)), "cuCtxGetCurrent")
assert ctx.value, "no current context"
drv = C.c_int(); ck(cu.cuDriverGetVersion(C.byref(drv)), "cuDriverGetVersion")
print(f"driver {drv.value}, torch {torch.__version__}, cuda {torch.version.cuda}", flush=True)

def load(path, name, smem=0):
    data = open(path, "rb").read()
    mod, fn = C.c_void_p(), C.c_void_p()
    ck(cu.cuModuleLoadData(C.byref(mod), C.c_char_p(data)), f"load {path}")
    ck(cu.cuModuleGetFunction(C.byref(fn), mod, name.encode()), f"get {name}")
    if smem:
        ck(cu.cuFuncSetAttribute(fn, 8, smem), "max dynamic smem")  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    return fn

class Attr(C.Structure):
    _fields_ = [("id", C.c_uint), ("pad", C.c_char * 4), ("value", C.c_ubyte * 64)]
class Config(C.Structure):
    _fields_ = [("gx", C.c_uint), ("gy", C.c_uint), ("gz", C.c_uint),
                ("bx", C.c_uint), ("by", C.c_uint), ("bz", C.c_uint),
                ("smem", C.c_uint), ("stream", C.c_void_p),
                ("attrs", C.POINTER(Attr)), ("nattrs", C.c_uint)]
pdl_attr = Attr()
pdl_attr.id = 6  # CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
pdl_attr.value[0] = 1  # programmaticStreamSerializationAllowed = 1
cu.cuLaunchKernelEx.argtypes = [C.POINTER(Config), C.c_void_p, C.c_void_p, C.c_void_p]

def launch(fn, grid, block, smem, params, pdl, stream=None):
    cfg = Config(*grid, *block, smem,
                 C.c_void_p(stream if stream is not None else torch.cuda.current_stream().cuda_stream),
                 C.pointer(pdl_attr) if pdl else None, 1 if pdl else 0)
    arr = (C.c_void_p * len(params))(*[C.cast(C.pointer(p), C.c_void_p) for p in params])
    ck(cu.cuLaunchKernelEx(C.byref(cfg), fn, C.cast(arr, C.c_void_p), None), "cuLaunchKernelEx")

st = args.stage
SPLIT = "flash_decode_split_sm_90a_bf16_d128"
split_plain = load(f"{st}/cubins/split_nocount.sm_90a.cubin", SPLIT, 102400)
split_trig = load(f"{st}/cubins/split_nocount_trigger.sm_90a.cubin", SPLIT, 102400)
merge_fn = load(f"{st}/cubins/merge.sm_90a.cubin", "flash_decode_merge_d128")
main_lib = KernelLibrary(f"{st}/bundles/main90")
SMs = torch.cuda.get_device_properties(0).multi_processor_count
cdiv = lambda a, b: (a + b - 1) // b

class SplitMerge:
    """The nocount split kernel, then (unless merge=False) the merge kernel."""
    def __init__(self, q, k, v, split, merge=True, pdl=False, slice_cols=32, plant=0):
        b, hq, nq, d = q.shape; hkv, nk = k.shape[1], k.shape[2]
        row_tiles = cdiv(cdiv(hq * nq, hkv), 16)
        units = b * hkv * row_tiles
        self.gx = min(256, cdiv(2 * SMs, units))
        all_rows = b * hq * nq
        self.po = torch.empty(self.gx * all_rows * d, device="cuda", dtype=torch.float32)
        self.pl = torch.empty(self.gx * all_rows, device="cuda", dtype=torch.float32)
        self.cnt = torch.zeros(units * 2 * cdiv(self.gx, 16), device="cuda", dtype=torch.int32)
        self.o = torch.empty_like(q)
        self.q, self.k, self.v = q, k, v
        P = lambda t: C.c_void_p(t.data_ptr())
        self.sp = [P(q), P(k), P(v), P(self.o), C.c_void_p(0), P(self.po), P(self.pl), P(self.cnt),
                   C.c_int(b), C.c_int(hq), C.c_int(hkv), C.c_int(nq), C.c_int(nk), C.c_int(SMs),
                   C.c_float(1 / math.sqrt(d))]
        self.sgrid = (self.gx, hkv * row_tiles, b)
        lanes = slice_cols // 4
        groups = min(256 // lanes, 1 << max(0, (self.gx - 1).bit_length()))
        threads = max(32, lanes * groups)
        self.mblock = (threads, 1, 1)
        self.mgrid = (all_rows, d // slice_cols, 1)
        self.mp = [P(self.po), P(self.pl), P(self.o), C.c_void_p(0), C.c_int(b), C.c_int(hq),
                   C.c_int(hkv), C.c_int(nq), C.c_int(nk), C.c_int(SMs), C.c_int(256),
                   C.c_int(slice_cols), C.c_int(plant)]
        self.split, self.merge, self.pdl = split, merge, pdl
    def __call__(self, stream=None):
        launch(self.split, self.sgrid, (128, 1, 1), 102400, self.sp, False, stream)
        if self.merge:
            launch(merge_fn, self.mgrid, self.mblock, 0, self.mp, self.pdl, stream)
        return self.o

def graph_edges(fn_call):
    """Capture one call with the driver API on a side stream; the edges' data."""
    s = torch.cuda.Stream()
    h = s.cuda_stream
    torch.cuda.synchronize()
    ck(cu.cuStreamBeginCapture_v2(C.c_void_p(h), 2), "cuStreamBeginCapture")  # relaxed
    fn_call(h)
    g = C.c_void_p()
    ck(cu.cuStreamEndCapture(C.c_void_p(h), C.byref(g)), "cuStreamEndCapture")
    class Edge(C.Structure):
        _fields_ = [("from_port", C.c_ubyte), ("to_port", C.c_ubyte), ("type", C.c_ubyte),
                    ("reserved", C.c_ubyte * 5)]
    get = cu.cuGraphGetEdges_v2
    n = C.c_size_t(0)
    ck(get(g, None, None, None, C.byref(n)), "cuGraphGetEdges_v2")
    fr, to = (C.c_void_p * n.value)(), (C.c_void_p * n.value)()
    ed = (Edge * n.value)()
    ck(get(g, fr, to, ed, C.byref(n)), "cuGraphGetEdges_v2")
    ex = C.c_void_p()
    ck(cu.cuGraphInstantiateWithFlags(C.byref(ex), g, C.c_ulonglong(0)), "instantiate")
    ck(cu.cuGraphLaunch(ex, C.c_void_p(h)), "cuGraphLaunch")
    ck(cu.cuStreamSynchronize(C.c_void_p(h)), "sync")
    return [dict(from_port=e.from_port, to_port=e.to_port, type=e.type) for e in ed]

d, t = 128, torch.bfloat16
groups = [tuple(int(x) for x in g.split("/")) for g in args.gqa.split(",")]
results = []
for (hq, hkv), text in [(g, r) for g in groups for r in args.rows.split(",")]:
    b, length = (int(x) for x in text.split("x"))
    torch.manual_seed(0)
    q = torch.randn(b, hq, 1, d, device="cuda", dtype=t)
    k = torch.randn(b, hkv, length, d, device="cuda", dtype=t)
    v = torch.randn(b, hkv, length, d, device="cuda", dtype=t)
    out_m = torch.empty_like(q)
    impls = {"main fused": lambda: main_lib.attention(q, k, v, out=out_m)}
    sm = {
        "split only (nocount)": SplitMerge(q, k, v, split_plain, merge=False),
        "split+merge s32": SplitMerge(q, k, v, split_plain, pdl=False, slice_cols=32),
        "split+merge s32 PDL notrig": SplitMerge(q, k, v, split_plain, pdl=True, slice_cols=32),
        "split+merge s32 PDL": SplitMerge(q, k, v, split_trig, pdl=True, slice_cols=32),
        "split+merge s16 PDL": SplitMerge(q, k, v, split_trig, pdl=True, slice_cols=16),
        "split+merge s128 PDL": SplitMerge(q, k, v, split_trig, pdl=True, slice_cols=128),
    }
    impls.update(sm)
    def cudnn():
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    impls["SDPA cuDNN"] = cudnn
    planted = SplitMerge(q, k, v, split_trig, pdl=True, slice_cols=32, plant=1)
    ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), enable_gqa=True)
    any_sm = sm["split+merge s32"]
    parts_host = None
    nt = cdiv(length, 64); units = b * hkv * cdiv(cdiv(hq, hkv), 16)
    wanted = 2 * SMs // units; p = max(min(min(wanted, max(nt // 4, 1)), 256), 1)
    p = max(p * min(max(15 * SMs - 16 * units, 0), 1), 1); tps = max(cdiv(nt, p), 1)
    parts_host = cdiv(nt, tps)
    errors = {}
    def err_of(fn, o=None):
        if o is not None:
            o.fill_(float("nan"))  # poisoned: every element must be written
        r = fn().float()
        torch.cuda.synchronize()
        return (r - ref).abs().max().item()
    if args.impls:
        impls = {n: f for n, f in impls.items() if args.impls in n}
    for name, fn in impls.items():
        try:
            errors[name] = err_of(fn, getattr(fn, "o", out_m if name == "main fused" else None))
        except Exception as e:
            errors[name] = f"error: {str(e)[:160]}"
    errors["PLANTED (last part dropped)"] = err_of(planted, planted.o)
    print(f"GQA {hq}/{hkv} B={b} L={length}: parts {parts_host}, split grid {any_sm.sgrid}, "
          f"merge grid {any_sm.mgrid} block {any_sm.mblock}", flush=True)
    for name, e in errors.items():
        print(f"  max err {name:30s} {e if isinstance(e, str) else f'{e:.3e}'}", flush=True)
    row = {"B": b, "L": length, "Hq": hq, "Hkv": hkv, "parts": parts_host, "errors": errors,
           "impls": {}}
    if b == 1 and length == 8192 and hq == 8 and not args.impls:
        try:
            row["edges_pdl"] = graph_edges(lambda h: sm["split+merge s32 PDL"](h))
            row["edges_plain"] = graph_edges(lambda h: sm["split+merge s32"](h))
            row["edges_pdl_graph_err"] = (sm["split+merge s32 PDL"].o.float() - ref).abs().max().item()
            print(f"  driver-API capture edges: PDL {row['edges_pdl']}, plain {row['edges_plain']}, "
                  f"err after the PDL graph's launch {row['edges_pdl_graph_err']:.3e}", flush=True)
        except Exception as e:
            row["edges_error"] = str(e)[:200]
            print(f"  edge inspection failed: {e}", flush=True)
    if args.check_only:
        results.append(row); continue
    names = [n for n in impls if not isinstance(errors[n], str)]
    times = {n: [] for n in names}
    for r in range(args.rounds):
        order = names[r % len(names):] + names[: r % len(names)]
        for name in order:
            ms = graph_time(impls[name])
            if ms is None:
                times[name].append(None)
            else:
                times[name].append(ms)
    bytes_moved = 2 * b * hkv * length * d * 2 + 2 * b * hq * d * 2
    for name in names:
        ok = [x for x in times[name] if x is not None]
        if not ok:
            print(f"  {name:30s} graph capture FAILED", flush=True)
            row["impls"][name] = {"error": "capture failed"}
            continue
        ms = statistics.median(ok)
        # Output after the graph replays (the last graph's calls wrote it).
        row["impls"][name] = {"us": ms * 1e3, "all_us": [x * 1e3 for x in ok],
                              "TBps": bytes_moved / (ms * 1e-3) / 1e12}
        print(f"  {name:30s} {ms * 1e3:8.2f} us  {bytes_moved / (ms * 1e-3) / 1e12:5.2f} TB/s  "
              f"rounds {' '.join(f'{x * 1e3:.2f}' for x in ok)}", flush=True)
    post = {}
    for name, fn in sm.items():
        if name != "split only (nocount)":
            post[name] = (fn.o.float() - ref).abs().max().item()
    row["err_after_replays"] = post
    print(f"  max err after the graph replays: " + ", ".join(f"{n}: {e:.2e}" for n, e in post.items()), flush=True)
    results.append(row)
if args.json:
    json.dump(results, open(args.json, "w"), indent=1)
