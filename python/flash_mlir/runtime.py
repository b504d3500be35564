"""Load FlashMLIR kernel bundles and run attention on torch tensors (GPU machine).

Needs torch and the CUDA driver (libcuda, through ctypes); no MLIR. Kernels are
looked up by (element type, head dimension, causal, LSE) among the bundles of a
directory; anything that no bundle supports is an error, never a silent
fallback to another implementation.

  lib = KernelLibrary("bundles/")
  o = lib.attention(q, k, v, causal=True)              # q: B×Hq×Nq×D, k/v: B×Hkv×Nk×D
  o, lse = lib.attention(q, k, v, return_lse=True)
"""

import ctypes
import glob
import json
import math
import os
from typing import Dict, List, Optional, Tuple

_DTYPES = {"bf16": "bfloat16", "f16": "float16"}


class _Driver:
    """The few CUDA driver calls the runtime needs, through ctypes on libcuda.

    ctypes rather than a binding package: the kernels' parameters (raw
    pointers, i32 sizes, f32 scale and 128-byte CUtensorMaps passed by value)
    go to cuLaunchKernel as an array of pointers to their storage.
    """

    _instance = None

    def __init__(self):
        cu = ctypes.CDLL("libcuda.so.1")
        vp, u32, i32 = ctypes.c_void_p, ctypes.c_uint, ctypes.c_int
        cu.cuModuleLoadData.argtypes = [ctypes.POINTER(vp), vp]
        cu.cuModuleGetFunction.argtypes = [ctypes.POINTER(vp), vp, ctypes.c_char_p]
        cu.cuFuncSetAttribute.argtypes = [vp, i32, i32]
        cu.cuLaunchKernel.argtypes = [vp, u32, u32, u32, u32, u32, u32, u32, vp, vp, vp]
        cu.cuTensorMapEncodeTiled.argtypes = [vp, i32, u32, vp, vp, vp, vp, vp, i32, i32, i32, i32]
        cu.cuGetErrorString.argtypes = [i32, ctypes.POINTER(ctypes.c_char_p)]
        self.cu = cu

    @classmethod
    def get(cls):
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def check(self, result, what):
        if result != 0:
            text = ctypes.c_char_p()
            self.cu.cuGetErrorString(result, ctypes.byref(text))
            raise RuntimeError(f"{what} failed: {text.value.decode() if text.value else result}")


# CUtensorMap enums (cuda.h).
_TMA_DTYPE = {"f16": 6, "bf16": 9}   # CU_TENSOR_MAP_DATA_TYPE_FLOAT16 / BFLOAT16
_TMA_SWIZZLE = {"none": 0, "32B": 1, "64B": 2, "128B": 3}
_TMA_L2_256B, _TMA_INTERLEAVE_NONE, _TMA_OOB_ZERO = 3, 0, 0


class _TensorMap:
    """A 128-byte, 64-byte aligned CUtensorMap of a contiguous B×H×N×D tensor,
    rank 3 over (D, N, B·H): a box never crosses into the next head's rows
    and rows past N read as zeros."""

    def __init__(self, tensor, dtype: str, box, swizzle: str):
        b, h, n, d = tensor.shape
        self._storage = (ctypes.c_uint8 * 192)()
        self.address = (ctypes.addressof(self._storage) + 63) // 64 * 64
        dims = (ctypes.c_uint64 * 3)(d, n, b * h)
        strides = (ctypes.c_uint64 * 2)(d * 2, n * d * 2)  # bytes, dims 1 and 2
        boxes = (ctypes.c_uint32 * 3)(*box)
        element_strides = (ctypes.c_uint32 * 3)(1, 1, 1)
        drv = _Driver.get()
        drv.check(drv.cu.cuTensorMapEncodeTiled(
            self.address, _TMA_DTYPE[dtype], 3, ctypes.c_void_p(tensor.data_ptr()), dims, strides,
            boxes, element_strides, _TMA_INTERLEAVE_NONE, _TMA_SWIZZLE[swizzle], _TMA_L2_256B,
            _TMA_OOB_ZERO), "cuTensorMapEncodeTiled")


