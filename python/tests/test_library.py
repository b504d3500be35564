"""Bundle selection by the launch plans' keys (no GPU: libflash_runtime.so's
flash_library_select through ctypes, on plans alone) and the compile step that
decides which lengths get their own bundle (it runs build/bin/flash-opt; a
missing flash-opt is a failure, not a skip)."""

import json
import os

import pytest

from flash_mlir.compiler import compile as fcompile
from flash_mlir.runtime import KernelLibrary


def _write_plan(directory, name, seq_range, causal=True, lse=False, variant="", arch="sm_90a",
                cubins=None, d=64, dtype="bf16", shared=1024):
    """A minimal launch plan: the keys that selection reads, one kernel."""
    cubins = {arch: {"file": name + "." + arch + ".cubin"}} if cubins is None else cubins
    plan = {
        "format": "flash-launch-plan", "version": 1, "name": name, "op": "attention_forward",
        "select": {"arch": arch, "element_type": dtype, "head_dim": d, "value_dim": d,
                   "causal": causal, "lse": lse, "seq_range": list(seq_range),
                   "variant": variant},
        "constants": {"D": d, "Dv": d}, "tensors": [], "scalars": [], "constraints": [],
        "workspaces": [],
        "kernels": [{"name": name, "files": {"ptx": name + ".ptx", "ptx_target": arch,
                                             "cubins": {k: dict(v) for k, v in cubins.items()}},
                     "grid": {"kind": "tiles", "x": ["ceildiv", "Nq", 128], "y": "Hq", "z": "B"},
                     "block": [384, 1, 1], "dynamic_shared_memory": shared, "args": []}]}
    with open(os.path.join(directory, name + ".json"), "w") as f:
        json.dump(plan, f)


BASE = "flash_fwd_sm_90a_bf16_d64_causal"


@pytest.fixture
def library(tmp_path):
    _write_plan(tmp_path, BASE + "_n512", (0, 2047))
    _write_plan(tmp_path, BASE + "_n2048", (2048, None))
    # A schedule variant is never a default, whatever its range.
    _write_plan(tmp_path, BASE + "_bq64_bkv128_w8", (0, None), variant="bq64_bkv128_w8")
    _write_plan(tmp_path, "flash_fwd_sm_90a_bf16_d64", (0, None), causal=False)
    return KernelLibrary(str(tmp_path))


@pytest.mark.parametrize("seq_len, expected", [
    (1, "_n512"), (511, "_n512"), (512, "_n512"), (2047, "_n512"),
    (2048, "_n2048"), (4097, "_n2048"), (1 << 20, "_n2048"), (None, "_n512")])
def test_find_picks_the_range_that_holds_the_length(library, seq_len, expected):
    bundle = library.find("bf16", 64, True, False, seq_len)
    assert bundle.name == BASE + expected


def test_ranges_not_names_decide(tmp_path):
    # Names that say nothing: the plans' seq_range alone selects.
    _write_plan(tmp_path, "b_long", (1000, 4999))
    _write_plan(tmp_path, "a_short", (0, 999))
    lib = KernelLibrary(str(tmp_path))
    assert lib.find("bf16", 64, True, False, 999).name == "a_short"
    assert lib.find("bf16", 64, True, False, 1000).name == "b_long"
    # Past the last range (or in a gap): the one that starts last below the length.
    _write_plan(tmp_path, "c_last", (5000, 6000))
    lib = KernelLibrary(str(tmp_path))
    assert lib.find("bf16", 64, True, False, 5500).name == "c_last"
    assert lib.find("bf16", 64, True, False, 7000).name == "c_last"


def test_defaults_are_sorted_and_exclude_variants(library):
    names = [b.name for b in library.defaults("bf16", 64, True, False)]
    assert names == [BASE + "_n512", BASE + "_n2048"]
    assert len(library.all) == 4
    assert [b.seq_range for b in library.defaults("bf16", 64, True, False)] == [(0, 2047),
                                                                                (2048, None)]


def test_single_bundle_serves_every_length(library):
    for n in (1, 1024, 100000):
        assert library.find("bf16", 64, False, False, n).name == "flash_fwd_sm_90a_bf16_d64"


