"""Paged plans compiled for one page size (flash_mlir.compile
--fixed-page-sizes, --flash-to-ptx's fixed-page-size), without a GPU: the
variant "s<S>" beside the plan for any S, its launch plan's constraint
(calls of another S refused through the C ABI), and KernelLibrary.find_paged
choosing it by the cache's page size, the arch the runtime would choose
first."""

import json
import pathlib

import pytest

from flash_mlir.compiler import compile as fcompile
from flash_mlir.runtime import KernelLibrary, capi
from json_schema import errors
from test_decode_plans import paged_args, plan_kernels

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs" / "launch-plan.schema.json").read_text())
ONE_KEY = ["--ops", "paged", "--dtypes", "bf16", "--head-dims", "128", "--causal", "no",
           "--lse", "no"]


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    """sm_90a's paged plans as compile ships them (auto: any S, S = 16, 64),
    and sm_80's with --fixed-page-sizes 16 (not shipped: an arch whose s16
    plan must not replace sm_90a's plan on Hopper)."""
    out = tmp_path_factory.mktemp("pages")
    assert fcompile.main(["--out", str(out), "--arch", "sm_90a"] + ONE_KEY) == 0
    assert fcompile.main(["--out", str(out), "--arch", "sm_80", "--cubin-archs", "sm_80",
                          "--fixed-page-sizes", "16"] + ONE_KEY) == 0
    return out


def test_compile_ships_sm90a_s16_only():
    assert fcompile.DECODE_FIXED_PAGE_SIZES == {"sm_90a": (16, 64)}
    spec = fcompile.DecodeSpec("bf16", 128, True, True, paged=True, arch="sm_90a",
                               page_size=16)
    assert spec.variant == "s16"
    assert spec.name == "flash_decode_paged_sm_90a_bf16_d128_causal_lse_s16"
    assert fcompile.DecodeSpec("bf16", 64, False, False, paged=True, rows=32,
                               page_size=64).variant == "rows32_s64"
    # The op the plan is compiled from has pages of that size (enough of them
    # for DECODE_SHAPE's keys, a page size that does not divide them too).
    assert "tensor<256x16x8x128xbf16>" in spec.source()
    odd = fcompile.DecodeSpec("bf16", 128, False, False, paged=True, page_size=48)
    assert "tensor<86x48x8x128xbf16>" in odd.source() and "tensor<1x86xi32>" in odd.source()
    with pytest.raises(ValueError, match="only a paged plan has pages"):
        fcompile.DecodeSpec("bf16", 128, False, False, paged=False, page_size=16)


def test_fixed_plan_refuses_other_page_sizes(library):
    plans = {p.stem: json.loads(p.read_text()) for p in library.glob("*.json")}
    assert sorted(plans) == ["flash_decode_paged_sm_80_bf16_d128",
                             "flash_decode_paged_sm_80_bf16_d128_s16",
                             "flash_decode_paged_sm_90a_bf16_d128",
                             "flash_decode_paged_sm_90a_bf16_d128_s16",
                             "flash_decode_paged_sm_90a_bf16_d128_s64"]
    for name, plan in plans.items():
        assert errors(plan, SCHEMA) == [], name
        page = int(name.rsplit("_s", 1)[1]) if name[-4:] in ("_s16", "_s64") else 0
        assert plan["select"]["variant"] == (f"s{page}" if page else "")
        assert {k["description"]["fixed_page_size"] for k in plan["kernels"]} == {bool(page)}
        pinned = [c for c in plan["constraints"] if c["check"][:2] == ["eq", "S"]]
        assert [c["check"] for c in pinned] == ([["eq", "S", page]] if page else []), name
        if page:
            assert pinned[0]["message"] == (f"this plan takes pages of {page} slots only "
                                            f"(S = {page}); a plan without a fixed page "
                                            f"size takes any")
    lib = KernelLibrary(str(library))
    fixed = lib.find("bf16", 128, False, False, None, 90, op="paged_attention", variant="s16")
    generic = lib.find("bf16", 128, False, False, None, 90, op="paged_attention")
    assert (fixed.name, generic.name) == ("flash_decode_paged_sm_90a_bf16_d128_s16",
                                          "flash_decode_paged_sm_90a_bf16_d128")
    # Same kernels, grids and arguments at S = 16 (only the fused kernel's
    # code differs); S = 64 is refused by the fixed plan, taken by the other.
    at16 = paged_args(4, 32, 8, 1, 128, 512, 16, 128)
    assert [k[0] for k in plan_kernels(fixed, at16)] == \
        [fixed.name, fixed.name + "_separate", fixed.name + "_merge"]
    assert [(k[1], {n: a.int_value for n, a in k[3].items() if a.kind == capi.ARG_I32})
            for k in plan_kernels(fixed, at16)] == \
        [(k[1], {n: a.int_value for n, a in k[3].items() if a.kind == capi.ARG_I32})
         for k in plan_kernels(generic, at16)]
    at64 = paged_args(4, 32, 8, 1, 128, 128, 64, 32)
    with pytest.raises(capi.FlashRuntimeError, match=r"takes pages of 16 slots only \(S = 16\)"):
        fixed.launch_info(at64, sm_count=132)
    assert plan_kernels(generic, at64)[0][3]["S"].int_value == 64


