"""The sm_80 backward's launch plans (flash_mlir.compile --ops backward),
read and planned by libflash_runtime.so through its C ABI (no GPU).

One plan holds the three kernels in launch order (preprocess, main, convert;
or preprocess, main, dQ when deterministic) sharing one PTX and cubin, each
with its own ptxas report; its workspaces are sized by formulas of the call.
The plans validate against the schema, are selected by op (and the
deterministic one by its variant), and the runtime plans the grids and
arguments the kernels' contract says (SM80/BackwardKernel.h).
"""

import json
import math
import os
import pathlib

import pytest

from flash_mlir.compiler import compile as fcompile
from flash_mlir.runtime import KernelLibrary, capi

from json_schema import errors

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs" / "launch-plan.schema.json").read_text())

SPECS = [fcompile.BackwardSpec("bf16", 128, True),
         fcompile.BackwardSpec("bf16", 128, True, deterministic=True),
         fcompile.BackwardSpec("f16", 64, False),
         fcompile.BackwardSpec("bf16", 256, True)]


@pytest.fixture(scope="module")
def bundles(tmp_path_factory):
    out = tmp_path_factory.mktemp("backward")
    plans = {}
    for spec in SPECS:
        path = fcompile.compile_backward_bundle(spec, str(out))
        plans[spec.name] = json.loads(pathlib.Path(path).read_text())
    return out, plans


def call(b, hq, hkv, nq, nk, d, dtype="bf16"):
    a = capi.AttentionArgs()
    for i, name in enumerate(("q", "o", "dout", "dq")):
        setattr(a, name, capi.tensor(0x10000 * (i + 1), dtype, (b, hq, nq, d)))
    for i, name in enumerate(("k", "v", "dk", "dv")):
        setattr(a, name, capi.tensor(0x100000 * (i + 1), dtype, (b, hkv, nk, d)))
    a.lse = capi.tensor(0x1000000, "f32", (b, hq, nq))
    return a


def test_plans_validate_and_hold_three_kernels(bundles):
    for name, plan in bundles[1].items():
        assert not errors(plan, SCHEMA), errors(plan, SCHEMA)
        assert plan["op"] == "attention_backward"
        kernels = [k["name"] for k in plan["kernels"]]
        last = "_dq" if "deterministic" in name else "_convert"
        assert kernels == [name + "_preprocess", name, name + last]
        # One PTX and cubin, each kernel with its own ptxas report, no spills.
        for k in plan["kernels"]:
            assert k["files"]["ptx"] == name + ".ptx"
            cubin = k["files"]["cubins"]["sm_80"]
            assert cubin["file"] == name + ".sm_80.cubin"
            assert cubin["spill_stores"] == 0 and cubin["spill_loads"] == 0
        tensors = {t["name"]: t for t in plan["tensors"]}
        assert [n for n, t in tensors.items() if t["output"]] == ["dq", "dk", "dv"]
        assert tensors["lse"]["element_type"] == "f32" and tensors["lse"]["required"]


def test_selection_by_op_and_variant(bundles):
    lib = KernelLibrary(str(bundles[0]))
    chosen = lib.find("bf16", 128, True, False, 4096, op="attention_backward")
    assert chosen.name == "flash_bwd_sm_80_bf16_d128_causal" and chosen.variant == ""
    chosen = lib.find("bf16", 128, True, False, 4096, op="attention_backward",
                      variant="deterministic")
    assert chosen.name == "flash_bwd_sm_80_bf16_d128_causal_deterministic"
    assert chosen.kernel_count == 3
    with pytest.raises(ValueError, match="no launch plan for bf16, D=128"):
        lib.find("bf16", 128, True, False, 4096)  # the forward: none compiled here