def test_missing_key_names_what_was_compiled(library):
    with pytest.raises(ValueError, match=r"no launch plan for bf16, D=128.*compiled: .*"
                                         r"bf16/D=64/causal=false/lse=false/sm_90a"):
        library.find("bf16", 128, False, False, 1024)


def test_variants_with_a_range_are_not_defaults(library, tmp_path):
    # compile --persistent/--ping-pong variants give each range's bundle a variant.
    for form in ("persistent", "nonpersistent", "pingpong", "nopingpong"):
        _write_plan(tmp_path, f"{BASE}_{form}_n512", (0, 2047), variant=form)
    lib = KernelLibrary(str(tmp_path))
    assert lib.find("bf16", 64, True, False, 512).name == BASE + "_n512"
    assert [b.name for b in lib.defaults("bf16", 64, True, False)] == [BASE + "_n512",
                                                                      BASE + "_n2048"]
    # Asked for by name, a variant is chosen.
    assert lib.find("bf16", 64, True, False, 512, variant="pingpong").name == BASE + "_pingpong_n512"


def test_only_variants_still_serve_their_key(tmp_path):
    _write_plan(tmp_path, BASE + "_bq64_bkv128_w8", (0, None), variant="bq64_bkv128_w8")
    lib = KernelLibrary(str(tmp_path))
    assert lib.find("bf16", 64, True, False, 4096).name.endswith("_bq64_bkv128_w8")


def test_arch_and_compute_capability(tmp_path):
    # sm_80 kernels assembled for sm_80 and sm_90 next to sm_90a kernels.
    _write_plan(tmp_path, "ampere", (0, None), arch="sm_80",
                cubins={"sm_80": {"file": "a.cubin"}, "sm_90": {"file": "b.cubin"}})
    _write_plan(tmp_path, "hopper", (0, None), arch="sm_90a")
    lib = KernelLibrary(str(tmp_path))
    assert lib.find("bf16", 64, True, False, 100, compute_capability=90).name == "hopper"
    assert lib.find("bf16", 64, True, False, 100, compute_capability=80).name == "ampere"
    assert lib.find("bf16", 64, True, False, 100, compute_capability=90, arch="sm_80").name == \
        "ampere"
    # sm_89: no cubin; the sm_80 PTX is compiled by the driver, sm_90a's cannot be.
    assert lib.find("bf16", 64, True, False, 100, compute_capability=89).name == "ampere"
    with pytest.raises(ValueError, match="on compute capability 75"):
        lib.find("bf16", 64, True, False, 100, compute_capability=75)


A100, H100, SM86 = 166912, 232448, 101376  # opt-in shared memory per block


def _two_budgets(directory, name="sm80", seq_range=(0, None)):
    """The plans of one sm_80 key for an A100 (164,352 bytes) and for an
    H100/H200 (230,400), as compile.py's --shared-memory writes them."""
    cubins = {"sm_80": {"file": "a.cubin"}, "sm_90": {"file": "b.cubin"}}
    _write_plan(directory, name, seq_range, arch="sm_80", cubins=cubins, shared=164352)
    _write_plan(directory, name + "_smem227k", seq_range, arch="sm_80", cubins=cubins,
                shared=230400)


def test_the_plan_taking_the_most_shared_memory_that_fits_is_chosen(tmp_path):
    _two_budgets(tmp_path)
    lib = KernelLibrary(str(tmp_path))
    # An H100/H200 has the memory for both: the larger is preferred.
    assert lib.find("bf16", 64, True, False, 100, compute_capability=90,
                    shared_memory=H100).name == "sm80_smem227k"
    # An A100 cannot launch the larger: it is never chosen there.
    assert lib.find("bf16", 64, True, False, 100, compute_capability=80,
                    shared_memory=A100).name == "sm80"
    # One byte short of the larger plan's.
    assert lib.find("bf16", 64, True, False, 100, compute_capability=90,
                    shared_memory=230399).name == "sm80"
    # Unknown (0): the one taking the least, which runs wherever the other does.
    assert lib.find("bf16", 64, True, False, 100, compute_capability=90).name == "sm80"
    assert lib.find("bf16", 64, True, False, 100).name == "sm80"


