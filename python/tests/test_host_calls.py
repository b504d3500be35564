"""The runtime's entry points for compiled host code (flash_runtime.h, "calls from
compiled host code"; docs/embedding.md), through ctypes and without a GPU: the
thread's binding, argument checks on the memref descriptors, selection by the key
the descriptors give, the sticky status, and the names lowered host code calls."""

import ctypes
import json

import pytest

from flash_mlir.runtime import capi

OK, INVALID, DRIVER = 0, capi.ERROR_INVALID, capi.ERROR_DRIVER


class MemRef4d(ctypes.Structure):
    """MLIR's descriptor of a rank-4 memref (flash_memref_4d)."""
    _fields_ = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                ("offset", ctypes.c_int64), ("sizes", ctypes.c_int64 * 4),
                ("strides", ctypes.c_int64 * 4)]


def memref(shape, address=0x10000, offset=0):
    strides = [shape[1] * shape[2] * shape[3], shape[2] * shape[3], shape[3], 1]
    return MemRef4d(address, address, offset, (ctypes.c_int64 * 4)(*shape),
                    (ctypes.c_int64 * 4)(*strides))


def _plan(directory, d=64, causal=True):
    """A forward plan of the ABI's tensors with no kernel arguments: selection and
    the call's checks are the runtime's own; only launching needs a GPU."""
    tensor = lambda name, shape, output=False: {
        "name": name, "shape": shape, "element_type": "bf16", "layout": "contiguous",
        "output": output, "required": True}
    plan = {
        "format": "flash-launch-plan", "version": 1, "name": "host", "op": "attention_forward",
        "select": {"arch": "sm_90a", "element_type": "bf16", "head_dim": d, "value_dim": d,
                   "causal": causal, "lse": False, "seq_range": [0, None], "variant": ""},
        "constants": {"D": d, "Dv": d},
        "tensors": [tensor("q", ["B", "Hq", "Nq", "D"]), tensor("k", ["B", "Hkv", "Nk", "D"]),
                    tensor("v", ["B", "Hkv", "Nk", "Dv"]),
                    tensor("o", ["B", "Hq", "Nq", "Dv"], output=True)],
        "scalars": [{"name": "scale", "type": "f32", "default": ["rsqrt", "D"]}],
        "constraints": [{"check": ["eq", ["mod", "Hq", "Hkv"], 0],
                         "message": "query heads must be a multiple of key/value heads"}],
        "workspaces": [],
        "kernels": [{"name": "host", "files": {"ptx": "host.ptx", "ptx_target": "sm_90a",
                                               "cubins": {}},
                     "grid": {"kind": "tiles", "x": 1, "y": 1, "z": 1}, "block": [128, 1, 1],
                     "dynamic_shared_memory": 0, "args": []}]}
    (directory / "host.json").write_text(json.dumps(plan))


@pytest.fixture
def c():
    lib = capi.lib()
    P = ctypes.POINTER(MemRef4d)
    lib.flash_host_bind.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.flash_host_status.restype = ctypes.c_int
    lib.flash_attention_memref.argtypes = [P, P, P, P, ctypes.c_int, ctypes.c_int,
                                           ctypes.c_float]
    for name in ("_mlir_ciface_flash_attention_memref_bf16",
                 "_mlir_ciface_flash_attention_memref_f16"):
        getattr(lib, name).argtypes = [P, P, P, P, ctypes.c_int32, ctypes.c_float]
    lib.flash_device_alloc.argtypes = [ctypes.c_uint64]
    lib.flash_device_alloc.restype = ctypes.c_void_p
    lib.flash_device_free.argtypes = [ctypes.c_void_p]
    yield lib
    lib.flash_host_bind(None, None)


@pytest.fixture
def library(tmp_path, c):
    _plan(tmp_path)
    handle = ctypes.c_void_p()
    capi.check(c.flash_library_open(str(tmp_path).encode(), ctypes.byref(handle)))
    yield handle
    c.flash_host_bind(None, None)
    c.flash_library_close(handle)


def error(c) -> str:
    return c.flash_last_error().decode()


def call(c, q, k, v, o, dtype=capi.DTYPE_BF16, causal=1, scale=0.0):
    ref = lambda m: None if m is None else ctypes.byref(m)
    return c.flash_attention_memref(ref(q), ref(k), ref(v), ref(o), dtype, causal, scale)


def shapes(b=1, hq=4, hkv=2, nq=128, nk=256, d=64):
    return (memref((b, hq, nq, d), 0x10000), memref((b, hkv, nk, d), 0x20000),
            memref((b, hkv, nk, d), 0x30000), memref((b, hq, nq, d), 0x40000))