def test_grids_arguments_and_workspaces(bundles):
    lib = KernelLibrary(str(bundles[0]))
    plan = lib.find("bf16", 128, True, False, 1000, op="attention_backward")
    b, hq, hkv, nq, nk, d = 2, 8, 2, 1000, 777, 128
    a = call(b, hq, hkv, nq, nk, d)
    infos = [plan.launch_info(a, 132, k) for k in range(3)]
    # preprocess and convert: 128 rows a block; main: one block per 128 keys
    # of a kv-head, the K/V tile on y (causal: a batch's longest blocks first).
    assert [list(i.grid) for i in infos] == [[8, hq, b], [hkv, 7, b], [8, hq, b]]
    assert [i.block[0] for i in infos] == [128, 256, 128]
    assert infos[1].shared_bytes == 2 * (2 * 128 * d + 4 * 64 * d + 128 * 64) + 4 * 4 * 64
    names = [[x.name.decode() for x in i.args[:i.num_args]] for i in infos]
    assert names[0] == ["o", "dout", "lse", "lse_log2", "delta", "dq_accum", "B", "Hq", "Nq",
                        "o_stride0", "o_stride1", "o_stride2",
                        "dout_stride0", "dout_stride1", "dout_stride2"]
    assert names[1] == ["q", "k", "v", "dout", "lse_log2", "delta", "dq_accum", "dk", "dv",
                        "B", "Hq", "Hkv", "Nq", "Nk", "scale"]
    assert names[2] == ["dq_accum", "dq", "B", "Hq", "Nq", "scale",
                        "dq_stride0", "dq_stride1", "dq_stride2"]
    # Contiguous tensors: their row-major strides in elements.
    pre = {x.name.decode(): x.int_value for x in infos[0].args[:infos[0].num_args]}
    assert [pre[f"o_stride{i}"] for i in range(3)] == [hq * nq * d, nq * d, d]
    assert [pre[f"dout_stride{i}"] for i in range(3)] == [hq * nq * d, nq * d, d]
    conv = {x.name.decode(): x.int_value for x in infos[2].args[:infos[2].num_args]}
    assert [conv[f"dq_stride{i}"] for i in range(3)] == [hq * nq * d, nq * d, d]
    main = {x.name.decode(): x for x in infos[1].args[:infos[1].num_args]}
    assert main["dk"].pointer == 0x300000 and main["q"].pointer == 0x10000
    assert main["Nk"].int_value == nk and main["Hkv"].int_value == hkv
    assert math.isclose(main["scale"].float_value, 1 / math.sqrt(d), rel_tol=1e-6)
    # The same workspace in every kernel that takes it; sizes per call.
    assert main["lse_log2"].workspace == 0 and main["dq_accum"].workspace == 2
    spec = plan.plan["workspaces"]
    assert [w["name"] for w in spec] == ["lse_log2", "delta", "dq_accum"]
    # dQ in f32 over the padded rows (fragment order, docs/gpu.md).
    assert spec[2]["bytes"] == ["mul", "B", "Hq", ["ceildiv", "Nq", 128], 128, d, 4]
    assert spec[0]["bytes"] == ["mul", "B", "Hq", ["ceildiv", "Nq", 128], 128, 4]
    assert all(w["scope"] == "stream" and w["init"] == "none" for w in spec)


def test_non_causal_grid_and_d64_tiles(bundles):
    lib = KernelLibrary(str(bundles[0]))
    plan = lib.find("f16", 64, False, False, 1000, op="attention_backward")
    b, hq, hkv, nq, nk, d = 2, 8, 2, 1000, 777, 64
    info = plan.launch_info(call(b, hq, hkv, nq, nk, d, "f16"), 132, 1)
    # Not causal: a head's blocks together (the K/V tile on x); D=64: the
    # model's 128x128 tiles, Q visited 128 rows at a time.
    assert list(info.grid) == [7, hkv, b]
    assert info.shared_bytes == 2 * (2 * 128 * d + 4 * 128 * d + 128 * 128) + 4 * 4 * 128


