"""Paged plans with fused split kernels for one page size each (--flash-to-ptx's
fused-page-sizes; compile --fused-page-sizes), without a GPU: the kernels a
plan lists, and which of them the launch plan gives blocks to for a call of
each page size, through the C ABI (the kernel with S a constant runs instead
of the one for any S: the fused split kernels `_s<S>` on calls that fill the
GPU, the separate merge's split kernel `_separate_s<S>` for S = 2^k >= 16 on
calls of at most 8 work units)."""

import json
import pathlib

import pytest

from flash_mlir.compiler import compile as fcompile
from flash_mlir.runtime import KernelLibrary
from json_schema import errors
from test_decode_plans import max_parts, paged_args, plan_kernels

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs" / "launch-plan.schema.json").read_text())
ONE_KEY = ["--ops", "paged", "--dtypes", "bf16", "--head-dims", "128", "--causal", "no",
           "--lse", "no"]


@pytest.fixture(scope="module")
def plans(tmp_path_factory):
    """sm_90a's paged plan as compile ships it (auto: kernels for S = 16 and
    64), sm_80's (auto: none) and sm_80's with --fused-page-sizes 8,16."""
    out = {}
    for name, argv in (("sm90", ["--arch", "sm_90a"]),
                       ("sm80", ["--arch", "sm_80", "--cubin-archs", "sm_80"]),
                       ("sm80_pages", ["--arch", "sm_80", "--cubin-archs", "sm_80",
                                       "--fused-page-sizes", "8,16"])):
        out[name] = tmp_path_factory.mktemp(name)
        assert fcompile.main(["--out", str(out[name])] + argv + ONE_KEY) == 0
    return out


def only_plan(directory, capability):
    return KernelLibrary(str(directory)).find("bf16", 128, False, False, None, capability,
                                              op="paged_attention")


def launched(bundle, batch, page_size, hq=32, hkv=8):
    """The kernels given blocks for a call of `batch` sequences in pages of
    `page_size` slots (4096 pages, 64 entries a sequence)."""
    return [name for name, grid, _, _ in plan_kernels(
        bundle, paged_args(batch, hq, hkv, 1, 128, 4096, page_size, 64), page_kernels=True)
        if 0 not in grid]


def test_sm90a_plan_lists_the_page_kernels(plans):
    bundle = only_plan(plans["sm90"], 90)
    name = bundle.name
    plan = bundle.plan
    assert errors(plan, SCHEMA) == []
    assert [k["name"] for k in plan["kernels"]] == [
        name, name + "_separate", name + "_separate_s16", name + "_separate_s64",
        name + "_merge", name + "_s16", name + "_s64"]
    assert {tuple(k["description"]["fused_page_sizes"]) for k in plan["kernels"]} == {(16, 64)}
    for kernel in plan["kernels"]:
        for cubin in kernel["files"]["cubins"].values():
            assert cubin["spill_stores"] == cubin["spill_loads"] == 0, kernel["name"]
    # The page kernels are their form's code with S a constant: the same
    # shape of launch (threads, shared memory, arguments) as the split kernel
    # (`_s16`, `_s64`) or as the separate merge's (`_separate_s16`,
    # `_separate_s64`). At D = 128 (one block an SM) the split kernels' block-
    # table window is 1024 entries, the separate merge's 512 (decodeTableWindow).
    kernels = {k["name"]: k for k in plan["kernels"]}

    def shape(kernel):
        return (kernel["block"], kernel["dynamic_shared_memory"],
                [a["name"] for a in kernel["args"]])

    for suffix, form in (("_s16", ""), ("_s64", ""), ("_separate_s16", "_separate"),
                         ("_separate_s64", "_separate")):
        assert shape(kernels[name + suffix]) == shape(kernels[name + form]), suffix
    assert kernels[name]["dynamic_shared_memory"] == \
        kernels[name + "_separate"]["dynamic_shared_memory"] + 4 * (1024 - 512)
    # No constraint on S: the plan takes every page size.
    assert not [c for c in plan["constraints"] if "S" in json.dumps(c["check"])
                and c["check"][0] == "eq"]


@pytest.mark.parametrize("page_size,kernel,separate", [
    (16, "_s16", "_s16"), (64, "_s64", "_s64"), (32, "", ""), (1, "", ""), (256, "", ""),
    (48, "", "")])