def test_no_plan_fits_the_device_shared_memory(tmp_path):
    _two_budgets(tmp_path)
    lib = KernelLibrary(str(tmp_path))
    with pytest.raises(ValueError, match=r"too large for the device's 101376 bytes of shared "
                                         r"memory per block: sm80 \(164352 bytes\), "
                                         r"sm80_smem227k \(230400 bytes\)"):
        lib.find("bf16", 64, True, False, 100, compute_capability=86, shared_memory=SM86)
    only = tmp_path / "only"
    only.mkdir()
    _write_plan(only, "big", (0, None), arch="sm_80", cubins={"sm_90": {"file": "b.cubin"}},
                shared=230400)
    lib = KernelLibrary(str(only))
    assert lib.find("bf16", 64, True, False, 100, compute_capability=90,
                    shared_memory=H100).name == "big"
    with pytest.raises(ValueError, match="too large for the device's 166912 bytes"):
        lib.find("bf16", 64, True, False, 100, compute_capability=80, shared_memory=A100)


def test_shared_memory_decides_within_a_range_not_across(tmp_path):
    # The length's range first; the budget only among the plans of that range.
    _two_budgets(tmp_path, "short", (0, 2047))
    _write_plan(tmp_path, "long", (2048, None), arch="sm_80",
                cubins={"sm_80": {"file": "a.cubin"}, "sm_90": {"file": "b.cubin"}},
                shared=100000)
    lib = KernelLibrary(str(tmp_path))
    assert lib.find("bf16", 64, True, False, 100, compute_capability=90,
                    shared_memory=H100).name == "short_smem227k"
    assert lib.find("bf16", 64, True, False, 100, compute_capability=80,
                    shared_memory=A100).name == "short"
    assert lib.find("bf16", 64, True, False, 4096, compute_capability=90,
                    shared_memory=H100).name == "long"
    # A device too small for both short plans gets the long range's plan,
    # for short calls too (the nearest range that fits, as between ranges).
    assert lib.find("bf16", 64, True, False, 4096, compute_capability=86,
                    shared_memory=SM86).name == "long"
    assert lib.find("bf16", 64, True, False, 100, compute_capability=86,
                    shared_memory=SM86).name == "long"


def test_blackwell_bundles_on_compute_capability_10_only(tmp_path):
    # sm_100a plans (arch-specific cubins and PTX) are chosen on a B200
    # (compute capability 10.0), the newest arch that runs there; elsewhere
    # they are never chosen, and a library of only sm_100a plans refuses
    # with the capability named. (A fake capability: no GPU is needed.)
    _write_plan(tmp_path, "ampere", (0, None), arch="sm_80",
                cubins={"sm_80": {"file": "a.cubin"}})
    _write_plan(tmp_path, "hopper", (0, None), arch="sm_90a")
    _write_plan(tmp_path, "blackwell", (0, None), arch="sm_100a",
                cubins={"sm_100a": {"file": "c.cubin"}})
    lib = KernelLibrary(str(tmp_path))
    assert lib.find("bf16", 64, True, False, 100, compute_capability=100).name == "blackwell"
    assert lib.find("bf16", 64, True, False, 100, compute_capability=90).name == "hopper"
    assert lib.find("bf16", 64, True, False, 100, compute_capability=80).name == "ampere"
    # sm_100a code is arch-specific: sm_103 (B300) gets the portable sm_80 PTX.
    assert lib.find("bf16", 64, True, False, 100, compute_capability=103).name == "ampere"
    only = tmp_path / "only"
    only.mkdir()
    _write_plan(only, "blackwell", (0, None), arch="sm_100a",
                cubins={"sm_100a": {"file": "c.cubin"}})
    lib = KernelLibrary(str(only))
    assert lib.find("bf16", 64, True, False, 100, compute_capability=100).name == "blackwell"
    with pytest.raises(ValueError, match="on compute capability 90"):
        lib.find("bf16", 64, True, False, 100, compute_capability=90)


def test_length_ranges_split_where_the_model_changes():
    spec = fcompile.KernelSpec("bf16", 64, True, False, "sm_90a")
    ranges = fcompile.length_ranges(spec, [512, 1024, 2048])
    assert [n for n, _ in ranges] == [512, 2048]
    assert "block_q = 128, block_kv = 128" in ranges[0][1]
    assert "block_q = 192, block_kv = 128" in ranges[1][1]
    names = [s.name for s in fcompile.model_specs(spec, [512, 1024, 2048])]
    assert names == ["flash_fwd_sm_90a_bf16_d64_causal_n512",
                     "flash_fwd_sm_90a_bf16_d64_causal_n2048"]