def test_deterministic_plan_has_no_accumulator(bundles):
    lib = KernelLibrary(str(bundles[0]))
    plan = lib.find("bf16", 128, True, False, 1000, op="attention_backward",
                    variant="deterministic")
    assert [w["name"] for w in plan.plan["workspaces"]] == ["lse_log2", "delta"]
    b, hq, hkv, nq, nk, d = 1, 4, 4, 333, 777, 128
    infos = [plan.launch_info(call(b, hq, hkv, nq, nk, d), 132, k) for k in range(3)]
    # The dQ kernel: one block per 64 query rows of a q-head.
    assert list(infos[2].grid) == [6, hq, b]
    names = [x.name.decode() for x in infos[2].args[:infos[2].num_args]]
    assert names == ["q", "k", "v", "dout", "lse_log2", "delta", "dq", "B", "Hq", "Hkv",
                     "Nq", "Nk", "scale"]


def test_calls_the_plan_does_not_take_are_refused(bundles):
    lib = KernelLibrary(str(bundles[0]))
    plan = lib.find("bf16", 128, True, False, 1000, op="attention_backward")
    a = call(1, 6, 4, 100, 100, 128)      # 6 q-heads over 4 kv-heads
    with pytest.raises(capi.FlashRuntimeError, match="multiple of key/value heads"):
        plan.launch_info(a, 132, 1)
    a = call(1, 4, 2, 100, 100, 128)
    a.dv = capi.tensor(0, "bf16", (1, 2, 100, 128))   # an output missing
    with pytest.raises(capi.FlashRuntimeError, match="dv"):
        plan.launch_info(a, 132, 1)


def bnhd(base, b, h, n, d, dtype="bf16"):
    """A B×N×H×D buffer viewed as B×H×N×D (transpose(1, 2))."""
    return capi.tensor(base, dtype, (b, h, n, d), (n * h * d, d, h * d, 1))


def test_strided_o_and_dq_through_the_stride_arguments(bundles):
    """The preprocess reads O and dO, the convert writes dQ, with the strides
    the plan passes them (o_stride0..2, ...): O and dQ, which no other kernel
    addresses, may be strided on sm_80; dO, which the main kernel reads from
    the shapes, and q, k, v, dK, dV must be contiguous."""
    lib = KernelLibrary(str(bundles[0]))
    plan = lib.find("bf16", 128, True, False, 1000, op="attention_backward")
    assert plan.strided_tensors == {"o", "dq"}
    assert plan.pointer_strided_tensors == {"o", "dq"}
    b, hq, hkv, n, d = 4, 8, 2, 300, 128
    a = call(b, hq, hkv, n, n, d)
    a.o, a.dq = bnhd(0x10000, b, hq, n, d), bnhd(0x40000, b, hq, n, d)
    infos = [plan.launch_info(a, 132, k) for k in range(3)]
    pre = {x.name.decode(): x.int_value for x in infos[0].args[:infos[0].num_args]}
    assert [pre[f"o_stride{i}"] for i in range(3)] == [n * hq * d, d, hq * d]
    assert [pre[f"dout_stride{i}"] for i in range(3)] == [hq * n * d, n * d, d]
    conv = {x.name.decode(): x.int_value for x in infos[2].args[:infos[2].num_args]}
    assert [conv[f"dq_stride{i}"] for i in range(3)] == [n * hq * d, d, hq * d]
    a.dout = bnhd(0x30000, b, hq, n, d)
    with pytest.raises(capi.FlashRuntimeError, match="'dout' must be contiguous"):
        plan.launch_info(a, 132, 0)
    # A stride that is not a multiple of 16 bytes, a misaligned address, a
    # view spanning 2^31 elements (the kernels' i32 offsets): refused.
    a = call(b, hq, hkv, n, n, d)
    a.o = capi.tensor(0x10000, "bf16", (b, hq, n, d), (hq * n * 132, n * 132, 132, 1))
    with pytest.raises(capi.FlashRuntimeError, match="not a multiple of 16"):
        plan.launch_info(a, 132, 0)
    a.o = bnhd(0x10008, b, hq, n, d)
    with pytest.raises(capi.FlashRuntimeError, match="not 16-byte aligned"):
        plan.launch_info(a, 132, 0)
    a.o = capi.tensor(0x10000, "bf16", (b, hq, n, d), (2 ** 30, d, hq * d, 1))
    with pytest.raises(capi.FlashRuntimeError, match="not supported yet: tensor 'o'.*2\\^31"):
        plan.launch_info(a, 132, 0)
    # The deterministic plan's dQ kernel addresses dQ from the shapes.
    det = lib.find("bf16", 128, True, False, 1000, op="attention_backward",
                   variant="deterministic")
    assert det.strided_tensors == {"o"}


