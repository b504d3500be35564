"""Bundle selection by sequence length (no GPU: metadata only) and the
compile step that decides which lengths get their own bundle (it runs
build/bin/flash-opt; a missing flash-opt is a failure, not a skip)."""

import json
import os

import pytest

from flash_mlir import compile as fcompile
from flash_mlir.runtime import KernelLibrary



def _write_bundle(directory, name, seq_len, causal=True, lse=False, block_q=128):
    meta = {"kernel": name, "element_type": "bf16", "head_dim": 64, "causal": causal,
            "writes_lse": lse, "block_q": block_q, "threads": 384,
            "dynamic_shared_memory": 1024, "args": [],
            "compiled_shape": [1, 1, 1, seq_len, seq_len]}
    with open(os.path.join(directory, name + ".json"), "w") as f:
        json.dump(meta, f)


@pytest.fixture
def library(tmp_path):
    base = "flash_fwd_sm_90a_bf16_d64_causal"
    _write_bundle(tmp_path, base + "_n512", 512)
    _write_bundle(tmp_path, base + "_n2048", 2048, block_q=192)
    # A schedule variant compiled for a shorter length is never a default.
    _write_bundle(tmp_path, base + "_bq64_bkv128_w8", 256, block_q=64)
    _write_bundle(tmp_path, "flash_fwd_sm_90a_bf16_d64", 1024, causal=False)
    return KernelLibrary(str(tmp_path))


@pytest.mark.parametrize("seq_len, expected", [
    (1, "_n512"), (511, "_n512"), (512, "_n512"), (2047, "_n512"),
    (2048, "_n2048"), (4097, "_n2048"), (1 << 20, "_n2048"), (None, "_n512")])
def test_find_picks_largest_compiled_length_not_above(library, seq_len, expected):
    bundle = library.find("bf16", 64, True, False, seq_len)
    assert bundle.name == "flash_fwd_sm_90a_bf16_d64_causal" + expected


def test_defaults_are_sorted_and_exclude_variants(library):
    names = [b.name for b in library.defaults("bf16", 64, True, False)]
    assert names == ["flash_fwd_sm_90a_bf16_d64_causal_n512",
                     "flash_fwd_sm_90a_bf16_d64_causal_n2048"]
    assert len(library.all) == 4


def test_single_bundle_serves_every_length(library):
    for n in (1, 1024, 100000):
        assert library.find("bf16", 64, False, False, n).name == "flash_fwd_sm_90a_bf16_d64"


def test_missing_key_names_what_was_compiled(library):
    with pytest.raises(ValueError, match=r"no kernel bundle for bf16, D=128.*compiled: "
                                         r"bf16/D=64/causal=False/lse=False"):
        library.find("bf16", 128, False, False, 1024)


def test_persistent_and_ping_pong_forms_are_variants_with_a_range_suffix(library, tmp_path):
    # compile --persistent/--ping-pong variants name them ..._persistent_n512:
    # they must not become a default of their length.
    for form in ("persistent", "nonpersistent", "pingpong", "nopingpong"):
        _write_bundle(tmp_path, f"flash_fwd_sm_90a_bf16_d64_causal_{form}_n512", 512)
    lib = KernelLibrary(str(tmp_path))
    assert lib.find("bf16", 64, True, False, 512).name == "flash_fwd_sm_90a_bf16_d64_causal_n512"
    assert [b.name for b in lib.defaults("bf16", 64, True, False)] == [
        "flash_fwd_sm_90a_bf16_d64_causal_n512", "flash_fwd_sm_90a_bf16_d64_causal_n2048"]


def test_only_variants_still_serve_their_key(tmp_path):
    _write_bundle(tmp_path, "flash_fwd_sm_90a_bf16_d64_causal_bq64_bkv128_w8", 1024)
    lib = KernelLibrary(str(tmp_path))
    assert lib.find("bf16", 64, True, False, 4096).name.endswith("_bq64_bkv128_w8")


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
        assert f'tile_order = "{order}"' in form


def test_kernel_form_leaves_out_the_name_and_the_shape():
    one = fcompile.kernel_form(fcompile.KernelSpec("bf16", 64, False, False, "sm_90a", seq_len=512))
    other = fcompile.kernel_form(fcompile.KernelSpec("bf16", 64, False, False, "sm_90a", seq_len=700))
    assert one == other
    assert "compiled_shape" not in one and "kernel = " not in one
    assert one.startswith("flash.kernels = [{") and one.endswith("}]")
    assert "tensor_maps = [{" in one  # nested brackets are kept whole


def test_kernel_form_reports_a_failed_lowering():
    with pytest.raises(RuntimeError, match="not supported yet"):
        fcompile.kernel_form(fcompile.KernelSpec("bf16", 64, False, False, "sm_100a"))


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
    meta = json.loads(path.read_text())
    assert (meta["block_q"], meta["block_kv"], meta["stages"], meta["warps"]) == (128, 64, 3, 12)
    assert KernelLibrary(str(tmp_path)).find("bf16", 64, False, False, 1024).name == \
        "flash_fwd_sm_90a_bf16_d64"
