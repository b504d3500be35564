"""The runtime's cache of encoded tensor maps (libflash_runtime.so through
ctypes, no GPU: a counting encoder stands in for cuTensorMapEncodeTiled)."""

import ctypes
import json

import pytest

from flash_mlir.runtime import capi


def _plan(directory):
    """A plan of one kernel whose one argument is a tensor map of q."""
    plan = {
        "format": "flash-launch-plan", "version": 1, "name": "maps", "op": "attention_forward",
        "select": {"arch": "sm_90a", "element_type": "bf16", "head_dim": 64, "value_dim": 64,
                   "causal": False, "lse": False, "seq_range": [0, None], "variant": ""},
        "constants": {"D": 64},
        "tensors": [{"name": "q", "shape": ["B", "H", "N", "D"], "element_type": "bf16",
                     "layout": "contiguous", "output": False, "required": True}],
        "scalars": [], "constraints": [], "workspaces": [],
        "kernels": [{"name": "maps", "files": {"ptx": "maps.ptx", "ptx_target": "sm_90a",
                                               "cubins": {}},
                     "grid": {"kind": "tiles", "x": 1, "y": 1, "z": 1}, "block": [128, 1, 1],
                     "dynamic_shared_memory": 0,
                     "args": [{"name": "q", "type": "tensormap", "tensor": "q", "tensor_map": {
                         "element_type": "bf16", "dims": ["D", "N", ["mul", "B", "H"]],
                         "strides": [["mul", "D", 2], ["mul", "D", "N", 2]], "box": [64, 64, 1],
                         "element_strides": [1, 1, 1], "swizzle": "128B", "interleave": "none",
                         "l2_promotion": "256B", "oob_fill": "none"}}]}]}
    (directory / "maps.json").write_text(json.dumps(plan))


@pytest.fixture
def pack(tmp_path):
    _plan(tmp_path)
    handle = ctypes.c_void_p()
    capi.check(capi.lib().flash_library_open(str(tmp_path).encode(), ctypes.byref(handle)))
    plan = capi.lib().flash_library_plan(handle, 0)
    calls = []

    def encode(map_ptr, dtype, rank, address, dims, strides, box, element_strides,
               interleave, swizzle, l2, oob):
        calls.append((address, tuple(dims[i] for i in range(rank)), swizzle))
        ctypes.memmove(map_ptr, bytes([len(calls) % 256]) * 128, 128)
        return 0

    capi.set_tensor_map_encoder(encode)
    raw = (ctypes.c_uint8 * 256)()
    buffer = (ctypes.addressof(raw) + 63) // 64 * 64

    def run(address, shape):
        a = capi.AttentionArgs()
        a.q = capi.tensor(address, "bf16", shape)
        info = capi.LaunchInfo()
        capi.check(capi.lib().flash_plan_pack_args(plan, 0, ctypes.byref(a), 1, buffer, 128,
                                                    ctypes.byref(info)))
        return ctypes.string_at(buffer, 128)

    yield run, calls
    capi.set_tensor_map_encoder(None)
    capi.lib().flash_tensor_map_cache_configure(256)
    capi.lib().flash_library_close(handle)


def test_same_arguments_reuse_one_map(pack):
    run, calls = pack
    first = run(0x1000, (2, 4, 512, 64))
    assert run(0x1000, (2, 4, 512, 64)) == first
    assert len(calls) == 1
    assert calls[0] == (0x1000, (64, 512, 8), 3)
    assert capi.cache_stats()["hits"] == 1


def test_every_input_of_the_map_is_in_the_key(pack):
    run, calls = pack
    run(0x1000, (2, 4, 512, 64))
    run(0x2000, (2, 4, 512, 64))   # another address
    run(0x1000, (2, 4, 513, 64))   # another length
    run(0x1000, (1, 8, 512, 64))   # B·H the same, B and H not: the same map
    assert len(calls) == 3


def test_capacity_evicts_the_least_recently_used(pack):
    run, calls = pack
    capi.lib().flash_tensor_map_cache_configure(2)  # empties the cache, keeps the encoder
    shape = (1, 1, 8, 64)
    map_a = run(0x100, shape)
    run(0x200, shape)
    assert run(0x100, shape) == map_a   # a is now the most recent
    run(0x300, shape)                   # evicts b
    assert capi.cache_stats()["entries"] == 2
    run(0x200, shape)                   # encoded again
    assert [call[0] for call in calls] == [0x100, 0x200, 0x300, 0x200]
    run(0x300, shape)
    assert len(calls) == 4