# The sm_90a backward (SM90/BackwardKernel.h): the same plan format, the
# shared preprocess and convert around a main kernel that takes tensor maps.
SM90_SPECS = [fcompile.BackwardSpec("bf16", 128, True, arch="sm_90a"),
              fcompile.BackwardSpec("f16", 64, False, arch="sm_90a"),
              fcompile.BackwardSpec("bf16", 128, True, deterministic=True, arch="sm_90a")]


@pytest.fixture(scope="module")
def sm90_bundles(tmp_path_factory):
    out = tmp_path_factory.mktemp("backward_sm90a")
    plans = {}
    for spec in SM90_SPECS:
        path = fcompile.compile_backward_bundle(spec, str(out))
        plans[spec.name] = json.loads(pathlib.Path(path).read_text())
    return out, plans


def test_sm90a_plans_hold_the_shared_kernels_around_a_tensor_map_main(sm90_bundles):
    for name, plan in sm90_bundles[1].items():
        assert not errors(plan, SCHEMA), errors(plan, SCHEMA)
        assert plan["op"] == "attention_backward" and plan["select"]["arch"] == "sm_90a"
        deterministic = name.endswith("_deterministic")
        assert plan["select"]["variant"] == ("deterministic" if deterministic else "")
        kernels = plan["kernels"]
        assert [k["name"] for k in kernels] == [name + "_preprocess", name, name + "_convert"]
        for k in kernels:
            cubin = k["files"]["cubins"]["sm_90a"]
            assert cubin["spill_stores"] == 0 and cubin["spill_loads"] == 0
        main = kernels[1]
        assert main["block"] == [384, 1, 1]
        # The model's tiles: Q tiles of 128 rows at D=64 (64 at D=128, and for
        # the deterministic plan), 128 keys.
        assert (main["description"]["block_q"], main["description"]["block_kv"]) == (
            (128, 128) if "_d64" in name and not deterministic else (64, 128))
        maps = [a["tensor"] for a in main["args"] if a["type"] == "tensormap"]
        assert maps == ["q", "k", "v", "dout", "dk", "dv"]
        # Deterministic: the same kernels with the dQ semaphores, which the
        # preprocess zeroes and the main kernel orders the reductions with.
        semaphore = ["dq_semaphore"] if deterministic else []
        # Not deterministic: the per-(batch, q-head) counters of the convert's
        # overlap (kBackwardConvertOverlapsMain), zeroed by the preprocess,
        # counted by the main kernel, waited on by the convert (with Nk).
        done = [] if deterministic else ["dq_done"]
        assert [a["name"] for a in main["args"] if a["type"] != "tensormap"] == [
            "lse_log2", "delta", "dq_accum", *done, *semaphore, "B", "Hq", "Hkv", "Nq", "Nk",
            "scale"]
        assert [a["name"] for a in kernels[0]["args"]] == [
            "o", "dout", "lse", "lse_log2", "delta", "dq_accum", *semaphore, "B", "Hq", "Nq",
            "o_stride0", "o_stride1", "o_stride2", "dout_stride0", "dout_stride1",
            "dout_stride2", *done]
        assert [a["value"] for a in kernels[2]["args"] if "stride" in a["name"]] == [
            "dq_stride0", "dq_stride1", "dq_stride2"]
        assert [a["name"] for a in kernels[2]["args"]][9:] == (
            [] if deterministic else ["dq_done", "Nk"])
        assert [w["name"] for w in plan["workspaces"]] == [
            "lse_log2", "delta", "dq_accum", *done, *semaphore]
        if not deterministic:
            assert plan["workspaces"][3]["bytes"] == ["mul", "B", "Hq", 4]
        if deterministic:
            # One i32 per Q tile of 64 rows: 2 per 128 rows.
            assert plan["workspaces"][3]["bytes"] == [
                "mul", "B", "Hq", ["ceildiv", "Nq", 128], 2, 4]