class _TensorMapCache:
    """Encoded tensor maps, keyed by everything that goes into one.

    A CUtensorMap is a pure function of the address, the shape (the tensor is
    contiguous, so the strides follow), the element type, the box and the
    swizzle: a hit is always the right map, even where the tensor it was first
    made for has been freed and a tensor of the same shape reuses its memory.
    (Addresses are unique across devices under unified addressing.) Encoding
    costs tens of microseconds of Python and driver time per map, four maps a
    call; the cache keeps the `capacity` most recently used.
    """

    def __init__(self, capacity: int = 256, encode=None):
        from collections import OrderedDict
        self.capacity = capacity
        self._encode = encode or _TensorMap
        self._maps = OrderedDict()

    def get(self, tensor, dtype: str, box, swizzle: str):
        key = (tensor.data_ptr(), tuple(tensor.shape), dtype, tuple(box), swizzle)
        tensor_map = self._maps.get(key)
        if tensor_map is None:
            tensor_map = self._encode(tensor, dtype, box, swizzle)
            self._maps[key] = tensor_map
            if len(self._maps) > self.capacity:
                self._maps.popitem(last=False)
        else:
            self._maps.move_to_end(key)
        return tensor_map

    def __len__(self):
        return len(self._maps)


_TENSOR_MAPS = _TensorMapCache()
_SM_COUNTS: Dict[int, int] = {}


def _sm_count(device) -> int:
    index = device.index if device.index is not None else 0
    if index not in _SM_COUNTS:
        import torch
        _SM_COUNTS[index] = torch.cuda.get_device_properties(device).multi_processor_count
    return _SM_COUNTS[index]


class Bundle:
    """One compiled kernel: its metadata and, once loaded, its CUfunction."""

    def __init__(self, json_path: str):
        self.path = json_path
        self.dir = os.path.dirname(json_path)
        with open(json_path) as f:
            self.meta = json.load(f)
        m = self.meta
        self.name = m["kernel"]
        self.dtype = m["element_type"]
        self.head_dim = m["head_dim"]
        self.causal = m["causal"]
        self.writes_lse = m["writes_lse"]
        self.block_q = m["block_q"]
        self.threads = m["threads"]
        self.shared_bytes = m["dynamic_shared_memory"]
        self.tensor_maps = m.get("tensor_maps", [])
        # The Nq of the shape it was compiled at: the model chose its schedule
        # for that length (compile.py compiles one bundle per range of lengths
        # where the choice differs).
        self.seq_len = m.get("compiled_shape", [0, 0, 0, 0])[3]
        # A persistent sm_90a grid takes a tile counter: a zeroed int32 that the
        # kernel leaves zeroed, one per stream (launches on a stream are ordered).
        self.takes_counter = "counter:ptr" in m.get("args", [])
        self._counters = {}
        self._function = None

    def key(self):
        return (self.dtype, self.head_dim, self.causal, self.writes_lse)

    # Name parts compile.py (and renamed A/B copies) append for forms other than
    # the model's: bq<...> schedules and the persistent/ping-pong forms, before
    # any _n<len> range suffix.
    _VARIANT_PARTS = {"persistent", "nonpersistent", "pingpong", "nopingpong"}

    def is_variant(self):
        return any(p.startswith("bq") or p in self._VARIANT_PARTS for p in self.name.split("_"))

    def load(self):
        """Loads the cubin built for this device, or JITs the PTX."""
        if self._function is not None:
            return self._function
        import torch
        torch.cuda.init()
        torch.empty(1, device="cuda")  # make the primary context current
        major, minor = torch.cuda.get_device_capability()
        cubins = self.meta.get("cubins", {})
        image = None
        for arch in (f"sm_{major}{minor}a", f"sm_{major}{minor}"):
            if arch in cubins:
                with open(os.path.join(self.dir, cubins[arch]["file"]), "rb") as f:
                    image = f.read()
                self.loaded_from = arch
                break
        if image is None:
            # The same kernel's PTX, compiled by the driver for this device.
            with open(os.path.join(self.dir, self.meta["ptx"]), "rb") as f:
                image = f.read() + b"\0"
            self.loaded_from = "ptx"
        drv = _Driver.get()
        self._image = ctypes.create_string_buffer(image, len(image))
        module, function = ctypes.c_void_p(), ctypes.c_void_p()
        drv.check(drv.cu.cuModuleLoadData(ctypes.byref(module), ctypes.cast(self._image, ctypes.c_void_p)),
                  f"cuModuleLoadData({self.name})")
        drv.check(drv.cu.cuModuleGetFunction(ctypes.byref(function), module, self.name.encode()),
                  f"cuModuleGetFunction({self.name})")
        drv.check(drv.cu.cuFuncSetAttribute(function, 8, self.shared_bytes),  # MAX_DYNAMIC_SHARED_SIZE_BYTES
                  "cuFuncSetAttribute(max dynamic shared memory)")
        self._module, self._function = module, function
        return function

    def launch(self, q, k, v, o, lse, scale: float):
        """Launches on tensors already checked by KernelLibrary.attention."""
        import torch
        function = self.load()
        batch, q_heads, seq_q, _ = q.shape
        kv_heads, seq_kv = k.shape[1], k.shape[2]
        if seq_q == 0 or batch == 0 or q_heads == 0:
            return
        grid = (math.ceil(seq_q / self.block_q), q_heads, batch)
        if self.meta.get("persistent"):
            # blocks_per_sm blocks per SM (at most), drawing Q tiles from the counter.
            sms = _sm_count(q.device) * self.meta.get("blocks_per_sm", 1)
            grid = (min(sms, grid[0] * grid[1] * grid[2]), 1, 1)
        # Arguments 0-3 are Q, K, V, O: raw pointers (sm_80), or CUtensorMaps
        # by value in their places (sm_90a, one per "tensor_maps" entry).
        tensors = {"q": q, "k": k, "v": v, "o": o}
        storage = [ctypes.c_uint64(tensors[name].data_ptr()) for name in ("q", "k", "v", "o")]
        pointers = [ctypes.c_void_p(ctypes.addressof(x)) for x in storage]
        slots = {"q": 0, "k": 1, "v": 2, "o": 3}
        for spec in self.tensor_maps:
            tensor_map = _TENSOR_MAPS.get(tensors[spec["tensor"]], self.dtype, spec["box"],
                                          spec["swizzle"])
            storage.append(tensor_map)
            pointers[slots[spec["tensor"]]] = ctypes.c_void_p(tensor_map.address)
        scalars = [ctypes.c_uint64(lse.data_ptr() if lse is not None else 0),
                   ctypes.c_int32(batch), ctypes.c_int32(q_heads), ctypes.c_int32(kv_heads),
                   ctypes.c_int32(seq_q), ctypes.c_int32(seq_kv), ctypes.c_float(scale)]
        stream = torch.cuda.current_stream(q.device).cuda_stream
        if self.takes_counter:
            key = (q.device.index, stream)
            if key not in self._counters:
                self._counters[key] = torch.zeros(1, dtype=torch.int32, device=q.device)
            scalars.append(ctypes.c_uint64(self._counters[key].data_ptr()))
        storage += scalars
        pointers += [ctypes.c_void_p(ctypes.addressof(x)) for x in scalars]
        params = (ctypes.c_void_p * len(pointers))(*[p.value for p in pointers])
        drv = _Driver.get()
        drv.check(drv.cu.cuLaunchKernel(function, grid[0], grid[1], grid[2], self.threads, 1, 1,
                                        self.shared_bytes, ctypes.c_void_p(stream),
                                        ctypes.cast(params, ctypes.c_void_p), None),
                  f"cuLaunchKernel({self.name})")


