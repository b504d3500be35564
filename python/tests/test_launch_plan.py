"""Launch plans written by flash-opt, read and planned by libflash_runtime.so
through its C ABI (ctypes; no GPU: the CUDA driver is never loaded).

Three kernels are compiled (flash_mlir.compiler.compile_bundle, which runs
flash-opt --flash-to-ptx with bundle-dir and ptxas): sm_80, sm_90a with one
tile per block (D=256), and sm_90a with a persistent grid (D=64). Their plans
must validate against docs/launch-plan.schema.json, and the launches the
runtime plans must be what the kernels' contract says (docs/gpu.md): grids,
argument order and types, tensor maps rank 3 over (D, N, B·H) with 128B
swizzle and the boxes of the schedule, the tile counter, the default scale.
"""

import ctypes
import json
import math
import os
import pathlib

import pytest

from flash_mlir.compiler import compile as fcompile
from flash_mlir.runtime import capi

from json_schema import errors

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs" / "launch-plan.schema.json").read_text())

SPECS = {
    "sm80": fcompile.KernelSpec("bf16", 128, True, True, "sm_80"),
    "sm90": fcompile.KernelSpec("f16", 256, False, False, "sm_90a"),
    "sm90p": fcompile.KernelSpec("bf16", 64, False, True, "sm_90a"),
}


@pytest.fixture(scope="module")
def bundles(tmp_path_factory):
    out = tmp_path_factory.mktemp("bundles")
    paths = {key: fcompile.compile_bundle(spec, str(out), seq_range=(0, None))
             for key, spec in SPECS.items()}
    return out, {key: json.loads(pathlib.Path(p).read_text()) for key, p in paths.items()}


@pytest.fixture(scope="module")
def library(bundles):
    c = capi.lib()
    handle = ctypes.c_void_p()
    capi.check(c.flash_library_open(str(bundles[0]).encode(), ctypes.byref(handle)))
    plans = {}
    for i in range(c.flash_library_plan_count(handle)):
        plan = c.flash_library_plan(handle, i)
        info = capi.PlanInfo()
        capi.check(c.flash_plan_get_info(plan, ctypes.byref(info)))
        plans[info.name.decode()] = plan
    yield plans
    c.flash_library_close(handle)


def args_for(dtype, b, hq, hkv, nq, nk, d, lse=True, scale=0.0):
    a = capi.AttentionArgs()
    a.q = capi.tensor(0x10000, dtype, (b, hq, nq, d))
    a.k = capi.tensor(0x20000, dtype, (b, hkv, nk, d))
    a.v = capi.tensor(0x30000, dtype, (b, hkv, nk, d))
    a.o = capi.tensor(0x40000, dtype, (b, hq, nq, d))
    if lse:
        a.lse = capi.tensor(0x50000, "f32", (b, hq, nq))
    a.scale = scale
    return a


def launch_info(plan, args, sm_count=132):
    info = capi.LaunchInfo()
    capi.check(capi.lib().flash_plan_launch_info(plan, 0, ctypes.byref(args), sm_count,
                                                  ctypes.byref(info)))
    return info


def arg_list(info):
    return [info.args[i] for i in range(info.num_args)]


# --- the schema -------------------------------------------------------------

def test_plans_written_by_flash_opt_validate(bundles):
    for key, plan in bundles[1].items():
        assert errors(plan, SCHEMA) == [], key


def test_schema_rejects_what_is_not_a_plan(bundles):
    plan = bundles[1]["sm90p"]
    broken = json.loads(json.dumps(plan))
    broken["kernels"][0]["grid"]["x"] = ["pow", "Nq", 2]
    assert errors(broken, SCHEMA)
    broken = json.loads(json.dumps(plan))
    del broken["select"]["seq_range"]
    assert errors(broken, SCHEMA)
    broken = json.loads(json.dumps(plan))
    broken["kernels"][0]["args"][0].pop("tensor_map")
    assert errors(broken, SCHEMA)