def _entries(ptx: str) -> dict:
    """The PTX text of each .entry, by name."""
    parts = ptx.split(".entry ")[1:]
    return {p.split("(", 1)[0].strip(): p for p in parts}


def test_sm90a_plans_chain_their_kernels_with_programmatic_dependent_launch(sm90_bundles):
    """sm_90a (SM90/BackwardKernel.h): the main kernel is launched behind the
    preprocess with programmatic dependent launch and waits (griddepcontrol
    .wait) before it reads the preprocess's results; the preprocess lets it
    start (launch_dependents). Both plans."""
    for name, plan in sm90_bundles[1].items():
        kernels = plan["kernels"]
        deterministic = name.endswith("_deterministic")
        # The convert behind the main kernel too where it overlaps the main
        # kernel's last wave (the atomic plans at D = 64 and 128).
        assert [k.get("programmatic_dependent_launch", False) for k in kernels] == [
            False, True, not deterministic]
        ptx = _entries((sm90_bundles[0] / kernels[0]["files"]["ptx"]).read_text())
        pre, main, conv = ptx[name + "_preprocess"], ptx[name], ptx[name + "_convert"]
        assert "griddepcontrol.launch_dependents;" in pre and "griddepcontrol.wait" not in pre
        # The producer's first thread, the dQ writer and the consumers.
        assert main.count("griddepcontrol.wait;") >= 3
        # The dQ writer lets the convert start (once past its own wait); the
        # convert waits per head, its last block for the main grid.
        assert main.count("griddepcontrol.launch_dependents;") == (0 if deterministic else 1)
        assert ("ld.acquire.gpu" in conv) == (not deterministic)
        assert conv.count("griddepcontrol.wait;") == (0 if deterministic else 1)


def test_sm80_plans_launch_in_stream_order(bundles):
    """sm_80 (no programmatic dependent launch): no plan field, no
    griddepcontrol in any kernel."""
    for name, plan in bundles[1].items():
        assert not any("programmatic_dependent_launch" in k for k in plan["kernels"])
        assert "griddepcontrol" not in (bundles[0] / (name + ".ptx")).read_text()


def test_sm90a_main_kernel_launch(sm90_bundles):
    lib = KernelLibrary(str(sm90_bundles[0]))
    plan = lib.find("bf16", 128, True, False, 1000, op="attention_backward")
    assert plan.arch == "sm_90a"
    b, hq, hkv, nq, nk, d = 2, 8, 2, 1000, 777, 128
    info = plan.launch_info(call(b, hq, hkv, nq, nk, d), 132, 1)
    # One block per 128 keys of a kv-head; a producer and two consumer
    # warpgroups.
    assert list(info.grid) == [7, hkv, b] and info.block[0] == 384
    args = {x.name.decode(): x for x in info.args[:info.num_args]}
    # Maps over (D, N, B·H) of each tensor: Q and dO in 64-row boxes, K and V
    # in 128, dK and dV stored in 64.
    for name, rows, heads, box in (("q", nq, hq, 64), ("dout", nq, hq, 64), ("k", nk, hkv, 128),
                                   ("v", nk, hkv, 128), ("dk", nk, hkv, 64), ("dv", nk, hkv, 64)):
        a = args[name]
        assert a.map_rank == 3
        assert list(a.map_dims[:3]) == [d, rows, b * heads], name
        assert list(a.map_box[:3]) == [64, box, 1], name
    assert args["dq_accum"].workspace == 2 and args["Nk"].int_value == nk


