"""Decode bandwidth: the split-KV plans against torch SDPA (cuDNN, FA2).

  python3 -m flash_mlir.tools.decode_bench --bundles bundles/ [--json out.json]
      [--rows 1x8192,...,128x2048] [--gqa 32/8,8/1] [--rounds 5] [--table-pad N]
      [--page-order shuffled|sequential|local[,...]] [--page-sizes 16,64]
      [--read-floor] [--cold] [--between] [--head-dim 64|128|256]

One query row, D=128 (--head-dim), bf16, for each GQA group (Hq/Hkv) and row
(BxL) of issue 17 item 5 by default. Bytes = K + V of the valid lengths +
Q + O; TB/s = bytes / time. Ours: paged with page sizes 16 and 64 (--page-sizes
to time others or only one; pages in a
random order by default; --page-order sequential puts each sequence's pages
one after the other in the pool, in key order, timed as 'paged S=.. seq';
--page-order local shuffles them within 2 MiB spans of the pool, timed as
'paged S=.. local') and
the contiguous split-KV plan; SDPA's cuDNN and FA2 backends
on the same K/V, contiguous (their only form, enable_gqa). Each measurement
is the median time of CUDA-graph replays of 20 back-to-back calls (launch
gaps excluded), implementations interleaved over --rounds rounds in a
rotating order; a row reports each one's median over the rounds. The read
ceiling is measured in the same run, twice: torch's sum over 4 GiB (the
"% of ceiling" of every table since the tenth session) and a streaming read
kernel over the same 4 GiB (read_ceiling.ptx, built from
scripts/bench/read-ceiling.cu; 8-10% faster than the sum on the H200:
"% of kernel ceiling"). --read-floor adds a read floor to every row, timed
in the same rounds: the same K and V bytes read by a kernel that computes
nothing (read_pages.ptx, built from scripts/bench/read-pages.cu), from the
contiguous cache ('read floor contiguous') and through each paged form's
block table and cache ('read floor S=16', '.. seq', '.. local'; with
Hkv > 1 also '.. pages': whole pages, every kv-head of a page read
together), so that
what the page layout costs any reader is told apart from what the paged
kernel adds. Host time per
call (Python to launch, no synchronisation) is measured on a small problem
for ours (KernelLibrary, the torch op) and SDPA's, with its parts: the
output's allocation, and the runtime's launch alone (flash_plan_launch on a
described call, which reuses the last call's planned launch).

--between: by default a graph's calls run back to back, so on sm_90a each of
our split kernels (launched with programmatic dependent launch) starts
behind our previous call's last kernel. With --between every call of every
implementation (read floors included) is preceded by a small torch kernel
(an add on a 1-element tensor), as the kernels before attention in a decode
step (RoPE, the cache append) are, so that our kernels start behind a
kernel that is not ours; its time is in every implementation's.

--cold: by default every call of a graph reads the same K/V, so a row whose
K + V fits in the L2 cache (60 MiB on the H200: GQA 8/1 B=1 L=8k/32k and
B=64 L=1k, GQA 32/8 B=1 L=8k) is read from the L2 after the first call, which
a model whose layers each read their own cache never does. With --cold each
implementation's 20 calls cycle through cold_copies() copies of the K/V
(spanning at least 2.5× the L2), so consecutive calls read different memory
and every row's K/V comes from DRAM; Q, the block table and seq_lens are
shared (a serving step has just written them).
"""

import argparse
import json
import math
import statistics
import sys
import time


def graph_time(fn, calls=20, replays=10):
    """Median ms per call of `fn` over replays of a graph of `calls` calls
    (None if it cannot be captured)."""
    import torch
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph, stream=stream):
            for _ in range(calls):
                fn()
    except Exception:
        return None
    graph.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(replays):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / calls)
    return statistics.median(times)


def with_kernel_before(fn, scratch):
    """`fn` preceded by a small kernel on `scratch` (an in-place add on a
    tensor of one element): each call then follows a kernel that is not the
    implementation's own (--between). Returns fn's result."""
    def run():
        scratch.add_(1)
        return fn()
    return run


