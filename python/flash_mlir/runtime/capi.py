"""ctypes bindings of libflash_runtime.so (include/flash/Runtime/flash_runtime.h).

The library is the one launcher: it reads launch plans, selects by key, plans
grids and arguments (tensor maps included) and launches on the CUDA driver,
which it loads itself on first use. Loading it, opening bundles, selecting and
planning need no GPU.

Where the library is found: $FLASH_RUNTIME_LIB, else flash_mlir/lib/ of an
installed wheel, else build/lib/ of the source tree this package sits in, else
the dynamic loader's search path.
"""

import ctypes
import os
from typing import Optional

ABI_VERSION = 5  # 5: MAX_KERNEL_ARGS 24 -> 40 (flash_runtime.h)
NAME_SIZE = 128
MAX_KERNEL_ARGS = 40
MAX_WORKSPACES = 4

DTYPE_NONE, DTYPE_BF16, DTYPE_F16, DTYPE_F32, DTYPE_I32 = 0, 1, 2, 3, 4
DTYPES = {"bf16": DTYPE_BF16, "f16": DTYPE_F16, "f32": DTYPE_F32, "i32": DTYPE_I32}
DTYPE_NAMES = {v: k for k, v in DTYPES.items()}
ARG_PTR, ARG_I32, ARG_F32, ARG_TENSOR_MAP = 1, 2, 3, 4


ERROR_INVALID, ERROR_DRIVER = 1, 2


class FlashRuntimeError(RuntimeError):
    """A call of the runtime failed; the message is the runtime's. `code` is
    ERROR_INVALID (the call does not fit the plan) or ERROR_DRIVER."""

    def __init__(self, message: str, code: int = ERROR_DRIVER):
        super().__init__(message)
        self.code = code


class Key(ctypes.Structure):
    _fields_ = [("compute_capability", ctypes.c_int), ("arch", ctypes.c_char_p),
                ("dtype", ctypes.c_int), ("head_dim", ctypes.c_int), ("value_dim", ctypes.c_int),
                ("causal", ctypes.c_int), ("lse", ctypes.c_int),
                ("seq_q", ctypes.c_int64), ("seq_kv", ctypes.c_int64),
                ("variant", ctypes.c_char_p), ("op", ctypes.c_char_p),
                ("shared_memory_per_block", ctypes.c_int)]


class PlanInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * NAME_SIZE), ("op", ctypes.c_char * 32),
                ("arch", ctypes.c_char * 16), ("variant", ctypes.c_char * 64),
                ("dtype", ctypes.c_int), ("head_dim", ctypes.c_int), ("value_dim", ctypes.c_int),
                ("causal", ctypes.c_int), ("lse", ctypes.c_int),
                ("seq_min", ctypes.c_int64), ("seq_max", ctypes.c_int64),
                ("kernel_count", ctypes.c_int), ("workspace_count", ctypes.c_int),
                ("path", ctypes.c_char * 512)]


class WorkspaceInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 32), ("bytes", ctypes.c_uint64),
                ("scope_stream", ctypes.c_int), ("zero_init", ctypes.c_int),
                ("kernel_restores", ctypes.c_int)]


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64), ("dtype", ctypes.c_int), ("rank", ctypes.c_int),
                ("shape", ctypes.c_int64 * 4), ("strides", ctypes.c_int64 * 4)]


class AttentionArgs(ctypes.Structure):
    _fields_ = [("q", Tensor), ("k", Tensor), ("v", Tensor), ("o", Tensor), ("lse", Tensor),
                ("dout", Tensor), ("dq", Tensor), ("dk", Tensor), ("dv", Tensor),
                ("block_table", Tensor), ("seq_lens", Tensor),
                ("scale", ctypes.c_float), ("workspaces", ctypes.c_uint64 * MAX_WORKSPACES)]


class ArgInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 32), ("kind", ctypes.c_int),
                ("offset", ctypes.c_uint32), ("size", ctypes.c_uint32),
                ("tensor", ctypes.c_char * 16), ("workspace", ctypes.c_int),
                ("pointer", ctypes.c_uint64), ("int_value", ctypes.c_int64),
                ("float_value", ctypes.c_float),
                ("map_dtype", ctypes.c_int), ("map_rank", ctypes.c_int),
                ("map_dims", ctypes.c_uint64 * 5), ("map_strides", ctypes.c_uint64 * 4),
                ("map_box", ctypes.c_uint32 * 5), ("map_element_strides", ctypes.c_uint32 * 5),
                ("map_interleave", ctypes.c_int), ("map_swizzle", ctypes.c_int),
                ("map_l2_promotion", ctypes.c_int), ("map_oob_fill", ctypes.c_int),
                ("map_address", ctypes.c_uint64)]


class LaunchInfo(ctypes.Structure):
    _fields_ = [("kernel", ctypes.c_char * NAME_SIZE), ("grid", ctypes.c_uint32 * 3),
                ("block", ctypes.c_uint32 * 3), ("shared_bytes", ctypes.c_uint32),
                ("persistent", ctypes.c_int), ("num_args", ctypes.c_int),
                ("args_bytes", ctypes.c_uint32), ("args", ArgInfo * MAX_KERNEL_ARGS)]


class CacheStats(ctypes.Structure):
    _fields_ = [("hits", ctypes.c_uint64), ("misses", ctypes.c_uint64),
                ("entries", ctypes.c_uint64), ("capacity", ctypes.c_uint64)]