def test_backward_selection_prefers_sm90a_on_hopper(bundles, sm90_bundles, tmp_path):
    for directory in (bundles[0], sm90_bundles[0]):
        for f in pathlib.Path(directory).iterdir():
            if f.suffix in (".json", ".ptx") or f.name.endswith(".cubin"):
                (tmp_path / f.name).write_bytes(f.read_bytes())
    lib = KernelLibrary(str(tmp_path))
    on_hopper = lib.find_backward("bf16", 128, True, 4096, compute_capability=90)
    assert on_hopper.name == "flash_bwd_sm_90a_bf16_d128_causal"
    on_ampere = lib.find_backward("bf16", 128, True, 4096, compute_capability=80)
    assert on_ampere.name == "flash_bwd_sm_80_bf16_d128_causal"
    # deterministic: sm_90a's deterministic plan on Hopper, sm_80's on Ampere;
    # never a plan whose dQ sums are order-dependent.
    chosen = lib.find_backward("bf16", 128, True, 4096, compute_capability=90,
                               deterministic=True)
    assert chosen.name == "flash_bwd_sm_90a_bf16_d128_causal_deterministic"
    chosen = lib.find_backward("bf16", 128, True, 4096, compute_capability=80,
                               deterministic=True)
    assert chosen.name == "flash_bwd_sm_80_bf16_d128_causal_deterministic"


def test_d256_plan_shares_16_keys_between_two_warps(bundles):
    # sm_80 at D=256 (SM80/BackwardKernel.cpp): two warps per 16 K/V rows,
    # one computing their Sᵀ, the other dPᵀ (Pᵀ passed in f32 through an
    # 16 KB tile); 8 warps own 64 keys, Q tiles of 64 rows with one stage of
    # Q and dO (the target model's choice); shared memory within an A100's
    # 163 KB.
    plan = bundles[1]["flash_bwd_sm_80_bf16_d256_causal"]
    main = plan["kernels"][1]
    assert main["block"][0] == 256
    assert (main["description"]["block_kv"], main["description"]["block_q"],
            main["description"]["stages"]) == (64, 64, 1)
    assert main["description"]["dynamic_shared_memory"] == 164352 <= 163 * 1024
    lib = KernelLibrary(str(bundles[0]))
    chosen = lib.find_backward("bf16", 256, True, 4096, compute_capability=80)
    assert chosen.name == "flash_bwd_sm_80_bf16_d256_causal"
    b, hq, hkv, nq, nk = 2, 8, 2, 1000, 777
    infos = [chosen.launch_info(call(b, hq, hkv, nq, nk, 256), 108, k) for k in range(3)]
    assert list(infos[1].grid) == [hkv, math.ceil(nk / 64), b]