class KernelLibrary:
    """All bundles of a directory, indexed by what they compute."""

    def __init__(self, bundle_dir: str):
        paths = sorted(glob.glob(os.path.join(bundle_dir, "*.json")))
        if not paths:
            raise FileNotFoundError(f"no kernel bundles (*.json) in {bundle_dir}")
        self.all = [Bundle(p) for p in paths]
        # Per key, the bundles with the model's schedule (no _bq/persistent/
        # pingpong suffix), by compiled length; a key with only variants uses
        # its first variant. The rest are for bench/gpu_check --variants.
        self.bundles: Dict[Tuple, List[Bundle]] = {}
        for bundle in self.all:
            if not bundle.is_variant():
                self.bundles.setdefault(bundle.key(), []).append(bundle)
        for bundle in self.all:
            self.bundles.setdefault(bundle.key(), [bundle])
        for choices in self.bundles.values():
            choices.sort(key=lambda b: b.seq_len)

    def defaults(self, dtype: str, head_dim: int, causal: bool, lse: bool) -> List[Bundle]:
        """The key's bundles with the model's schedule, shortest compiled length first."""
        key = (dtype, head_dim, causal, lse)
        if key not in self.bundles:
            have = ", ".join(f"{d}/D={h}/causal={c}/lse={l}" for d, h, c, l in sorted(self.bundles))
            raise ValueError(f"no kernel bundle for {dtype}, D={head_dim}, causal={causal}, "
                             f"lse={lse}; compiled: {have}")
        return self.bundles[key]

    def find(self, dtype: str, head_dim: int, causal: bool, lse: bool,
             seq_len: Optional[int] = None) -> Bundle:
        """The bundle for a call whose longer sequence (max(Nq, Nk)) is seq_len:
        of the key's bundles compiled for several lengths, the one compiled for
        the largest length not above seq_len (the shortest if all are above).
        Without seq_len: the one compiled for the shortest length."""
        choices = self.defaults(dtype, head_dim, causal, lse)
        pick = choices[0]
        if seq_len is not None:
            for bundle in choices:
                if bundle.seq_len <= seq_len:
                    pick = bundle
        return pick

    def attention(self, q, k, v, causal: bool = False, scale: Optional[float] = None,
                  return_lse: bool = False, out=None, lse_out=None, bundle: Optional[Bundle] = None):
        """softmax(scale·Q·Kᵀ + mask)·V for q: B×Hq×Nq×D, k, v: B×Hkv×Nk×D (contiguous CUDA).

        `causal` aligns the diagonal bottom-right. `out`/`lse_out` may be given
        (e.g. poisoned buffers in tests); otherwise they are allocated.
        """
        import torch
        for name, t in (("q", q), ("k", k), ("v", v)):
            if not isinstance(t, torch.Tensor):
                raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
            if not t.is_cuda:
                raise ValueError(f"{name} must be on a CUDA device, got {t.device}")
            if t.dim() != 4:
                raise ValueError(f"{name} must be 4-D (B×H×N×D), got shape {tuple(t.shape)}")
            if not t.is_contiguous():
                raise ValueError(f"{name} must be contiguous (B×H×N×D row-major)")
        if not (q.dtype == k.dtype == v.dtype):
            raise TypeError(f"q, k, v must share a dtype, got {q.dtype}, {k.dtype}, {v.dtype}")
        dtype = {torch.bfloat16: "bf16", torch.float16: "f16"}.get(q.dtype)
        if dtype is None:
            raise TypeError(f"dtype {q.dtype} not supported on the GPU (bf16 or f16)")
        if not (q.device == k.device == v.device):
            raise ValueError("q, k, v must be on the same device")
        b, hq, nq, d = q.shape
        bk, hkv, nk, dk = k.shape
        if bk != b or v.shape[0] != b:
            raise ValueError(f"batch sizes differ: q {b}, k {bk}, v {v.shape[0]}")
        if v.shape[1] != hkv or v.shape[2] != nk:
            raise ValueError(f"k {tuple(k.shape)} and v {tuple(v.shape)} disagree on heads or length")
        if hkv == 0 or hq % hkv:
            raise ValueError(f"query heads {hq} must be a multiple of key/value heads {hkv}")
        if dk != d or v.shape[3] != d:
            raise ValueError(f"head dimensions differ: q {d}, k {dk}, v {v.shape[3]} "
                             "(kernels need D = Dv)")
        if max(b * hq * nq * d, b * hkv * nk * d) >= 2 ** 31:
            raise ValueError("tensors of 2^31 elements or more are not supported yet")
        bundle = bundle or self.find(dtype, d, causal, return_lse, max(nq, nk))
        if scale is None:
            scale = 1.0 / math.sqrt(d)
        if not (scale > 0 and math.isfinite(scale)):
            raise ValueError(f"scale must be finite and positive on the GPU, got {scale}")
        if out is None:
            out = torch.empty_like(q)
        elif out.shape != q.shape or out.dtype != q.dtype or not out.is_contiguous():
            raise ValueError("out must be a contiguous tensor like q")
        lse = None
        if bundle.writes_lse:
            lse = lse_out if lse_out is not None else torch.empty(
                (b, hq, nq), device=q.device, dtype=torch.float32)
        bundle.launch(q, k, v, out, lse, scale)
        return (out, lse) if return_lse else out


_TORCH_OP_LIBRARY = None


def register_torch_op(library: "KernelLibrary"):
    """Registers ``torch.ops.flash_mlir.attention(q, k, v, causal, scale) -> o``.

    A torch custom op over `library`'s kernels, with a fake (meta) implementation
    so that torch.compile can trace through it. `scale` <= 0 means 1/sqrt(D).
    Registering again replaces the library the op dispatches to.
    """
    import torch
    global _TORCH_OP_LIBRARY
    _TORCH_OP_LIBRARY = library
    if hasattr(torch.ops, "flash_mlir") and hasattr(torch.ops.flash_mlir, "attention"):
        return torch.ops.flash_mlir.attention

    @torch.library.custom_op("flash_mlir::attention", mutates_args=())
    def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False,
                  scale: float = 0.0) -> torch.Tensor:
        return _TORCH_OP_LIBRARY.attention(q, k, v, causal=causal,
                                           scale=scale if scale > 0 else None)

    @attention.register_fake
    def _(q, k, v, causal=False, scale=0.0):
        return torch.empty_like(q)

    return torch.ops.flash_mlir.attention