def test_find_paged_takes_the_page_size_variant(library):
    lib = KernelLibrary(str(library))

    def chosen(page_size, capability):
        return lib.find_paged("bf16", 128, False, False, page_size, capability).name

    # Hopper: sm_90a's s16 and s64 for pages of 16 and 64, its plan for any
    # S otherwise.
    assert chosen(16, 90) == "flash_decode_paged_sm_90a_bf16_d128_s16"
    assert chosen(64, 90) == "flash_decode_paged_sm_90a_bf16_d128_s64"
    assert chosen(32, 90) == "flash_decode_paged_sm_90a_bf16_d128"
    assert chosen(1, 90) == "flash_decode_paged_sm_90a_bf16_d128"
    # Ampere: sm_80's (here compiled with its own s16).
    assert chosen(16, 80) == "flash_decode_paged_sm_80_bf16_d128_s16"
    assert chosen(256, 80) == "flash_decode_paged_sm_80_bf16_d128"
    # Without sm_90a's s16, Hopper keeps sm_90a's plan for any S rather than
    # sm_80's s16 (the newest arch first, as find).
    (library / "flash_decode_paged_sm_90a_bf16_d128_s16.json").rename(library / "hidden")
    try:
        lib = KernelLibrary(str(library))
        assert chosen(16, 90) == "flash_decode_paged_sm_90a_bf16_d128"
    finally:
        (library / "hidden").rename(library / "flash_decode_paged_sm_90a_bf16_d128_s16.json")
    # No plan for the key: find's message (how to compile one), not the
    # variant's.
    with pytest.raises(ValueError) as plain:
        lib.find("f16", 128, False, False, None, 90, op="paged_attention")
    with pytest.raises(ValueError, match="no launch plan for paged_attention") as e:
        lib.find_paged("f16", 128, False, False, 16, 90)
    assert str(e.value) == str(plain.value)


@pytest.mark.parametrize("value", ["0", "x", "16,-4", ""])
def test_fixed_page_sizes_option_is_checked(tmp_path, capsys, value):
    with pytest.raises(SystemExit):
        fcompile.main(["--out", str(tmp_path), "--arch", "sm_90a", "--fixed-page-sizes", value]
                      + ONE_KEY)
    assert "--fixed-page-sizes takes auto, none or page sizes" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_fixed_page_sizes_none(tmp_path):
    assert fcompile.main(["--out", str(tmp_path), "--arch", "sm_90a", "--fixed-page-sizes",
                          "none"] + ONE_KEY) == 0
    assert [p.name for p in tmp_path.glob("*.json")] == ["flash_decode_paged_sm_90a_bf16_d128.json"]
