"""Load FlashMLIR kernel bundles and run attention on torch tensors (GPU machine).

A thin layer over libflash_runtime.so (flash_mlir.runtime.capi): the runtime
reads the launch plans, selects one by key (element type, D, causal, LSE,
the call's length, the device's compute capability), plans the grid and the
arguments (tensor maps included, cached), supplies the persistent grid's tile
counter and launches. This module only checks torch tensors and describes them
to it. Anything that no bundle supports is an error, never a silent fallback
to another implementation.

  lib = KernelLibrary("bundles/")
  o = lib.attention(q, k, v, causal=True)              # q: B×Hq×Nq×D, k/v: B×Hkv×Nk×D
  o, lse = lib.attention(q, k, v, return_lse=True)
  dq, dk, dv = lib.attention_backward(q, k, v, o, do, lse, causal=True)
"""

import contextlib
import ctypes
import json
import math
from typing import Dict, List, Optional, Tuple

from flash_mlir.runtime import capi


class Bundle:
    """One launch plan of a library: its keys, its JSON, and its launches."""

    def __init__(self, handle: int, library: "KernelLibrary"):
        self._library = library  # owns the plan: keep it open while this bundle lives
        self._handle = ctypes.c_void_p(handle)
        info = capi.PlanInfo()
        capi.check(capi.lib().flash_plan_get_info(self._handle, ctypes.byref(info)))
        self.name = info.name.decode()
        self.op = info.op.decode()  # attention_forward, attention_backward, ...
        self.path = info.path.decode()
        self.arch = info.arch.decode()
        self.variant = info.variant.decode()
        self.dtype = capi.DTYPE_NAMES[info.dtype]
        self.head_dim = info.head_dim
        self.value_dim = info.value_dim
        self.causal = bool(info.causal)
        self.writes_lse = bool(info.lse)
        self.seq_range = (info.seq_min, None if info.seq_max < 0 else info.seq_max)
        self.kernel_count = info.kernel_count
        self._plan = None

    @property
    def plan(self) -> dict:
        """The launch plan as JSON (docs/launch-plan.md)."""
        if self._plan is None:
            with open(self.path) as f:
                self._plan = json.load(f)
        return self._plan

    @property
    def meta(self) -> dict:
        """The lowering's description of the (first) kernel: schedule, tile
        sizes, persistent, ... (informational; the runtime reads the plan)."""
        return self.plan["kernels"][0]["description"]

    @property
    def strided_tensors(self) -> frozenset:
        """Names of the plan's tensors that only tensor maps and pointers
        with strides read or write: a call may pass them strided (innermost
        dimension contiguous), the runtime's maps or the kernels' stride
        arguments (`o_stride0..2`: the backward's preprocess and convert)
        carry the strides. Tensors a kernel addresses from the shapes (the
        sm_80 forward's and main kernels') must be contiguous. The runtime's
        rule (TensorSpec::stridedOk)."""
        names = getattr(self, "_strided", None)
        if names is None:
            ranks = {t["name"]: len(t["shape"]) for t in self.plan.get("tensors", [])}
            reached, fixed = set(), set()
            for kernel in self.plan.get("kernels", []):
                values = {arg.get("value") for arg in kernel.get("args", [])
                          if arg.get("type") == "i32"}
                for arg in kernel.get("args", []):
                    name = arg.get("tensor")
                    if not name:
                        continue
                    reached.add(name)
                    if arg.get("type") == "ptr" and not all(
                            f"{name}_stride{d}" in values for d in range(ranks.get(name, 1) - 1)):
                        fixed.add(name)
            names = self._strided = frozenset(reached - fixed)
        return names

    @property
    def mapped_tensors(self) -> frozenset:
        """Names of the plan's tensors some tensor map reads or writes."""
        names = getattr(self, "_mapped", None)
        if names is None:
            names = self._mapped = frozenset(
                arg["tensor"] for kernel in self.plan.get("kernels", [])
                for arg in kernel.get("args", []) if arg.get("type") == "tensormap")
        return names

    @property
    def pointer_strided_tensors(self) -> frozenset:
        """Of strided_tensors, those a kernel addresses through a pointer
        and its strides (i32 element offsets, 16-byte accesses): a strided
        call must be 16-byte aligned with 16-byte stride multiples and span
        fewer than 2^31 elements (the runtime checks it)."""
        names = getattr(self, "_pointer_strided", None)
        if names is None:
            names = self._pointer_strided = frozenset(
                arg["tensor"] for kernel in self.plan.get("kernels", [])
                for arg in kernel.get("args", [])
                if arg.get("type") == "ptr" and arg.get("tensor") in self.strided_tensors)
        return names

    @property
    def batch_maps(self) -> bool:
        """Whether the plan's tensor maps are rank 4 over (D, N, H, B)
        (compiled with --batch-maps): each of B, H, N has its own stride, so
        B×N×H×D views of any batch are read (and O, dK, dV written) in one
        launch. Rank-3 maps over (D, N, B·H) need B and H to merge."""
        value = getattr(self, "_batch_maps", None)
        if value is None:
            ranks = [len(arg["tensor_map"]["dims"])
                     for kernel in self.plan.get("kernels", [])
                     for arg in kernel.get("args", []) if arg.get("type") == "tensormap"]
            value = self._batch_maps = bool(ranks) and all(r == 4 for r in ranks)
        return value

    def key(self):
        """The forward's selection key (op, dtype, D, causal, LSE)."""
        return (self.op, self.dtype, self.head_dim, self.causal, self.writes_lse)

    def is_variant(self) -> bool:
        return bool(self.variant)

    @property
    def loaded_from(self) -> str:
        return capi.lib().flash_plan_loaded_from(self._handle).decode()

    def args(self, q, k, v, o, lse, scale: float) -> capi.AttentionArgs:
        """The runtime's description of one call's tensors (torch tensors)."""
        a = capi.AttentionArgs()
        for name, t in (("q", q), ("k", k), ("v", v), ("o", o)):
            setattr(a, name, capi.tensor(t.data_ptr(), self.dtype, tuple(t.shape), t.stride()))
        if lse is not None:
            a.lse = capi.tensor(lse.data_ptr(), "f32", tuple(lse.shape), lse.stride())
        a.scale = scale
        return a

    def named_args(self, tensors: dict, scale: float) -> capi.AttentionArgs:
        """The runtime's description of a call of any op: `tensors` maps the
        plan's tensor names (q, k, v, o, lse, dout, dq, dk, dv, block_table,
        seq_lens) to torch tensors (None: absent)."""
        import torch
        names = {torch.bfloat16: "bf16", torch.float16: "f16", torch.float32: "f32",
                 torch.int32: "i32"}
        a = capi.AttentionArgs()
        for name, t in tensors.items():
            if t is not None:
                setattr(a, name, capi.tensor(t.data_ptr(), names[t.dtype], tuple(t.shape),
                                             t.stride()))
        a.scale = scale
        return a

    def launch_named(self, tensors: dict, scale: float, device):
        """Launches every kernel of the plan on torch's current stream of
        `device` for the named tensors (see named_args)."""
        import torch
        args = self.named_args(tensors, scale)
        stream = torch.cuda.current_stream(device).cuda_stream
        capi.check(capi.lib().flash_plan_launch(self._handle, ctypes.byref(args),
                                                ctypes.c_void_p(stream)), self.name)

    def launch_info(self, args: capi.AttentionArgs, sm_count: int = 0,
                    kernel: int = 0) -> capi.LaunchInfo:
        """The planned launch (grid, block, shared memory, arguments); no GPU
        needed when sm_count is given."""
        info = capi.LaunchInfo()
        capi.check(capi.lib().flash_plan_launch_info(self._handle, kernel, ctypes.byref(args),
                                                      sm_count, ctypes.byref(info)), self.name)
        return info

    def launch_cluster(self, args: capi.AttentionArgs, sm_count: int = 0,
                       kernel: int = 0) -> int:
        """The blocks of a cluster along x the planned launch takes (1: no
        clusters; docs/launch-plan.md "cluster"); no GPU needed when sm_count
        is given."""
        x = ctypes.c_uint32()
        capi.check(capi.lib().flash_plan_launch_cluster(self._handle, kernel, ctypes.byref(args),
                                                         sm_count, ctypes.byref(x)), self.name)
        return x.value

    def launch(self, q, k, v, o, lse, scale: float):
        """Launches on tensors already checked by KernelLibrary.attention, on
        torch's current stream of q's device."""
        import torch
        args = self.args(q, k, v, o, lse, scale)
        stream = torch.cuda.current_stream(q.device).cuda_stream
        capi.check(capi.lib().flash_plan_launch(self._handle, ctypes.byref(args),
                                                ctypes.c_void_p(stream)), self.name)