def cold_copies(kv_bytes, l2_bytes, cold):
    """How many copies of a row's K/V (`kv_bytes`) the calls of one graph
    cycle through: 1 unless `cold`; else enough that the other copies read
    between two reads of one copy span at least 1.5× the L2 (`l2_bytes`):
    ceil(2.5 · L2 / bytes) copies, at least 1."""
    if not cold:
        return 1
    return max(1, -(-(5 * l2_bytes) // (2 * kv_bytes)))


def rotating(calls):
    """One callable that runs calls[0], calls[1], ... in turn (a graph
    captured over it records each call on its own copy)."""
    state = [0]

    def run():
        i = state[0]
        state[0] = (i + 1) % len(calls)
        return calls[i]()
    return run


READ_CEILING_THREADS = 512
READ_CEILING_BLOCKS_PER_SM = 4


def read_ceiling_launch(nbytes, sms):
    """The read ceiling kernel's launch over `nbytes`: (blocks, 16-byte words
    a block); every block reads one contiguous chunk, 4 blocks of 512 threads
    an SM (scripts/bench/read-ceiling.cu)."""
    blocks = READ_CEILING_BLOCKS_PER_SM * sms
    return blocks, nbytes // 16 // blocks


def _ptx_function(ptx_file, entry):
    """(libcuda, CUfunction) of `entry` in the PTX file next to this module,
    loaded through the CUDA driver in torch's current context; raises when
    the driver cannot."""
    import ctypes
    import pathlib
    cuda = ctypes.CDLL("libcuda.so.1")
    ptx = pathlib.Path(__file__).with_name(ptx_file).read_bytes() + b"\0"
    module, function = ctypes.c_void_p(), ctypes.c_void_p()
    _check(cuda.cuModuleLoadData(ctypes.byref(module), ptx), "cuModuleLoadData")
    _check(cuda.cuModuleGetFunction(ctypes.byref(function), module, entry.encode()),
           "cuModuleGetFunction")
    cuda.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [
        ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
    return cuda, function


def _check(result, what):
    if result != 0:
        raise RuntimeError(f"{what}: CUDA driver error {result}")


def _launcher(torch, cuda, function, blocks, threads, args):
    """A callable that launches `function` with the ctypes values `args` on
    torch's current stream (kept alive with it)."""
    import ctypes
    params = (ctypes.c_void_p * len(args))(*[ctypes.addressof(a) for a in args])

    def launch():
        _check(cuda.cuLaunchKernel(function, blocks, 1, 1, threads, 1, 1, 0,
                                   torch.cuda.current_stream().cuda_stream, params, None),
               "cuLaunchKernel")
    launch.keep = (args, params)
    return launch


def kernel_read_ceiling(torch, data, sms):
    """TB/s of read_ceiling.ptx reading the CUDA tensor `data` (timed as the
    sum's ceiling is), loaded and launched through the CUDA driver on torch's
    current stream; raises when the driver cannot."""
    import ctypes
    cuda, function = _ptx_function("read_ceiling.ptx", "read_ceiling")
    nbytes = data.numel() * data.element_size()
    blocks, words = read_ceiling_launch(nbytes, sms)
    sink = torch.empty(blocks * READ_CEILING_THREADS, dtype=torch.int32, device=data.device)
    launch = _launcher(torch, cuda, function, blocks, READ_CEILING_THREADS,
                       [ctypes.c_uint64(data.data_ptr()), ctypes.c_uint64(words),
                        ctypes.c_uint64(sink.data_ptr())])
    ms = graph_time(launch, calls=5, replays=5)
    if ms is None:
        raise RuntimeError("the read kernel could not be captured in a graph")
    return blocks * words * 16 / (ms * 1e-3) / 1e12


# The read floor of a row (--read-floor; scripts/bench/read-pages.cu): a pure
# read of its K and V in items of S rows of one (sequence, kv-head), 512
# threads a block, 4 blocks an SM.
READ_PAGES_THREADS = 512


def _log2(x, what):
    if x < 1 or x & (x - 1):
        raise ValueError(f"the read floor needs a power of two for {what}, got {x}")
    return x.bit_length() - 1


def read_floor_layout(b, hkv, length, page, row_bytes, arange, table=None):
    """(item_base, row_stride_words) of the read floor of a row: the byte
    offset of every item (S = `page` rows of one (sequence, kv-head)) in its
    cache, items in (b, h, i) order (i fastest: a head's keys in order), and
    the 16-byte words between two rows of an item. `table` (b × length/page
    page indices, as the paged call's block table): the P×S×Hkv×D cache,
    item (b, h, i) at page table[b, i], rows Hkv·D apart. No table: the
    contiguous B×Hkv×L×D cache, item (b, h, i) at key i·S of head (b, h),
    rows D apart. `arange(n)` gives 0..n-1 as an integer array (numpy or
    torch, int64), `table` the same kind."""
    per_seq = length // page
    if per_seq * page != length:
        raise ValueError(f"page size {page} does not divide the length {length}")
    if table is None:
        heads = arange(b * hkv).reshape(b * hkv, 1) * (length * row_bytes)
        keys = arange(per_seq).reshape(1, per_seq) * (page * row_bytes)
        return (heads + keys).reshape(-1), row_bytes // 16
    pages = table[:, :per_seq].reshape(b, 1, per_seq) * (page * hkv * row_bytes)
    heads = arange(hkv).reshape(1, hkv, 1) * row_bytes
    return (pages + heads).reshape(-1), hkv * row_bytes // 16


def read_pages_launch(items, sms, page, row_bytes):
    """read_pages' launch: (blocks, items a block, k_log2, tensor_log2,
    row_log2). 4 blocks of 512 threads an SM (fewer when there are fewer
    items), each a run of consecutive items; an item's words of one tensor
    (S · row_bytes / 16) must be a power of two of at least 256, so that
    every thread reads 2^k_log2 words of each item."""
    row_log2 = _log2(row_bytes // 16, "an item row's 16-byte words")
    tensor_log2 = _log2(page, "the page size") + row_log2
    if tensor_log2 < 8:
        raise ValueError(f"the read floor needs items of at least 4 KiB a tensor "
                         f"(S · D · 2 bytes), got {page * row_bytes}")
    k_log2 = tensor_log2 + 1 - _log2(READ_PAGES_THREADS, "the threads")
    blocks = min(READ_CEILING_BLOCKS_PER_SM * sms, items)
    per_block = -(-items // blocks)
    blocks = -(-items // per_block)
    return blocks, per_block, k_log2, tensor_log2, row_log2


def read_floor_call(torch, k, v, item_base, row_stride, page, sms, function):
    """A callable: one read_pages launch over the caches `k` and `v` (CUDA
    tensors of the row's layout) at `item_base` (a CUDA int64 tensor);
    `function` is (libcuda, CUfunction) of read_pages."""
    import ctypes
    cuda, fn = function
    row_bytes = k.shape[-1] * k.element_size()
    items = item_base.numel()
    blocks, per_block, k_log2, tensor_log2, row_log2 = read_pages_launch(
        items, sms, page, row_bytes)
    sink = torch.empty(blocks * READ_PAGES_THREADS, dtype=torch.int32, device=k.device)
    launch = _launcher(torch, cuda, fn, blocks, READ_PAGES_THREADS, [
        ctypes.c_uint64(k.data_ptr()), ctypes.c_uint64(v.data_ptr()),
        ctypes.c_uint64(item_base.data_ptr()), ctypes.c_uint64(items),
        ctypes.c_uint64(per_block), ctypes.c_uint32(k_log2),
        ctypes.c_uint32(tensor_log2), ctypes.c_uint32(row_log2),
        ctypes.c_uint64(row_stride), ctypes.c_uint64(sink.data_ptr())])
    launch.keep = (launch.keep, sink, item_base, k, v)
    return launch


PAGE_ORDERS = ("shuffled", "sequential", "local")
# 'local' keeps each page inside the 2 MiB of the pool it would have in
# 'sequential' order (the GPU's page of virtual memory for large
# allocations), shuffled within it.
LOCAL_SPAN_BYTES = 2 << 20


def page_placement(b, length, page, order, randperm, arange, page_bytes=None):
    """The pool page of every block of the cache: perm[j] holds block j, the
    (j % (length // page))-th page of sequence j // (length // page); the block
    table is perm viewed as (b, length // page).

    'shuffled': a random permutation (randperm(pages), one draw of the
    generator: the table decode_bench has always used). 'sequential': the
    identity (arange(pages)), so each sequence's pages are consecutive in the
    pool, in key order, as a contiguous cache cut into pages; it draws nothing
    from the generator, so a run that times both orders gets the same shuffled
    tables as one that times only them. 'local': block j's page lies in the
    same span of LOCAL_SPAN_BYTES of the pool as in 'sequential' (spans of
    LOCAL_SPAN_BYTES // page_bytes pages), in a random order within it (one
    draw): the pages as scattered as 'shuffled' for the DRAM, as few spans
    of virtual memory as 'sequential' for the address translation."""
    pages = b * length // page
    if order == "shuffled":
        return randperm(pages)
    if order == "sequential":
        return arange(pages)
    if order == "local":
        if not page_bytes or page_bytes <= 0:
            raise ValueError("page order 'local' needs the bytes of a page")
        span = max(LOCAL_SPAN_BYTES // page_bytes, 1)
        index = arange(pages)
        return ((index // span) * pages + randperm(pages)).argsort()
    raise ValueError(f"page order {order!r}: expected one of {', '.join(PAGE_ORDERS)}")


def page_orders(text):
    """--page-order's value: one order or a comma-separated list (each once)."""
    orders = [o.strip() for o in text.split(",") if o.strip()]
    bad = [o for o in orders if o not in PAGE_ORDERS]
    if not orders or bad or len(set(orders)) != len(orders):
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected one or more of {', '.join(PAGE_ORDERS)}, comma-separated")
    return orders


def parse_rows(text):
    """--rows' value: [(B, L), ...] from 'BxL,BxL,...'."""
    return [tuple(int(x) for x in r.split("x")) for r in text.split(",")]


def page_sizes(text):
    """--page-sizes' value: positive page sizes, comma-separated, each once."""
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1 or len(set(sizes)) != len(sizes):
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected positive page sizes, comma-separated, each once")
    return sizes


def paged_name(page, order):
    """The timed implementation's name: 'paged S=16' for shuffled pages (the
    name decode_bench has always printed), 'paged S=16 seq' for sequential,
    'paged S=16 local' for local."""
    return f"paged S={page}" + {"shuffled": "", "sequential": " seq",
                                 "local": " local"}[order]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bundles", required=True)
    ap.add_argument("--json", default=None)
    ap.add_argument("--rows", default="1x8192,1x32768,1x131072,8x32768,64x1024,64x8192,128x2048",
                    help="BxL rows, comma-separated")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--gqa", default="32/8,8/1", help="Hq/Hkv groups, comma-separated")
    ap.add_argument("--host-calls", type=int, default=200)
    ap.add_argument("--baseline-bundles", default=None,
                    help="another bundle directory whose paged S=16 and split-KV plans are "
                         "timed in the same rounds (an A/B of two builds)")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME=DIR",
                    help="a bundle directory whose paged plans (S=16 and S=64) and split-KV "
                         "plan are timed in the same rounds as 'paged S=.. [NAME]' and "
                         "'split_kv [NAME]' (repeatable)")
    ap.add_argument("--table-pad", type=int, default=0, metavar="N",
                    help="N more block-table entries a sequence than its pages (M = L/S + N, "
                         "the extra entries pointing at one of its pages), as a serving "
                         "engine's table sized for a longer maximum")
    ap.add_argument("--page-order", type=page_orders, default=["shuffled"],
                    metavar="ORDER[,ORDER]",
                    help="where the paged forms' pages lie in the pool: 'shuffled' (default: "
                         "a random permutation, the same tables as before this option), "
                         "'sequential' (each sequence's pages consecutive, in key order: "
                         "the paged kernel's own cost without scattered pages; timed as "
                         "'paged S=.. seq'), 'local' (shuffled within 2 MiB spans of the "
                         "pool: scattered for the DRAM, as few spans of virtual memory as "
                         "sequential; 'paged S=.. local'), or several in the same rounds "
                         "('shuffled,sequential,local'); applies to --baseline-bundles and "
                         "--variant too")
    ap.add_argument("--page-sizes", type=page_sizes, default=[16, 64], metavar="S[,S]",
                    help="the paged forms' page sizes (default 16,64); each must divide "
                         "every row's length")
    ap.add_argument("--read-floor", action="store_true",
                    help="also time, in the same rounds, a pure read of each row's K and V "
                         "(read_pages.ptx, scripts/bench/read-pages.cu): 'read floor "
                         "contiguous' from the contiguous cache, 'read floor S=..' (and "
                         "'.. seq', '.. local') through the paged forms' block tables and "
                         "caches one kv-head at a time, and with Hkv > 1 '.. pages' (whole "
                         "pages); S · D · 2 bytes must be a power of two of at least 4 KiB")
    ap.add_argument("--head-dim", type=int, choices=(64, 128, 256), default=128,
                    help="D = Dv of every row (issue 17's table is at 128)")
    ap.add_argument("--cold", action="store_true",
                    help="each call of a graph reads its own copy of the K/V (copies "
                         "spanning 2.5x the L2 cache), so no row is read from the L2")
    ap.add_argument("--between", action="store_true",
                    help="a small torch kernel (an add on a 1-element tensor) before every "
                         "call of every implementation, as the kernels before attention in "
                         "a decode step: ours then start behind a kernel that is not ours")
    args = ap.parse_args(argv)
    rows_asked = parse_rows(args.rows)
    uneven = [(s, n) for s in args.page_sizes for _, n in rows_asked if n % s]
    if uneven:
        ap.error(f"--page-sizes: page size {uneven[0][0]} does not divide the row "
                 f"length {uneven[0][1]}")
    if args.read_floor:
        try:
            for s in args.page_sizes:
                read_pages_launch(1, 1, s, args.head_dim * 2)
        except ValueError as e:
            ap.error(f"--read-floor: {e}")

    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from flash_mlir.runtime import KernelLibrary

    lib = KernelLibrary(args.bundles)
    base = KernelLibrary(args.baseline_bundles) if args.baseline_bundles else None
    variants = [(v.split("=", 1)[0], KernelLibrary(v.split("=", 1)[1])) for v in args.variant]
    d = args.head_dim
    t = torch.bfloat16
    groups = [tuple(int(x) for x in g.split("/")) for g in args.gqa.split(",")]
    # The read ceiling: one pass over 4 GiB.
    big = torch.ones(1 << 31, device="cuda", dtype=torch.bfloat16)
    ceiling_ms = graph_time(lambda: big.sum(), calls=5, replays=5)
    ceiling = big.numel() * 2 / (ceiling_ms * 1e-3) / 1e12
    print(f"read ceiling (sum over 4 GiB): {ceiling:.2f} TB/s", flush=True)
    try:
        kernel_ceiling = kernel_read_ceiling(
            torch, big, torch.cuda.get_device_properties(0).multi_processor_count)
        print(f"read ceiling (read_ceiling.ptx over 4 GiB): {kernel_ceiling:.2f} TB/s",
              flush=True)
    except Exception as e:  # no driver library, or the PTX does not load
        kernel_ceiling = None
        print(f"read ceiling of the read kernel not measured: {e}", flush=True)
    del big
    l2_bytes = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 64 << 20)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    read_pages = _ptx_function("read_pages.ptx", "read_pages") if args.read_floor else None

    def read_floor(kvs, table, b, hkv, length, page):
        """The read floor over the copies `kvs` ([(k, v), ...]) of a row of
        `b` sequences (`table`: the paged form's block table, or None)."""
        base, stride = read_floor_layout(
            b, hkv, length, page, kvs[0][0].shape[-1] * 2,
            lambda n: torch.arange(n, device="cuda", dtype=torch.int64),
            None if table is None else table.to(torch.int64))
        base = base.contiguous()
        return rotating([read_floor_call(torch, kk, vv, base, stride, page, sms, read_pages)
                         for kk, vv in kvs])

    between = torch.zeros(1, device="cuda") if args.between else None
    rows = []
    for (hq, hkv), (b, length) in [(g, r) for g in groups for r in rows_asked]:
        q = torch.randn(b, hq, 1, d, device="cuda", dtype=t)
        k = torch.randn(b, hkv, length, d, device="cuda", dtype=t)
        v = torch.randn(b, hkv, length, d, device="cuda", dtype=t)
        lens = torch.full((b,), length, dtype=torch.int32, device="cuda")
        copies = cold_copies(2 * b * hkv * length * d * 2, l2_bytes, args.cold)
        # The contiguous K/V every implementation reads, copy c of `copies`.
        ks = [k] + [k.clone() for _ in range(copies - 1)]
        vs = [v] + [v.clone() for _ in range(copies - 1)]
        impls = {}
        for page in args.page_sizes:
            pages = b * length // page
            for order in args.page_order:
                perm = page_placement(
                    b, length, page, order,
                    lambda n: torch.randperm(n, device="cuda"),
                    lambda n: torch.arange(n, device="cuda"),
                    page_bytes=page * hkv * d * k.element_size())
                # Page perm[j] holds block j of the contiguous cache.
                kcs, vcs = [], []
                for kk, vv in zip(ks, vs):
                    kc = torch.empty(pages, page, hkv, d, device="cuda", dtype=t)
                    vc = torch.empty_like(kc)
                    kc[perm] = kk.permute(0, 2, 1, 3).reshape(pages, page, hkv, d)
                    vc[perm] = vv.permute(0, 2, 1, 3).reshape(pages, page, hkv, d)
                    kcs.append(kc)
                    vcs.append(vc)
                table = perm.view(b, length // page).to(torch.int32).contiguous()
                if args.table_pad:
                    table = torch.cat([table, table[:, :1].expand(b, args.table_pad)],
                                      1).contiguous()

                def paged(plib, table=table, kcs=kcs, vcs=vcs):
                    out = torch.empty_like(q)
                    return rotating([
                        lambda kc=kc, vc=vc: plib.paged_attention(q, kc, vc, table, lens,
                                                                   out=out)
                        for kc, vc in zip(kcs, vcs)])
                name = paged_name(page, order)
                impls[name] = paged(lib)
                for vname, vlib in variants:
                    impls[f"{name} [{vname}]"] = paged(vlib)
                if base is not None and page == 16:
                    impls[f"{name} [baseline]"] = paged(base)
                if args.read_floor:
                    impls["read floor " + name[len("paged "):]] = read_floor(
                        list(zip(kcs, vcs)), table, b, hkv, length, page)
                    if hkv > 1:
                        # Whole pages: every kv-head of a page in one item (the
                        # page's S·Hkv·D contiguous elements), as a reader that
                        # takes all kv-heads of a sequence would.
                        impls["read floor " + name[len("paged "):] + " pages"] = read_floor(
                            [(kk.view(pages, page, 1, hkv * d), vv.view(pages, page, 1, hkv * d))
                             for kk, vv in zip(kcs, vcs)], table, b, 1, length, page)

        def contiguous(clib):
            out = torch.empty_like(q)
            return rotating([lambda kk=kk, vv=vv: clib.attention(q, kk, vv, out=out)
                             for kk, vv in zip(ks, vs)])
        impls["split_kv contiguous"] = contiguous(lib)
        if base is not None:
            impls["split_kv [baseline]"] = contiguous(base)
        for vname, vlib in variants:
            impls[f"split_kv [{vname}]"] = contiguous(vlib)

        def sdpa(backend):
            def call(kk, vv):
                with sdpa_kernel([backend]):
                    return F.scaled_dot_product_attention(q, kk, vv, enable_gqa=True)
            return rotating([lambda kk=kk, vv=vv: call(kk, vv) for kk, vv in zip(ks, vs)])
        if args.read_floor:
            impls["read floor contiguous"] = read_floor(
                list(zip(ks, vs)), None, b, hkv, length, args.page_sizes[0])
        impls["SDPA cuDNN"] = sdpa(SDPBackend.CUDNN_ATTENTION)
        impls["SDPA FA2"] = sdpa(SDPBackend.FLASH_ATTENTION)
        if args.between:
            impls = {name: with_kernel_before(fn, between) for name, fn in impls.items()}
        # Correctness of the rows timed: ours against SDPA's (fp32 math).
        ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), enable_gqa=True)
        errors = {}
        for name, fn in impls.items():
            try:
                result = fn()
                # A read floor computes nothing: no error to report.
                errors[name] = (None if name.startswith("read floor")
                                else (result.float() - ref).abs().max().item())
            except Exception as e:
                errors[name] = f"error: {str(e)[:120]}"
        names = [n for n in impls if not isinstance(errors[n], str)]
        times = {n: [] for n in names}
        for r in range(args.rounds):
            order = names[r % len(names):] + names[: r % len(names)]
            for name in order:
                ms = graph_time(impls[name])
                if ms is not None:
                    times[name].append(ms)
        bytes_moved = 2 * b * hkv * length * d * 2 + 2 * b * hq * d * 2
        row = {"B": b, "L": length, "Hq": hq, "Hkv": hkv, "D": d, "bytes": bytes_moved,
               "ceiling_TBps": ceiling, "kernel_ceiling_TBps": kernel_ceiling,
               "kv_copies": copies, "between": args.between, "impls": {}}
        print(f"GQA {hq}/{hkv} B={b} L={length} ({bytes_moved / 1e6:.0f} MB"
              + (f", {copies} K/V copies" if copies > 1 else "") + ")", flush=True)
        for name in impls:
            if name in times and times[name]:
                ms = statistics.median(times[name])
                tbps = bytes_moved / (ms * 1e-3) / 1e12
                row["impls"][name] = {"ms": ms, "TBps": tbps, "max_err": errors[name],
                                      "all_ms": times[name]}
                print(f"  {name:26s} {ms * 1e3:9.1f} us  {tbps:5.2f} TB/s  "
                      f"({100 * tbps / ceiling:3.0f}% of ceiling"
                      + (f", {100 * tbps / kernel_ceiling:3.0f}% of kernel ceiling"
                         if kernel_ceiling else "")
                      + (f")  max err {errors[name]:.2e}" if errors[name] is not None
                         else ")"),
                      flush=True)
            else:
                row["impls"][name] = {"error": errors.get(name)}
                print(f"  {name:26s} not timed: {errors.get(name)}", flush=True)
        timed = row["impls"]
        if "ms" in timed.get("split_kv contiguous", {}):
            for page in args.page_sizes:
                for order in args.page_order:
                    name = paged_name(page, order)
                    if "ms" in timed.get(name, {}):
                        row[f"{name} vs contiguous"] = (
                            timed["split_kv contiguous"]["ms"] / timed[name]["ms"])
                        print(f"  {name} at {100 * row[f'{name} vs contiguous']:.1f}% "
                              "of contiguous", flush=True)
        rows.append(row)
        del k, v, q, ks, vs, impls
        torch.cuda.empty_cache()

    # Host time per call on a small problem (no synchronisation in the loop).
    hq, hkv = groups[0]
    b, length = 1, 1024
    q = torch.randn(b, hq, 1, d, device="cuda", dtype=t)
    k = torch.randn(b, hkv, length, d, device="cuda", dtype=t)
    v = torch.randn(b, hkv, length, d, device="cuda", dtype=t)
    kc = k.permute(0, 2, 1, 3).reshape(length // 16, 16, hkv, d).contiguous()
    vc = v.permute(0, 2, 1, 3).reshape(length // 16, 16, hkv, d).contiguous()
    table = torch.arange(length // 16, dtype=torch.int32, device="cuda").view(1, -1)
    lens = torch.full((1,), length, dtype=torch.int32, device="cuda")
    host = {}
    calls = {"paged (KernelLibrary)": lambda: lib.paged_attention(q, kc, vc, table, lens),
             "split_kv (KernelLibrary)": lambda: lib.attention(q, k, v),
             "SDPA default": lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True),
             "torch.empty_like(q)": lambda: torch.empty_like(q)}
    try:
        import ctypes
        from flash_mlir.runtime import capi
        bundle = lib.find("bf16", d, False, False, None, op="paged_attention",
                          compute_capability=lib._capability(q.device),
                          shared_memory=lib._shared_memory(q.device))
        described = bundle.named_args({"q": q, "k": kc, "v": vc, "block_table": table,
                                       "seq_lens": lens, "o": torch.empty_like(q)}, 0.0)
        launch, ref = capi.lib().flash_plan_launch, ctypes.byref(described)
        stream = torch.cuda.current_stream().cuda_stream
        calls["flash_plan_launch (runtime alone)"] = lambda: launch(bundle._handle, ref, stream)
    except Exception as e:
        print(f"runtime launch not timed: {e}")
    try:
        from flash_mlir.torch import register_torch_op
        register_torch_op(lib)
        op = torch.ops.flash_mlir.paged_attention
        calls["torch.ops.flash_mlir.paged_attention"] = lambda: op(q, kc, vc, table, lens)
        calls["torch.ops.flash_mlir.paged_attention.default"] = (
            lambda: op.default(q, kc, vc, table, lens))
    except Exception as e:
        print(f"torch op not registered: {e}")
    for name, fn in calls.items():
        for _ in range(20):
            fn()
        torch.cuda.synchronize()
        samples = []
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(args.host_calls):
                fn()
            samples.append((time.perf_counter() - start) / args.host_calls * 1e6)
            torch.cuda.synchronize()
        host[name] = statistics.median(samples)
        print(f"host time per call, {name}: {host[name]:.1f} us", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"ceiling_TBps": ceiling, "kernel_ceiling_TBps": kernel_ceiling,
                       "page_order": args.page_order,
                       "cold": args.cold, "l2_bytes": l2_bytes, "rows": rows,
                       "host_us": host}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
