"""The split-KV (decode) launch plans, without a GPU: flash_mlir.compile's
decode bundles (their ops through flash-opt's --flash-to-ptx), their schema, selection by op, and the kernel planned through the
C ABI (grid from the sizes, the cache's capacity and the SM count, never
from a length; the arguments; the workspaces; the paged tensors' shapes
checked)."""

import ctypes
import json
import pathlib
import re

import pytest

from flash_mlir.compiler import compile as fcompile
from flash_mlir.runtime import KernelLibrary, capi
from cpp_constants import SPLIT_KV
from json_schema import errors

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs" / "launch-plan.schema.json").read_text())
SPECS = [fcompile.DecodeSpec("bf16", 128, False, False, paged=True, arch="sm_90a"),
         fcompile.DecodeSpec("bf16", 128, True, True, paged=True, arch="sm_90a"),
         fcompile.DecodeSpec("bf16", 128, False, False, paged=False, arch="sm_90a"),
         fcompile.DecodeSpec("f16", 64, True, False, paged=True, arch="sm_80")]


@pytest.fixture(scope="module")
def bundles(tmp_path_factory):
    out = tmp_path_factory.mktemp("decode")
    plans = {spec.name: json.loads(pathlib.Path(
        fcompile.compile_decode_bundle(spec, str(out))).read_text()) for spec in SPECS}
    return out, plans


def paged_args(b, hq, hkv, nq, d, pages, page, m, dtype="bf16", lse=False):
    a = capi.AttentionArgs()
    a.q = capi.tensor(0x10000, dtype, (b, hq, nq, d))
    a.k = capi.tensor(0x20000, dtype, (pages, page, hkv, d))
    a.v = capi.tensor(0x30000, dtype, (pages, page, hkv, d))
    a.block_table = capi.tensor(0x40000, "i32", (b, m))
    a.seq_lens = capi.tensor(0x50000, "i32", (b,))
    a.o = capi.tensor(0x60000, dtype, (b, hq, nq, d))
    if lse:
        a.lse = capi.tensor(0x70000, "f32", (b, hq, nq))
    return a


def split_args(b, hq, hkv, nq, d, nk, dtype="bf16"):
    a = capi.AttentionArgs()
    a.q = capi.tensor(0x10000, dtype, (b, hq, nq, d))
    a.k = capi.tensor(0x20000, dtype, (b, hkv, nk, d))
    a.v = capi.tensor(0x30000, dtype, (b, hkv, nk, d))
    a.o = capi.tensor(0x60000, dtype, (b, hq, nq, d))
    return a


# The page size of the grid tests' paged calls: one without a kernel of its
# own (sm_90a's plans carry `_s16` and `_s64`, listed after the separate
# merge's kernels, and `_separate_s16`, `_separate_s64`, listed before its
# merge kernel;
# test_decode_page_size.py), so that the kernels for any S take the calls.
ANY_PAGE = 32


def plan_kernels(bundle, args, sm_count=132, page_kernels=False):
    """(name, grid, shared bytes, arguments) of each kernel the plan lists:
    the split kernel, and on sm_90a the separate merge's two kernels; with
    `page_kernels` the kernels for one page size (`_s<S>`) too."""
    out = []
    for k, kernel in enumerate(bundle.plan["kernels"]):
        if not page_kernels and re.search(r"_s[0-9]+$", kernel["name"]):
            continue
        info = bundle.launch_info(args, sm_count=sm_count, kernel=k)
        out.append((info.kernel.decode(), tuple(info.grid), info.shared_bytes,
                    {info.args[i].name.decode(): info.args[i] for i in range(info.num_args)}))
    return out