def test_d256_plan_for_devices_with_227kb(bundles, tmp_path):
    # compile.py's --shared-memory (auto on sm_80: the H100/H200's 227 KB,
    # which the sm_80 kernels meet there through their sm_90 cubin): at
    # D = 256 the model then takes two stages of the 64-row Q tiles, a
    # second plan of the key (230,400 bytes, more than an A100 has); the
    # runtime chooses it only where the device has the memory.
    spec = fcompile.BackwardSpec("bf16", 256, True)
    for f in pathlib.Path(bundles[0]).iterdir():
        if f.name.startswith(spec.name + ".") or f.name.startswith(spec.name + "_"):
            if "deterministic" not in f.name:
                (tmp_path / f.name).write_bytes(f.read_bytes())
    kept = fcompile.compile_backward_budgets(spec, [fcompile.SHARED_MEMORY_H100], str(tmp_path))
    assert [os.path.basename(p) for p in kept] == [spec.name + "_smem227k.json"]
    plan = json.loads(pathlib.Path(kept[0]).read_text())
    assert not errors(plan, SCHEMA), errors(plan, SCHEMA)
    assert plan["select"]["variant"] == ""  # the key's default form, chosen by budget
    main = plan["kernels"][1]
    assert (main["description"]["block_kv"], main["description"]["block_q"],
            main["description"]["stages"]) == (64, 64, 2)
    assert main["dynamic_shared_memory"] == 230400 > 163 * 1024
    lib = KernelLibrary(str(tmp_path))
    assert lib.find_backward("bf16", 256, True, 4096, compute_capability=90,
                             shared_memory=232448).name == spec.name + "_smem227k"
    assert lib.find_backward("bf16", 256, True, 4096, compute_capability=80,
                             shared_memory=166912).name == spec.name
    with pytest.raises(ValueError, match="too large for the device's 101376 bytes"):
        lib.find_backward("bf16", 256, True, 4096, compute_capability=86, shared_memory=101376)
    # D = 128 (registers, not shared memory, bound its tiles) and the
    # deterministic plan (every field fixed) get no second plan; nothing is
    # compiled for them.
    assert fcompile.compile_backward_budgets(fcompile.BackwardSpec("bf16", 128, True),
                                             [fcompile.SHARED_MEMORY_H100], str(tmp_path)) == []
    assert fcompile.compile_backward_budgets(
        fcompile.BackwardSpec("bf16", 256, True, deterministic=True),
        [fcompile.SHARED_MEMORY_H100], str(tmp_path)) == []
    assert not list(tmp_path.glob("*d128*"))


def test_d256_falls_back_to_sm80_on_hopper(bundles, sm90_bundles, tmp_path):
    # No sm_90a plan takes D=256: on Hopper the runtime picks sm_80's (the
    # newest arch that runs for the key); where an sm_90a plan of the key
    # exists it is preferred (test_backward_selection_prefers_sm90a_on_hopper).
    for directory in (bundles[0], sm90_bundles[0]):
        for f in pathlib.Path(directory).iterdir():
            if f.suffix in (".json", ".ptx") or f.name.endswith(".cubin"):
                (tmp_path / f.name).write_bytes(f.read_bytes())
    lib = KernelLibrary(str(tmp_path))
    assert lib.find_backward("bf16", 256, True, 8192, compute_capability=90).name == \
        "flash_bwd_sm_80_bf16_d256_causal"
    assert lib.find_backward("bf16", 128, True, 8192, compute_capability=90).name == \
        "flash_bwd_sm_90a_bf16_d128_causal"


def test_deterministic_without_a_deterministic_plan_is_an_error(sm90_bundles):
    lib = KernelLibrary(str(sm90_bundles[0]))
    with pytest.raises(ValueError, match="deterministic=True: no deterministic backward plan "
                                         "for f16, D=64, causal=False") as e:
        lib.find_backward("f16", 64, False, 4096, compute_capability=90, deterministic=True)
    assert "flash_bwd_sm_90a_f16_d64" in str(e.value)
    assert "--deterministic yes" in str(e.value)