def test_abi_version_is_5(c):
    # 4: flash_key.shared_memory_per_block (the device's opt-in shared memory);
    # 5: FLASH_MAX_KERNEL_ARGS 40 (flash_launch_info grew).
    assert c.flash_abi_version() == 5


def test_no_library_bound(c):
    c.flash_host_bind(None, None)
    assert call(c, *shapes()) == INVALID
    assert "no library bound to this thread (flash_host_bind)" in error(c)
    assert c.flash_host_status() == INVALID


def test_a_valid_call_selects_and_plans_then_needs_the_driver(c, library):
    # No GPU here: the call gets past selection and the plan's checks and fails
    # only where the launch needs the driver.
    c.flash_host_bind(library, None)
    assert call(c, *shapes()) == DRIVER
    assert "no launch plan" not in error(c) and "flash_attention_memref: " in error(c)
    assert c.flash_host_status() == DRIVER


@pytest.mark.parametrize("which, field, value, message", [
    (0, None, None, "q: no memref descriptor (null)"),
    (2, None, None, "v: no memref descriptor (null)"),
    (1, "offset", -1, "k: negative offset -1"),
    (3, "size", -5, "o: negative size -5 in dimension 2"),
    (0, "aligned", 0, "q: a null data pointer"),
])
def test_malformed_descriptors(c, library, which, field, value, message):
    c.flash_host_bind(library, None)
    args = list(shapes())
    if field is None:
        args[which] = None
    elif field == "size":
        args[which].sizes[2] = value
    else:
        setattr(args[which], field, value)
    assert call(c, *args) == INVALID
    assert error(c) == "flash_attention_memref: " + message


def test_bad_dtype_and_causal(c, library):
    c.flash_host_bind(library, None)
    assert call(c, *shapes(), dtype=capi.DTYPE_F32) == INVALID
    assert "dtype 3 is not bf16 or f16" in error(c)
    c.flash_host_bind(library, None)
    assert call(c, *shapes(), causal=2) == INVALID
    assert "causal must be 0 or 1, got 2" in error(c)


def test_the_key_comes_from_the_descriptors(c, library):
    c.flash_host_bind(library, None)
    assert call(c, *shapes(d=128)) == INVALID
    assert "no launch plan for bf16, D=128, causal=true, lse=false" in error(c)
    assert "compiled: bf16/D=64/causal=true/lse=false/sm_90a" in error(c)
    c.flash_host_bind(library, None)
    assert call(c, *shapes(), causal=0) == INVALID
    assert "causal=false" in error(c)


def test_the_plan_checks_the_shapes(c, library):
    c.flash_host_bind(library, None)
    q, k, v, o = shapes(hq=3)  # 3 query heads over 2 key/value heads
    assert call(c, q, k, v, o) == INVALID
    assert "query heads must be a multiple of key/value heads" in error(c)
    c.flash_host_bind(library, None)
    q, k, v, _ = shapes()
    o = memref((1, 4, 64, 64), 0x40000)  # O's length is not Q's
    assert call(c, q, k, v, o) == INVALID
    assert "'o'" in error(c) or " o " in error(c), error(c)


def test_the_first_failure_sticks_until_the_next_bind(c, library):
    c.flash_host_bind(library, None)
    assert call(c, *shapes(d=128)) == INVALID
    first = error(c)
    # A later call, even a valid one, does nothing and reports the first failure.
    assert call(c, *shapes()) == INVALID
    assert c.flash_host_status() == INVALID and error(c) == first
    c.flash_host_bind(library, None)
    assert c.flash_host_status() == OK


def test_the_names_lowered_host_code_calls(c, library):
    c.flash_host_bind(library, None)
    q, k, v, o = shapes()
    assert c._mlir_ciface_flash_attention_memref_bf16(q, k, v, o, 1, 0.125) == DRIVER
    c.flash_host_bind(library, None)
    # f16: the library has no f16 plan.
    assert c._mlir_ciface_flash_attention_memref_f16(q, k, v, o, 1, 0.125) == INVALID
    assert "no launch plan for f16" in error(c)


def test_device_alloc_without_a_gpu_fails_into_the_status(c):
    c.flash_host_bind(None, None)
    pointer = c.flash_device_alloc(1024)
    if pointer is not None:  # a machine with a GPU (this test is for CI's)
        c.flash_device_free(pointer)
        pytest.skip("a CUDA device is present")
    assert c.flash_host_status() == DRIVER
    assert error(c).startswith("flash_device_alloc: ")