def test_decode_plans_validate(bundles):
    for name, plan in bundles[1].items():
        assert errors(plan, SCHEMA) == [], name
        # sm_90a: the split kernel (fused merge), the separate merge's split
        # kernels and the merge kernel, these launched with programmatic
        # dependent launch (behind the kernel before them in the stream: the
        # merge kernel behind the split kernel, a separate merge's split
        # kernel behind the previous call's last kernel); Target/SplitKV.h's
        # rule gives blocks to the first or to the others; sm_90a's paged
        # plans have the separate merge's split kernels for pages of 16 and 64
        # slots before the merge kernel, and the fused split kernels for pages
        # of 16 and 64 slots last (test_decode_page_size.py).
        # sm_80: the split kernel alone.
        sm90, paged = "_sm_90a_" in name, "_paged_" in name
        names = [name]
        if sm90:
            names += [name + "_separate"] + \
                ([name + "_separate_s16", name + "_separate_s64"] if paged else []) + \
                [name + "_merge"] + ([name + "_s16", name + "_s64"] if paged else [])
        assert [k["name"] for k in plan["kernels"]] == names
        assert [k.get("programmatic_dependent_launch", False)
                for k in plan["kernels"]] == ["_separate" in n or n.endswith("_merge")
                                              for n in names]
        # sm_90a's fused split kernels (not the separate merge's) may run in
        # clusters: the pair merge (docs/launch-plan.md "cluster").
        assert ["cluster" in k for k in plan["kernels"]] == \
            [sm90 and "_separate" not in n and not n.endswith("_merge") for n in names]
        # Sizes are formulas. Partials are not cleared (the parts write what
        # the merge reads); the counters of finished parts are zeroed once
        # and left zero by the kernel.
        spaces = {w["name"]: w for w in plan["workspaces"]}
        assert list(spaces) == ["partial_o", "partial_lse", "split_counter"]
        assert all(isinstance(w["bytes"], list) for w in spaces.values())
        assert spaces["partial_o"]["init"] == spaces["partial_lse"]["init"] == "none"
        assert spaces["split_counter"]["init"] == "zero"
        assert spaces["split_counter"]["kernel_restores"] is True
        for kernel in plan["kernels"]:
            for cubin in kernel["files"]["cubins"].values():
                assert cubin["spill_stores"] == cubin["spill_loads"] == 0, kernel["name"]
    paged = bundles[1]["flash_decode_paged_sm_90a_bf16_d128"]
    assert paged["op"] == "paged_attention"
    assert {t["name"]: t["shape"] for t in paged["tensors"]}["k"] == ["P", "S", "Hkv", "D"]
    assert bundles[1]["flash_decode_split_sm_90a_bf16_d128"]["op"] == "attention_split_kv"


def test_selected_by_op(bundles):
    lib = KernelLibrary(str(bundles[0]))
    assert lib.find("bf16", 128, False, False, None, 90, op="paged_attention").name == \
        "flash_decode_paged_sm_90a_bf16_d128"
    assert lib.find("bf16", 128, True, True, None, 90, op="paged_attention").name == \
        "flash_decode_paged_sm_90a_bf16_d128_causal_lse"
    assert lib._split_kv("bf16", 128, False, False, 90).name == \
        "flash_decode_split_sm_90a_bf16_d128"
    assert lib._split_kv("bf16", 64, False, False, 90) is None  # not compiled: the forward
    # The sm_80 plan runs on sm_80 only here (cubin for sm_80, PTX for >= 80).
    assert lib.find("f16", 64, True, False, None, 80, op="paged_attention").arch == "sm_80"
    with pytest.raises(ValueError, match="no launch plan for paged_attention"):
        lib.find("f16", 128, False, False, None, 90, op="paged_attention")


# The blocks an SM the split count of sm_90a's bf16 D = 128 plans aims at
# (3 K/V stages: one; Target/SplitKV.h splitKVBlocksPerSM, as flash-opt
# reports it).
SM90_D128_BLOCKS_PER_SM = int(SPLIT_KV["sm_90a"]["blocks_per_sm"]["128"])


