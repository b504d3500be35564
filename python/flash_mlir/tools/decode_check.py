"""GPU check of the split-KV (Flash-Decoding) plans: paged and contiguous.

  python3 -m flash_mlir.tools.decode_check --bundles bundles/ [--quick] [--json out.json]
      [--plant table-row|merge-sms]   # a broken copy of the plans: the check must fail
      [--page-sizes 16,64,256]        # the paged cases' page sizes (e.g. 8,48)
      [--only paged,anypage,...]      # the checks to run (all by default)

Every case draws fresh random inputs and checks ours against a float32 torch
reference on the K/V gathered through the block table, with FlashAttention's
criterion: max|ours - ref32| <= 2·max|torch_same_dtype - ref32| + 1e-5, where
torch_same_dtype is SDPA on the gathered K/V in the inputs' dtype (explicit
bottom-right causal mask). A row that sees no key must be exactly 0 with LSE
-inf. The LSE must match ref32's to 1e-3 (absolute) on finite rows.

The paged cache is hostile: pages are handed out in a random order, every slot
no sequence owns (past a sequence's length, pages nobody owns) holds NaN, and
block-table entries past ceil(len / S) point at a page full of NaN. The output
and LSE are NaN-poisoned before each call. Lengths include 0, 1, S - 1, S,
S + 1 and long ones (several parts per sequence).

Many parts: calls whose sequences are cut into many parts, so that every
merge a call can take runs: on sm_90a the separate merge (calls of at most 8
work units) and the fused merge of parts loaded in one batch and in several;
on sm_80 (the fused merge everywhere) one batch, several batches of one
level, and two levels (more than 32 parts); next to sequences of one part and
none; and calls whose grid x the cache's capacity sets (capacity_cases: the
pair merge and the separate merge under a grid shorter than the SMs allow).
python/tests/test_decode_check_cases.py checks on the compiler's split rule
that the cases reach each of these on 132 SMs (the H200).

Merge peaks: long sequences whose keys are shaped so that the parts' LSEs lie
far apart (rising along the sequence, a peak at the end, a peak at the
start): the merge's running maximum changes from batch to batch of parts.

The kernels for any page size (--only anypage): sm_90a's paged plans run
fused split kernels with S a constant (`<name>_s16`, `<name>_s64`) and
separate merge's split kernels with S a constant (`<name>_separate_s16`,
`<name>_separate_s64`) on calls of those page sizes, so the paged check reaches the kernels for any S
only at other sizes (256, ...). This check reruns the paged cases at S = 16
and 64 through a copy of the plans in which the page kernels get no blocks
and the kernels for any S take their calls (without_page_kernels); plans
without page kernels (sm_80's) are checked by the paged check already and
skipped.

CUDA graphs: a decode step captured once is replayed with new seq_lens,
block_table and q contents; each replay must equal an eager call bitwise.

Chains (--only chain): calls back to back, each on the previous call's
output, handed over by a kernel that triggers its dependents before it
copies (early_copy.ptx), some behind a torch kernel that writes seq_lens;
on sm_90a the separate merge's split kernels start behind the kernel before
them (programmatic dependent launch) and must wait for it before they read
or write global memory (check_chain).

Row tiles (--only rows): many packed rows G·Nq a kv-head (up to 120), paged
and contiguous, D = 64 and 128. With bundles of `compile --decode-rows 64`
(plans of 64-row tiles at D = 64, 32-row at D = 128; on sm_80 the kernels
whose warp 0 combines the warps alone) and --min-block-q 64, every case must
run on such a plan.
"""

import argparse
import json
import math
import os
import shutil
import sys
import tempfile

TORCH_DTYPES = None


def _dtypes():
    import torch
    return {"bf16": torch.bfloat16, "f16": torch.float16}


def make_paged(batch, hkv, d, page, lengths, dtype, gen=None, k_bias=None):
    """A paged cache holding `lengths[b]` random keys per sequence, pages in a
    random order, NaN everywhere no sequence owns (slots past a length, a
    page nobody owns, and a NaN page that block-table entries past
    ceil(len / S) point at); returns (k_cache, v_cache, block_table,
    seq_lens, k_list, v_list) with the sequences' K/V (Hkv×len×D).
    `k_bias(b, n)`, if given, returns an f32 len×Hkv×D tensor added to
    sequence b's random keys before they are cast."""
    import torch
    dev = "cuda"
    need = [max(1, math.ceil(n / page)) for n in lengths]
    m = max(need) + 1                      # a spare entry per row, past the owned ones
    pages = sum(need) + 2                  # + the NaN page and an unowned page
    order = torch.randperm(pages, generator=gen)
    nan_page = int(order[-1])
    k_cache = torch.full((pages, page, hkv, d), float("nan"), device=dev, dtype=dtype)
    v_cache = torch.full((pages, page, hkv, d), float("nan"), device=dev, dtype=dtype)
    table = torch.full((batch, m), nan_page, dtype=torch.int32)
    ks, vs = [], []
    used = 0
    for b, n in enumerate(lengths):
        mine = order[used : used + need[b]]
        used += need[b]
        table[b, : need[b]] = mine.to(torch.int32)
        k = torch.randn(n, hkv, d, generator=gen)
        if k_bias is not None:
            k = k + k_bias(b, n)
        k = k.to(dev, dtype)
        v = torch.randn(n, hkv, d, generator=gen).to(dev, dtype)
        pad = need[b] * page - n
        nan = torch.full((pad, hkv, d), float("nan"), device=dev, dtype=dtype)
        k_cache[mine.to(dev)] = torch.cat([k, nan]).view(need[b], page, hkv, d)
        v_cache[mine.to(dev)] = torch.cat([v, nan]).view(need[b], page, hkv, d)
        ks.append(k.permute(1, 0, 2).contiguous())
        vs.append(v.permute(1, 0, 2).contiguous())
    seq_lens = torch.tensor(lengths, dtype=torch.int32, device=dev)
    return k_cache, v_cache, table.to(dev), seq_lens, ks, vs