class _PreparedCall:
    """A call of one plan whose shapes, dtypes, devices and options were
    checked once: each later call with the same signature only allocates the
    outputs, writes the tensors' addresses into its described call and
    launches (host time per call matters in decoding loops; the runtime, for
    its part, reuses the plan's launch for a call that differs only in its
    addresses).

    Each thread has its own copy of the described call (threads may switch
    between writing the addresses and the launch); the addresses are written
    through a view of it as 64-bit words."""

    _ADDRESS_WORD = {name: getattr(capi.AttentionArgs, name).offset // 8
                     for name in ("q", "k", "v", "o", "lse", "dout", "dq", "dk", "dv",
                                  "block_table", "seq_lens")}

    def __init__(self, bundle: "Bundle", args: "capi.AttentionArgs", inputs, out_like,
                 lse_shape, return_lse: bool, device):
        import torch
        import threading
        self._empty_like = torch.empty_like
        self._empty = torch.empty
        self._f32 = torch.float32
        self._get_ident = threading.get_ident
        self._launch = capi.lib().flash_plan_launch
        self._handle = bundle._handle
        self._name = bundle.name
        self._template = args
        self._per_thread = {}
        words = self._ADDRESS_WORD
        self._input_words = tuple(words[name] for name in inputs)  # in call order
        self._o_word = words["o"]
        self._lse_word = words["lse"]
        self._out_like = out_like    # index of the input O is shaped like
        self._lse_shape = lse_shape  # None: the plan writes no LSE
        self._return_lse = return_lse
        self._device = device
        index = device.index if device.index is not None else torch.cuda.current_device()
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        self._stream = ((lambda: raw(index)) if raw is not None else
                        (lambda: torch.cuda.current_stream(device).cuda_stream))

    def _call_args(self):
        """This thread's described call and its view as 64-bit words."""
        mine = self._per_thread.get(self._get_ident())
        if mine is None:
            args = capi.AttentionArgs.from_buffer_copy(self._template)
            mine = (args, (ctypes.c_uint64 * (ctypes.sizeof(args) // 8)).from_buffer(args),
                    ctypes.byref(args))
            self._per_thread[self._get_ident()] = mine
        return mine

    def __call__(self, *tensors):
        args, words, ref = self._call_args()
        o = self._empty_like(tensors[self._out_like])
        for word, t in zip(self._input_words, tensors):
            words[word] = t.data_ptr()
        words[self._o_word] = o.data_ptr()
        lse = None
        if self._lse_shape is not None:
            lse = self._empty(self._lse_shape, device=self._device, dtype=self._f32)
            words[self._lse_word] = lse.data_ptr()
        rc = self._launch(self._handle, ref, self._stream())
        if rc:
            capi.check(rc, self._name)
        return (o, lse) if self._return_lse else o


class _PreparedStridedCall(_PreparedCall):
    """A prepared call (see _PreparedCall) on strided q, k, v that a plan's
    tensor maps take as they are (attention's strided path without copies):
    the signature also holds the strides, O is allocated like q (its strides
    are then the described call's), and the caller checks the addresses'
    16-byte alignment. `batches` > 1 (B×N×H×D views with B > 1: B and H do not
    merge) launches once per batch entry, the described call being entry 0's
    and `steps` the byte offsets of entry b + 1 from b for (q, k, v, o, lse)."""

    def __init__(self, bundle, args, out_like, lse_shape, return_lse, device, batches=1,
                 steps=(0, 0, 0, 0, 0)):
        super().__init__(bundle, args, ("q", "k", "v"), out_like, lse_shape, return_lse, device)
        self._batches = batches
        self._steps = steps

    def __call__(self, *tensors):
        if self._batches == 1:
            return super().__call__(*tensors)
        args, words, ref = self._call_args()
        o = self._empty_like(tensors[self._out_like])
        lse = None
        if self._lse_shape is not None:
            lse = self._empty(self._lse_shape, device=self._device, dtype=self._f32)
        where = [(word, t.data_ptr(), step) for word, t, step in
                 zip(self._input_words, tensors, self._steps)]
        where.append((self._o_word, o.data_ptr(), self._steps[3]))
        if lse is not None:
            where.append((self._lse_word, lse.data_ptr(), self._steps[4]))
        stream = self._stream()
        for b in range(self._batches):
            for word, base, step in where:
                words[word] = base + b * step
            rc = self._launch(self._handle, ref, stream)
            if rc:
                capi.check(rc, self._name)
        return (o, lse) if self._return_lse else o


class _PreparedBackward(_PreparedCall):
    """attention_backward's prepared call (see _PreparedCall): a call whose
    shapes, dtypes, devices and options were checked once (contiguous q, k,
    v, o, dout, lse) only allocates dq, dk, dv like q, k, v, writes the nine
    addresses into its described call and launches the plan's kernels (the
    backward of every layer of a model is such a call after the first).
    A call on strided tensors the plan took as they are (the signature
    holds their strides): `like` says per gradient whether it is allocated
    like q, k, v (empty_like: the plan writes it with its strides) or
    contiguous."""

    def __init__(self, bundle: "Bundle", args: "capi.AttentionArgs", device,
                 like=(True, True, True)):
        super().__init__(bundle, args, ("q", "k", "v", "o", "dout", "lse"), 0, None, False,
                         device)
        words = self._ADDRESS_WORD
        self._grad_words = (words["dq"], words["dk"], words["dv"])
        self._like = tuple(like)

    def __call__(self, q, k, v, o, do, lse):
        args, words, ref = self._call_args()
        if self._like == (True, True, True):
            grads = (self._empty_like(q), self._empty_like(k), self._empty_like(v))
        else:
            grads = tuple(self._empty_like(t) if keep else
                          self._empty(t.shape, dtype=t.dtype, device=t.device)
                          for t, keep in zip((q, k, v), self._like))
        for word, t in zip(self._input_words, (q, k, v, o, do, lse)):
            words[word] = t.data_ptr()
        for word, t in zip(self._grad_words, grads):
            words[word] = t.data_ptr()
        rc = self._launch(self._handle, ref, self._stream())
        if rc:
            capi.check(rc, self._name)
        return grads


def _checked_scale(scale: Optional[float], head_dim: int) -> float:
    """The call's scale: 1/sqrt(D) by default; finite and positive."""
    if scale is None:
        scale = 1.0 / math.sqrt(head_dim)
    if not (scale > 0 and math.isfinite(scale)):
        raise ValueError(f"scale must be finite and positive on the GPU, got {scale}")
    return scale


def _output_like(out, like, name: str, like_name: str):
    """`out` checked to be a contiguous tensor like `like`, or a new one."""
    import torch
    if out is None:
        return torch.empty_like(like)
    if out.shape != like.shape or out.dtype != like.dtype or not out.is_contiguous():
        raise ValueError(f"{name} must be a contiguous tensor like {like_name}")
    return out


# Head dimensions the compiler takes (python3 -m flash_mlir.compile --head-dims).
COMPILED_HEAD_DIMS = (64, 128, 256)
_OPS_FLAG = {"attention_forward": "forward", "attention_backward": "backward",
             "attention_split_kv": "split_kv", "paged_attention": "paged"}


def compile_hint(bundle_dir: str, op: str, dtype: str, head_dim: int, causal: bool,
                 lse: bool, compute_capability: int = 0, arch: Optional[str] = None) -> str:
    """What to say when a library has no plan for a call: which bundle is
    missing and the command that compiles it (or that the compiler does not
    take the head dimension)."""
    what = (f"no {op} kernel for {dtype}, D={head_dim}, causal={causal}, lse={lse}"
            f"{f' on compute capability {compute_capability}' if compute_capability else ''}"
            f" in {bundle_dir}")
    if head_dim not in COMPILED_HEAD_DIMS:
        return (f"{what}: not supported yet: head dimension {head_dim} (the compiler takes D in "
                f"{', '.join(map(str, COMPILED_HEAD_DIMS))})")
    if arch is None:
        arch = "sm_90a" if compute_capability == 90 else "sm_80"
    cubins = ""
    if arch == "sm_80" and compute_capability and compute_capability != 80:
        cubins = f" --cubin-archs sm_80,sm_{compute_capability}"
    flags = f" --causal {'yes' if causal else 'no'}"
    if op != "attention_backward":
        flags += f" --lse {'yes' if lse else 'no'}"
    return (f"{what}; compile it on a machine with the compiler: python3 -m flash_mlir.compile "
            f"--out {bundle_dir} --arch {arch}{cubins} --dtypes {dtype} --head-dims {head_dim}"
            f"{flags} --ops {_OPS_FLAG.get(op, op)}")


def _map_layout(t) -> bool:
    """Whether a tensor map can read `t` as it is: its innermost dimension
    contiguous, its address and its other strides multiples of 16 bytes."""
    if t.stride(-1) != 1 or t.data_ptr() % 16:
        return False
    size = t.element_size()
    return all(t.shape[i] == 1 or (t.stride(i) * size) % 16 == 0 for i in range(t.dim() - 1))


def _contiguous_all(*tensors):
    """The tensors, contiguous (copies for the backward's kernels of strided
    tensors its plan cannot take): a contiguous one as it is; those that need a
    copy and share a shape, dtype and device copied by ONE torch.stack (one
    op and one copy kernel instead of one ``contiguous()`` each: the host
    time of a training step's backward, which is host-bound; a GPT-2 layer's
    q, k, v (B×N×H×D views of its fused QKV projection), O and dO are five
    strided tensors of one shape, a Llama layer's q, O, dO and k, v two
    groups). Same values as ``contiguous()``."""
    out = list(tensors)
    groups = {}
    for i, t in enumerate(tensors):
        if not t.is_contiguous():
            groups.setdefault((t.shape, t.dtype, t.device), []).append(i)
    if not groups:
        return out
    import torch
    for indices in groups.values():
        if len(indices) == 1:
            out[indices[0]] = tensors[indices[0]].contiguous()
            continue
        for i, part in zip(indices, torch.stack([tensors[i] for i in indices]).unbind(0)):
            # stack's result is contiguous for these inputs (its memory
            # format is contiguous for 5-D stacks of B×H×N×D tensors).
            out[i] = part if part.is_contiguous() else part.contiguous()
    return out


def _takes_strided(bundle: Bundle, name: str, t) -> bool:
    """Whether `bundle`'s plan takes tensor `name` (`t`) as it is: contiguous,
    or strided where only tensor maps (rank 4, or rank 3 with B and H
    merged) and pointers with strides (i32 element offsets: fewer than 2^31
    elements spanned) reach it, 16-byte aligned."""
    if t.is_contiguous():
        return True
    if name not in bundle.strided_tensors or not _map_layout(t):
        return False
    if name in bundle.pointer_strided_tensors and _span(t) >= 2 ** 31:
        return False
    return bundle.batch_maps or _heads_merge(t) or name not in bundle.mapped_tensors


def _span(t) -> int:
    """Elements from t's first to its last (the kernels' i32 offsets)."""
    return 1 + sum((n - 1) * s for n, s in zip(t.shape, t.stride())) if t.numel() else 0


def _gradient(bundle: Bundle, name: str, like):
    """Gradient `name` (dq, dk, dv) of `like` (q, k, v) and whether it is
    empty_like(like): in like's layout where the plan writes it with its
    strides and that layout suits it (dQ: the convert kernel; dK, dV: maps),
    else contiguous."""
    import torch
    t = torch.empty_like(like)
    if t.is_contiguous() or _takes_strided(bundle, name, t):
        return t, True
    return torch.empty(like.shape, dtype=like.dtype, device=like.device), False


def _gradient_out(bundle: Bundle, name: str, t, like, like_name: str):
    """A caller's gradient buffer `t` (dq, dk, dv) for `like` (q, k, v):
    itself where the plan writes it as it is (contiguous, or strided where
    the plan takes it: sm_80's strided twins, sm_90a's maps), else a new
    contiguous one, which attention_backward copies into `t`."""
    import torch
    if not isinstance(t, torch.Tensor) or t.shape != like.shape or t.dtype != like.dtype:
        raise ValueError(f"{name} must be a tensor like {like_name}")
    if t.is_contiguous() or _takes_strided(bundle, name, t):
        return t
    return torch.empty(like.shape, dtype=like.dtype, device=like.device)


def _heads_merge(t) -> bool:
    """Whether B and H of a B×H×N×D tensor merge into the maps' one B·H
    dimension (stride(B) = H·stride(H)): always for B×H×N×D buffers and
    slices of them along N; for B×N×H×D views only when B or H is 1."""
    return t.shape[0] == 1 or t.shape[1] == 1 or t.stride(0) == t.shape[1] * t.stride(1)


def _lse_output(bundle: "Bundle", lse_out, q):
    """The B×Hq×Nq f32 LSE a plan that writes it needs (`lse_out` or new)."""
    import torch
    if not bundle.writes_lse:
        return None
    b, hq, nq = q.shape[:3]
    return lse_out if lse_out is not None else torch.empty(
        (b, hq, nq), device=q.device, dtype=torch.float32)


@contextlib.contextmanager
def _invalid_call_as_value_error():
    """A call the plan's constraints refuse is the caller's ValueError."""
    try:
        yield
    except capi.FlashRuntimeError as e:
        if e.code == capi.ERROR_INVALID:
            raise ValueError(str(e)) from None
        raise


class KernelLibrary:
    """All launch plans of a directory, selected by key."""

    def __init__(self, bundle_dir: str):
        c = capi.lib()
        handle = ctypes.c_void_p()
        result = c.flash_library_open(bundle_dir.encode(), ctypes.byref(handle))
        if result != 0:
            message = c.flash_last_error().decode()
            if message.startswith("no launch plans"):
                raise FileNotFoundError(message)
            raise ValueError(message)
        self._handle = handle
        self.dir = bundle_dir
        self.all = [Bundle(c.flash_library_plan(handle, i), self)
                    for i in range(c.flash_library_plan_count(handle))]
        self._by_name = {b.name: b for b in self.all}
        self._capabilities: Dict[int, int] = {}
        self._shared_memories: Dict[int, int] = {}
        self._chosen: Dict[Tuple, Bundle] = {}  # find()'s answers: selection is pure
        self._prepared: Dict[Tuple, _PreparedCall] = {}  # checked calls, by signature

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle and capi._LIB is not None:
            capi._LIB.flash_library_close(handle)
            self._handle = None

    def defaults(self, dtype: str, head_dim: int, causal: bool, lse: bool) -> List[Bundle]:
        """The key's bundles of the model's form (the first variant's where the
        key has no other), by range of lengths."""
        key = ("attention_forward", dtype, head_dim, causal, lse)
        mine = [b for b in self.all if b.key() == key]
        if not mine:
            self.find(dtype, head_dim, causal, lse)  # raises, naming what was compiled
        form = "" if any(not b.is_variant() for b in mine) else min(b.variant for b in mine)
        return sorted((b for b in mine if b.variant == form), key=lambda b: b.seq_range[0])

    def find(self, dtype: str, head_dim: int, causal: bool, lse: bool,
             seq_len: Optional[int] = None, compute_capability: int = 0,
             arch: Optional[str] = None, variant: Optional[str] = None,
             op: str = "attention_forward", shared_memory: int = 0) -> Bundle:
        """The runtime's choice for a call of `op` whose longer sequence
        (max(Nq, Nk)) is seq_len: the plan whose range of lengths holds it
        (without seq_len, the first range). compute_capability (e.g. 90)
        limits the choice to plans that run there; arch and variant ask for
        one. shared_memory: the bytes of shared memory a block of the device
        may opt in to (232448 on an H100/H200, 166912 on an A100): plans
        that take more are not chosen, and of plans of one key and range the
        one taking the most is; 0 (unknown) chooses the one taking the
        least (flash_library_select, docs/launch-plan.md)."""
        memo = (op, dtype, head_dim, causal, lse, seq_len, compute_capability, arch, variant,
                shared_memory)
        chosen = self._chosen.get(memo)
        if chosen is not None:
            return chosen
        key = capi.Key(compute_capability=compute_capability,
                       arch=arch.encode() if arch else None,
                       dtype=capi.DTYPES.get(dtype, capi.DTYPE_NONE), head_dim=head_dim,
                       value_dim=head_dim, causal=int(causal), lse=int(lse),
                       seq_q=seq_len or 0, seq_kv=seq_len or 0,
                       variant=variant.encode() if variant else None, op=op.encode(),
                       shared_memory_per_block=shared_memory)
        plan = ctypes.c_void_p()
        if capi.lib().flash_library_select(self._handle, ctypes.byref(key), ctypes.byref(plan)):
            message = capi.lib().flash_last_error().decode()
            # (Plans that exist but need more shared memory than the device
            # has: the runtime's message names them; compiling again would
            # not help.)
            if message.startswith("no launch plan") and "too large for the device" not in message:
                message = f"{compile_hint(self.dir, op, dtype, head_dim, causal, lse, compute_capability, arch)} ({message})"
            raise ValueError(message)
        info = capi.PlanInfo()
        capi.check(capi.lib().flash_plan_get_info(plan, ctypes.byref(info)))
        chosen = self._by_name[info.name.decode()]
        if len(self._chosen) < 4096:
            self._chosen[memo] = chosen
        return chosen

    def find_backward(self, dtype: str, head_dim: int, causal: bool,
                      seq_len: Optional[int] = None, compute_capability: int = 0,
                      deterministic: bool = False, shared_memory: int = 0) -> Bundle:
        """The backward plan the runtime chooses for a call (find with op
        attention_backward): by default the newest arch that runs (sm_90a's
        plan on Hopper where the library has one for the key, else sm_80's,
        which runs on Hopper through its sm_90 cubin or PTX). With
        `deterministic`, only a plan of variant "deterministic" (bitwise
        repeatable dQ), never a plan with order-dependent dQ sums in its
        place: sm_90a's (dQ reductions ordered by K/V tile through
        semaphores) on Hopper where the library has one, else sm_80's (its
        dQ kernel), which also runs on Hopper (its sm_90 cubin)."""
        try:
            return self.find(dtype, head_dim, causal, False, seq_len,
                             compute_capability=compute_capability,
                             variant="deterministic" if deterministic else None,
                             op="attention_backward", shared_memory=shared_memory)
        except ValueError as e:
            others = [b.name for b in self.all if b.op == "attention_backward" and
                      b.dtype == dtype and b.head_dim == head_dim and b.causal == causal]
            if not deterministic or not others:
                raise
            raise ValueError(
                f"deterministic=True: no deterministic backward plan for {dtype}, "
                f"D={head_dim}, causal={causal} in {self.dir} (it has {', '.join(others)}, "
                f"whose dQ sums are not bitwise repeatable, and is not used in its place). "
                f"Compile one: python3 -m flash_mlir.compile --ops backward --arch sm_90a "
                f"--deterministic yes (Hopper), or --arch sm_80 --cubin-archs sm_80,sm_90 "
                f"--deterministic yes (Ampere and Hopper) ({e})") from None

    def _capability(self, device) -> int:
        index = device.index if device.index is not None else 0
        if index not in self._capabilities:
            import torch
            major, minor = torch.cuda.get_device_capability(device)
            self._capabilities[index] = major * 10 + minor
        return self._capabilities[index]

    def _shared_memory(self, device) -> int:
        """The bytes of shared memory a block of `device` may opt in to
        (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, as the
        runtime's host calls read it); 0 where torch does not say."""
        index = device.index if device.index is not None else 0
        if index not in self._shared_memories:
            import torch
            properties = torch.cuda.get_device_properties(device)
            self._shared_memories[index] = int(getattr(properties,
                                                       "shared_memory_per_block_optin", 0))
        return self._shared_memories[index]

    def attention(self, q, k, v, causal: bool = False, scale: Optional[float] = None,
                  return_lse: bool = False, out=None, lse_out=None, bundle: Optional[Bundle] = None):
        """softmax(scale·Q·Kᵀ + mask)·V for q: B×Hq×Nq×D, k, v: B×Hkv×Nk×D (CUDA).

        `causal` aligns the diagonal bottom-right. `out`/`lse_out` may be given
        (e.g. poisoned buffers in tests); otherwise they are allocated.

        Strided q, k, v (e.g. B×N×H×D tensors viewed as B×H×N×D by
        transpose(1, 2)), innermost dimension contiguous: a plan whose kernels
        read them through tensor maps (sm_90a) takes them as they are, and O
        is allocated in q's layout (empty_like) or may be given strided; a
        plan whose kernels compute addresses (sm_80) gets contiguous copies.
        Where B and H do not merge into one stride (B×N×H×D with B > 1), the
        plan runs once per batch entry (the maps are 3-D over (D, N, B·H)).
        """
        signature = strided_signature = None
        if bundle is None and out is None and lse_out is None:
            # A call like one checked before (shapes, dtypes, device,
            # options; contiguous, or the same strides and 16-byte aligned
            # addresses): only the outputs and the launch.
            try:  # _signature's, written out (host time per call)
                signature = ("attention", (causal, scale, return_lse),
                             (q.shape, q.dtype, q.get_device()),
                             (k.shape, k.dtype, k.get_device()),
                             (v.shape, v.dtype, v.get_device()))
            except AttributeError:
                signature = None
            if signature is not None:
                if q.is_contiguous() and k.is_contiguous() and v.is_contiguous():
                    prepared = self._prepared.get(signature)
                    if prepared is not None:
                        return prepared(q, k, v)
                else:
                    strided_signature = (signature, q.stride(), k.stride(), v.stride())
                    prepared = self._prepared.get(strided_signature)
                    if prepared is not None and not (
                            (q.data_ptr() | k.data_ptr() | v.data_ptr()) & 15):
                        return prepared(q, k, v)
        import torch
        for name, t in (("q", q), ("k", k), ("v", v)):
            if not isinstance(t, torch.Tensor):
                raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
            if not t.is_cuda:
                raise ValueError(f"{name} must be on a CUDA device, got {t.device}")
            if t.dim() != 4:
                raise ValueError(f"{name} must be 4-D (B×H×N×D), got shape {tuple(t.shape)}")
        contiguous = q.is_contiguous() and k.is_contiguous() and v.is_contiguous()
        if not (q.dtype == k.dtype == v.dtype):
            raise TypeError(f"q, k, v must share a dtype, got {q.dtype}, {k.dtype}, {v.dtype}")
        dtype = {torch.bfloat16: "bf16", torch.float16: "f16"}.get(q.dtype)
        if dtype is None:
            raise TypeError(f"dtype {q.dtype} not supported on the GPU (bf16 or f16)")
        if not (q.device == k.device == v.device):
            raise ValueError("q, k, v must be on the same device")
        b, hq, nq, d = q.shape
        nk = k.shape[2]
        if v.shape[3] != d or k.shape[3] != d:
            raise ValueError(f"head dimensions differ: q {d}, k {k.shape[3]}, v {v.shape[3]} "
                             "(kernels need D = Dv)")
        if not contiguous:
            signature = None
        chosen_here = bundle is None
        if bundle is None and nq <= self.SPLIT_KV_MAX_QUERY_ROWS and nk > nq:
            # Few query rows (decoding): the split-KV plan, where compiled.
            bundle = self._split_kv(dtype, d, causal, return_lse,
                                    self._capability(q.device), self._shared_memory(q.device))
        bundle = bundle or self.find(dtype, d, causal, return_lse, max(nq, nk),
                                     compute_capability=self._capability(q.device),
                                     shared_memory=self._shared_memory(q.device))
        scale = _checked_scale(scale, d)
        if not contiguous or (out is not None and not out.is_contiguous()):
            if chosen_here:
                bundle = self._layout_twin(bundle, (("q", q), ("k", k), ("v", v)),
                                           max(nq, nk), q.device)
            return self._attention_strided(bundle, q, k, v, scale, return_lse, out, lse_out,
                                           strided_signature)
        out = _output_like(out, q, "out", "q")
        lse = _lse_output(bundle, lse_out, q)
        # Shapes (batch, heads, lengths), GQA and the size limit are the
        # plan's constraints, checked by the runtime.
        with _invalid_call_as_value_error():
            bundle.launch(q, k, v, out, lse, scale)
        if signature is not None:
            self._remember(signature, _PreparedCall(
                bundle, bundle.args(q, k, v, out, lse, scale), ("q", "k", "v"), 0,
                tuple(lse.shape) if lse is not None else None, return_lse, q.device))
        return (out, lse) if return_lse else out


    def _attention_strided(self, bundle: Bundle, q, k, v, scale: float, return_lse: bool,
                           out, lse_out, signature=None):
        """attention() for strided tensors (see there). `signature`: the
        call's strided signature when it may be prepared (no out, lse_out,
        bundle given)."""
        import torch
        mapped = bundle.strided_tensors

        def taken(name, t):
            if t.is_contiguous() or (name in mapped and _map_layout(t) and not (
                    name in bundle.pointer_strided_tensors and _span(t) >= 2 ** 31)):
                return t
            return t.contiguous()

        given = (q, k, v)
        q, k, v = taken("q", q), taken("k", k), taken("v", v)
        if any(a is not b for a, b in zip(given, (q, k, v))):
            signature = None  # copies: not a call to prepare
        if out is None:
            out = torch.empty_like(q) if "o" in mapped else torch.empty(
                q.shape, dtype=q.dtype, device=q.device)
            if not (out.is_contiguous() or _map_layout(out)):
                out = torch.empty(q.shape, dtype=q.dtype, device=q.device)
        elif out.shape != q.shape or out.dtype != q.dtype:
            raise ValueError("out must be a tensor like q")
        caller_out = None
        if not (out.is_contiguous() or ("o" in mapped and _map_layout(out))):
            # The plan writes O through addresses (sm_80): into a contiguous
            # buffer, then copied into the caller's.
            caller_out, out = out, torch.empty(q.shape, dtype=q.dtype, device=q.device)
        if signature is not None and (caller_out is not None or out.stride() !=
                                      torch.empty_like(q).stride()):
            signature = None  # O not allocated as a prepared call allocates it
        lse = _lse_output(bundle, lse_out, q)
        with _invalid_call_as_value_error():
            if (bundle.batch_maps or not bundle.mapped_tensors
                    or all(_heads_merge(t) for t in (q, k, v, out))):
                # One launch: rank-4 maps and stride arguments take any
                # strides, rank-3 maps those whose B and H merge.
                bundle.launch(q, k, v, out, lse, scale)
                prepared = signature and _PreparedStridedCall(
                    bundle, bundle.args(q, k, v, out, lse, scale), 0,
                    tuple(lse.shape) if lse is not None else None, return_lse, q.device)
            else:
                # Rank-3 maps (a library compiled without --batch-maps) on
                # B×N×H×D views with B > 1: one launch per batch entry.
                for b in range(q.shape[0]):
                    bundle.launch(q[b:b + 1], k[b:b + 1], v[b:b + 1], out[b:b + 1],
                                  None if lse is None else lse[b:b + 1], scale)
                steps = tuple(t.stride(0) * t.element_size() if t is not None else 0
                              for t in (q, k, v, out, lse))
                prepared = signature and _PreparedStridedCall(
                    bundle, bundle.args(q[:1], k[:1], v[:1], out[:1],
                                        None if lse is None else lse[:1], scale), 0,
                    tuple(lse.shape) if lse is not None else None, return_lse, q.device,
                    q.shape[0], steps)
        if prepared:
            self._remember(signature, prepared)
        if caller_out is not None:
            out = caller_out.copy_(out)
        return (out, lse) if return_lse else out

    def _layout_twin(self, bundle: Bundle, tensors, seq_len: int, device) -> Bundle:
        """The plan to run a call of strided `tensors` ((plan name, tensor)
        pairs) on, instead of the model's plan `bundle` the runtime chose,
        where the library has it and `bundle` would not take them as they
        are: its variant "batch_maps" (`compile --batch-maps variant`: rank-4
        maps) where `bundle`'s maps are rank 3 and some tensor's B and H do not
        merge (B×N×H×D views, B > 1); its variant "strided" (`compile
        --strides variant`: sm_80 kernels with stride arguments; the
        deterministic backward's: "deterministic_strided") where `bundle`'s
        kernels address some non-contiguous tensor from the shapes.
        Otherwise `bundle` (which then copies or loops as before)."""
        if bundle.variant not in ("", "deterministic"):
            return bundle
        if bundle.mapped_tensors:
            if bundle.variant or bundle.batch_maps or all(_heads_merge(t) for _, t in tensors):
                return bundle
            variant = "batch_maps"
        elif all(t.is_contiguous() or name in bundle.strided_tensors for name, t in tensors):
            return bundle
        else:
            variant = "_".join(v for v in (bundle.variant, "strided") if v)
        memo = (variant + "?", bundle.name, seq_len, device.index)
        if memo not in self._chosen:
            try:
                twin = self.find(bundle.dtype, bundle.head_dim, bundle.causal,
                                 bundle.writes_lse, seq_len, self._capability(device),
                                 arch=bundle.arch, variant=variant, op=bundle.op,
                                 shared_memory=self._shared_memory(device))
            except ValueError:
                twin = bundle
            self._chosen[memo] = twin
        return self._chosen[memo]

    # Calls with at most this many query rows (and more keys than queries)
    # go to a split-KV plan when the library has one for their key.
    SPLIT_KV_MAX_QUERY_ROWS = 16

    def _split_kv(self, dtype: str, head_dim: int, causal: bool, lse: bool,
                  capability: int, shared_memory: int = 0) -> Optional[Bundle]:
        memo = ("split_kv?", dtype, head_dim, causal, lse, capability, shared_memory)
        if memo not in self._chosen:
            try:
                chosen = self.find(dtype, head_dim, causal, lse, None, capability,
                                   op="attention_split_kv", shared_memory=shared_memory)
            except ValueError:
                chosen = None
            self._chosen[memo] = chosen
        return self._chosen[memo]

    def paged_attention(self, q, k_cache, v_cache, block_table, seq_lens, causal: bool = False,
                        scale: Optional[float] = None, out=None, return_lse: bool = False,
                        lse_out=None, bundle: Optional[Bundle] = None):
        """Attention of q (B×Hq×Nq×D) over a paged KV cache: key t of sequence b
        is slot t % S of page block_table[b][t // S] of k_cache / v_cache
        (P×S×Hkv×D, P×S×Hkv×Dv), for t < seq_lens[b] (block_table B×M and
        seq_lens B, int32, on the device). `causal`: query row i sees keys
        t <= i + seq_lens[b] − Nq. A row that sees no key is 0 (LSE −inf).

        Nothing here reads the device (no synchronisation) and nothing is
        allocated on it but `out` (and LSE) when not given: the partials'
        workspace is the runtime's, one per device and stream, reused. So a
        call captured in a CUDA graph replays correctly while the contents of
        seq_lens and block_table change.
        """
        tensors = (q, k_cache, v_cache, block_table, seq_lens)
        signature = None
        if bundle is None and out is None and lse_out is None:
            signature = self._signature("paged", tensors, causal, scale, return_lse)
            prepared = self._prepared.get(signature)
            if (prepared is not None and q.is_contiguous() and k_cache.is_contiguous()
                    and v_cache.is_contiguous() and block_table.is_contiguous()
                    and seq_lens.is_contiguous()):
                return prepared(q, k_cache, v_cache, block_table, seq_lens)
        import torch
        for name, t in (("q", q), ("k_cache", k_cache), ("v_cache", v_cache),
                        ("block_table", block_table), ("seq_lens", seq_lens)):
            if not isinstance(t, torch.Tensor):
                raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
            if not t.is_cuda:
                raise ValueError(f"{name} must be on a CUDA device, got {t.device}")
            if not t.is_contiguous():
                raise ValueError(f"{name} must be contiguous")
        if q.dim() != 4 or k_cache.dim() != 4 or v_cache.dim() != 4:
            raise ValueError("q must be B×Hq×Nq×D and the caches P×S×Hkv×D, got shapes "
                             f"{tuple(q.shape)}, {tuple(k_cache.shape)}, {tuple(v_cache.shape)}")
        if block_table.dim() != 2 or seq_lens.dim() != 1:
            raise ValueError(f"block_table must be B×M and seq_lens B, got shapes "
                             f"{tuple(block_table.shape)}, {tuple(seq_lens.shape)}")
        if block_table.dtype != torch.int32 or seq_lens.dtype != torch.int32:
            raise TypeError(f"block_table and seq_lens must be int32, got "
                            f"{block_table.dtype}, {seq_lens.dtype}")
        if not (q.dtype == k_cache.dtype == v_cache.dtype):
            raise TypeError(f"q and the caches must share a dtype, got {q.dtype}, "
                            f"{k_cache.dtype}, {v_cache.dtype}")
        dtype = {torch.bfloat16: "bf16", torch.float16: "f16"}.get(q.dtype)
        if dtype is None:
            raise TypeError(f"dtype {q.dtype} not supported on the GPU (bf16 or f16)")
        if len({t.device for t in (q, k_cache, v_cache, block_table, seq_lens)}) != 1:
            raise ValueError("q, the caches, block_table and seq_lens must be on one device")
        b, hq, nq, d = q.shape
        if k_cache.shape[3] != d or v_cache.shape[3] != d:
            raise ValueError(f"head dimensions differ: q {d}, k {k_cache.shape[3]}, "
                             f"v {v_cache.shape[3]} (kernels need D = Dv)")
        bundle = bundle or self.find(dtype, d, causal, return_lse, None,
                                     compute_capability=self._capability(q.device),
                                     op="paged_attention",
                                     shared_memory=self._shared_memory(q.device))
        scale = _checked_scale(scale, d)
        out = _output_like(out, q, "out", "q")
        lse = _lse_output(bundle, lse_out, q)
        # Shapes, GQA, the page size and the size limits are the plan's
        # constraints, checked by the runtime.
        named = {"q": q, "k": k_cache, "v": v_cache, "block_table": block_table,
                 "seq_lens": seq_lens, "o": out, "lse": lse}
        with _invalid_call_as_value_error():
            bundle.launch_named(named, scale, q.device)
        if signature is not None:
            self._remember(signature, _PreparedCall(
                bundle, bundle.named_args(named, scale),
                ("q", "k", "v", "block_table", "seq_lens"), 0,
                tuple(lse.shape) if lse is not None else None, return_lse, q.device))
        return (out, lse) if return_lse else out

    @staticmethod
    def _signature(kind, tensors, *options):
        """What a prepared call depends on: every tensor's shape, dtype and
        device (get_device(): the CUDA ordinal, -1 on the CPU), and the
        options (None if an argument is not a tensor)."""
        try:
            return (kind, options, *[(t.shape, t.dtype, t.get_device()) for t in tensors])
        except AttributeError:
            return None

    def _remember(self, signature, prepared):
        if len(self._prepared) >= 1024:  # calls of many shapes: start over
            self._prepared.clear()
        self._prepared[signature] = prepared

    def attention_backward(self, q, k, v, o, do, lse, causal: bool = False,
                           scale: Optional[float] = None, deterministic: bool = False,
                           out=None, bundle: Optional[Bundle] = None):
        """dQ, dK, dV of attention(q, k, v, causal, scale) for the output
        gradient `do`, given the forward's output `o` and its log-sum-exp
        `lse` (B×Hq×Nq f32, as attention(..., return_lse=True) returns).

        The plan's kernels run in order (preprocess: Δ = rowsum(dO∘O) and the
        dQ accumulator; main: dK, dV per K/V tile and dQ through f32
        atomics (sm_80) or bulk f32 reductions (sm_90a); convert), or with
        `deterministic` the plan that sums dQ in one fixed order (bitwise
        repeatable: sm_90a's reductions ordered by K/V tile, or sm_80's dQ
        kernel without atomics; see find_backward). The plan is
        find_backward's: sm_90a's on Hopper where the library has one; for
        strided tensors (B×N×H×D views) its twin where the library has one
        and the plan would copy them (_layout_twin: sm_80's "strided" and
        "deterministic_strided", compile --strides variant). Under GQA
        dK, dV of a kv-head sum over its q-heads. A row that saw no key
        (LSE = -inf) contributes nothing. `out` = (dq, dk, dv) may be given
        (e.g. poisoned buffers in tests; strided ones are written as they
        are where the plan takes them, else through a contiguous copy);
        otherwise they are allocated.
        """
        signature = None
        if out is None and bundle is None:
            # A call like one checked before (every layer of a model after
            # the first): only the gradients' allocation and the launch.
            signature = self._signature("attention_backward", (q, k, v, o, do, lse),
                                        causal, scale, deterministic)
            if signature is not None and lse.is_contiguous():
                if (q.is_contiguous() and k.is_contiguous() and v.is_contiguous()
                        and o.is_contiguous() and do.is_contiguous()):
                    prepared = self._prepared.get(signature)
                    if prepared is not None:
                        return prepared(q, k, v, o, do, lse)
                else:  # strided tensors the plan took as they are, 16-byte aligned
                    signature = (signature, q.stride(), k.stride(), v.stride(), o.stride(),
                                 do.stride())
                    prepared = self._prepared.get(signature)
                    if prepared is not None and not (
                            (q.data_ptr() | k.data_ptr() | v.data_ptr() | o.data_ptr()
                             | do.data_ptr()) & 15):
                        return prepared(q, k, v, o, do, lse)
        import torch
        named = (("q", q), ("k", k), ("v", v), ("o", o), ("do", do), ("lse", lse))
        for name, t in named:
            if not isinstance(t, torch.Tensor):
                raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
            if not t.is_cuda:
                raise ValueError(f"{name} must be on a CUDA device, got {t.device}")
            if t.device != q.device:
                raise ValueError("q, k, v, o, do and lse must be on the same device")
        for name, t in named[:5]:
            if t.dim() != 4:
                raise ValueError(f"{name} must be 4-D (B×H×N×D), got shape {tuple(t.shape)}")
            if t.dtype != q.dtype:
                raise TypeError(f"q, k, v, o and do must share a dtype, got {t.dtype} for "
                                f"{name} and {q.dtype} for q")
        dtype = {torch.bfloat16: "bf16", torch.float16: "f16"}.get(q.dtype)
        if dtype is None:
            raise TypeError(f"dtype {q.dtype} not supported on the GPU (bf16 or f16)")
        if lse.dtype != torch.float32 or tuple(lse.shape) != tuple(q.shape[:3]):
            raise ValueError(f"lse must be f32 of shape {tuple(q.shape[:3])} (B×Hq×Nq), got "
                             f"{lse.dtype} {tuple(lse.shape)}")
        b, hq, nq, d = q.shape
        nk = k.shape[2]
        if v.shape[3] != d or k.shape[3] != d:
            raise ValueError(f"head dimensions differ: q {d}, k {k.shape[3]}, v {v.shape[3]} "
                             "(kernels need D = Dv)")
        if o.shape != q.shape or do.shape != q.shape:
            raise ValueError(f"o and do must have q's shape {tuple(q.shape)}, got "
                             f"{tuple(o.shape)} and {tuple(do.shape)}")
        if bundle is None:
            bundle = self.find_backward(dtype, d, causal, max(nq, nk),
                                        self._capability(q.device), deterministic,
                                        self._shared_memory(q.device))
            outs = tuple(zip(("dq", "dk", "dv"), out)) if out is not None else ()
            bundle = self._layout_twin(bundle, (("q", q), ("k", k), ("v", v), ("o", o),
                                                ("dout", do)) + tuple(
                                                    (n, t) for n, t in outs
                                                    if hasattr(t, "is_contiguous")),
                                       max(nq, nk), q.device)
        # Strided tensors are taken as they are where the plan's kernels
        # read them through tensor maps (rank 4 with --batch-maps: any
        # strides, innermost contiguous, 16-byte multiples; rank 3: B and H
        # merged) or through pointers and their strides (O and dO: the
        # preprocess); others (the sm_80 main kernel's q, k, v, dO; LSE) are
        # copied contiguous. The gradients are written in q, k, v's layout
        # (empty_like) where the plan writes them so (dQ: the convert
        # kernel's strides; dK, dV: maps), else contiguous.
        given = (q, k, v, o, do, lse)
        taken = [_takes_strided(bundle, plan_name, t) for plan_name, t in
                 (("q", q), ("k", k), ("v", v), ("o", o), ("dout", do))] + [False]
        if not all(taken[:5]) or not lse.is_contiguous():
            copies = _contiguous_all(*(t for t, keep in zip(given, taken) if not keep))
            copies.reverse()
            q, k, v, o, do, lse = (t if keep else copies.pop()
                                   for t, keep in zip(given, taken))
        copied = any(a is not b for a, b in zip(given, (q, k, v, o, do, lse)))
        strided = not all(t.is_contiguous() for t in (q, k, v, o, do))
        if copied:
            signature = None  # copies: not a call to prepare
        if strided and signature is not None and (
                (q.data_ptr() | k.data_ptr() | v.data_ptr() | o.data_ptr() | do.data_ptr())
                & 15):
            signature = None
        scale = _checked_scale(scale, d)
        if out is None:
            # In the caller's q, k, v layout (given: before any copy), where
            # the plan can write it so (sm_80's convert writes dQ in the
            # layout of q even where it copies q for its main kernel).
            (dq, dk, dv), like = zip(*(_gradient(bundle, name, t)
                                       for name, t in (("dq", given[0]), ("dk", given[1]),
                                                       ("dv", given[2]))))
        else:
            like = (False, False, False)
            # Strided outputs the plan writes as they are (e.g. B×N×H×D
            # views on sm_80's strided twins), others contiguous.
            dq, dk, dv = (_gradient_out(bundle, name, t, like_t, like_name)
                          for t, like_t, name, like_name in
                          zip(out, given[:3], ("dq", "dk", "dv"), ("q", "k", "v")))
        # Shapes, GQA and the size limit are the plan's constraints, checked
        # by the runtime.
        tensors = {"q": q, "k": k, "v": v, "o": o, "dout": do, "lse": lse,
                   "dq": dq, "dk": dk, "dv": dv}
        with _invalid_call_as_value_error():
            bundle.launch_named(tensors, scale, q.device)
        if out is not None:
            # Strided outputs the plan did not take: written contiguous here,
            # copied into the caller's.
            for mine, theirs in zip((dq, dk, dv), out):
                if mine is not theirs:
                    theirs.copy_(mine)
            dq, dk, dv = out
        if signature is not None and out is None:
            self._remember(signature, _PreparedBackward(
                bundle, bundle.named_args(tensors, scale), q.device, like))
        return dq, dk, dv


def register_torch_op(library: "KernelLibrary"):
    """See flash_mlir.torch.register_torch_op (kept here for older callers)."""
    from flash_mlir.torch import register_torch_op as register
    return register(library)