def max_parts(work_units, sms, max_splits=fcompile.DECODE_MAX_SPLITS["sm_90a"],
              per_sm=SM90_D128_BLOCKS_PER_SM):
    """Target/SplitKV.h splitKVMaxSplits: the most parts any sequence is cut
    into, 1 when the work units fill 15/16 of the SMs."""
    if 16 * work_units >= 15 * sms:
        return 1
    return max(min(per_sm * sms // work_units, max_splits), 1)


def grid_parts(work_units, sms, capacity, block_kv=64, **kw):
    """Target/SplitKV.h splitKVGridParts: the grid's x, max_parts and no more
    than a sequence of `capacity` keys (the paged cache's M·S, the
    contiguous Nk) is cut into: max(floor(tiles / 2), 1) (kSplitKVMinTilesPerSplit)."""
    tiles = -(-capacity // block_kv)
    return min(max_parts(work_units, sms, **kw), max(tiles // 2, 1))


def test_sm90_d128_aims_at_one_block_an_sm():
    """sm_90a's D = 128 decode kernels have 3 K/V stages of 256-byte rows, so
    the rule aims at one block an SM (docs/benchmarks.md, forty-fourth
    session); sm_80's have 2 stages and D = 64's 128-byte rows (6 stages on
    sm_90a, 4 on sm_80), and aim at two. D = 256's 2 stages of 512-byte rows
    (136 KiB) leave room for one block an SM, and the rule aims at one there
    on both (fiftieth session; it aimed at two before, cutting calls into
    twice the parts one wave holds)."""
    assert SPLIT_KV["sm_90a"]["stages"] == {"64": 6, "128": 3, "256": 2}
    assert SPLIT_KV["sm_80"]["stages"] == {"64": 4, "128": 2, "256": 2}
    assert SPLIT_KV["sm_90a"]["blocks_per_sm"] == {"64": 2, "128": 1, "256": 1}
    assert SPLIT_KV["sm_80"]["blocks_per_sm"] == {"64": 2, "128": 2, "256": 1}


@pytest.mark.parametrize("batch,parts", [(1, 16), (4, 4), (8, 2), (16, 1), (64, 1),
                                         (1000, 1)])
def test_grids_come_from_sizes_and_sms(bundles, batch, parts):
    """Grid (parts, Hkv·row tiles, B): parts = splitKVMaxSplits = min(max_splits,
    floor(SMs / (B·Hkv·row tiles))) (one block an SM: 3 stages), or 1 when
    B·Hkv·row tiles >= 15/16 of the SMs, here below what a sequence of the
    cache's capacity (M·S = 9600 keys, 150 tiles: 75 parts) is cut into: the
    most any sequence can use, and no more (blocks past a shorter sequence's
    parts exit)."""
    lib = KernelLibrary(str(bundles[0]))
    bundle = lib.find("bf16", 128, False, False, None, 90, op="paged_attention")
    assert bundle.kernel_count == 7  # and the kernels for S = 16, 64 (_s16, _s64, _separate_s16, _separate_s64)
    [(name, grid, shared, args), (separate, separate_grid, separate_shared, _),
     (merge, merge_grid, _, _)] = plan_kernels(
        bundle, paged_args(batch, 32, 8, 1, 128, 4096, ANY_PAGE, 300))
    # At most 8 work units (B·Hkv·row tiles, Target/SplitKV.h): the separate
    # merge's split kernel and the merge kernel, the split kernel no block;
    # more: the split kernel merges, the separate merge's kernels no block.
    separate_call = batch * 8 <= 8
    # Q tile + 3 K/V stages + the block-table window: 1024 i32 in the split
    # kernel (one block an SM: decodeTableWindow), 512 in the separate merge's
    assert name == bundle.name and shared == 102400 + 4096
    assert separate_shared == 102400 + 2048
    assert grid == (parts, 8, 0 if separate_call else batch)
    assert separate == bundle.name + "_separate"
    assert separate_grid == (parts, 8, batch if separate_call else 0)
    assert merge == bundle.name + "_merge"
    assert merge_grid == (32 * batch if separate_call else 0, 4, 1)
    assert {n: args[n].int_value for n in ("B", "Hq", "Hkv", "Nq", "S", "M", "SMs")} == \
        dict(B=batch, Hq=32, Hkv=8, Nq=1, S=ANY_PAGE, M=300, SMs=132)
    assert [args[n].workspace for n in ("partial_o", "partial_lse", "split_counter")] == \
        [0, 1, 2]


def test_max_splits_per_arch(bundles):
    """Each arch's plans are compiled with its own cap (DECODE_MAX_SPLITS):
    sm_90a 128, one part an SM for the calls its separate merge takes; sm_80
    256, two blocks an SM for its fused merge (docs/benchmarks.md,
    twenty-ninth session). Every kernel's description carries it, and a call
    of one work unit on 132 SMs gets that many parts (132 wanted at sm_90a's
    D = 128, one block an SM; 264 at sm_80's D = 64, two)."""
    lib = KernelLibrary(str(bundles[0]))
    want = {"sm_90a": 128, "sm_80": 256}
    assert fcompile.DECODE_MAX_SPLITS == want
    for spec in SPECS:
        caps = {k["description"]["max_splits"] for k in bundles[1][spec.name]["kernels"]}
        assert caps == {want[spec.arch]}, spec.name
    # Capacities of 32k keys (M·S = 1024·32): 256 parts of 2 tiles could be cut.
    sm90 = lib.find("bf16", 128, False, False, None, 90, op="paged_attention")
    [_, (_, separate_grid, _, _), _] = plan_kernels(
        sm90, paged_args(1, 8, 1, 1, 128, 8192, ANY_PAGE, 1024))
    assert separate_grid[0] == 128
    sm80 = lib.find("f16", 64, True, False, None, 80, op="paged_attention")
    [(_, grid, _, _)] = plan_kernels(
        sm80, paged_args(1, 8, 1, 1, 64, 8192, ANY_PAGE, 1024, dtype="f16"))
    assert grid[0] == 256


@pytest.mark.parametrize("sms", [1, 7, 108, 132])
def test_grid_parts_are_split_kv_grid_parts(bundles, sms):
    """The runtime's grid x (the plan's formula) against splitKVGridParts on
    integers, over work units around every boundary of the rule (wanted =
    SMs / work units at one block an SM, max_splits = sm_90a's
    DECODE_MAX_SPLITS, and 15/16 of the SMs) and capacities around the
    bound by capacity (M·S keys of the paged cache, Nk of the contiguous
    one: 1 to 2 tiles, odd tiles, a partial tile, 150 and 512 tiles)."""
    lib = KernelLibrary(str(bundles[0]))
    paged = lib.find("bf16", 128, False, False, None, 90, op="paged_attention")
    split = lib._split_kv("bf16", 128, False, False, 90)
    units = sorted({1, 2, 3, 5, 8, 9, 63, 64, 65, 100, 2 * sms - 1, 2 * sms, 2 * sms + 1,
                    sms, sms - 1, sms + 1, sms // 2, sms // 2 + 1,
                    (15 * sms) // 16, (15 * sms) // 16 + 1,
                    -(-15 * sms // 16), 1000} - {0})
    for wu in units:
        for m in (1, 2, 4, 5, 6, 300, 1024):  # M·S = 32, 64, 128, 160, 192, 9600, 32768
            [(_, grid, _, _), (_, separate_grid, _, _), _] = plan_kernels(
                paged, paged_args(wu, 8, 1, 1, 128, 4096, ANY_PAGE, m), sm_count=sms)
            want = grid_parts(wu, sms, m * ANY_PAGE)
            assert max(grid[0], separate_grid[0]) == want, (wu, sms, m)
        for nk in (1, 64, 65, 128, 200, 8192, 32768):
            if wu * nk * 128 >= 2**31:  # past the plans' 2^31-element constraint
                continue
            [(_, grid, _, _), (_, separate_grid, _, _), _] = plan_kernels(
                split, split_args(wu, 8, 1, 1, 128, nk), sm_count=sms)
            want = grid_parts(wu, sms, nk)
            assert max(grid[0], separate_grid[0]) == want, (wu, sms, nk)


def test_row_tiles_of_large_groups(bundles):
    """Groups × Nq beyond the 16-row tile take several row tiles (grid y)."""
    lib = KernelLibrary(str(bundles[0]))
    bundle = lib.find("bf16", 128, False, False, None, 90, op="paged_attention")
    [(_, grid, _, _), (_, separate_grid, _, _), _] = plan_kernels(
        bundle, paged_args(2, 8, 1, 4, 128, 64, ANY_PAGE, 300))
    # 8/1 × 4 rows = 2 tiles of 16; 4 work units: the separate merge's grid
    assert grid[:2] == separate_grid[:2] == (max_parts(2 * 1 * 2, 132), 2) == (33, 2)
    assert (grid[2], separate_grid[2]) == (0, 2)
    # A cache of 8 pages of 32 slots (256 keys, 4 tiles) is cut into at most 2 parts.
    [_, (_, separate_grid, _, _), _] = plan_kernels(
        bundle, paged_args(2, 8, 1, 4, 128, 64, ANY_PAGE, 8))
    assert separate_grid[:2] == (2, 2)


@pytest.mark.parametrize("batch,hq,hkv,nq,blocks", [
    (1, 8, 1, 1, 8),     # one work unit: a block per output row
    (1, 16, 1, 1, 16),   # a group of 16 rows: one row tile
    (1, 8, 1, 2, 16),    # 8/1 × 2 query rows: 16 rows, one row tile
    (1, 8, 1, 4, 32),    # 32 rows: two row tiles, two work units
    (2, 8, 1, 1, 16),    # two work units
    (1, 32, 8, 1, 32),   # 8 work units, the bound
    (8, 8, 1, 1, 64),    # 8 work units of one kv-head each
    (9, 8, 1, 1, 0),     # 9 work units: the fused merge
    (2, 32, 8, 1, 0),    # 16 work units: the fused merge
])
def test_separate_merge_rule(bundles, batch, hq, hkv, nq, blocks):
    """sm_90a's separate merge (Target/SplitKV.h): when B·Hkv·row tiles <= 8
    the split kernel has no block (z = 0, which the runtime does not launch),
    the separate merge's split kernel the split kernel's grid and the merge
    kernel (B·Hq·Nq, Dv / 32, 1); otherwise the other way round. All three
    take the same arguments; the merge kernel 128 threads and programmatic
    dependent launch."""
    lib = KernelLibrary(str(bundles[0]))
    for op in ("paged_attention", "attention_split_kv"):
        bundle = lib.find("bf16", 128, False, False, None, 90, op="paged_attention") \
            if op == "paged_attention" else lib._split_kv("bf16", 128, False, False, 90)
        args = paged_args(batch, hq, hkv, nq, 128, 4096, ANY_PAGE, 300) if op == "paged_attention" \
            else split_args(batch, hq, hkv, nq, 128, 32768)
        (split, fused, _, split_args_), (separate, separate_grid, _, _), \
            (merge, grid, shared, merge_args) = plan_kernels(bundle, args)
        assert (separate, merge) == (split + "_separate", split + "_merge")
        assert fused[:2] == separate_grid[:2]
        assert (fused[2], separate_grid[2]) == ((0, batch) if blocks else (batch, 0))
        assert grid == (blocks, 4, 1) and shared == 128 * 6 * 4
        assert {n: a.int_value for n, a in merge_args.items() if a.kind == capi.ARG_I32} == \
            {n: a.int_value for n, a in split_args_.items() if a.kind == capi.ARG_I32}
        merge_kernel = next(k for k in bundle.plan["kernels"] if k["name"] == merge)
        assert merge_kernel["block"] == [128, 1, 1]
        assert merge_kernel["programmatic_dependent_launch"] is True
    # sm_80 keeps the fused merge: one kernel.
    assert lib.find("f16", 64, True, False, None, 80, op="paged_attention").kernel_count == 1


@pytest.mark.parametrize("change,message", [
    (lambda a: setattr(a, "seq_lens", capi.tensor(0x50000, "i32", (3,))),
     "tensor 'seq_lens' has B = 3"),
    (lambda a: setattr(a, "block_table", capi.tensor(0x40000, "bf16", (2, 8))),
     "tensor 'block_table' is bf16 but plan"),
    (lambda a: setattr(a, "v", capi.tensor(0x30000, "bf16", (64, 48, 8, 128))),
     "tensor 'v' has S = 48"),
    (lambda a: setattr(a, "seq_lens", capi.Tensor()),
     "needs tensor 'seq_lens'"),
])
def test_paged_calls_that_do_not_fit_are_refused(bundles, change, message):
    lib = KernelLibrary(str(bundles[0]))
    bundle = lib.find("bf16", 128, False, False, None, 90, op="paged_attention")
    a = paged_args(2, 32, 8, 1, 128, 64, ANY_PAGE, 8)
    change(a)
    with pytest.raises(capi.FlashRuntimeError, match=message):
        bundle.launch_info(a, sm_count=132)


@pytest.mark.parametrize("paged", [False, True])
def test_decode_plans_come_from_the_ops(tmp_path, paged):
    """A decode plan is compiled from its op (a one-row flash.attention, or
    flash.paged_attention) through --flash-to-ptx: flash-select-schedule
    records the split-KV kernels' tiles (Target/SplitKV.h: 16-row tile, 64
    keys, 4 warps, the stages half an SM holds), flash-tile builds the
    split-KV form, the lowering builds the kernel from its descriptor."""
    spec = fcompile.DecodeSpec("bf16", 256, True, False, paged=paged, arch="sm_80")
    text = spec.source()
    assert ("flash.paged_attention" if paged else "flash.attention") in text
    assert "scf.forall" not in text and "flash.kernel" not in text
    plan = json.loads(pathlib.Path(fcompile.compile_decode_bundle(spec, str(tmp_path)))
                      .read_text())
    description = plan["kernels"][0]["description"]
    assert (description["block_q"], description["block_kv"], description["warps"],
            description["stages"]) == (16, 64, 4, 2)
    assert description["max_splits"] == fcompile.DECODE_MAX_SPLITS["sm_80"]
    assert description["page_size"] == (fcompile.DECODE_PAGE_SIZE if paged else 0)
    # Q tile + 2 K/V stages (+ the paged kernel's block-table window: 1024
    # i32, as two such blocks do not fit an SM and the rule aims at one)
    assert plan["kernels"][0]["dynamic_shared_memory"] == \
        16 * 256 * 2 + 2 * 2 * 64 * 256 * 2 + (1024 * 4 if paged else 0)


def test_a_call_with_other_addresses_reuses_the_plan(bundles):
    """The runtime plans a call from the plan's formulas once and reuses it
    while only the addresses change (host time per decode step): the reused
    launch carries the new call's addresses; a change of shape, of a tensor's
    presence or of the SM count plans again."""
    lib = KernelLibrary(str(bundles[0]))
    bundle = lib.find("bf16", 128, False, False, None, 90, op="paged_attention")
    first = plan_kernels(bundle, paged_args(2, 32, 8, 1, 128, 64, ANY_PAGE, 300))
    moved = paged_args(2, 32, 8, 1, 128, 64, ANY_PAGE, 300)
    for i, name in enumerate(("q", "k", "v", "block_table", "seq_lens", "o")):
        getattr(moved, name).data = 0x1000000 * (i + 1)
    # Only the addresses differ: the first call's plan, with these addresses
    # in every kernel (the runtime-owned workspaces 0).
    for (_, grid, shared, args), planned in zip(plan_kernels(bundle, moved), first):
        assert (grid, shared) == planned[1:3]
        assert [args[n].pointer for n in ("q", "k", "v", "block_table", "seq_lens", "o")] == \
            [0x1000000 * (i + 1) for i in range(6)]
        assert [args[n].pointer for n in ("partial_o", "partial_lse", "split_counter")] == \
            [0, 0, 0]
    moved.workspaces[2] = 0xABC000  # the caller's counters: planned again
    [(_, grid, shared, args), _, _] = plan_kernels(bundle, moved)
    assert (grid, shared) == first[0][1:3]
    assert args["q"].pointer == 0x1000000
    assert [args[n].pointer for n in ("partial_o", "partial_lse", "split_counter")] == \
        [0, 0, 0xABC000]
    # Another batch: planned again (grid and B); then the first call again.
    [(_, grid4, _, args4), _, _] = plan_kernels(bundle, paged_args(4, 32, 8, 1, 128, 64, ANY_PAGE, 300))
    assert grid4 == (4, 8, 4) and args4["B"].int_value == 4
    assert first[0][1] == (8, 8, 2)
    assert plan_kernels(bundle, paged_args(2, 32, 8, 1, 128, 64, ANY_PAGE, 300), sm_count=66)[0][1] \
        == (4, 8, 2)
    again = plan_kernels(bundle, paged_args(2, 32, 8, 1, 128, 64, ANY_PAGE, 300))
    assert again[0][1] == first[0][1] and again[0][3]["q"].pointer == 0x10000
    # A call the plan refuses is refused after a reused one too.
    missing = paged_args(2, 32, 8, 1, 128, 64, ANY_PAGE, 300)
    missing.seq_lens = capi.Tensor()
    with pytest.raises(capi.FlashRuntimeError, match="needs tensor 'seq_lens'"):
        bundle.launch_info(missing, sm_count=132)


def test_compile_skips_the_decode_plans_an_arch_does_not_take(tmp_path, capsys):
    """compile's default ops include split_kv and paged; sm_100a has a forward
    kernel only: those plans are reported as skipped with flash-opt's "not
    supported yet" diagnostic, and the forward plan is compiled (not a
    traceback that leaves the directory half made)."""
    assert fcompile.main(["--out", str(tmp_path), "--arch", "sm_100a", "--dtypes", "bf16",
                          "--head-dims", "64", "--causal", "no", "--lse", "no"]) == 0
    out = capsys.readouterr().out
    for kind in ("split", "paged"):
        assert (f"skipped: flash_decode_{kind}_sm_100a_bf16_d64 (not supported yet: kernel kind "
                in out), out
    assert "1 bundles in" in out and "(2 not supported yet, skipped)" in out
    assert sorted(p.name for p in tmp_path.glob("*.json")) == ["flash_fwd_sm_100a_bf16_d64.json"]
    assert not list(tmp_path.glob("flash_decode_*"))


def test_decode_rows_variant(tmp_path, capsys):
    """compile --decode-rows R compiles each decode plan from an op of R
    packed rows (GQA R/1, Nq = 1) as the variant "rows<R>": its row tile is
    16·min(ceil(R/16), 256/D) rows (sm_80: 64 rows and 4 stages at D = 64,
    32 rows and 2 stages at D = 128: the kernels whose warp 0 combines the
    warps alone, test/Pipeline/ptx-decode-combine.mlir). The runtime takes
    the default plan where the key has one and the variant where it is the
    key's only plan. A contiguous cache of more packed rows than a split-KV
    row tile takes (flash.attention's forward form) is skipped."""
    assert fcompile.main(["--out", str(tmp_path), "--arch", "sm_80", "--ops", "split_kv,paged",
                          "--dtypes", "bf16", "--head-dims", "64,128", "--causal", "no",
                          "--lse", "no", "--decode-rows", "0,64"]) == 0
    plans = {p.stem: json.loads(p.read_text()) for p in tmp_path.glob("*.json")}
    assert len(plans) == 8
    for kind in ("split", "paged"):
        for d, block_q, stages in ((64, 64, 4), (128, 32, 2)):
            plan = plans[f"flash_decode_{kind}_sm_80_bf16_d{d}_rows64"]
            description = plan["kernels"][0]["description"]
            assert plan["select"]["variant"] == "rows64"
            assert (description["block_q"], description["stages"]) == (block_q, stages)
            default = plans[f"flash_decode_{kind}_sm_80_bf16_d{d}"]
            assert default["select"]["variant"] == ""
            assert default["kernels"][0]["description"]["block_q"] == 16
    op = {"split": "attention_split_kv", "paged": "paged_attention"}
    lib = KernelLibrary(str(tmp_path))
    for kind in ("split", "paged"):
        assert lib.find("bf16", 64, False, False, None, 80, op=op[kind]).variant == ""
        assert lib.find("bf16", 64, False, False, None, 80, op=op[kind],
                        variant="rows64").variant == "rows64"
    for path in tmp_path.glob("flash_decode_*"):
        if "_rows64" not in path.name:
            path.unlink()
    lib = KernelLibrary(str(tmp_path))
    assert lib.find("bf16", 128, False, False, None, 80, op="paged_attention").name == \
        "flash_decode_paged_sm_80_bf16_d128_rows64"
    capsys.readouterr()
    out = tmp_path / "wide"
    assert fcompile.main(["--out", str(out), "--arch", "sm_80", "--ops", "split_kv,paged",
                          "--dtypes", "bf16", "--head-dims", "64", "--causal", "no",
                          "--lse", "no", "--decode-rows", "128"]) == 0
    text = capsys.readouterr().out
    assert "skipped: flash_decode_split_sm_80_bf16_d64_rows128 (not supported yet: a split-KV " \
        "plan of 128 packed rows" in text, text
    assert sorted(p.name for p in out.glob("*.json")) == \
        ["flash_decode_paged_sm_80_bf16_d64_rows128.json"]
    assert not list(out.glob("flash_decode_split_*"))


@pytest.mark.parametrize("sms", [7, 108, 132])
def test_pair_merge_clusters(bundles, sms):
    """sm_90a's fused split kernels run in clusters of two blocks along x
    exactly when the call cuts a sequence into at most two parts (grid x =
    2): their pair merge; every other kernel, and every other grid, without
    clusters. As the runtime plans it (flash_plan_launch_cluster), paged
    (the kernel for any S and `_s16`) and contiguous, over work units around
    every boundary of the split rule."""
    lib = KernelLibrary(str(bundles[0]))
    paged = lib.find("bf16", 128, False, False, None, 90, op="paged_attention")
    split = lib.find("bf16", 128, False, False, None, 90, op="attention_split_kv")
    units = sorted({1, 2, 8, 9, sms // 3, sms // 3 + 1, sms // 2, sms // 2 + 1,
                    sms - 1, sms, 1000} - {0})
    seen = set()
    for wu in units:
        for bundle, args in ((paged, paged_args(wu, 8, 1, 1, 128, 4096, ANY_PAGE, 300)),
                             (paged, paged_args(wu, 8, 1, 1, 128, 4096, 16, 300)),
                             (split, split_args(wu, 8, 1, 1, 128, 4096))):
            for k, kernel in enumerate(bundle.plan["kernels"]):
                grid = tuple(bundle.launch_info(args, sm_count=sms, kernel=k).grid)
                cluster = bundle.launch_cluster(args, sm_count=sms, kernel=k)
                fused = "_separate" not in kernel["name"] and \
                    not kernel["name"].endswith("_merge")
                assert cluster == (2 if fused and grid[0] == 2 else 1), \
                    (kernel["name"], wu, sms, grid)
                seen.add((fused, cluster))
    assert (True, 2) in seen and (True, 1) in seen


def test_cluster_that_does_not_divide_the_grid_is_refused(bundles, tmp_path):
    """A plan's cluster must come to 1-8 blocks dividing grid x, or the call
    is refused with the kernel named; a cluster that is not a formula is
    refused when the plan is read."""
    name = "flash_decode_paged_sm_90a_bf16_d128"
    plan = json.loads((bundles[0] / f"{name}.json").read_text())
    for f in bundles[0].iterdir():
        if f.name.startswith(name + ".") and f.suffix != ".json":
            (tmp_path / f.name).write_bytes(f.read_bytes())
    plan["kernels"][0]["cluster"] = {"x": 3}
    (tmp_path / f"{name}.json").write_text(json.dumps(plan))
    bundle = KernelLibrary(str(tmp_path)).find("bf16", 128, False, False, None, 90,
                                               op="paged_attention")
    # 64 work units on 132 SMs: grid x = 2.
    args = paged_args(64, 8, 1, 1, 128, 4096, ANY_PAGE, 300)
    with pytest.raises(capi.FlashRuntimeError,
                       match=f"cluster of {name} is 3 blocks along x, not 1 to 8 "
                             r"dividing grid x \(2\)"):
        bundle.launch_cluster(args, sm_count=132)
    plan["kernels"][0]["cluster"] = {"x": [2, "B"]}
    (tmp_path / f"{name}.json").write_text(json.dumps(plan))
    with pytest.raises(ValueError, match="cluster.x of .* is not a formula"):
        KernelLibrary(str(tmp_path))