def reference(q, ks, vs, causal, scale):
    """(ref32, ref_same_dtype, lse32) for q B×Hq×Nq×D against per-sequence K/V
    (Hkv×len×D); rows that see no key are 0 (LSE -inf)."""
    import torch
    import torch.nn.functional as F
    b_, hq, nq, d = q.shape
    out32 = torch.zeros(b_, hq, nq, d, device=q.device, dtype=torch.float32)
    outlp = torch.zeros(b_, hq, nq, d, device=q.device, dtype=q.dtype)
    lse32 = torch.full((b_, hq, nq), float("-inf"), device=q.device, dtype=torch.float32)
    for b in range(b_):
        k, v = ks[b], vs[b]
        n = k.shape[1]
        if n == 0:
            continue
        group = hq // k.shape[0]
        rows = torch.arange(nq, device=q.device)[:, None]
        cols = torch.arange(n, device=q.device)[None, :]
        mask = cols <= rows + n - nq if causal else torch.ones(nq, n, dtype=torch.bool,
                                                                device=q.device)
        seen = mask.any(dim=-1)
        qf = q[b : b + 1].float()
        kf = k.float().repeat_interleave(group, 0)[None]
        vf = v.float().repeat_interleave(group, 0)[None]
        scores = (qf @ kf.transpose(-1, -2)) * scale
        scores = scores.masked_fill(~mask, float("-inf"))
        lse = torch.logsumexp(scores, dim=-1)
        o = F.scaled_dot_product_attention(qf, kf, vf, attn_mask=mask, scale=scale)
        o = torch.where(seen[None, None, :, None], o, torch.zeros_like(o))
        out32[b] = o[0]
        lse32[b] = torch.where(seen[None, :], lse[0], torch.full_like(lse[0], float("-inf")))
        olp = F.scaled_dot_product_attention(q[b : b + 1], k.repeat_interleave(group, 0)[None],
                                             v.repeat_interleave(group, 0)[None],
                                             attn_mask=mask, scale=scale)
        olp = torch.where(seen[None, None, :, None], olp, torch.zeros_like(olp))
        outlp[b] = olp[0]
    return out32, outlp, lse32


def judge(out, lse, out32, outlp, lse32):
    """(passed, numbers) by FlashAttention's criterion, NaN never passing."""
    import torch
    err = (out.float() - out32).abs()
    bound = 2 * (outlp.float() - out32).abs().max().item() + 1e-5
    ok = bool(torch.isfinite(out).all()) and err.max().item() <= bound
    res = {"max_err": err.max().item(), "bound": bound}
    if lse is not None:
        finite = torch.isfinite(lse32)
        same_inf = bool((torch.isneginf(lse) == ~finite).all())
        lerr = (lse[finite] - lse32[finite]).abs().max().item() if finite.any() else 0.0
        res["lse_err"] = lerr
        ok = ok and same_inf and not torch.isnan(lse).any().item() and lerr <= 1e-3
    return ok, res


def paged_cases(quick, small=False, pages=(16, 64, 256)):
    """(dtype, D, Hq, Hkv, Nq, causal, lse, S). `pages`: the page sizes of
    the main cases (--page-sizes)."""
    if small:
        return [("bf16", 64, 8, 1, 4, True, True, 16), ("bf16", 128, 32, 8, 1, False, False, 64)]
    out = []
    for d in (64, 128, 256):
        for page in pages:
            out.append(("bf16", d, 32, 8, 1, False, d == 128, page))
            out.append(("bf16", d, 8, 1, 4, True, True, page))
            if not quick:
                out.append(("bf16", d, 32, 8, 4, True, False, page))
    out += [("f16", 128, 32, 8, 1, False, True, 16), ("f16", 64, 8, 1, 4, True, False, 64),
            ("bf16", 128, 16, 1, 1, False, False, 16),      # group 16
            ("bf16", 128, 8, 8, 2, True, True, 64)]         # no GQA
    return out


def lengths_for(page, nq, rng, small=False):
    long = [rng.randint(3000, 9000), rng.randint(20000, 40000)] if not small else [1500]
    return [0, 1, page - 1 if page > 1 else 2, page, page + 1, nq - 1 if nq > 1 else 3,
            rng.randint(2, 700)] + long