# int (*)(void *map, int dtype, uint32_t rank, void *address, const uint64_t *dims,
#         const uint64_t *strides, const uint32_t *box, const uint32_t *element_strides,
#         int interleave, int swizzle, int l2_promotion, int oob_fill)
TENSOR_MAP_ENCODER = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p,
    ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64),
    ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint32),
    ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int)


def _candidates():
    env = os.environ.get("FLASH_RUNTIME_LIB")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    package = os.path.join(os.path.dirname(here), "lib", "libflash_runtime.so")  # the wheel's
    root = os.path.abspath(os.path.join(here, os.pardir, os.pardir, os.pardir))
    source_tree = os.path.join(root, "build", "lib", "libflash_runtime.so")
    return [package if os.path.exists(package) else source_tree, "libflash_runtime.so"]


_LIB: Optional[ctypes.CDLL] = None


def lib() -> ctypes.CDLL:
    """The loaded runtime, its functions typed (loaded once)."""
    global _LIB
    if _LIB is not None:
        return _LIB
    errors = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            errors.append(f"{path}: not found")
            continue
        try:
            handle = ctypes.CDLL(path)
            break
        except OSError as e:
            errors.append(f"{path}: {e}")
    else:
        raise FlashRuntimeError("cannot load libflash_runtime.so (build it with scripts/build.sh, "
                                "or set FLASH_RUNTIME_LIB): " + "; ".join(errors))
    c = handle
    vp, i, P = ctypes.c_void_p, ctypes.c_int, ctypes.POINTER
    c.flash_abi_version.restype = i
    c.flash_plan_format_version.restype = i
    c.flash_version.restype = ctypes.c_char_p
    c.flash_last_error.restype = ctypes.c_char_p
    c.flash_library_open.argtypes = [ctypes.c_char_p, P(vp)]
    c.flash_library_close.argtypes = [vp]
    c.flash_library_close.restype = None
    c.flash_library_plan_count.argtypes = [vp]
    c.flash_library_plan.argtypes = [vp, i]
    c.flash_library_plan.restype = vp
    c.flash_library_select.argtypes = [vp, P(Key), P(vp)]
    c.flash_plan_get_info.argtypes = [vp, P(PlanInfo)]
    c.flash_plan_get_workspace.argtypes = [vp, i, P(WorkspaceInfo)]
    c.flash_plan_launch_info.argtypes = [vp, i, P(AttentionArgs), i, P(LaunchInfo)]
    c.flash_plan_pack_args.argtypes = [vp, i, P(AttentionArgs), i, vp, ctypes.c_size_t,
                                       P(LaunchInfo)]
    c.flash_plan_launch_cluster.argtypes = [vp, i, P(AttentionArgs), i,
                                            P(ctypes.c_uint32)]
    c.flash_plan_launch.argtypes = [vp, P(AttentionArgs), vp]
    c.flash_plan_loaded_from.argtypes = [vp]
    c.flash_plan_loaded_from.restype = ctypes.c_char_p
    c.flash_set_tensor_map_encoder.argtypes = [TENSOR_MAP_ENCODER]
    c.flash_set_tensor_map_encoder.restype = None
    c.flash_tensor_map_cache_stats_get.argtypes = [P(CacheStats)]
    c.flash_tensor_map_cache_stats_get.restype = None
    c.flash_tensor_map_cache_configure.argtypes = [ctypes.c_uint64]
    c.flash_tensor_map_cache_configure.restype = None
    if c.flash_abi_version() != ABI_VERSION:
        raise FlashRuntimeError(f"libflash_runtime.so has ABI {c.flash_abi_version()}, "
                                f"this package speaks {ABI_VERSION}")
    _LIB = c
    return c


def check(result: int, what: str = ""):
    """Raises FlashRuntimeError with the runtime's message if result != 0."""
    if result != 0:
        message = lib().flash_last_error().decode()
        raise FlashRuntimeError(f"{what}: {message}" if what else message, result)


def tensor(data: int, dtype: str, shape, strides=None) -> Tensor:
    """A tensor descriptor; strides in elements (default: contiguous)."""
    t = Tensor()
    t.data, t.dtype, t.rank = data, DTYPES[dtype], len(shape)
    if strides is None:
        strides, step = [0] * len(shape), 1
        for i in reversed(range(len(shape))):
            strides[i] = step
            step *= shape[i]
    for i, (n, s) in enumerate(zip(shape, strides)):
        t.shape[i], t.strides[i] = n, s
    return t


def cache_stats() -> dict:
    stats = CacheStats()
    lib().flash_tensor_map_cache_stats_get(ctypes.byref(stats))
    return {"hits": stats.hits, "misses": stats.misses, "entries": stats.entries,
            "capacity": stats.capacity}


_ENCODER = None  # keeps the ctypes callback alive while the runtime holds it


def set_tensor_map_encoder(encoder):
    """Replaces the driver's cuTensorMapEncodeTiled (a TENSOR_MAP_ENCODER or a
    Python callable of its arguments; None restores the driver's) and empties
    the tensor-map cache. For tests without a GPU."""
    global _ENCODER
    if encoder is None:
        _ENCODER = TENSOR_MAP_ENCODER()
    else:
        _ENCODER = encoder if isinstance(encoder, TENSOR_MAP_ENCODER) else TENSOR_MAP_ENCODER(encoder)
    lib().flash_set_tensor_map_encoder(_ENCODER)