def test_sm90a_deterministic_main_kernel_launch(sm90_bundles):
    lib = KernelLibrary(str(sm90_bundles[0]))
    plan = lib.find("bf16", 128, True, False, 1000, op="attention_backward",
                    variant="deterministic")
    assert plan.name == "flash_bwd_sm_90a_bf16_d128_causal_deterministic"
    b, hq, hkv, nq, nk, d = 2, 8, 2, 1000, 777, 128
    infos = [plan.launch_info(call(b, hq, hkv, nq, nk, d), 132, k) for k in range(3)]
    assert [list(i.grid) for i in infos] == [[8, hq, b], [7, hkv, b], [8, hq, b]]
    pre = {x.name.decode(): x for x in infos[0].args[:infos[0].num_args]}
    main = {x.name.decode(): x for x in infos[1].args[:infos[1].num_args]}
    # The preprocess zeroes the semaphores the main kernel waits on: one
    # workspace, the fourth.
    assert pre["dq_semaphore"].workspace == 3 and main["dq_semaphore"].workspace == 3
    assert main["dq_accum"].workspace == 2


def test_compile_ships_the_sm90a_d256_backward(tmp_path, capsys):
    # D=256 on sm_90a: the model's 64x64 tile (two consumer warpgroups sharing
    # the 64 K/V rows, splitting the columns), both plans, no spills.
    assert fcompile.main(["--ops", "backward", "--arch", "sm_90a", "--out", str(tmp_path),
                          "--dtypes", "bf16", "--head-dims", "256", "--causal", "yes",
                          "--deterministic", "both"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == f"2 bundles in {tmp_path}"
    lib = KernelLibrary(str(tmp_path))
    plan = lib.find_backward("bf16", 256, True, 4096, compute_capability=90)
    assert plan.name == "flash_bwd_sm_90a_bf16_d256_causal"
    det = lib.find_backward("bf16", 256, True, 4096, compute_capability=90, deterministic=True)
    assert det.name == "flash_bwd_sm_90a_bf16_d256_causal_deterministic"
    for name in (plan.name, det.name):
        text = json.loads((tmp_path / (name + ".json")).read_text())
        assert not errors(text, SCHEMA), errors(text, SCHEMA)
        main = next(k for k in text["kernels"] if k["name"] == name)
        assert main["description"]["block_kv"] == 64 and main["description"]["block_q"] == 64
        for k in text["kernels"]:
            cubin = k["files"]["cubins"]["sm_90a"]
            assert cubin["spill_stores"] == 0 and cubin["spill_loads"] == 0, k["name"]
    b, hq, hkv, nq, nk, d = 2, 8, 2, 1000, 777, 256
    info = plan.launch_info(call(b, hq, hkv, nq, nk, d), 132, 1)
    # One block per 64 keys of a kv-head; a producer and two consumer warpgroups.
    assert list(info.grid) == [13, hkv, b] and info.block[0] == 384
    args = {x.name.decode(): x for x in info.args[:info.num_args]}
    for name, box in (("q", 64), ("dout", 64), ("k", 64), ("v", 64), ("dk", 64), ("dv", 64)):
        assert list(args[name].map_box[:3]) == [64, box, 1], name



def test_compile_sm90a_backward_d256_is_split_by_roles(tmp_path, capsys):
    # The D = 256 main kernel that compile ships splits each step by roles
    # (nineteenth session): dV and dK over all 256 columns (m64n256 GEMMs, no
    # m64n128), P^T handed over through 16 KB of shared memory (231,512 bytes
    # in all), and no kernel of the plan spills.
    assert fcompile.main(["--ops", "backward", "--arch", "sm_90a", "--dtypes", "bf16",
                          "--head-dims", "256", "--causal", "yes", "--deterministic", "no",
                          "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    name = "flash_bwd_sm_90a_bf16_d256_causal"
    ptx = (tmp_path / (name + ".ptx")).read_text()
    assert "m64n256k16" in ptx and "m64n128k16" not in ptx
    text = json.loads((tmp_path / (name + ".json")).read_text())
    main = next(k for k in text["kernels"] if k["name"] == name)
    assert main["dynamic_shared_memory"] == 231512
    for k in text["kernels"]:
        cubin = k["files"]["cubins"]["sm_90a"]
        assert cubin["spill_stores"] == 0 and cubin["spill_loads"] == 0, k["name"]