def _record(results, name, ok, res, **extra):
    """Appends a case's result and prints its PASS/FAIL line; returns 1 if it failed."""
    results.append({"case": name, **extra, "ok": ok, **res})
    print(("PASS " if ok else "FAIL ") + name + " " +
          " ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                   for k, v in res.items()), flush=True)
    return 0 if ok else 1


def check_paged(lib, quick, results, seed=0, small=False, pages=(16, 64, 256), label="paged"):
    import random
    import torch
    rng = random.Random(seed)
    gen = torch.Generator().manual_seed(seed)
    failures = 0
    for dtype, d, hq, hkv, nq, causal, lse, page in paged_cases(quick, small, pages):
        lengths = lengths_for(page, nq, rng, small)
        t = _dtypes()[dtype]
        kc, vc, table, lens, ks, vs = make_paged(len(lengths), hkv, d, page, lengths, t, gen=gen)
        q = torch.randn(len(lengths), hq, nq, d, generator=gen).to("cuda", t)
        scale = 1.0 / math.sqrt(d)
        out = torch.full_like(q, float("nan"))
        lse_out = torch.full((len(lengths), hq, nq), float("nan"), device="cuda") if lse else None
        name = f"{label} {dtype} D={d} {hq}/{hkv} Nq={nq} causal={causal} lse={lse} S={page}"
        try:
            lib.paged_attention(q, kc, vc, table, lens, causal=causal, out=out,
                                return_lse=lse, lse_out=lse_out)
            torch.cuda.synchronize()
            out32, outlp, lse32 = reference(q, ks, vs, causal, scale)
            ok, res = judge(out, lse_out, out32, outlp, lse32)
        except Exception as e:  # a failure to run is a failed case
            ok, res = False, {"error": str(e)[:300]}
        failures += _record(results, name, ok, res, lengths=lengths)
    return failures


def many_parts_cases(small=False):
    """(op, dtype, D, Hq, Hkv, Nq, causal, lse, S, lengths): few work units and
    long sequences, so that sequences are cut into many parts and every
    merge runs (the module's docstring; which case takes which merge on 132
    SMs is checked in python/tests/test_decode_check_cases.py). GQA 8/1 at
    B <= 4: 8448 keys of 64-key tiles are 132 tiles, 66 parts (two levels of
    groups of about 16 on sm_80), 4096 keys 32 parts (one level of two batches
    at D = 128), longer ones up to the bundles' max_splits (128 parts on
    sm_90a, 256 on sm_80). GQA 8/1 at B = 12 (12 work units: sm_90a's fused
    merge) cuts 2816 keys or more into 11 parts at D = 128 (3 stages: one
    block an SM), one batch, and at D = 256 (one block an SM: two do not
    fit), two batches of 8."""
    # The last paged case: 9 sequences of GQA 32/8 make 3 parts of about
    # 10000 keys, 628 pages of 16 (more than the kernel's block-table window
    # of 512 holds: its part reads the table from global memory).
    window = ("paged", "bf16", 128, 32, 8, 1, False, False, 16, [30000, 1, 0, 5, 17, 100, 64, 3, 2])
    if small:
        return [("paged", "bf16", 128, 8, 1, 1, False, True, 64, [8448, 0, 700]),
                ("split", "bf16", 64, 8, 1, 1, True, False, 0, [8448]), window,
                pair_merge_cases()[0][:-1] + (pair_merge_cases()[0][-1][:48],)]
    fused = [4100, 3000, 0, 1, 2500, 4096, 640, 3333, 17, 4000, 2222, 1500]
    return pair_merge_cases() + [window, ("paged", "bf16", 128, 8, 1, 1, False, True, 16, [8448, 4096, 1, 0]),
            ("paged", "bf16", 128, 8, 1, 1, False, True, 16, fused),
            ("paged", "bf16", 256, 8, 1, 1, False, True, 16, fused),
            ("split", "bf16", 128, 8, 1, 1, False, True, 0, [4096] * 12),
            ("paged", "bf16", 128, 8, 1, 1, False, False, 64, [65536]),
            ("paged", "bf16", 64, 8, 1, 4, True, True, 16, [20000, 9001]),
            ("paged", "f16", 128, 32, 8, 1, False, True, 256, [33000]),
            ("split", "bf16", 128, 8, 1, 1, False, True, 0, [131072]),
            ("split", "bf16", 128, 8, 1, 1, True, True, 0, [40000, 40000, 40000]),
            ("split", "bf16", 256, 8, 1, 1, False, False, 0, [9000]),
            # One work unit (B = 1, one row tile): sm_90a's separate merge
            # kernel (Target/SplitKV.h), every head dimension and dtype, a
            # causal multi-query row tile, one part and no key.
            ("paged", "f16", 64, 8, 1, 1, True, True, 16, [20000]),
            ("split", "f16", 256, 8, 1, 1, True, True, 0, [30000]),
            ("paged", "bf16", 128, 8, 1, 2, True, True, 64, [12345]),
            ("paged", "bf16", 128, 8, 1, 1, False, True, 16, [1]),
            ("paged", "bf16", 128, 8, 1, 1, False, True, 16, [0])] + capacity_cases()


def capacity_cases():
    """Calls whose grid x is set by the cache's capacity (Target/SplitKV.h
    splitKVGridParts: no more blocks than a sequence of M·S keys, or Nk, is
    cut into), below what the sizes and the SM count allow on 132 SMs: 24
    work units whose short caches (272 keys of pages of 16, a contiguous Nk
    of 200) make grid x 2 where the SMs allow 5, so the fused split kernels
    run the pair merge; one work unit with Nk = 1000 (8 parts, grid 8 where
    128) and GQA 32/8 with 12 pages of 64 (5 parts a sequence, grid 6
    where 16), both through the separate merge."""
    short = [0, 1, 100, 200, 256, 17, 250, 64, 65, 128, 129, 3] * 2
    return [("paged", "bf16", 128, 8, 1, 1, False, True, 16, short),
            ("split", "bf16", 128, 8, 1, 1, False, True, 0, [200] * 24),
            ("split", "bf16", 128, 8, 1, 1, False, True, 0, [1000]),
            ("paged", "bf16", 128, 32, 8, 1, False, True, 64, [700])]


def pair_merge_cases():
    """Calls whose sequences are cut into at most two parts on 132 SMs (grid
    x = 2: 45-66 work units at sm_90a's D = 128 and 256, one block an SM;
    89-123 at D = 64, two), where sm_90a's fused split kernels run in clusters
    of two and merge through distributed shared memory (the pair merge,
    docs/gpu.md): sequences of two parts beside ones of one part and of no
    key in the same call (their blocks leave without the cluster barrier),
    GQA 32/8 (the pairs along x, kv-heads along y), two row tiles a kv-head
    (causal Nq = 4 at GQA 8/1: the second tile's rows at row 16 of the
    tile), both page sizes of their own kernels and the kernel for any S,
    contiguous, D = 64 and 256."""
    mixed = [0, 1, 255, 256, 257, 4096, 5000, 300, 63, 64, 65, 700, 1000, 2049, 3333, 129] * 4
    return [("paged", "bf16", 128, 8, 1, 1, False, True, 16, mixed),
            ("paged", "bf16", 128, 8, 1, 1, True, True, 64, mixed[:50]),
            ("paged", "f16", 128, 8, 1, 1, False, False, 48, mixed[3:53]),
            ("paged", "bf16", 128, 32, 8, 1, False, True, 16, [3000, 0, 1, 700, 4096, 65, 2500]),
            ("paged", "bf16", 128, 8, 1, 4, True, True, 16, mixed[:30]),
            ("split", "bf16", 128, 8, 1, 1, True, True, 0, [4097] * 50),
            ("paged", "f16", 64, 8, 1, 1, False, True, 64, (mixed * 2)[:100]),
            ("split", "bf16", 256, 8, 1, 1, False, False, 0, [3000] * 50)]


def _check_case_list(lib, results, cases, seed, label, plan_ok=None):
    """Runs `cases` ((op, dtype, D, Hq, Hkv, Nq, causal, lse, S, lengths):
    paged through the block table, or contiguous with one Nk) against the
    f32 reference, outputs poisoned with NaN first. With `plan_ok`, the
    plan the runtime takes for the case is recorded (name, row tile,
    stages) and must pass `plan_ok(bundle, D)`."""
    import torch
    gen = torch.Generator().manual_seed(seed)
    device = torch.device("cuda")
    if plan_ok:
        capability, shared = lib._capability(device), lib._shared_memory(device)
    failures = 0
    for op, dtype, d, hq, hkv, nq, causal, lse, page, lengths in cases:
        t = _dtypes()[dtype]
        b = len(lengths)
        q = torch.randn(b, hq, nq, d, generator=gen).to("cuda", t)
        scale = 1.0 / math.sqrt(d)
        out = torch.full_like(q, float("nan"))
        lse_out = torch.full((b, hq, nq), float("nan"), device="cuda") if lse else None
        name = (label(op, dtype, d, hq, hkv, nq) + f" causal={causal} lse={lse}"
                + (f" S={page}" if op == "paged" else "") + f" lengths={lengths}")
        try:
            bundle = None
            if op == "paged":
                if plan_ok:  # the plan the runtime's own choice takes (as the call below)
                    bundle = lib.find(dtype, d, causal, lse, None, capability,
                                      op="paged_attention", shared_memory=shared)
                kc, vc, table, lens, ks, vs = make_paged(b, hkv, d, page, lengths, t, gen=gen)
                lib.paged_attention(q, kc, vc, table, lens, causal=causal, out=out,
                                    return_lse=lse, lse_out=lse_out)
            else:
                if plan_ok:
                    bundle = lib._split_kv(dtype, d, causal, lse, capability, shared)
                k = torch.randn(b, hkv, lengths[0], d, generator=gen).to("cuda", t)
                v = torch.randn(b, hkv, lengths[0], d, generator=gen).to("cuda", t)
                ks, vs = list(k), list(v)
                lib.attention(q, k, v, causal=causal, out=out, return_lse=lse, lse_out=lse_out)
            torch.cuda.synchronize()
            out32, outlp, lse32 = reference(q, ks, vs, causal, scale)
            ok, res = judge(out, lse_out, out32, outlp, lse32)
            if bundle is not None:
                meta = bundle.meta
                res.update(plan=bundle.name, block_q=meta["block_q"], stages=meta["stages"])
                ok = ok and plan_ok(bundle, d)
        except Exception as e:
            ok, res = False, {"error": str(e)[:300]}
        failures += _record(results, name, ok, res)
    return failures


def check_many_parts(lib, results, seed=4, small=False):
    """Paged and contiguous calls whose sequences have more than 32 parts
    (the two-level merge) next to ones with one level, one part and none."""
    return _check_case_list(
        lib, results, many_parts_cases(small), seed,
        lambda op, dtype, d, hq, hkv, nq: f"many parts {op} {dtype} D={d} {hq}/{hkv} Nq={nq}")


def merge_peak_cases(small=False):
    """(op, dtype, D, Hq, Hkv, Nq, causal, pattern, S, lengths), every one with
    LSE: long sequences of few work units (many parts), whose scores are
    shaped so that the parts' LSEs differ by far more than rounding:
    "ramp" rises along the sequence (every batch of parts that the merge
    loads raises its running maximum), "late" puts the peak in the last 40
    keys (the maximum arrives in the last batch), "early" in the first 40
    keys (later parts weigh ~exp(-D^0.5)). A merge of more parts than one
    batch loads (decodeMergeBatch: 32 at Dv = 64, 16 at 128, 8 at 256) is
    where the fused merge's running maximum's rescale matters: 4096 keys are
    one level of 32 parts, 8448 two levels of groups of 16 (GQA 8/1, B = 1,
    132 SMs; on sm_90a those calls take the separate merge, and the B = 12
    cases the fused one: 11 parts in one batch at Dv = 128, 22 in three
    batches at Dv = 256)."""
    if small:
        return [("split", "bf16", 128, 8, 1, 1, False, "ramp", 0, [8448]),
                ("paged", "bf16", 256, 8, 1, 1, False, "ramp", 16, [9000])]
    cases = []
    for d in (64, 128, 256):
        cases += [("split", "bf16", d, 8, 1, 1, False, "ramp", 0, [4096]),
                  ("split", "bf16", d, 8, 1, 1, False, "ramp", 0, [8448]),
                  ("split", "bf16", d, 8, 1, 1, False, "ramp", 0, [40000]),
                  ("paged", "bf16", d, 8, 1, 1, False, "ramp", 16, [30000, 700]),
                  ("paged", "bf16", d, 8, 1, 4, True, "late", 64, [20000, 9001])]
    return cases + [("split", "f16", 128, 32, 8, 1, False, "early", 0, [65536]),
                    ("paged", "bf16", 128, 8, 1, 1, False, "ramp", 16,
                     [4100, 3000, 2900, 0, 3500, 1, 4096, 2816, 3100, 64, 3900, 3333]),
                    ("paged", "bf16", 256, 8, 1, 1, False, "ramp", 16,
                     [4100, 3000, 2900, 0, 3500, 1, 4096, 2816, 3100, 64, 3900, 3333]),
                    ("paged", "f16", 128, 8, 2, 2, True, "ramp", 256, [33000, 5000, 0]),
                    # Two parts a sequence (the pair merge on sm_90a): the
                    # peak in one part or the other.
                    ("paged", "bf16", 128, 8, 1, 1, False, "early", 16, [3000, 257, 4096] * 20),
                    ("split", "bf16", 128, 8, 1, 1, False, "late", 0, [5000] * 60)]


def _score_shape(pattern, n, common):
    """The bias added to n keys (n×Hkv×D): position weight × the direction
    `common` (Hkv×D) that every q-head of the group also carries."""
    import torch
    t = torch.arange(n, dtype=torch.float32)
    if pattern == "ramp":
        w = t / max(n - 1, 1)
    elif pattern == "late":
        w = (t >= n - 40).float() * 1.5
    else:  # early
        w = (t < 40).float() * 1.5
    return w[:, None, None] * common[None]


def check_merge_peaks(lib, results, seed=5, small=False):
    """The split-KV merge where the parts' LSEs are far apart and the maximum
    moves from batch to batch (see merge_peak_cases): a merge that forgets to
    rescale its sums when a batch raises the maximum, or weighs a part by a
    stale maximum, is off by far more than the criterion allows here."""
    import torch
    gen = torch.Generator().manual_seed(seed)
    failures = 0
    for op, dtype, d, hq, hkv, nq, causal, pattern, page, lengths in merge_peak_cases(small):
        t = _dtypes()[dtype]
        b = len(lengths)
        common = torch.randn(b, hkv, d, generator=gen)
        q = 0.5 * torch.randn(b, hq, nq, d, generator=gen)
        q = (q + common.repeat_interleave(hq // hkv, 1)[:, :, None, :]).to("cuda", t)
        scale = 1.0 / math.sqrt(d)
        out = torch.full_like(q, float("nan"))
        lse_out = torch.full((b, hq, nq), float("nan"), device="cuda")
        name = (f"merge peaks {pattern} {op} {dtype} D={d} {hq}/{hkv} Nq={nq} causal={causal}"
                + (f" S={page}" if op == "paged" else "") + f" lengths={lengths}")
        try:
            if op == "paged":
                kc, vc, table, lens, ks, vs = make_paged(
                    b, hkv, d, page, lengths, t, gen=gen,
                    k_bias=lambda i, n: _score_shape(pattern, n, common[i]))
                lib.paged_attention(q, kc, vc, table, lens, causal=causal, out=out,
                                    return_lse=True, lse_out=lse_out)
            else:
                n = lengths[0]
                k = torch.randn(b, n, hkv, d, generator=gen)
                k = k + torch.stack([_score_shape(pattern, n, common[i]) for i in range(b)])
                k = k.permute(0, 2, 1, 3).contiguous().to("cuda", t)
                v = torch.randn(b, hkv, n, d, generator=gen).to("cuda", t)
                ks, vs = list(k), list(v)
                lib.attention(q, k, v, causal=causal, out=out, return_lse=True, lse_out=lse_out)
            torch.cuda.synchronize()
            out32, outlp, lse32 = reference(q, ks, vs, causal, scale)
            ok, res = judge(out, lse_out, out32, outlp, lse32)
            finite = torch.isfinite(lse32)
            res["lse_spread"] = float((lse32[finite].max() - lse32[finite].min()).item()) \
                if finite.any() else 0.0
        except Exception as e:
            ok, res = False, {"error": str(e)[:300]}
        failures += _record(results, name, ok, res)
    return failures


def row_tile_cases(small=False):
    """(op, dtype, D, Hq, Hkv, Nq, causal, lse, S, lengths) of large packed
    row counts G·Nq, D = 64 and 128: the shipped plans (16-row tiles) run
    them as several row tiles; a plan of more rows a tile (compile
    --decode-rows 64: 64 rows at D = 64, 32 at D = 128) runs them in its
    wide tiles: full (64 / 32 rows), partial (the last m-tile partly or
    wholly empty), two wide tiles a kv-head, GQA with Hkv > 1, causal Nq > 1
    (each m-tile's rows see different keys), and few rows in a wide tile.
    On sm_80 those plans are the kernels whose warp 0 combines the four
    warps' results alone (SM80/DecodeKernel.cpp). Lengths mix one part,
    several, more than 32 (two merge levels) and none."""
    if small:
        return [("paged", "bf16", 64, 64, 1, 1, False, True, 16, [0, 1, 700, 5000]),
                ("split", "bf16", 128, 8, 1, 4, True, False, 0, [3000])]
    return [
        # D = 64: a 64-row tile (m = 4)
        ("paged", "bf16", 64, 64, 1, 1, False, True, 16, [0, 1, 17, 700, 5000, 30000]),
        ("paged", "bf16", 64, 16, 1, 4, True, True, 64, [3, 64, 2000, 20000]),
        ("paged", "bf16", 64, 50, 1, 1, True, False, 16, [9000, 65, 1]),       # 50 rows
        ("paged", "bf16", 64, 96, 2, 1, False, False, 256, [8448, 300]),      # 48 rows
        ("paged", "bf16", 64, 40, 1, 3, True, True, 16, [12345, 0, 129]),     # 120: 2 tiles
        ("paged", "bf16", 64, 8, 1, 1, False, True, 64, [40000]),             # 8 rows
        ("split", "bf16", 64, 64, 1, 1, False, True, 0, [30001]),
        ("split", "bf16", 64, 8, 1, 8, True, False, 0, [4097]),
        ("split", "bf16", 64, 12, 1, 5, True, True, 0, [777]),                # 60 rows
        ("split", "bf16", 64, 16, 1, 5, False, False, 0, [2500]),             # 80: 2 tiles
        # D = 128: a 32-row tile (m = 2)
        ("paged", "bf16", 128, 32, 1, 1, False, True, 16, [0, 1, 700, 5000, 30000]),
        ("paged", "bf16", 128, 8, 1, 4, True, True, 64, [3, 64, 2000, 20000]),
        ("paged", "bf16", 128, 40, 1, 1, False, False, 16, [9000, 65]),      # 2 tiles
        ("paged", "bf16", 128, 48, 2, 1, True, True, 256, [8448, 33000]),    # 24 rows
        ("split", "bf16", 128, 32, 1, 1, False, True, 0, [20000]),
        ("split", "bf16", 128, 8, 1, 5, True, True, 0, [777]),               # 40: 2 tiles
        ("split", "bf16", 128, 4, 1, 8, False, False, 0, [65536])]


def check_row_tiles(lib, results, seed=6, small=False, min_block_q=0):
    """Calls of many packed rows (row_tile_cases). `min_block_q`: a case
    whose plan has a smaller row tile fails (the check must reach the plans
    of wide row tiles it is run for: compile --decode-rows)."""
    def wide_enough(bundle, d):
        return bundle.meta["block_q"] >= min(min_block_q, 16 * max(256 // d, 1))
    return _check_case_list(
        lib, results, row_tile_cases(small), seed,
        lambda op, dtype, d, hq, hkv, nq: (f"row tiles {op} {dtype} D={d} {hq}/{hkv} Nq={nq} "
                                           f"rows={hq // hkv * nq}"),
        plan_ok=wide_enough)


def check_split(lib, quick, results, seed=1, small=False):
    """Few-row flash.attention routed to the split-KV plan (contiguous K/V)."""
    import torch
    gen = torch.Generator().manual_seed(seed)
    failures = 0
    cases = [("bf16", 128, 32, 8, 1, False, True, 30001), ("bf16", 64, 8, 1, 4, True, True, 4097),
             ("bf16", 256, 32, 8, 1, True, False, 777), ("f16", 128, 8, 2, 3, True, True, 65),
             ("bf16", 128, 32, 8, 1, False, False, 2), ("bf16", 128, 32, 8, 4, True, False, 64)]
    if small:
        cases = [("bf16", 128, 32, 8, 1, False, True, 1000), ("bf16", 64, 8, 1, 4, True, False, 65)]
    for dtype, d, hq, hkv, nq, causal, lse, nk in cases:
        t = _dtypes()[dtype]
        b = 3
        q = torch.randn(b, hq, nq, d, generator=gen).to("cuda", t)
        k = torch.randn(b, hkv, nk, d, generator=gen).to("cuda", t)
        v = torch.randn(b, hkv, nk, d, generator=gen).to("cuda", t)
        name = f"split_kv {dtype} D={d} {hq}/{hkv} Nq={nq} Nk={nk} causal={causal} lse={lse}"
        try:
            bundle = lib._split_kv(dtype, d, causal, lse, 90)
            out = torch.full_like(q, float("nan"))
            lse_out = torch.full((b, hq, nq), float("nan"), device="cuda") if lse else None
            lib.attention(q, k, v, causal=causal, out=out, return_lse=lse, lse_out=lse_out)
            torch.cuda.synchronize()
            out32, outlp, lse32 = reference(q, list(k), list(v), causal, 1.0 / math.sqrt(d))
            ok, r = judge(out, lse_out, out32, outlp, lse32)
            r["plan"] = bundle.name if bundle else "none"
            ok = ok and bundle is not None
        except Exception as e:
            ok, r = False, {"error": str(e)[:300]}
        failures += _record(results, name, ok, r)
    return failures


def check_graph(lib, results, seed=2):
    """A decode step captured in a CUDA graph, replayed with new lengths,
    tables and queries, against eager calls (bitwise)."""
    import random
    import torch
    from flash_mlir.torch import register_torch_op
    op = register_torch_op(lib) and torch.ops.flash_mlir.paged_attention
    rng = random.Random(seed)
    gen = torch.Generator().manual_seed(seed)
    failures = 0
    # The first: 64 work units, grid x = 2 on 132 SMs: sm_90a's pair merge
    # (clusters of two) captured and replayed with sequences of one part
    # and of two.
    # The third: two sequences of up to 20000 keys at GQA 8/1, so that the
    # replays' lengths move between one part, one merge level and two.
    # The fourth: B = 1, one work unit (sm_90a's separate merge kernel,
    # launched with programmatic dependent launch: the captured edge).
    for d, hq, hkv, nq, causal, page, b, cap in ((128, 32, 8, 1, False, 16, 8, 6000),
                                                 (64, 8, 1, 4, True, 64, 8, 6000),
                                                 (128, 8, 1, 1, False, 16, 2, 20000),
                                                 (128, 8, 1, 1, False, 16, 1, 40000)):
        t = torch.bfloat16
        kc, vc, table, lens, _, _ = make_paged(b, hkv, d, page, [cap] * b, t, gen=gen)
        q = torch.randn(b, hq, nq, d, generator=gen).to("cuda", t)
        out = torch.empty_like(q)
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(2):  # warm-up: module load, workspace
                out.copy_(op(q, kc, vc, table, lens, causal, 0.0))
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        # Captured on the warm-up's stream, whose workspace exists already.
        with torch.cuda.graph(graph, stream=stream):
            out.copy_(op(q, kc, vc, table, lens, causal, 0.0))
        ok_all = True
        for replay in range(6):
            new_lens = [rng.choice([0, 1, page, rng.randint(1, cap), rng.randint(cap // 2, cap)])
                        for _ in range(b)]
            lens.copy_(torch.tensor(new_lens, dtype=torch.int32))
            perm = torch.randperm(table.shape[0])  # other rows of pages
            table.copy_(table[perm].contiguous())
            q.copy_(torch.randn(q.shape, generator=gen).to("cuda", t))
            graph.replay()
            torch.cuda.synchronize()
            eager = lib.paged_attention(q, kc, vc, table, lens, causal=causal)
            torch.cuda.synchronize()
            same = torch.equal(out, eager) and bool(torch.isfinite(out).all())
            ok_all &= same
        name = f"graph replay D={d} {hq}/{hkv} Nq={nq} causal={causal} S={page}"
        failures += not ok_all
        results.append({"case": name, "ok": ok_all})
        print(("PASS " if ok_all else "FAIL ") + name + " (6 replays, bitwise vs eager)",
              flush=True)
    return failures


def chain_cases(small=False):
    """(label, paged, D, Hq, Hkv, B, length, S) of check_chain: on sm_90a the
    separate merge (1 and 8 work units, many parts) and the fused one (24
    work units), paged and contiguous; the small list the separate merge's
    (1 and 2 work units)."""
    if small:
        return [("paged", True, 128, 8, 1, 1, 3000, 16), ("contiguous", False, 128, 8, 1, 2, 700, 0)]
    return [("paged", True, 128, 8, 1, 1, 20000, 16), ("paged", True, 128, 32, 8, 3, 3000, 64),
            ("paged", True, 64, 8, 1, 8, 5000, 16), ("contiguous", False, 128, 8, 1, 1, 30001, 0),
            ("contiguous", False, 128, 32, 8, 3, 4097, 0)]


EARLY_COPY_SPIN_NS = 20000


def early_copy_launcher(torch):
    """`feed(dst, src)`: launches early_copy.ptx on torch's current stream,
    which triggers its dependents at once, waits EARLY_COPY_SPIN_NS and then
    copies src into dst (same shape, contiguous, a whole number of 32-bit
    words); None on a GPU older than sm_90 (no programmatic dependent
    launch: the queries are copied by torch). Raises if the driver cannot
    load it on an sm_90 GPU."""
    import ctypes
    from flash_mlir.tools.decode_bench import _launcher, _ptx_function
    if torch.cuda.get_device_capability() < (9, 0):
        print("chain: no sm_90 GPU; the queries are copied by torch", flush=True)
        return None
    torch.zeros(1, device="cuda")  # torch's context, current in this thread
    cuda, function = _ptx_function("early_copy.ptx", "early_copy")
    launches = []

    def feed(dst, src):
        words = dst.numel() * dst.element_size() // 4
        args = [ctypes.c_uint64(dst.data_ptr()), ctypes.c_uint64(src.data_ptr()),
                ctypes.c_uint32(words), ctypes.c_uint32(EARLY_COPY_SPIN_NS)]
        launch = _launcher(torch, cuda, function, 4, 256, args)
        launches.append(launch)  # alive while a graph may replay it
        launch()
    return feed


def check_chain(lib, results, seed=7, small=False, steps=6):
    """Calls back to back in one stream, each call's query the previous
    call's output: on sm_90a the separate merge's split kernels are launched
    with programmatic dependent launch behind the kernel before them and may
    start while it runs, so they must wait for it before they read anything
    (the query, the lengths) or write the partials the previous call's merge
    reads. The previous output reaches the next call through early_copy.ptx
    (early_copy_launcher), a kernel that triggers its dependents at once and
    copies 20 us later: a split kernel that does not wait reads the query
    before it is there. Paged: before every other call a torch kernel writes
    seq_lens (other lengths, at most the cache's). The outputs are
    NaN-poisoned before the chain; each step is judged against the
    reference on the query it was given (the previous step's output) and the
    lengths of its step, then the chain is captured in a CUDA graph and
    replayed on fresh poison: every step bitwise equal to the eager one."""
    import torch
    gen = torch.Generator().manual_seed(seed)
    failures = 0
    t = torch.bfloat16
    try:
        early = early_copy_launcher(torch)
    except Exception as e:
        return _record(results, "chain: early_copy.ptx", False, {"error": str(e)[:300]})
    for label, paged, d, hq, hkv, b, n, page in chain_cases(small):
        name = (f"chain of {steps} {label} D={d} {hq}/{hkv} B={b} L={n}"
                + (f" S={page}" if paged else ""))
        try:
            q0 = torch.randn(b, hq, 1, d, generator=gen).to("cuda", t)
            outs = [torch.empty_like(q0) for _ in range(steps)]
            qbuf = torch.empty_like(q0)  # the query of steps 1.. (early_copy's dst)
            if paged:
                kc, vc, table, lens, ks, vs = make_paged(b, hkv, d, page, [n] * b, t, gen=gen)
                full = lens.clone()
                caps = [torch.tensor([n if (i + j) % 3 else max(1, n // (j + 2)) for j in range(b)],
                                     dtype=torch.int32, device="cuda") for i in range(steps)]
                step_lens = [caps[i] if i % 2 == 0 else (caps[i - 1] if i else full)
                             for i in range(steps)]
            else:
                k = torch.randn(b, hkv, n, d, generator=gen).to("cuda", t)
                v = torch.randn(b, hkv, n, d, generator=gen).to("cuda", t)

            def run():
                q = q0
                for i in range(steps):
                    if paged and i % 2 == 0:  # a torch kernel writes the lengths
                        torch.minimum(full, caps[i], out=lens)
                    if i:  # the previous output, copied by the kernel before ours
                        if early:
                            early(qbuf, outs[i - 1])
                        else:
                            qbuf.copy_(outs[i - 1])
                        q = qbuf
                    if paged:
                        lib.paged_attention(q, kc, vc, table, lens, out=outs[i])
                    else:
                        lib.attention(q, k, v, out=outs[i])

            for o in outs + [qbuf]:
                o.fill_(float("nan"))
            run()
            torch.cuda.synchronize()
            ok, worst = True, {}
            q = q0
            for i in range(steps):
                if paged:
                    ln = step_lens[i].tolist()
                    kl = [ks[j][:, : ln[j]] for j in range(b)]
                    vl = [vs[j][:, : ln[j]] for j in range(b)]
                else:
                    kl, vl = list(k), list(v)
                out32, outlp, lse32 = reference(q, kl, vl, False, 1.0 / math.sqrt(d))
                good, r = judge(outs[i], None, out32, outlp, lse32)
                ok &= good
                if not good and not worst:
                    worst = dict(r, step=i)
                q = outs[i]
            eager = [o.clone() for o in outs]
            graph = torch.cuda.CUDAGraph()
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):
                run()  # warm-up on the capture stream: its workspace
            torch.cuda.current_stream().wait_stream(stream)
            with torch.cuda.graph(graph, stream=stream):
                run()
            for o in outs + [qbuf]:
                o.fill_(float("nan"))
            graph.replay()
            torch.cuda.synchronize()
            same = all(torch.equal(a, e) for a, e in zip(outs, eager))
            r = dict(worst, graph_bitwise=same, early_copy=early is not None)
            ok = ok and same
        except Exception as e:
            ok, r = False, {"error": str(e)[:300]}
        failures += _record(results, name, ok, r)
    return failures


def check_capture_after_eager_warmup(lib, results, seed=3):
    """The usual serving pattern: eager calls on the default stream, then a
    capture with torch.cuda.graph's own stream, whose workspaces do not
    exist yet (allocated inside the capture); replays equal eager calls."""
    import torch
    gen = torch.Generator().manual_seed(seed)
    b, hq, hkv, d, page = 4, 32, 8, 128, 16
    kc, vc, table, lens, _, _ = make_paged(b, hkv, d, page, [3000] * b, torch.bfloat16, gen=gen)
    q = torch.randn(b, hq, 1, d, generator=gen).to("cuda", torch.bfloat16)
    lib.paged_attention(q, kc, vc, table, lens)  # warm-up: module loaded
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    ok = True
    try:
        with torch.cuda.graph(graph):
            out = lib.paged_attention(q, kc, vc, table, lens)
        for n in (1, 17, 3000, 0):
            lens.fill_(n)
            graph.replay()
            eager = lib.paged_attention(q, kc, vc, table, lens)
            torch.cuda.synchronize()
            ok &= torch.equal(out, eager) and bool(torch.isfinite(out).all())
    except Exception as e:
        ok = False
        print("capture failed:", str(e)[:300])
    results.append({"case": "capture after eager warm-up", "ok": ok})
    print(("PASS " if ok else "FAIL ") + "capture on torch's capture stream after an eager "
          "warm-up (4 replays vs eager, bitwise)", flush=True)
    return int(not ok)


def _copy_plans(bundles, prefixes, rewrite, tag):
    """A temporary copy of the bundles of `bundles` whose file names start
    with one of `prefixes` (their cubins and PTX as they are), each plan JSON
    passed through `rewrite(plan)` (in place; it returns whether it changed
    the plan). Returns (directory, plans changed)."""
    tmp = tempfile.mkdtemp(prefix=f"decode-{tag}-")
    changed = 0
    for name in os.listdir(bundles):
        if name.endswith(".mlir") or not name.startswith(prefixes):
            continue
        src = os.path.join(bundles, name)
        if name.endswith(".json"):
            plan = json.load(open(src))
            changed += bool(rewrite(plan))
            json.dump(plan, open(os.path.join(tmp, name), "w"))
        else:
            shutil.copy(src, tmp)
    return tmp, changed


def planted(bundles, plant):
    """A copy of the plans with a planted bug. table-row (paged plans): the
    kernel's block-table row stride M - 1, an off-by-one that stays in
    bounds, in every split kernel of the plan (sm_90a's fused-merge and
    separate-merge split kernels). merge-sms (every plan with a separate
    merge kernel, sm_90a): the merge kernel (`<name>_merge`) is given SMs =
    1, so it counts one part where the split kernel cut several and leaves
    those rows unmerged (NaN-poisoned)."""
    def plant_bug(plan):
        for kernel in plan["kernels"]:
            merge = kernel["name"].endswith("_merge")
            for arg in kernel["args"]:
                if arg["name"] == "M" and plant == "table-row" and not merge:
                    arg["value"] = ["sub", "M", 1]
                if arg["name"] == "SMs" and plant == "merge-sms" and merge:
                    arg["value"] = 1
        return True
    prefixes = ("flash_decode_paged",) + (
        ("flash_decode_split",) if plant == "merge-sms" else ())
    return _copy_plans(bundles, prefixes, plant_bug, "plant")[0]


def _ungated(formula, sizes):
    """`formula` with every factor ["sub", 1, ["eq", "S", N]] (N in `sizes`:
    the gate that gives the kernel for any S no blocks on calls of a page
    kernel's size) replaced by 1."""
    if isinstance(formula, list):
        if (len(formula) == 3 and formula[:2] == ["sub", 1] and isinstance(formula[2], list)
                and formula[2][:2] == ["eq", "S"] and formula[2][2] in sizes):
            return 1
        return [_ungated(f, sizes) for f in formula]
    return formula


def page_kernel_sizes(plan):
    """{kernel name: S} of a plan's kernels for one page size: the fused split
    kernels `<name>_s<S>` and the separate merge's `<name>_separate_s<S>`."""
    out = {}
    for kernel in plan["kernels"]:
        for prefix in (plan["name"] + "_s", plan["name"] + "_separate_s"):
            rest = kernel["name"][len(prefix):]
            if kernel["name"].startswith(prefix) and rest.isdigit():
                out[kernel["name"]] = int(rest)
    return out


def without_page_kernels(bundles):
    """(directory, plans changed): a copy of the paged plans of `bundles` in
    which the kernels for one page size (`<name>_s<S>`, `<name>_separate_s<S>`)
    get no blocks (grid z = 0) and the other kernels lose their gates on those
    sizes, so that the kernels for any S run every call; other plans are left
    out. A plan without page kernels is copied unchanged."""
    def ungate(plan):
        page_kernels = page_kernel_sizes(plan)
        sizes = set(page_kernels.values())
        for kernel in plan["kernels"] if sizes else ():
            if kernel["name"] in page_kernels:
                kernel["grid"]["z"] = 0
            else:
                kernel["grid"] = {k: _ungated(v, sizes) for k, v in kernel["grid"].items()}
        return bool(sizes)
    return _copy_plans(bundles, ("flash_decode_paged",), ungate, "anypage")


def parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bundles", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--small", action="store_true",
                    help="two tiny cases per check (for compute-sanitizer)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--plant", default=None, choices=["table-row", "merge-sms"])
    ap.add_argument("--only", default="paged,anypage,split,many,peaks,graph,capture,chain,rows",
                    help="comma-separated checks (all by default): paged, anypage (the "
                         "paged cases at S = 16 and 64 through the kernels for any S, "
                         "where a plan has kernels for those page sizes), split, many, "
                         "peaks, graph, capture, chain (calls back to back, each on the "
                         "previous one's output), rows (row_tile_cases: many packed rows; "
                         "with --min-block-q for compile --decode-rows plans)")
    ap.add_argument("--min-block-q", type=int, default=0,
                    help="rows check: a case whose plan has a row tile of fewer rows "
                         "(up to the most its D takes: 64 at D = 64, 32 at 128) fails; "
                         "e.g. 64 for bundles of compile --decode-rows 64")
    ap.add_argument("--page-sizes", default="16,64,256",
                    help="page sizes of the paged check's main cases (e.g. 8,48: "
                         "pages below 16 keys or not a power of two)")
    return ap


def main(argv=None):
    args = parser().parse_args(argv)
    from flash_mlir.runtime import KernelLibrary
    bundles = planted(args.bundles, args.plant) if args.plant else args.bundles
    lib = KernelLibrary(bundles)
    results, failures = [], 0
    only = args.only.split(",")
    if "paged" in only:
        failures += check_paged(lib, args.quick, results, small=args.small,
                                pages=tuple(int(x) for x in args.page_sizes.split(",")))
    if "anypage" in only and not args.plant:
        directory, changed = without_page_kernels(args.bundles)
        if changed:
            failures += check_paged(KernelLibrary(directory), args.quick, results,
                                    seed=1, small=args.small, pages=(16, 64),
                                    label="paged (kernel for any S)")
        else:
            print("anypage: no plan has kernels for one page size; skipped", flush=True)
    if "split" in only and not args.plant:
        failures += check_split(lib, args.quick, results, small=args.small)
    if "many" in only and args.plant in (None, "merge-sms"):
        failures += check_many_parts(lib, results, small=args.small)
    if "peaks" in only and args.plant in (None, "merge-sms"):
        failures += check_merge_peaks(lib, results, small=args.small)
    if "graph" in only and not args.plant:
        failures += check_graph(lib, results)
    if "capture" in only and not args.plant:
        failures += check_capture_after_eager_warmup(lib, results)
    if "chain" in only and not args.plant:
        failures += check_chain(lib, results, small=args.small)
    if "rows" in only and not args.plant:
        failures += check_row_tiles(lib, results, small=args.small,
                                    min_block_q=args.min_block_q)
    print(f"{len(results) - failures}/{len(results)} passed"
          + (f" (planted bug: {args.plant})" if args.plant else ""))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