def test_a_call_runs_the_kernel_of_its_page_size(plans, page_size, kernel, separate):
    """Calls of more work units than the separate merge's bound (B·Hkv = 16
    here) run one split kernel: the one for their S where the plan has it,
    else the one for any S. Calls of at most 8 work units run the separate
    merge's split kernel (the one for S = 16 or 64 at those sizes, else the
    one for any S), then its merge kernel."""
    bundle = only_plan(plans["sm90"], 90)
    assert launched(bundle, 2, page_size) == [bundle.name + kernel]
    assert launched(bundle, 1, page_size) == \
        [bundle.name + "_separate" + separate, bundle.name + "_merge"]
    # The same grid (parts, Hkv·row tiles, B) whichever split kernel runs:
    # 16 work units on 132 SMs, 8 parts (one block an SM at bf16 D = 128 on
    # sm_90a; test_decode_plans.max_parts), the table wide enough (1024
    # pages: at least 1024 keys, 8 parts of 2 tiles) that the cache's
    # capacity does not bound the grid.
    grids = {name: grid for name, grid, _, _ in plan_kernels(
        bundle, paged_args(2, 32, 8, 1, 128, 4096, page_size, 1024), page_kernels=True)}
    assert grids[bundle.name + kernel] == (max_parts(16, 132), 8, 2) == (8, 8, 2)


def test_sm80_plan_has_no_page_kernels_by_default(plans):
    bundle = only_plan(plans["sm80"], 80)
    assert [k["name"] for k in bundle.plan["kernels"]] == [bundle.name]
    assert bundle.plan["kernels"][0]["description"]["fused_page_sizes"] == []
    assert launched(bundle, 2, 16) == [bundle.name]
    # --fused-page-sizes: any arch takes them.
    pages = only_plan(plans["sm80_pages"], 80)
    assert [k["name"] for k in pages.plan["kernels"]] == \
        [pages.name, pages.name + "_s8", pages.name + "_s16"]
    assert launched(pages, 1, 8) == [pages.name + "_s8"]
    assert launched(pages, 1, 16) == [pages.name + "_s16"]
    assert launched(pages, 1, 24) == [pages.name]


@pytest.mark.parametrize("value", ["0", "x", "16,-4", ""])
def test_fused_page_sizes_option_is_checked(tmp_path, capsys, value):
    with pytest.raises(SystemExit):
        fcompile.main(["--out", str(tmp_path), "--arch", "sm_90a", "--fused-page-sizes", value]
                      + ONE_KEY)
    assert "--fused-page-sizes takes auto, none or page sizes" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_fused_page_sizes_none(tmp_path):
    assert fcompile.main(["--out", str(tmp_path), "--arch", "sm_90a", "--fused-page-sizes",
                          "none"] + ONE_KEY) == 0
    bundle = only_plan(tmp_path, 90)
    assert [k["name"] for k in bundle.plan["kernels"]] == \
        [bundle.name, bundle.name + "_separate", bundle.name + "_merge"]
    assert launched(bundle, 2, 16) == [bundle.name]


def test_decode_check_copy_without_page_kernels(plans):
    """decode_check --only anypage's plans: the page kernels get no blocks and
    the kernel for any S takes the calls of their page sizes; sm_80's plan
    (no page kernels) is copied unchanged."""
    from flash_mlir.tools import decode_check
    directory, changed = decode_check.without_page_kernels(str(plans["sm90"]))
    assert changed == 1
    bundle = only_plan(directory, 90)
    name = bundle.name
    for size in (16, 64, 32):
        assert launched(bundle, 64, size) == [name]
        assert launched(bundle, 1, size) == [name + "_separate", name + "_merge"]
    # the shipped plans themselves still run the page kernels
    assert launched(only_plan(plans["sm90"], 90), 64, 16) == [name + "_s16"]
    for size in (16, 64):
        assert launched(only_plan(plans["sm90"], 90), 1, size) == \
            [name + "_separate_s%d" % size, name + "_merge"]
    directory, changed = decode_check.without_page_kernels(str(plans["sm80"]))
    assert changed == 0
    assert launched(only_plan(directory, 80), 64, 16) == [only_plan(plans["sm80"], 80).name]