@pytest.mark.parametrize("d, causal, starts, tiles, orders", [
    # The model takes 192x128 from 2048; the lowering groups it from 16 Q
    # tiles (3072), a range of its own from 4096.
    (64, True, [512, 2048, 4096], ["block_q = 128, block_kv = 128", "block_q = 192, block_kv = 128",
                                   "block_q = 192, block_kv = 128"],
     ["head", "head", "grouped"]),
    (128, True, [512], ["block_q = 128, block_kv = 128"], ["head"]),
    (128, False, [512, 8192], ["block_q = 128, block_kv = 128", "block_q = 192, block_kv = 80"],
     ["head", "head"]),
    (256, False, [512, 1024], ["block_q = 128, block_kv = 64", "block_q = 128, block_kv = 80"],
     ["head", "head"]),
    # The model keeps 128x64 up to 4096; from 2048 (16 Q tiles) the lowering
    # compiles the grouped order, a range of its own.
    (256, True, [512, 2048, 4096], ["block_q = 128, block_kv = 64", "block_q = 128, block_kv = 64",
                                    "block_q = 128, block_kv = 80"],
     ["head", "grouped", "grouped"]),
])
def test_sm90a_length_ranges(d, causal, starts, tiles, orders):
    # The sm_90a objective's work and softmax terms (TargetModel.cpp) and the
    # lowering's tile order make these choices, each measured faster on the
    # H200 (docs/benchmarks.md).
    spec = fcompile.KernelSpec("bf16", d, causal, False, "sm_90a")
    ranges = fcompile.length_ranges(spec, [512, 1024, 2048, 4096, 8192, 16384])
    assert [n for n, _ in ranges] == starts
    for (_, form), tile, order in zip(ranges, tiles, orders):
        assert tile in form
        assert f"tile_order = {order}," in form


def test_kernel_form_leaves_out_the_name_and_the_shape():
    one = fcompile.kernel_form(fcompile.KernelSpec("bf16", 64, False, False, "sm_90a", seq_len=512))
    other = fcompile.kernel_form(fcompile.KernelSpec("bf16", 64, False, False, "sm_90a", seq_len=700))
    assert one == other
    assert "seq_q" not in one and "flash_fwd" not in one
    assert one.startswith("#flash.schedule<") and "#flash.sm90_form<" in one


def test_kernel_forms_is_one_call_with_the_policy_constants():
    # compile asks flash-opt once per kernel for every length (no scraping of
    # lowered IR); the policies' constants come with the answer.
    report = fcompile.kernel_forms(fcompile.KernelSpec("bf16", 64, True, False, "sm_90a"),
                                   [512, 1024, 2048, 4096])
    (kernel,) = report["kernels"]
    assert [r["min_seq_len"] for r in kernel["ranges"]] == [512, 2048, 4096]
    assert [r["max_seq_len"] for r in kernel["ranges"]] == [2047, 4095, None]
    assert report["constants"]["min_grouped_q_tiles"] == 16


def test_kernel_form_reports_a_failed_lowering():
    # sm_100a has a forward kernel only.
    with pytest.raises(RuntimeError, match="not supported yet"):
        fcompile.kernel_form(fcompile.KernelSpec("bf16", 64, False, False, "sm_100a",
                                                 persistent="yes"))


@pytest.mark.parametrize("arch, d, causal", [("sm_90a", 64, False), ("sm_90a", 128, True),
                                             ("sm_80", 64, True)])
def test_one_bundle_where_the_model_does_not_change(arch, d, causal):
    spec = fcompile.KernelSpec("bf16", d, causal, True, arch)
    specs = fcompile.model_specs(spec, [512, 1024, 2048, 4096, 8192, 16384])
    assert specs == [spec]
    assert specs[0].seq_len == fcompile.REPRESENTATIVE_SEQ_LEN
    assert "_n" not in specs[0].name


def test_source_uses_the_spec_length():
    spec = fcompile.KernelSpec("f16", 128, False, True, "sm_90a", seq_len=333)
    src = spec.source()
    assert "tensor<1x1x333x128xf16>" in src and "tensor<1x1x333xf32>" in src
    assert "block_q = 128" in fcompile.model_schedule(spec)