def test_plan_keys_come_from_the_compile_step(bundles):
    select = bundles[1]["sm90p"]["select"]
    assert select == {"arch": "sm_90a", "element_type": "bf16", "head_dim": 64, "value_dim": 64,
                      "causal": False, "lse": True, "seq_range": [0, None], "variant": ""}
    kernel = bundles[1]["sm90p"]["kernels"][0]
    assert kernel["files"]["ptx"] == SPECS["sm90p"].name + ".ptx"
    assert kernel["files"]["cubins"]["sm_90a"]["spill_stores"] == 0
    # The lowering's description is kept for people and tools.
    assert kernel["description"]["persistent"] is True


def test_seq_range_and_variant_options(tmp_path):
    src = tmp_path / "a.mlir"
    src.write_text(SPECS["sm80"].source())
    import subprocess
    out = tmp_path / "b"
    proc = subprocess.run([fcompile.DEFAULT_FLASH_OPT, str(src),
                           f"--flash-to-ptx=arch=sm_80 bundle-dir={out} seq-range=512:2047 "
                           "variant=trial", "-o", os.devnull], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    plan = json.loads((out / (SPECS["sm80"].name + ".json")).read_text())
    assert plan["select"]["seq_range"] == [512, 2047] and plan["select"]["variant"] == "trial"
    proc = subprocess.run([fcompile.DEFAULT_FLASH_OPT, str(src),
                           f"--flash-to-ptx=arch=sm_80 bundle-dir={out} seq-range=9:3",
                           "-o", os.devnull], capture_output=True, text=True)
    assert proc.returncode != 0 and "seq-range must be MIN:MAX or MIN:" in proc.stderr


# --- the planned launches ------------------------------------------------------

def test_sm80_grid_and_arguments(library, bundles):
    plan = library[SPECS["sm80"].name]
    desc = bundles[1]["sm80"]["kernels"][0]["description"]
    info = launch_info(plan, args_for("bf16", 2, 8, 2, 1000, 1200, 128))
    assert list(info.grid) == [math.ceil(1000 / desc["block_q"]), 8, 2]
    assert list(info.block) == [desc["threads"], 1, 1]
    assert info.shared_bytes == desc["dynamic_shared_memory"] and not info.persistent
    args = arg_list(info)
    assert [a.name.decode() for a in args] == ["q", "k", "v", "o", "lse", "B", "Hq", "Hkv",
                                                "Nq", "Nk", "scale"]
    assert [a.kind for a in args] == [capi.ARG_PTR] * 5 + [capi.ARG_I32] * 5 + [capi.ARG_F32]
    assert [a.offset for a in args] == [0, 8, 16, 24, 32, 40, 44, 48, 52, 56, 60]
    assert [a.pointer for a in args[:5]] == [0x10000, 0x20000, 0x30000, 0x40000, 0x50000]
    assert [a.int_value for a in args[5:10]] == [2, 8, 2, 1000, 1200]
    assert args[10].float_value == pytest.approx(1 / math.sqrt(128))
    info = launch_info(plan, args_for("bf16", 2, 8, 2, 1000, 1200, 128, scale=0.3))
    assert arg_list(info)[10].float_value == pytest.approx(0.3)


def check_tensor_maps(args, desc, b, hq, hkv, nq, nk, d, dtype_enum):
    maps = {a.name.decode(): a for a in args[:4]}
    assert [a.kind for a in args[:4]] == [capi.ARG_TENSOR_MAP] * 4
    assert [a.offset for a in args[:4]] == [0, 128, 256, 384]
    boxes = {"q": desc["block_q"], "k": desc["block_kv"], "v": desc["block_kv"], "o": 64}
    for name, (rows, heads, base) in {"q": (nq, hq, 0x10000), "k": (nk, hkv, 0x20000),
                                      "v": (nk, hkv, 0x30000), "o": (nq, hq, 0x40000)}.items():
        m = maps[name]
        assert m.map_rank == 3 and m.map_address == base and m.map_dtype == dtype_enum
        assert list(m.map_dims[:3]) == [d, rows, b * heads]            # (D, N, B·H)
        assert list(m.map_strides[:2]) == [d * 2, rows * d * 2]        # bytes
        assert list(m.map_box[:3]) == [64, boxes[name], 1]
        assert list(m.map_element_strides[:3]) == [1, 1, 1]
        assert m.map_swizzle == 3          # CU_TENSOR_MAP_SWIZZLE_128B
        assert m.map_interleave == 0 and m.map_oob_fill == 0  # none; zeros out of bounds
        assert m.map_l2_promotion == 3     # CU_TENSOR_MAP_L2_PROMOTION_L2_256B
    rest = args[4:]
    assert [a.name.decode() for a in rest[:7]] == ["lse", "B", "Hq", "Hkv", "Nq", "Nk", "scale"]
    assert rest[0].offset == 512 and rest[0].kind == capi.ARG_PTR
    assert [a.int_value for a in rest[1:6]] == [b, hq, hkv, nq, nk]


def test_sm90a_one_tile_per_block(library, bundles):
    plan = library[SPECS["sm90"].name]
    desc = bundles[1]["sm90"]["kernels"][0]["description"]
    assert desc["persistent"] is False
    info = launch_info(plan, args_for("f16", 1, 5, 1, 2500, 4097, 256, lse=False))
    assert list(info.grid) == [math.ceil(2500 / desc["block_q"]), 5, 1] and not info.persistent
    assert list(info.block) == [desc["threads"], 1, 1]
    assert info.shared_bytes == desc["dynamic_shared_memory"]
    args = arg_list(info)
    assert len(args) == 11  # no tile counter
    check_tensor_maps(args, desc, 1, 5, 1, 2500, 4097, 256, dtype_enum=6)  # FLOAT16
    assert args[4].pointer == 0  # no LSE
    assert args[10].float_value == pytest.approx(1 / 16)


def test_sm90a_persistent_grid_and_tile_counter(library, bundles):
    plan = library[SPECS["sm90p"].name]
    desc = bundles[1]["sm90p"]["kernels"][0]["description"]
    assert desc["persistent"] is True
    b, hq, hkv, nq, nk = 2, 16, 4, 3000, 3000
    tiles = math.ceil(nq / desc["block_q"]) * hq * b
    for sms in (132, 7):
        info = launch_info(plan, args_for("bf16", b, hq, hkv, nq, nk, 64), sm_count=sms)
        assert info.persistent
        assert list(info.grid) == [min(desc["blocks_per_sm"] * sms, tiles), 1, 1]
    # Fewer tiles than SMs: one block per tile.
    info = launch_info(plan, args_for("bf16", 1, 2, 2, 77, 77, 64))
    assert list(info.grid) == [math.ceil(77 / desc["block_q"]) * 2, 1, 1]
    args = arg_list(info)
    check_tensor_maps(args, desc, 1, 2, 2, 77, 77, 64, dtype_enum=9)  # BFLOAT16
    counter = args[11]
    assert counter.name == b"counter" and counter.kind == capi.ARG_PTR and counter.workspace == 0
    assert counter.pointer == 0  # the runtime supplies its own at launch
    a = args_for("bf16", 1, 2, 2, 77, 77, 64)
    a.workspaces[0] = 0xABC00
    assert arg_list(launch_info(plan, a))[11].pointer == 0xABC00
    ws = capi.WorkspaceInfo()
    capi.check(capi.lib().flash_plan_get_workspace(plan, 0, ctypes.byref(ws)))
    assert (ws.name, ws.bytes, ws.scope_stream, ws.zero_init, ws.kernel_restores) == \
        (b"tile_counter", 4, 1, 1, 1)


def test_persistent_grid_needs_the_sm_count_without_a_gpu(library):
    plan = library[SPECS["sm90p"].name]
    info = capi.LaunchInfo()
    a = args_for("bf16", 1, 2, 2, 77, 77, 64)
    assert capi.lib().flash_plan_launch_info(plan, 0, ctypes.byref(a), 0, ctypes.byref(info)) != 0
    assert "SM count" in capi.lib().flash_last_error().decode()


@pytest.mark.parametrize("change, message", [
    (dict(d=64), "D = 64 .* but D = 128 from plan"),
    (dict(hq=3, hkv=2), "query heads must be a multiple of key/value heads"),
    (dict(lse=False), "needs tensor 'lse'"),
    (dict(dtype="f16"), "is f16 but plan .* takes bf16"),
    (dict(b=1 << 12, nq=1 << 12), "2\\^31 elements"),
])
def test_calls_the_plan_does_not_take_are_refused(library, change, message):
    import re
    shape = dict(dtype="bf16", b=1, hq=8, hkv=2, nq=100, nk=100, d=128, lse=True)
    shape.update(change)
    a = args_for(**shape)
    if "d" in change:  # only q's D differs: the plan's D and k's disagree with it
        a = args_for("bf16", 1, 8, 2, 100, 100, 128)
        a.q = capi.tensor(0x10000, "bf16", (1, 8, 100, 64))
    info = capi.LaunchInfo()
    assert capi.lib().flash_plan_launch_info(library[SPECS["sm80"].name], 0, ctypes.byref(a),
                                              132, ctypes.byref(info)) == capi.ERROR_INVALID
    assert re.search(message, capi.lib().flash_last_error().decode())


def test_lse_for_a_plan_without_it_is_refused(library):
    plan = library[SPECS["sm90"].name]
    info = capi.LaunchInfo()
    a = args_for("f16", 1, 2, 2, 100, 100, 256, lse=True)
    assert capi.lib().flash_plan_launch_info(plan, 0, ctypes.byref(a), 132, ctypes.byref(info))
    assert "does not write LSE" in capi.lib().flash_last_error().decode()


def bnhd(base, dtype, b, h, n, d, n_alloc=None):
    """A B×N×H×D tensor viewed as B×H×N×D (transpose(1, 2)), of a buffer
    holding n_alloc rows (a slice along N when n < n_alloc)."""
    n_alloc = n_alloc or n
    return capi.tensor(base, dtype, (b, h, n, d), (n_alloc * h * d, d, h * d, 1))


def refusal(plan, a):
    info = capi.LaunchInfo()
    assert capi.lib().flash_plan_launch_info(plan, 0, ctypes.byref(a), 132,
                                              ctypes.byref(info)) == capi.ERROR_INVALID
    return capi.lib().flash_last_error().decode()


def test_strided_tensors_go_through_tensor_maps_only(library):
    # sm_80's kernels compute addresses: a strided tensor is refused.
    a = args_for("bf16", 1, 8, 2, 100, 100, 128)
    a.k = bnhd(0x20000, "bf16", 1, 2, 100, 128)
    assert "must be contiguous" in refusal(library[SPECS["sm80"].name], a)
    assert "reads it through addresses" in capi.lib().flash_last_error().decode()
    # sm_90a reads q, k, v and writes o through tensor maps: B×N×H×D views
    # (B = 1) are taken as they are, the maps carry their strides.
    plan = library[SPECS["sm90"].name]
    a = args_for("f16", 1, 2, 2, 100, 100, 256, lse=False)
    for name, base in (("q", 0x10000), ("k", 0x20000), ("v", 0x30000), ("o", 0x40000)):
        setattr(a, name, bnhd(base, "f16", 1, 2, 100, 256))
    maps = arg_list(launch_info(plan, a))[:4]
    for m in maps:
        assert list(m.map_dims[:3]) == [256, 100, 2]               # (D, N, B·H)
        assert list(m.map_strides[:2]) == [2 * 256 * 2, 256 * 2]   # N, H strides in bytes
    # K/V a slice along N of a longer buffer, B = 3: B and H still merge.
    a = args_for("f16", 3, 2, 2, 100, 60, 256, lse=False)
    a.k = capi.tensor(0x20000, "f16", (3, 2, 60, 256), (2 * 500 * 256, 500 * 256, 256, 1))
    k = arg_list(launch_info(plan, a))[1]
    assert list(k.map_dims[:3]) == [256, 60, 6]
    assert list(k.map_strides[:2]) == [256 * 2, 500 * 256 * 2]
    # Contiguous tensors keep the plan's strides.
    a = args_for("f16", 1, 2, 2, 100, 100, 256, lse=False)
    assert list(arg_list(launch_info(plan, a))[0].map_strides[:2]) == [512, 100 * 512]
    # B×N×H×D with B > 1: B and H do not merge into the map's one B·H stride.
    a = args_for("f16", 2, 2, 2, 100, 100, 256, lse=False)
    a.q = bnhd(0x10000, "f16", 2, 2, 100, 256)
    assert "do not merge into one stride" in refusal(plan, a)
    # The innermost dimension strided, a stride not a multiple of 16 bytes,
    # a misaligned address: refused, naming why.
    a = args_for("f16", 1, 2, 2, 100, 100, 256, lse=False)
    a.v = capi.tensor(0x30000, "f16", (1, 2, 100, 256), (2 * 100 * 512, 100 * 512, 512, 2))
    assert "contiguous innermost dimension" in refusal(plan, a)
    a.v = capi.tensor(0x30000, "f16", (1, 2, 100, 256), (2 * 100 * 260, 100 * 260, 260, 1))
    assert "not a multiple of 16" in refusal(plan, a)
    a.v = bnhd(0x30008, "f16", 1, 2, 100, 256)
    assert "not 16-byte aligned" in refusal(plan, a)


def test_packed_arguments_with_a_fake_encoder(library, bundles):
    calls = []

    def encode(map_ptr, dtype, rank, address, dims, strides, box, element_strides,
               interleave, swizzle, l2, oob):
        calls.append((address, tuple(dims[i] for i in range(rank))))
        ctypes.memmove(map_ptr, bytes([len(calls)]) * 128, 128)
        return 0

    capi.set_tensor_map_encoder(encode)
    try:
        plan = library[SPECS["sm90p"].name]
        a = args_for("bf16", 1, 2, 2, 77, 77, 64)
        a.workspaces[0] = 0xC0C0
        raw = (ctypes.c_uint8 * (4096 + 64))()
        address = (ctypes.addressof(raw) + 63) // 64 * 64
        info = capi.LaunchInfo()
        capi.check(capi.lib().flash_plan_pack_args(plan, 0, ctypes.byref(a), 132, address, 4096,
                                                    ctypes.byref(info)))
        packed = ctypes.string_at(address, info.args_bytes)
        assert [packed[i * 128] for i in range(4)] == [1, 2, 3, 4]  # q, k, v, o maps in order
        assert calls[0] == (0x10000, (64, 77, 2))
        args = arg_list(info)
        word = lambda arg, fmt: __import__("struct").unpack_from(fmt, packed, arg.offset)[0]
        assert word(args[4], "<Q") == 0x50000            # lse
        assert [word(x, "<i") for x in args[5:10]] == [1, 2, 2, 77, 77]
        assert word(args[10], "<f") == pytest.approx(0.125)
        assert word(args[11], "<Q") == 0xC0C0            # the tile counter
        # The same call again: every map from the cache.
        capi.check(capi.lib().flash_plan_pack_args(plan, 0, ctypes.byref(a), 132, address, 4096,
                                                    ctypes.byref(info)))
        assert len(calls) == 4 and capi.cache_stats()["hits"] == 4
        # A misaligned buffer is refused.
        assert capi.lib().flash_plan_pack_args(plan, 0, ctypes.byref(a), 132, address + 8, 4000,
                                               ctypes.byref(info)) != 0
    finally:
        capi.set_tensor_map_encoder(None)


def test_a_plan_of_another_version_is_refused(tmp_path, bundles):
    plan = json.loads(json.dumps(bundles[1]["sm80"]))
    plan["version"] = 2
    (tmp_path / "x.json").write_text(json.dumps(plan))
    handle = ctypes.c_void_p()
    assert capi.lib().flash_library_open(str(tmp_path).encode(), ctypes.byref(handle)) != 0
    assert "launch plan version 2, this runtime reads version 1" in \
        capi.lib().flash_last_error().decode()
    plan["version"] = 1
    del plan["kernels"][0]["grid"]
    (tmp_path / "x.json").write_text(json.dumps(plan))
    assert capi.lib().flash_library_open(str(tmp_path).encode(), ctypes.byref(handle)) != 0
    assert "missing or mistyped field 'grid'" in capi.lib().flash_last_error().decode()


def test_version_and_abi():
    assert capi.lib().flash_abi_version() == capi.ABI_VERSION
    assert capi.lib().flash_plan_format_version() == 1
    assert capi.lib().flash_version().decode().startswith("flash_runtime 5")


def test_python_abi_constants_match_the_header():
    """capi's struct sizes come from flash_runtime.h's constants (ABI 5:
    FLASH_MAX_KERNEL_ARGS 40, sm_80's strided backward main kernel takes 33
    arguments): the two must agree, or flash_launch_info is read wrongly."""
    import re
    header = os.path.join(os.path.dirname(__file__), "..", "..", "include", "flash",
                          "Runtime", "flash_runtime.h")
    text = open(header).read()

    def define(name):
        return int(re.search(rf"#define {name} (\d+)", text).group(1))
    assert define("FLASH_RUNTIME_ABI_VERSION") == capi.ABI_VERSION == 5
    assert define("FLASH_MAX_KERNEL_ARGS") == capi.MAX_KERNEL_ARGS == 40
    assert define("FLASH_MAX_WORKSPACES") == capi.MAX_WORKSPACES
    assert define("FLASH_NAME_SIZE") == capi.NAME_SIZE


# --- other ops: selection by op, their tensors --------------------------------

def test_plans_are_selected_by_op_and_name_the_other_ops_tensors(tmp_path, bundles):
    """A plan of another op (here a paged-attention plan made from the sm_80
    forward's JSON) is chosen only by a key of that op; its i32 tensors bind
    their shape symbols; an argument computed from SMs needs the SM count."""
    forward = bundles[1]["sm80"]
    paged = json.loads(json.dumps(forward))
    paged["name"] = forward["name"] + "_paged"
    paged["op"] = "paged_attention"
    paged["tensors"] += [
        {"name": "block_table", "shape": ["B", "M"], "element_type": "i32",
         "layout": "contiguous", "output": False, "required": True},
        {"name": "seq_lens", "shape": ["B"], "element_type": "i32",
         "layout": "contiguous", "output": False, "required": True}]
    paged["kernels"][0]["args"] += [
        {"name": "pages_per_seq", "type": "i32", "value": "M"},
        {"name": "splits", "type": "i32", "value": ["min", "SMs", 64]}]
    assert not errors(paged, SCHEMA), errors(paged, SCHEMA)
    for plan in (forward, paged):
        (tmp_path / (plan["name"] + ".json")).write_text(json.dumps(plan))
    c = capi.lib()
    handle = ctypes.c_void_p()
    capi.check(c.flash_library_open(str(tmp_path).encode(), ctypes.byref(handle)))
    try:
        def select(op):
            key = capi.Key(dtype=capi.DTYPE_BF16, head_dim=128, value_dim=128, causal=1, lse=1,
                           seq_q=1, seq_kv=4096, op=op)
            plan = ctypes.c_void_p()
            if c.flash_library_select(handle, ctypes.byref(key), ctypes.byref(plan)):
                return c.flash_last_error().decode()
            info = capi.PlanInfo()
            capi.check(c.flash_plan_get_info(plan, ctypes.byref(info)))
            return info.name.decode(), info.op.decode(), plan
        assert select(None)[:2] == (forward["name"], "attention_forward")
        assert select(b"attention_forward")[:2] == (forward["name"], "attention_forward")
        name, op, plan = select(b"paged_attention")
        assert (name, op) == (paged["name"], "paged_attention")
        message = select(b"attention_backward")
        assert message.startswith("no launch plan for attention_backward bf16, D=128")
        assert "paged_attention/bf16/D=128" in message  # what was compiled, with its op

        a = args_for("bf16", 3, 8, 2, 1, 4096, 128)
        a.block_table = capi.tensor(0x60000, "i32", (3, 17))
        a.seq_lens = capi.tensor(0x70000, "i32", (3,))
        info = capi.LaunchInfo()
        assert c.flash_plan_launch_info(plan, 0, ctypes.byref(a), 0, ctypes.byref(info)) != 0
        assert "SM count" in c.flash_last_error().decode()
        capi.check(c.flash_plan_launch_info(plan, 0, ctypes.byref(a), 132, ctypes.byref(info)))
        args = {x.name.decode(): x for x in arg_list(info)}
        assert args["pages_per_seq"].int_value == 17 and args["splits"].int_value == 64
        a.seq_lens = capi.tensor(0x70000, "i32", (2,))
        assert c.flash_plan_launch_info(plan, 0, ctypes.byref(a), 132, ctypes.byref(info)) != 0
        assert "tensor 'seq_lens' has B = 2" in c.flash_last_error().decode()
        a.seq_lens = capi.tensor(0x70000, "f32", (3,))
        assert c.flash_plan_launch_info(plan, 0, ctypes.byref(a), 132, ctypes.byref(info)) != 0
        assert "tensor 'seq_lens' is f32 but plan" in c.flash_last_error().decode()
    finally:
        c.flash_library_close(handle)