@pytest.mark.parametrize("option, bad, message", [
    *(("--seq-lens", bad, "--seq-lens must be positive integer lengths")
      for bad in ["", "a", "512,0", "-4"]),
    *(("--schedules", bad, "--schedules entries must be BQxBKVxWARPS or BQxBKVxWARPSxSTAGES")
      for bad in ["128x64", "128x64x4x2x1", "128xax4", "128x64x0", "128x-64x4"])])
def test_bad_option_is_a_usage_error(tmp_path, option, bad, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        fcompile.main(["--out", str(tmp_path), f"{option}={bad}"])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_schedule_with_stages_is_compiled_and_named_with_them(tmp_path):
    # BQxBKVxWARPSxSTAGES: the bundle is a variant named _s<stages>, with those stages.
    assert fcompile.main(["--out", str(tmp_path), "--arch", "sm_90a", "--dtypes", "bf16",
                          "--head-dims", "64", "--causal", "no", "--lse", "no",
                          "--seq-lens", "1024", "--schedules", "128x64x12x3"]) == 0
    path = tmp_path / "flash_fwd_sm_90a_bf16_d64_bq128_bkv64_w12_s3.json"
    plan = json.loads(path.read_text())
    meta = plan["kernels"][0]["description"]
    assert (meta["block_q"], meta["block_kv"], meta["stages"], meta["warps"]) == (128, 64, 3, 12)
    assert plan["select"]["variant"] == "bq128_bkv64_w12_s3"
    lib = KernelLibrary(str(tmp_path))
    assert lib.find("bf16", 64, False, False, 1024).name == "flash_fwd_sm_90a_bf16_d64"
    assert lib.find("bf16", 64, False, False, 1024, variant="bq128_bkv64_w12_s3").name == \
        "flash_fwd_sm_90a_bf16_d64_bq128_bkv64_w12_s3"


def test_compile_gives_each_range_its_lengths(tmp_path):
    # Where the form changes (D=64 causal at 2048 on sm_90a), the plans say
    # which lengths each is for: [0, 2047] and [2048, no end].
    assert fcompile.main(["--out", str(tmp_path), "--arch", "sm_90a", "--dtypes", "bf16",
                          "--head-dims", "64", "--causal", "yes", "--lse", "no",
                          "--seq-lens", "512,2048", "--ops", "forward"]) == 0
    ranges = {p.name: json.loads(p.read_text())["select"]["seq_range"]
              for p in tmp_path.glob("*.json")}
    assert ranges == {"flash_fwd_sm_90a_bf16_d64_causal_n512.json": [0, 2047],
                      "flash_fwd_sm_90a_bf16_d64_causal_n2048.json": [2048, None]}
    lib = KernelLibrary(str(tmp_path))
    assert lib.find("bf16", 64, True, False, 3000).name == "flash_fwd_sm_90a_bf16_d64_causal_n2048"
    assert fcompile.seq_ranges([fcompile.KernelSpec("bf16", 64, True, False, seq_len=n)
                                for n in (512, 2048, 4096)]) == [(0, 2047), (2048, 4095),
                                                                  (4096, None)]


def test_call_checks_shared_by_every_op():
    """The checks attention, paged_attention and attention_backward share
    (no GPU, no torch): the default scale, the refused scales, and a call the
    plan's constraints refuse as the caller's ValueError (a driver error
    stays a FlashRuntimeError)."""
    import math
    from flash_mlir.runtime import capi
    from flash_mlir.runtime import library as lib
    assert lib._checked_scale(None, 64) == 0.125
    assert lib._checked_scale(0.3, 64) == 0.3
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="scale must be finite and positive"):
            lib._checked_scale(bad, 64)
    with pytest.raises(ValueError, match="Hq must be a multiple"):
        with lib._invalid_call_as_value_error():
            raise capi.FlashRuntimeError("Hq must be a multiple of Hkv", capi.ERROR_INVALID)
    with pytest.raises(capi.FlashRuntimeError, match="launch failed"):
        with lib._invalid_call_as_value_error():
            raise capi.FlashRuntimeError("launch failed", capi.ERROR_DRIVER)
