"""Generate, run and check CPU numerical cases of ``flash.attention`` and
``flash.attention_backward``.

A case is a random (seeded) set of inputs q, k, v (f32, f16 or bf16) baked
into an MLIR module as ``arith.constant dense<...>`` tensors, one
``flash.attention`` op in the dialect's textual form, and ``printMemrefF32``
calls that print O (widened to f32 for 16-bit types) and LSE.  The expected
values come from :mod:`flash_mlir.oracle` in float64 on the same (rounded)
inputs.  f32 cases are checked to atol = rtol = 1e-5; 16-bit cases to the
per-element bound :func:`rounding_tolerance` derives from the rounding the
kernels do (P to 16 bits before P·V, O to 16 bits), docs/testing.md.

Command line (with ``PYTHONPATH=python``)::

  python3 -m flash_mlir.testing.cpu_case gen --seed 1 --batch 1 --hq 4 --hkv 2 \\
      --nq 7 --nk 9 --d 16 --dv 8 [--causal] [--scale 0.125] [--lse] [--dtype bf16] \\
      --mlir case.mlir --expected case.npz
  flash-opt case.mlir --flash-cpu-pipeline | mlir-runner -e main \\
      -entry-point-result=void -O3 -shared-libs=...c_runner_utils.so,...runner_utils.so > case.out
  python3 -m flash_mlir.testing.cpu_case check --expected case.npz --output case.out

  # or all three steps at once:
  python3 -m flash_mlir.testing.cpu_case run --seed 1 ... \\
      --flash-opt build/bin/flash-opt --pipeline='--flash-cpu-pipeline="block-q=4 block-kv=3"'

A backward case (``--backward``) bakes q, k, v, O and LSE of the forward
(from the oracle, O rounded to the element type, LSE to f32) and a random dO
into one ``flash.attention_backward`` and prints dQ, dK and dV; the expected
values are :func:`flash_mlir.oracle.attention_backward_reference` on those
same inputs, checked to :func:`backward_rounding_tolerance`.  Many backward
cases fit in one module (:func:`run_backward_batch`: one flash-opt and one
mlir-runner run for all of them, each op with its own tiles).

Python API: :class:`CaseConfig`, :func:`generate`, :func:`parse_memref_prints`,
:func:`check_output`, :func:`run_case`, :func:`run_backward_batch`.
"""

import argparse
import dataclasses
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from typing import List, Optional, Sequence, Tuple, Union

import numpy as np

from flash_mlir.oracle import attention_backward_reference, attention_reference

LLVM_BIN = os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin")
LLVM_LIB = os.environ.get("LLVM_LIB", "/usr/lib/llvm-22/lib")
MLIR_RUNNER = os.environ.get("MLIR_RUNNER", os.path.join(LLVM_BIN, "mlir-runner"))
RUNNER_SHARED_LIBS = ",".join([
    os.path.join(LLVM_LIB, "libmlir_c_runner_utils.so"),
    os.path.join(LLVM_LIB, "libmlir_runner_utils.so"),
])
RUNNER_ARGS = ["-e", "main", "-entry-point-result=void", "-O3",
               "-shared-libs=" + RUNNER_SHARED_LIBS]

DEFAULT_ATOL = 1e-5
DEFAULT_RTOL = 1e-5
# printMemrefF32 prints through std::ostream with the default precision of
# 6 significant digits; the check adds the resulting rounding bound.
PRINT_DIGITS = 6


# --------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------

class _QueryShapes:
    """The shapes every case shares (q, O, LSE) and the scale as the op sees
    it; a case class gives batch, hq, nq, d, dv and scale."""

    @property
    def q_shape(self):
        return (self.batch, self.hq, self.nq, self.d)

    @property
    def o_shape(self):
        return (self.batch, self.hq, self.nq, self.dv)

    @property
    def lse_shape(self):
        return (self.batch, self.hq, self.nq)

    @property
    def scale_f32(self) -> Optional[float]:
        """The scale as the op sees it (an f32 attribute), or None."""
        return None if self.scale is None else float(np.float32(self.scale))


@dataclasses.dataclass(frozen=True)
class CaseConfig(_QueryShapes):
    seed: int
    batch: int
    hq: int
    hkv: int
    nq: int
    nk: int
    d: int
    dv: int
    causal: bool = False
    scale: Optional[float] = None
    lse: bool = False
    dtype: str = "f32"            # element type of q, k, v and O
    backward: bool = False        # flash.attention_backward (dQ, dK, dV); lse unused

    def __post_init__(self):
        if self.dtype not in UNIT_ROUNDOFF:
            raise ValueError("dtype must be one of %s" % ", ".join(UNIT_ROUNDOFF))
        for f in ("batch", "hq", "hkv", "nq", "nk", "d", "dv"):
            if getattr(self, f) < 0:
                raise ValueError("%s must be >= 0" % f)
        if self.hkv == 0 or self.hq % self.hkv != 0:
            raise ValueError("hkv (%d) must divide hq (%d)" % (self.hkv, self.hq))

    # Shapes -----------------------------------------------------------
    @property
    def k_shape(self):
        return (self.batch, self.hkv, self.nk, self.d)

    @property
    def v_shape(self):
        return (self.batch, self.hkv, self.nk, self.dv)

    # Command lines ----------------------------------------------------
    def gen_argv(self) -> List[str]:
        argv = ["--seed", str(self.seed), "--batch", str(self.batch),
                "--hq", str(self.hq), "--hkv", str(self.hkv),
                "--nq", str(self.nq), "--nk", str(self.nk),
                "--d", str(self.d), "--dv", str(self.dv)]
        if self.causal:
            argv.append("--causal")
        if self.scale is not None:
            argv += ["--scale", repr(float(self.scale))]
        if self.lse:
            argv.append("--lse")
        if self.dtype != "f32":
            argv += ["--dtype", self.dtype]
        if self.backward:
            argv.append("--backward")
        return argv

    def short_id(self) -> str:
        parts = ["s%d" % self.seed, "B%d" % self.batch, "Hq%d" % self.hq,
                 "Hkv%d" % self.hkv, "Nq%d" % self.nq, "Nk%d" % self.nk,
                 "D%d" % self.d, "Dv%d" % self.dv]
        if self.causal:
            parts.append("causal")
        if self.scale is not None:
            parts.append("scale%g" % self.scale)
        if self.lse:
            parts.append("lse")
        if self.dtype != "f32":
            parts.append(self.dtype)
        if self.backward:
            parts.append("bwd")
        return "-".join(parts)

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), sort_keys=True)

    @classmethod
    def from_dict(cls, d) -> "CaseConfig":
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in fields})


# --------------------------------------------------------------------------
# Inputs, oracle, MLIR text
# --------------------------------------------------------------------------

# Unit roundoff (round to nearest) of each element type: 2^-p for p
# significand bits, the implicit one included.
UNIT_ROUNDOFF = {"f32": 2.0 ** -24, "f16": 2.0 ** -11, "bf16": 2.0 ** -8}


def pick_length(rng, common: int, common_share: float, most: int) -> int:
    """A random sequence length for the property tests: 1 (15%), 7 (15%, a
    ragged tail), ``common`` (a whole number of tiles, ``common_share``),
    otherwise uniform in [1, most]."""
    r = rng.random()
    if r < 0.15:
        return 1
    if r < 0.30:
        return 7
    if r < 0.30 + common_share:
        return common
    return int(rng.integers(1, most + 1))


def pick_tile(rng, n: int, slack: int, powers) -> int:
    """A tile size for length ``n``, one of: 1, a size that does not divide
    n, a size >= n (up to ``slack`` past it), a power of two from ``powers``."""
    kind = rng.choice(["one", "nondiv", "ge", "pow2", "nondiv"])
    if kind == "one":
        return 1
    if kind == "ge":
        return int(n + rng.integers(0, slack))
    if kind == "pow2":
        return int(rng.choice(list(powers)))
    cands = [t for t in range(2, n) if n % t != 0]
    return int(rng.choice(cands)) if cands else int(n + 1)


def round_to_dtype(x, dtype: str) -> np.ndarray:
    """float32 array of ``x`` rounded to nearest-even in ``dtype``."""
    x = np.asarray(x, dtype=np.float32)
    if dtype == "f32":
        return x.copy()
    if dtype == "f16":
        return x.astype(np.float16).astype(np.float32)
    if dtype == "bf16":
        bits = np.ascontiguousarray(x).view(np.uint32).astype(np.uint64)
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
        return rounded.astype(np.uint32).view(np.float32).reshape(x.shape)
    raise ValueError("unknown dtype %r" % dtype)


def rounding_tolerance(q, k, v, causal: bool, scale: float, dtype: str):
    """Per-element error bounds ``(o_bound, lse_bound)`` of a kernel on
    these inputs (already in ``dtype``) against the float64 oracle.

    With u the unit roundoff of ``dtype`` (2^-8 bf16, 2^-11 f16, 0 for f32
    where nothing is rounded to 16 bits), w_j the softmax weights of a row and
    W = Σ_j w_j·|v_j| (per output column):
      * P rounded to 16 bits before P·V while l sums the unrounded P: each
        term of O = Σ_j P_j·v_j / l moves by at most u·w_j·|v_j|: u·W;
      * f32 arithmetic, η = 2·γ_Nk + 2·ε_S + 2^-18 relative to W, where
        γ_n = (n + 2)·2^-24 bounds the sums of l and of P·V over Nk keys,
        ε_S = scale·γ_D·max_j Σ_d |q_d·k_jd| bounds the f32 error of a
        score (which moves P_j by that factor), and 2^-18 covers ex2.approx
        (2 ulp), the f32 exponent arguments and 1/l;
      * O rounded to 16 bits: u·|O|.
    o_bound = (u + η)·W + u·(|O| + (u + η)·W).  The LSE (m·scale + ln l,
    in f32): γ_Nk + ε_S + 2^-18 + 2^-23·|LSE|.  A fully masked row has O = 0
    and LSE = -inf exactly (bound 0).
    """
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    b, hq, nq, d = q.shape
    hkv, nk, dv = k.shape[1], k.shape[2], v.shape[3]
    u = UNIT_ROUNDOFF[dtype] if dtype != "f32" else 0.0
    gamma_n = (nk + 2) * 2.0 ** -24
    gamma_d = (d + 2) * 2.0 ** -24
    o_bound = np.zeros((b, hq, nq, dv))
    lse_bound = np.zeros((b, hq, nq))
    if nq == 0 or nk == 0:
        return o_bound, lse_bound
    from flash_mlir.oracle import causal_visible_mask
    visible = causal_visible_mask(nq, nk, causal)
    group = hq // hkv
    for h in range(hq):
        kh, vh = k[:, h // group], v[:, h // group]
        s = scale * np.matmul(q[:, h], np.swapaxes(kh, -1, -2))
        s = np.where(visible[None], s, -np.inf)
        m = np.max(s, axis=-1, keepdims=True)
        m = np.where(np.isfinite(m), m, 0.0)
        p = np.exp(s - m)
        l = p.sum(axis=-1, keepdims=True)
        w = p / np.where(l > 0, l, 1.0)
        big_w = np.matmul(w, np.abs(vh))                               # W
        o = np.matmul(w, vh)
        absdot = np.matmul(np.abs(q[:, h]), np.swapaxes(np.abs(kh), -1, -2))
        eps_s = scale * gamma_d * np.max(np.where(visible[None], absdot, 0.0),
                                         axis=-1, keepdims=True)
        eta = 2 * gamma_n + 2 * eps_s + 2.0 ** -18
        o_bound[:, h] = (u + eta) * big_w + u * (np.abs(o) + (u + eta) * big_w)
        lse = (m + np.log(np.where(l > 0, l, 1.0)))[..., 0]
        lse_bound[:, h] = np.where(l[..., 0] > 0,
                                   gamma_n + eps_s[..., 0] + 2.0 ** -18
                                   + 2.0 ** -23 * np.abs(lse), 0.0)
    return o_bound, lse_bound


def make_inputs(cfg: CaseConfig):
    """float32 q, k, v drawn from ``default_rng(seed)``, rounded to
    ``cfg.dtype``.

    q and k are standard normal, so with the default scale 1/sqrt(D) the
    scores have unit spread (softmax neither flat nor one-hot); v is uniform
    in [-1, 1] so |O| <= 1.
    """
    rng = np.random.default_rng(cfg.seed)
    q = rng.standard_normal(cfg.q_shape).astype(np.float32)
    k = rng.standard_normal(cfg.k_shape).astype(np.float32)
    v = rng.uniform(-1.0, 1.0, cfg.v_shape).astype(np.float32)
    if cfg.dtype != "f32":
        q, k, v = (round_to_dtype(x, cfg.dtype) for x in (q, k, v))
    return q, k, v


def expected_outputs(cfg: CaseConfig, q, k, v):
    """Oracle (float64) on the float32 inputs, with the op's f32 scale."""
    return attention_reference(q, k, v, causal=cfg.causal, scale=cfg.scale_f32)


def tensor_type(shape, dtype: str = "f32") -> str:
    return "tensor<%sx%s>" % ("x".join(str(s) for s in shape), dtype)


def memref_type(shape) -> str:
    return "memref<%sxf32>" % "x".join(str(s) for s in shape)


def f32_literal(x) -> str:
    """A decimal literal that MLIR parses back to exactly ``float32(x)``.

    10 significant digits; always has a '.', which MLIR's float lexer needs.
    """
    return "%.9e" % float(np.float32(x))


def _elem_literal(x, dtype: str = "f32") -> str:
    x = np.float32(x)
    if np.isfinite(x):
        return "%.9e" % float(x)
    # inf / nan: the bit pattern of the element type, which MLIR accepts
    # inside dense<...>
    bits = int(np.array(x, dtype=np.float32).view(np.uint32))
    if dtype == "f16":
        return "0x%04X" % int(np.array(x, dtype=np.float16).view(np.uint16))
    if dtype == "bf16":
        return "0x%04X" % (bits >> 16)
    return "0x%08X" % bits


def dense_literal(a: np.ndarray, dtype: str = "f32") -> str:
    """``dense<...>`` body (nested brackets) for a float32 array (whose
    values are exact in ``dtype``; NaN and infinities are written as
    ``dtype``'s bit patterns)."""
    a = np.asarray(a, dtype=np.float32)
    if a.size == 0:
        return "dense<>"
    flat = [_elem_literal(x, dtype) for x in a.ravel()]
    shape = a.shape

    def rec(dim, start):
        if dim == len(shape) - 1:
            return "[" + ", ".join(flat[start:start + shape[dim]]) + "]"
        stride = int(np.prod(shape[dim + 1:]))
        return "[" + ", ".join(rec(dim + 1, start + i * stride)
                               for i in range(shape[dim])) + "]"

    if len(shape) == 0:
        return "dense<%s>" % flat[0]
    return "dense<%s>" % rec(0, 0)


def attention_attr_dict(cfg: CaseConfig) -> str:
    attrs = []
    if cfg.causal:
        attrs.append("causal")
    if cfg.scale is not None:
        attrs.append("scale = %s : f32" % f32_literal(cfg.scale))
    return (" {" + ", ".join(attrs) + "}") if attrs else ""


def _widen_lines(name: str, shape, dtype: str) -> List[str]:
    """Lines that widen the 16-bit tensor %<name> to f32 as %<name>_f32."""
    rank = len(shape)
    ident = "affine_map<(%s) -> (%s)>" % ((", ".join("d%d" % i for i in range(rank)),) * 2)
    return [
        "    %%%s_init = tensor.empty() : %s" % (name, tensor_type(shape)),
        "    %%%s_f32 = linalg.generic {indexing_maps = [%s, %s], iterator_types = [%s]}"
        % (name, ident, ident, ", ".join(['"parallel"'] * rank)),
        "        ins(%%%s : %s) outs(%%%s_init : %s) {"
        % (name, tensor_type(shape, dtype), name, tensor_type(shape)),
        "    ^bb0(%%x: %s, %%unused: f32):" % dtype,
        "      %%wide = arith.extf %%x : %s to f32" % dtype,
        "      linalg.yield %wide : f32",
        "    } -> %s" % tensor_type(shape),
    ]


def _print_lines(printed) -> List[str]:
    """printMemrefF32 of each (SSA name, shape) in order."""
    lines = []
    for name, shape in printed:
        tt, mt = tensor_type(shape), memref_type(shape)
        lines += [
            "    %%%s_buf = bufferization.to_buffer %%%s : %s to %s" % (name, name, tt, mt),
            "    %%%s_unranked = memref.cast %%%s_buf : %s to memref<*xf32>" % (name, name, mt),
            "    func.call @printMemrefF32(%%%s_unranked) : (memref<*xf32>) -> ()" % name,
        ]
    return lines


def _module(body: List[str], comment: str) -> str:
    lines = [
        comment,
        "module {",
        "  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}",
        "",
        "  func.func @main() {",
    ]
    return "\n".join(lines + body + ["    return", "  }", "}", ""])


def _attention_lines(cfg: CaseConfig, q, k, v, tag: str = ""):
    """main's lines for one flash.attention (SSA names prefixed by tag):
    its constants, the op, the widening of 16-bit O, and the prints; and the
    printed (name, shape) list."""
    et = cfg.dtype
    qt, kt, vt = (tensor_type(cfg.q_shape, et), tensor_type(cfg.k_shape, et),
                  tensor_type(cfg.v_shape, et))
    ot, lt = tensor_type(cfg.o_shape, et), tensor_type(cfg.lse_shape)
    lines = [
        "    %%%sq = arith.constant %s : %s" % (tag, dense_literal(q), qt),
        "    %%%sk = arith.constant %s : %s" % (tag, dense_literal(k), kt),
        "    %%%sv = arith.constant %s : %s" % (tag, dense_literal(v), vt),
    ]
    attrs = attention_attr_dict(cfg)
    args = "%%%sq, %%%sk, %%%sv" % (tag, tag, tag)
    if cfg.lse:
        lines.append("    %%%so, %%%slse = flash.attention %s%s" % (tag, tag, args, attrs))
        lines.append("        : %s, %s, %s -> %s, %s" % (qt, kt, vt, ot, lt))
        printed = [(tag + "o", cfg.o_shape), (tag + "lse", cfg.lse_shape)]
    else:
        lines.append("    %%%so = flash.attention %s%s" % (tag, args, attrs))
        lines.append("        : %s, %s, %s -> %s" % (qt, kt, vt, ot))
        printed = [(tag + "o", cfg.o_shape)]
    if et != "f32":
        # O widened to f32 (exactly) for printMemrefF32.
        lines += _widen_lines(tag + "o", cfg.o_shape, et)
        printed[0] = (tag + "o_f32", cfg.o_shape)
    return lines + _print_lines(printed), printed


def render_module(cfg: CaseConfig, q, k, v) -> str:
    lines, _ = _attention_lines(cfg, q, k, v)
    return _module(lines, "// Generated by flash_mlir.testing.cpu_case gen %s"
                   % " ".join(cfg.gen_argv()))


# --------------------------------------------------------------------------
# The backward: inputs, oracle, rounding bound, MLIR text
# --------------------------------------------------------------------------

def make_backward_inputs(cfg: CaseConfig):
    """``(q, k, v, o, lse, do)`` as float32 arrays: q, k, v as
    :func:`make_inputs` draws them, O and LSE from the float64 oracle's
    forward (O rounded to ``cfg.dtype``, LSE to f32, -inf for rows without a
    key), dO uniform in [-1, 1] rounded to ``cfg.dtype``."""
    q, k, v = make_inputs(cfg)
    rng = np.random.default_rng([cfg.seed, 1])
    do = rng.uniform(-1.0, 1.0, cfg.o_shape).astype(np.float32)
    o, lse = attention_reference(q, k, v, causal=cfg.causal, scale=cfg.scale_f32)
    o = o.astype(np.float32)
    if cfg.dtype != "f32":
        do, o = round_to_dtype(do, cfg.dtype), round_to_dtype(o, cfg.dtype)
    return q, k, v, o, lse.astype(np.float32), do


def effective_scale(cfg: CaseConfig) -> float:
    """The scale the op uses: the f32 attribute, or 1/sqrt(D) in f32."""
    if cfg.scale is not None:
        return cfg.scale_f32
    return float(np.float32(1.0 / math.sqrt(cfg.d))) if cfg.d else 1.0


def backward_rounding_tolerance(q, k, v, o, lse, do, causal: bool, scale: float, dtype: str):
    """Per-element bounds ``(dq, dk, dv)`` of the error of a CPU lowering of
    ``flash.attention_backward`` on these inputs against the float64 oracle
    on the same inputs (docs/testing.md).

    First order in the rounding errors: u is the unit roundoff of ``dtype``
    where the tiled form rounds to it (P before Pᵀ·dO, dS before dSᵀ·Q and
    dS·K, and the three results; 0 for f32), γ(n) = (n + 2)·2^-24 bounds an
    f32 sum of n products.
      * P = exp(S - LSE): relative error δP = ε_S + 2^-24·(|S| + |LSE|) +
        2^-18 (ε_S = scale·γ(D)·Σ_d |q_d·k_d|, the f32 error of a score;
        2^-18 covers exp);
      * dV = Σ_i P_i·dO_i (over the group's rows): Σ_i |P_i·dO_i|·(δP + u +
        γ(rows)) + u·|dV|;
      * dS = P·(dP - D): E = |P|·(δP·|dP - D| + γ(Dv)·(Σ|dO·V| + Σ|dO·O|))
        + (u + 2^-23)·|dS|;
      * dQ = scale·Σ_j dS_j·K_j: scale·Σ_j (E_j + γ(Nk)·|dS_j|)·|K_j| + u·|dQ|,
        and dK likewise with Q over the group's rows.
    Rounding to 16 bits also has an absolute part, τ = half the smallest
    subnormal (2^-25 for f16, whose subnormals start below 6.1e-5; 2^-134
    for bf16), added wherever u is: τ·Σ_i|dO_i| to dV, τ to E, τ to each
    result. The sum is doubled for what a first-order bound leaves out.
    """
    f64 = lambda x: np.asarray(x, dtype=np.float64)
    q, k, v, o, lse, do = (f64(x) for x in (q, k, v, o, lse, do))
    b, hq, nq, d = q.shape
    hkv, nk, dv = k.shape[1], k.shape[2], v.shape[3]
    u = UNIT_ROUNDOFF[dtype] if dtype != "f32" else 0.0
    tiny = {"f16": 2.0 ** -25, "bf16": 2.0 ** -134}.get(dtype, 0.0)
    group = hq // hkv
    gamma = lambda n: (n + 2) * 2.0 ** -24
    dq_b, dk_b, dv_b = np.zeros(q.shape), np.zeros(k.shape), np.zeros(v.shape)
    if nq == 0 or nk == 0:
        return dq_b, dk_b, dv_b
    from flash_mlir.oracle import causal_visible_mask
    visible = causal_visible_mask(nq, nk, causal)
    dq, dk, dvv = attention_backward_reference(q, k, v, do, causal=causal, scale=scale, o=o, lse=lse)
    t = lambda x: np.swapaxes(x, -1, -2)
    for h in range(hq):
        kvh = h // group
        kh, vh, qh, doh, oh = k[:, kvh], v[:, kvh], q[:, h], do[:, h], o[:, h]
        s = scale * np.matmul(qh, t(kh))
        seen = np.isfinite(lse[:, h])
        keep = visible[None] & seen[..., None]
        shift = np.where(seen, lse[:, h], 0.0)[..., None]
        p = np.where(keep, np.exp(np.where(keep, s - shift, 0.0)), 0.0)
        eps_s = scale * gamma(d) * np.matmul(np.abs(qh), t(np.abs(kh)))
        delta_p = np.where(keep, eps_s + 2.0 ** -24 * (np.abs(s) + np.abs(shift)) + 2.0 ** -18, 0.0)
        dp = np.matmul(doh, t(vh))
        delta = np.sum(doh * oh, axis=-1, keepdims=True)
        ds = p * (dp - delta)
        e_dp = gamma(dv) * (np.matmul(np.abs(doh), t(np.abs(vh)))
                            + np.sum(np.abs(doh * oh), axis=-1, keepdims=True))
        e_ds = (p * (delta_p * np.abs(dp - delta) + e_dp) + (u + 2.0 ** -23) * np.abs(ds)
                + np.where(keep, tiny, 0.0))
        dv_b[:, kvh] += np.matmul(t(p * (delta_p + u + gamma(group * nq)) + np.where(keep, tiny, 0.0)),
                                  np.abs(doh))
        dq_b[:, h] = scale * np.matmul(e_ds + gamma(nk) * np.abs(ds), np.abs(kh))
        dk_b[:, kvh] += scale * np.matmul(t(e_ds + gamma(group * nq) * np.abs(ds)), np.abs(qh))
    dq_b += u * np.abs(dq) + tiny
    dk_b += u * np.abs(dk) + tiny
    dv_b += u * np.abs(dvv) + tiny
    return 2 * dq_b, 2 * dk_b, 2 * dv_b


def backward_schedule_attr(block_q: int, block_kv: int) -> str:
    """A schedule that --flash-cpu-pipeline keeps (it only fills in missing ones)."""
    return ('#flash.schedule<arch = "sm_80", block_q = %d, block_kv = %d, stages = 1, warps = 8>'
            % (block_q, block_kv))


def _widened(name: str, shape, et: str, out: str) -> List[str]:
    """Lines that widen tensor %name (element type et) to f32 as %out."""
    rank = len(shape)
    ident = "affine_map<(%s) -> (%s)>" % ((", ".join("d%d" % i for i in range(rank)),) * 2)
    return [
        "    %%%s_init = tensor.empty() : %s" % (out, tensor_type(shape)),
        "    %%%s = linalg.generic {indexing_maps = [%s, %s], iterator_types = [%s]}"
        % (out, ident, ident, ", ".join(['"parallel"'] * rank)),
        "        ins(%%%s : %s) outs(%%%s_init : %s) {" % (name, tensor_type(shape, et), out,
                                                         tensor_type(shape)),
        "    ^bb0(%%x: %s, %%unused: f32):" % et,
        "      %%wide = arith.extf %%x : %s to f32" % et,
        "      linalg.yield %wide : f32",
        "    } -> %s" % tensor_type(shape),
    ]


def render_backward_lines(cfg: CaseConfig, inputs, suffix: str = "",
                          schedule: Optional[Tuple[int, int]] = None) -> List[str]:
    """The body lines of one backward case in ``main``: constants, the op
    (with ``schedule`` = (block_q, block_kv) as its #flash.schedule when
    given), and the prints of dQ, dK, dV (widened to f32)."""
    q, k, v, o, lse, do = inputs
    et = cfg.dtype
    types = [tensor_type(cfg.q_shape, et), tensor_type(cfg.k_shape, et),
             tensor_type(cfg.v_shape, et), tensor_type(cfg.o_shape, et),
             tensor_type(cfg.o_shape, et), tensor_type(cfg.lse_shape)]
    names = ["q", "k", "v", "o", "do", "lse"]
    values = [q, k, v, o, do, lse]
    n = {x: x + suffix for x in names + ["dq", "dk", "dv"]}
    lines = ["    %%%s = arith.constant %s : %s" % (n[x], dense_literal(a), ty)
             for x, a, ty in zip(names, values, types)]
    attrs = []
    if cfg.causal:
        attrs.append("causal")
    if cfg.scale is not None:
        attrs.append("scale = %s : f32" % f32_literal(cfg.scale))
    if schedule is not None:
        attrs.append("schedule = %s" % backward_schedule_attr(*schedule))
    attr_text = (" {" + ", ".join(attrs) + "}") if attrs else ""
    lines.append("    %%%s, %%%s, %%%s = flash.attention_backward %%%s, %%%s, %%%s, %%%s, %%%s, %%%s%s"
                 % (n["dq"], n["dk"], n["dv"], n["q"], n["k"], n["v"], n["o"], n["do"], n["lse"],
                    attr_text))
    lines.append("        : %s -> %s, %s, %s" % (", ".join(types), types[0], types[1], types[2]))
    for x, shape in (("dq", cfg.q_shape), ("dk", cfg.k_shape), ("dv", cfg.v_shape)):
        printed = n[x]
        if et != "f32":
            printed = n[x] + "_f32"
            lines += _widened(n[x], shape, et, printed)
        lines += _print_lines([(printed, shape)])
    return lines


def render_backward_module(cases, note: str = "") -> str:
    """One module whose ``main`` runs every (cfg, inputs, schedule) case."""
    lines = ["// Generated by flash_mlir.testing.cpu_case%s" % (" " + note if note else ""),
             "module {",
             "  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}",
             "",
             "  func.func @main() {"]
    for i, (cfg, inputs, schedule) in enumerate(cases):
        lines.append("    // case %d: %s" % (i, cfg.short_id()))
        lines += render_backward_lines(cfg, inputs, "" if len(cases) == 1 else "_%d" % i, schedule)
    lines += ["    return", "  }", "}", ""]
    return "\n".join(lines)


def generate_backward(cases, mlir_path: str, expected_path: str):
    """Write one module running every (cfg, schedule) backward case (schedule
    (block_q, block_kv) or None) and an .npz with the expected dQ, dK, dV of
    each (named dq, dk, dv, with a _i suffix when there are several) and their
    per-element bounds. Returns the expected tensors."""
    if expected_path.endswith(".json"):
        raise ValueError("backward cases need an .npz file for their bounds")
    rendered, arrays, names = [], {}, []
    for i, (cfg, schedule) in enumerate(cases):
        if not cfg.backward:
            raise ValueError("generate_backward takes backward cases, got %s" % cfg.short_id())
        inputs = make_backward_inputs(cfg)
        q, k, v, o, lse, do = inputs
        scale = effective_scale(cfg)
        grads = attention_backward_reference(q, k, v, do, causal=cfg.causal, scale=scale, o=o, lse=lse)
        bounds = backward_rounding_tolerance(q, k, v, o, lse, do, cfg.causal, scale, cfg.dtype)
        suffix = "" if len(cases) == 1 else "_%d" % i
        for base, g, bound in zip(("dq", "dk", "dv"), grads, bounds):
            names.append(base + suffix)
            arrays[base + suffix] = np.asarray(g, dtype=np.float64)
            arrays[base + suffix + "_bound"] = np.asarray(bound, dtype=np.float64)
        rendered.append((cfg, inputs, schedule))
    note = ("gen " + " ".join(cases[0][0].gen_argv())) if len(cases) == 1 else \
        "(%d backward cases)" % len(cases)
    with open(mlir_path, "w") as f:
        f.write(render_backward_module(rendered, note))
    arrays["names"] = np.array(names)
    arrays["config"] = np.array(json.dumps([json.loads(c.to_json()) for c, _ in cases]))
    with open(expected_path, "wb") as f:
        np.savez(f, **arrays)
    return [(n, arrays[n]) for n in names]


def generate(cfg: CaseConfig, mlir_path: str, expected_path: str):
    """Write the MLIR module and the expected outputs (.npz or .json); for
    16-bit cases the .npz also holds the per-element bounds."""
    if cfg.backward:
        return generate_backward([(cfg, None)], mlir_path, expected_path)
    q, k, v = make_inputs(cfg)
    o, lse = expected_outputs(cfg, q, k, v)
    with open(mlir_path, "w") as f:
        f.write(render_module(cfg, q, k, v))
    bounds = None
    if cfg.dtype != "f32":
        scale = cfg.scale_f32 if cfg.scale is not None else (1.0 / math.sqrt(cfg.d) if cfg.d else 1.0)
        bounds = rounding_tolerance(q, k, v, cfg.causal, scale, cfg.dtype)
    save_expected(expected_path, cfg, o, lse if cfg.lse else None, bounds)
    return o, lse


def save_expected(path: str, cfg: CaseConfig, o, lse, bounds=None):
    if path.endswith(".json"):
        doc = {"config": dataclasses.asdict(cfg),
               "o": {"shape": list(o.shape), "data": [_json_float(x) for x in o.ravel()]}}
        if lse is not None:
            doc["lse"] = {"shape": list(lse.shape), "data": [_json_float(x) for x in lse.ravel()]}
        with open(path, "w") as f:
            json.dump(doc, f)
        return
    arrays = {"config": np.array(cfg.to_json()), "o": np.asarray(o, dtype=np.float64)}
    if lse is not None:
        arrays["lse"] = np.asarray(lse, dtype=np.float64)
    if bounds is not None:
        if path.endswith(".json"):
            raise ValueError("per-element bounds need an .npz file")
        arrays["o_bound"] = np.asarray(bounds[0], dtype=np.float64)
        if lse is not None:
            arrays["lse_bound"] = np.asarray(bounds[1], dtype=np.float64)
    # np.savez appends .npz to names without it; write through a file object
    # so the name is exactly what the caller asked for.
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def _json_float(x):
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def load_expected(path: str):
    """Return ``[(name, float64 array), ...]`` in print order (o, then lse)."""
    out = []
    if path.endswith(".json"):
        with open(path) as f:
            doc = json.load(f)
        for name in ("o", "lse"):
            if name in doc:
                data = [float(x) for x in doc[name]["data"]]
                out.append((name, np.array(data, dtype=np.float64).reshape(doc[name]["shape"])))
        return out
    with np.load(path, allow_pickle=False) as z:
        # A backward file lists its tensors in print order.
        names = [str(n) for n in z["names"]] if "names" in z.files else ["o", "lse"]
        for name in names:
            if name in z.files:
                out.append((name, np.array(z[name], dtype=np.float64)))
    return out


def load_bounds(path: str):
    """Per-element bounds saved with 16-bit cases: {name: array}, or {}."""
    if path.endswith(".json"):
        return {}
    with np.load(path, allow_pickle=False) as z:
        return {name[:-len("_bound")]: np.array(z[name], dtype=np.float64)
                for name in z.files if name.endswith("_bound")}


# --------------------------------------------------------------------------
# Parsing printMemrefF32 output
# --------------------------------------------------------------------------

_HEADER_RE = re.compile(
    r"Unranked Memref base@ = (?P<base>\S+) rank = (?P<rank>\d+) offset = (?P<offset>-?\d+) "
    r"sizes = \[(?P<sizes>[^\]]*)\] strides = \[(?P<strides>[^\]]*)\] data =")
_NUMBER_RE = re.compile(
    r"[-+]?(?:nan|inf|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)", re.IGNORECASE)


def _int_list(s: str) -> Tuple[int, ...]:
    s = s.strip()
    return tuple(int(x) for x in s.split(",")) if s else ()


class MemrefPrint:
    """One printed memref: its sizes, and its values as a float64 array."""

    def __init__(self, rank, sizes, strides, offset, values, raw_count):
        self.rank, self.sizes, self.strides, self.offset = rank, sizes, strides, offset
        self.values = values          # ndarray shaped `sizes`
        self.raw_count = raw_count    # how many numbers the data section held

    def __repr__(self):
        return "MemrefPrint(sizes=%s, %d numbers)" % (list(self.sizes), self.raw_count)


def parse_memref_prints(text: str) -> List[MemrefPrint]:
    """Parse every ``printMemrefF32`` block in ``text``, in order.

    Raises ValueError when a block holds a different number of values than
    its sizes announce.  An empty memref (a zero size) is taken as empty:
    the upstream printer prints uninitialised numbers for it, which are
    ignored.
    """
    headers = list(_HEADER_RE.finditer(text))
    blocks = []
    for i, h in enumerate(headers):
        end = headers[i + 1].start() if i + 1 < len(headers) else len(text)
        data = text[h.end():end]
        rank = int(h.group("rank"))
        sizes = _int_list(h.group("sizes"))
        strides = _int_list(h.group("strides"))
        if len(sizes) != rank:
            raise ValueError("memref block %d: rank %d but sizes %s" % (i, rank, list(sizes)))
        nums = _NUMBER_RE.findall(data)
        count = int(np.prod(sizes)) if sizes else 1
        if count == 0:
            values = np.zeros(sizes, dtype=np.float64)
        else:
            if len(nums) != count:
                raise ValueError("memref block %d: sizes %s need %d values, found %d"
                                 % (i, list(sizes), count, len(nums)))
            values = np.array([float(x) for x in nums], dtype=np.float64).reshape(sizes)
        blocks.append(MemrefPrint(rank, sizes, strides, int(h.group("offset")), values, len(nums)))
    return blocks


# --------------------------------------------------------------------------
# Checking
# --------------------------------------------------------------------------

def print_rounding_bound(out: np.ndarray, digits: int = PRINT_DIGITS) -> np.ndarray:
    """Largest error that printing with ``digits`` significant digits adds.

    A printed value p with decimal exponent e = floor(log10|p|) is within
    0.5 * 10**(e - digits + 1) of the float it came from.
    """
    if not digits:
        return np.zeros_like(out)
    a = np.abs(out)
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.floor(np.log10(np.where(a > 0, a, 1.0)))
    bound = 0.5 * np.power(10.0, e - digits + 1)
    return np.where(np.isfinite(a) & (a > 0), bound, 0.0)


def compare(name: str, out: np.ndarray, ref: np.ndarray, atol: float, rtol: float,
            print_digits: int = PRINT_DIGITS, bound: Optional[np.ndarray] = None):
    """Return ``(ok, message, stats)`` for one tensor.

    Rules: any NaN in ``out`` fails; an infinity must match the reference's
    infinity exactly (LSE of a fully masked row is -inf); every finite
    element must satisfy |out - ref| <= atol + rtol*|ref| (+ ``bound``, a
    per-element bound, + the printing rounding bound of ``out``).
    """
    stats = {"name": name, "max_abs_err": 0.0, "worst_ratio": 0.0}
    if out.shape != ref.shape:
        return False, "%s: printed sizes %s, expected %s" % (name, list(out.shape), list(ref.shape)), stats
    if out.size == 0:
        return True, "%s: empty" % name, stats
    nan = np.isnan(out)
    if nan.any():
        idx = tuple(int(i) for i in np.argwhere(nan)[0])
        return False, ("%s: %d NaN value(s); first at index %s (ref %r)"
                       % (name, int(nan.sum()), idx, float(ref[idx]))), stats
    if np.isnan(ref).any():
        idx = tuple(int(i) for i in np.argwhere(np.isnan(ref))[0])
        return False, "%s: the reference itself has NaN at %s (oracle bug)" % (name, idx), stats
    out_inf, ref_inf = np.isinf(out), np.isinf(ref)
    bad_inf = (out_inf | ref_inf) & ~(out_inf & ref_inf & (np.sign(out) == np.sign(ref)))
    if bad_inf.any():
        idx = tuple(int(i) for i in np.argwhere(bad_inf)[0])
        return False, ("%s: infinity mismatch at %d element(s); first at index %s: got %r, expected %r"
                       % (name, int(bad_inf.sum()), idx, float(out[idx]), float(ref[idx]))), stats
    fin = ~ref_inf
    err = np.where(fin, np.abs(out - np.where(fin, ref, 0.0)), 0.0)
    tol = atol + rtol * np.abs(np.where(fin, ref, 0.0)) + print_rounding_bound(out, print_digits)
    if bound is not None:
        tol = tol + np.broadcast_to(np.asarray(bound, dtype=np.float64), tol.shape)
    # An element whose tolerance is 0 (a fully masked row's O) must be exact.
    tol = np.where(tol > 0, tol, np.finfo(np.float64).tiny)
    ratio = err / tol
    worst = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    worst = tuple(int(i) for i in worst)
    stats["max_abs_err"] = float(err.max())
    stats["worst_ratio"] = float(ratio[worst])
    if ratio[worst] > 1.0:
        nbad = int((ratio > 1.0).sum())
        return False, ("%s: %d of %d element(s) out of tolerance; worst at index %s: got %r, expected %r, "
                       "|err| = %.3e > tol %.3e (atol %g, rtol %g)"
                       % (name, nbad, out.size, worst, float(out[worst]), float(ref[worst]),
                          float(err[worst]), float(tol[worst]), atol, rtol)), stats
    return True, ("%s: max |err| %.3e, worst err/tol %.3f at %s"
                  % (name, stats["max_abs_err"], stats["worst_ratio"], worst)), stats


def check_output(expected: Union[str, Sequence[Tuple[str, np.ndarray]]], output_text: str,
                 atol: float = DEFAULT_ATOL, rtol: float = DEFAULT_RTOL,
                 print_digits: int = PRINT_DIGITS, bounds=None):
    """Compare runner stdout with the expected tensors.  Returns ``(ok, message)``.

    ``bounds`` ({name: per-element bound}) is read from the expected file
    when that is a path (16-bit cases); a tensor with a bound is checked to
    it alone (atol = rtol = 0).
    """
    if isinstance(expected, str):
        if bounds is None:
            bounds = load_bounds(expected)
        expected = load_expected(expected)
    bounds = bounds or {}
    try:
        blocks = parse_memref_prints(output_text)
    except ValueError as e:
        return False, "cannot parse runner output: %s" % e
    if len(blocks) != len(expected):
        return False, ("expected %d printed memref(s) (%s), found %d"
                       % (len(expected), ", ".join(n for n, _ in expected), len(blocks)))
    msgs = []
    for blk, (name, ref) in zip(blocks, expected):
        if name in bounds:
            ok, msg, _ = compare(name, blk.values, ref, 0.0, 0.0, print_digits,
                                 bound=bounds[name])
        else:
            ok, msg, _ = compare(name, blk.values, ref, atol, rtol, print_digits)
        if not ok:
            return False, "FAIL " + msg
        msgs.append(msg)
    return True, "PASS " + "; ".join(msgs)


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------

def _as_argv(pipeline_args) -> List[str]:
    if pipeline_args is None:
        return []
    if isinstance(pipeline_args, str):
        return shlex.split(pipeline_args)
    return list(pipeline_args)


def _tail(s, n=3000):
    s = s if isinstance(s, str) else s.decode("utf-8", "replace")
    return s if len(s) <= n else "...\n" + s[-n:]


def f32_hex(a: np.ndarray) -> str:
    """An array's f32 bytes as the hex of a ``dense<"0x...">`` literal."""
    return a.astype("<f4").tobytes().hex().upper()


def words_to_f32(values) -> np.ndarray:
    """Printed 32-bit words (printMemrefI32) as the f32 values they hold."""
    return np.asarray(values, dtype=np.float64).astype(np.int64).astype("<u4").view("<f4")


def run_harness_module(module_text: str, stem: str, pargs, flash_opt: str, prints_per_case: int,
                       num_cases: int, timeout: float = 300.0, workdir: Optional[str] = None):
    """A test harness's module (``flash-opt <module> <pargs> | mlir-runner``)
    whose ``main`` prints ``prints_per_case`` memrefs for each of
    ``num_cases`` cases: ``(outputs, error, tmp, reproducer)``, per case the
    printed values, or an error message when a step failed. The module, the
    lowered module and the runner's output are in ``tmp``."""
    tmp = workdir or tempfile.mkdtemp(prefix="flash_%s_" % stem)
    os.makedirs(tmp, exist_ok=True)
    mlir_path = os.path.join(tmp, stem + ".mlir")
    with open(mlir_path, "w") as f:
        f.write(module_text)
    reproducer = "%s %s %s | %s %s" % (flash_opt, mlir_path, " ".join(shlex.quote(a) for a in pargs),
                                       MLIR_RUNNER, " ".join(RUNNER_ARGS))
    text, problem, _ = _compile_and_run(flash_opt, mlir_path, pargs, stem, timeout)
    if problem:
        return None, "%s\nreproducer: %s" % (problem, reproducer), tmp, reproducer
    blocks = parse_memref_prints(text)
    if len(blocks) != prints_per_case * num_cases:
        return None, "expected %d printed memrefs, found %d" % (
            prints_per_case * num_cases, len(blocks)), tmp, reproducer
    outputs = [tuple(blocks[prints_per_case * k + i].values for i in range(prints_per_case))
               for k in range(num_cases)]
    return outputs, None, tmp, reproducer


def check_harness_cases(cases, executed, check, workdir: Optional[str] = None):
    """``(results, error)`` of run_harness_module's ``executed`` result: per
    case ``(ok, message)`` from ``check(case, *printed)``, which returns a
    list of errors. The files go when every case passed (unless kept in
    ``workdir``); a failure's message names them and the reproducer."""
    outputs, error, tmp, reproducer = executed
    if error:
        return None, error
    results = []
    for c, out in zip(cases, outputs):
        errors = check(c, *out)
        results.append((not errors, "%s: %s" % (c.short_id(), "; ".join(errors[:8]) or "ok")))
    if all(ok for ok, _ in results):
        if workdir is None:
            shutil.rmtree(tmp, ignore_errors=True)
    else:
        results = [(ok, msg if ok else msg + "\nfiles in %s; reproducer: %s" % (tmp, reproducer))
                   for ok, msg in results]
    return results, None


def print_results(results, error) -> int:
    """A command line's report of ``(results, error)`` as the harnesses'
    ``run`` return them: the error, or a PASS/FAIL line a case; the exit
    status."""
    if error:
        print(error)
        return 1
    for ok, msg in results:
        print(("PASS " if ok else "FAIL ") + msg)
    return 0 if all(ok for ok, _ in results) else 1


def reproducer(cfg: CaseConfig, flash_opt: str, pipeline_args, python="/usr/bin/python3",
               prefix="/tmp/flash_case") -> str:
    """Shell commands that redo a case by hand (run from the repository root)."""
    cwd = os.getcwd() + os.sep
    if flash_opt.startswith(cwd):
        flash_opt = flash_opt[len(cwd):]
    pipe = " ".join(shlex.quote(a) for a in _as_argv(pipeline_args))
    runner = " ".join([shlex.quote(MLIR_RUNNER)] + [shlex.quote(a) for a in RUNNER_ARGS])
    gen = " ".join(shlex.quote(a) for a in cfg.gen_argv())
    mod = "flash_mlir.testing.cpu_case"
    return "\n".join([
        "PYTHONPATH=python %s -m %s gen %s --mlir %s.mlir --expected %s.npz"
        % (python, mod, gen, prefix, prefix),
        "%s %s.mlir %s | %s > %s.out" % (shlex.quote(flash_opt), prefix, pipe, runner, prefix),
        "PYTHONPATH=python %s -m %s check --expected %s.npz --output %s.out"
        % (python, mod, prefix, prefix),
    ])


def _compile_and_run(flash_opt: str, mlir_path: str, pargs, stem: str, timeout: float,
                     runner_args=None):
    """``flash-opt <mlir_path> <pargs> | mlir-runner <runner_args>``, the
    lowered module and the runner's output written beside ``mlir_path`` as
    ``<stem>.lowered.mlir`` and ``<stem>.out``. Returns ``(text, None, times)``
    with the runner's stdout, or ``(None, problem, times)`` when a step
    timed out or failed."""
    tmp = os.path.dirname(mlir_path)
    times = []
    t0 = time.monotonic()
    try:
        p1 = subprocess.run([flash_opt, mlir_path] + pargs, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "flash-opt timed out after %gs" % timeout, times
    times.append(("flash-opt", time.monotonic() - t0))
    if p1.returncode != 0:
        return None, "flash-opt exited with %d:\n%s" % (p1.returncode, _tail(p1.stderr)), times
    with open(os.path.join(tmp, stem + ".lowered.mlir"), "wb") as f:
        f.write(p1.stdout)
    t0 = time.monotonic()
    try:
        p2 = subprocess.run([MLIR_RUNNER] + (runner_args or RUNNER_ARGS), input=p1.stdout,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "mlir-runner timed out after %gs" % timeout, times
    times.append(("runner", time.monotonic() - t0))
    text = p2.stdout.decode("utf-8", "replace")
    with open(os.path.join(tmp, stem + ".out"), "w") as f:
        f.write(text)
    if p2.returncode != 0:
        return None, ("mlir-runner exited with %d:\n%s\n(stdout tail:)\n%s"
                      % (p2.returncode, _tail(p2.stderr), _tail(text, 1000))), times
    return text, None, times


def _run_steps(cfg, flash_opt, pargs, tmp, atol, rtol, timeout):
    mlir_path = os.path.join(tmp, "case.mlir")
    exp_path = os.path.join(tmp, "case.npz")
    t0 = time.monotonic()
    generate(cfg, mlir_path, exp_path)
    gen_time = time.monotonic() - t0
    if not (os.path.isfile(flash_opt) and os.access(flash_opt, os.X_OK)):
        return False, "flash-opt not found or not executable at %r" % flash_opt
    text, problem, times = _compile_and_run(flash_opt, mlir_path, pargs, "case", timeout)
    if problem:
        return False, problem
    ok, msg = check_output(exp_path, text, atol, rtol)
    times = [("gen", gen_time)] + times
    return ok, msg + " [%s]" % ", ".join("%s %.2fs" % kv for kv in times)


def run_case(config, flash_opt: str, pipeline_args, atol: float = DEFAULT_ATOL,
             rtol: float = DEFAULT_RTOL, timeout: float = 120.0, workdir: Optional[str] = None,
             keep: bool = False):
    """Generate ``config``, run ``flash-opt <file> <pipeline_args> | mlir-runner``, check.

    ``config`` is a :class:`CaseConfig` or a dict of its fields;
    ``pipeline_args`` is a list of arguments or one shell-quoted string.
    Returns ``(ok, message)``; a failure's message names the kept files
    (case.mlir, case.npz, case.lowered.mlir, case.out) and ends with a
    reproducer.  Files are removed on success unless ``keep`` or ``workdir``.
    """
    cfg = config if isinstance(config, CaseConfig) else CaseConfig.from_dict(config)
    pargs = _as_argv(pipeline_args)
    tmp = workdir or tempfile.mkdtemp(prefix="flash_case_")
    os.makedirs(tmp, exist_ok=True)
    ok, msg = _run_steps(cfg, flash_opt, pargs, tmp, atol, rtol, timeout)
    if not ok:
        msg += ("\nconfig: %s\nfiles kept in %s\nreproducer (from the repository root):\n%s"
                % (cfg.to_json(), tmp, reproducer(cfg, flash_opt, pargs)))
    elif not keep and workdir is None:
        shutil.rmtree(tmp, ignore_errors=True)
    return ok, msg


def run_backward_batch(cases, flash_opt: str, pipeline_args, timeout: float = 300.0,
                       workdir: Optional[str] = None, opt_level: str = "-O0"):
    """Run many backward cases in one module: ``cases`` is a list of
    ``(cfg, (block_q, block_kv) or None)``; each op carries its tiles as a
    #flash.schedule, which --flash-cpu-pipeline keeps (the reference lowering
    ignores it). One flash-opt and one mlir-runner run for all of them.
    ``opt_level`` is mlir-runner's: at these sizes LLVM's -O3 costs five times
    more than running the unoptimised code (12 s against 2 s for 15 cases).

    Returns ``(ok, messages)``: one message per case (its check, with a
    one-case reproducer when it failed), or a single message when the run
    itself failed. Files are kept on failure.
    """
    pargs = _as_argv(pipeline_args)
    tmp = workdir or tempfile.mkdtemp(prefix="flash_bwd_batch_")
    os.makedirs(tmp, exist_ok=True)
    mlir_path, exp_path = os.path.join(tmp, "batch.mlir"), os.path.join(tmp, "batch.npz")
    expected = generate_backward(cases, mlir_path, exp_path)
    bounds = load_bounds(exp_path)

    def keep(msg):
        return False, ["%s\nfiles kept in %s" % (msg, tmp)]

    runner_args = [opt_level if a == "-O3" else a for a in RUNNER_ARGS]
    text, problem, _ = _compile_and_run(flash_opt, mlir_path, pargs, "batch", timeout,
                                        runner_args)
    if problem:
        return keep(problem)
    try:
        blocks = parse_memref_prints(text)
    except ValueError as e:
        return keep("cannot parse runner output: %s" % e)
    if len(blocks) != len(expected):
        return keep("expected %d printed memrefs, found %d" % (len(expected), len(blocks)))
    all_ok, messages = True, []
    for i, (cfg, tiles) in enumerate(cases):
        parts, ok = [], True
        for blk, (name, ref) in zip(blocks[3 * i:3 * i + 3], expected[3 * i:3 * i + 3]):
            good, msg, _ = compare(name, blk.values, ref, 0.0, 0.0, bound=bounds[name])
            ok &= good
            parts.append(msg)
        msg = "case %d %s: %s" % (i, cfg.short_id(), "; ".join(parts))
        if not ok:
            one = pargs if tiles is None or "reference=true" in " ".join(pargs) else \
                ["--flash-cpu-pipeline=block-q=%d block-kv=%d" % tiles]
            msg = "FAIL " + msg + "\nreproducer (from the repository root):\n" + \
                reproducer(cfg, flash_opt, one)
        all_ok &= ok
        messages.append(msg)
    if all_ok and workdir is None:
        shutil.rmtree(tmp, ignore_errors=True)
    elif not all_ok:
        messages.append("files kept in %s" % tmp)
    return all_ok, messages


# --------------------------------------------------------------------------
# flash.paged_attention cases, and several cases in one module
# --------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class PagedCaseConfig(_QueryShapes):
    """One ``flash.paged_attention`` on random inputs.

    The caches have P = (pages the sequences use) + ``spare_pages`` pages of
    ``page_size`` slots, handed out in a random order (shuffled pages); the
    block table has M = (most pages a sequence uses) + ``spare_columns``
    columns.  With ``poison`` every slot no sequence owns (past a length, in
    a spare page) is NaN and every table entry past a sequence's pages is
    garbage (negative, past P, or another sequence's page): none may change
    the result.  ``caller_error`` instead sets sequence 0's length past M*S
    and two of its used table entries outside [0, P) (no NaN anywhere), to
    check the CPU lowerings' documented clamps.
    """
    seed: int
    batch: int
    hq: int
    hkv: int
    nq: int
    d: int
    dv: int
    page_size: int
    seq_lens: Tuple[int, ...]
    causal: bool = False
    scale: Optional[float] = None
    lse: bool = False
    dtype: str = "f32"
    spare_pages: int = 2
    spare_columns: int = 1
    poison: bool = True
    caller_error: bool = False

    def __post_init__(self):
        if self.dtype not in UNIT_ROUNDOFF:
            raise ValueError("dtype must be one of %s" % ", ".join(UNIT_ROUNDOFF))
        if len(self.seq_lens) != self.batch:
            raise ValueError("seq_lens needs one length per sequence")
        if self.hkv < 1 or self.hq % self.hkv or self.page_size < 1:
            raise ValueError("bad heads or page size")

    @property
    def pages_per_sequence(self) -> int:     # M
        used = max([-(-max(n, 0) // self.page_size) for n in self.seq_lens] + [0])
        return max(used + self.spare_columns, 1)

    @property
    def num_pages(self) -> int:              # P
        used = sum(-(-max(n, 0) // self.page_size) for n in self.seq_lens)
        return max(used + self.spare_pages, 1)

    @property
    def k_shape(self):
        return (self.num_pages, self.page_size, self.hkv, self.d)

    @property
    def v_shape(self):
        return (self.num_pages, self.page_size, self.hkv, self.dv)

    @property
    def table_shape(self):
        return (self.batch, self.pages_per_sequence)

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), sort_keys=True)

    def short_id(self) -> str:
        parts = ["paged-s%d" % self.seed, "B%d" % self.batch, "Hq%d" % self.hq,
                 "Hkv%d" % self.hkv, "Nq%d" % self.nq, "D%d" % self.d, "Dv%d" % self.dv,
                 "S%d" % self.page_size, "L" + "_".join(str(n) for n in self.seq_lens)]
        for flag in ("causal", "lse", "caller_error"):
            if getattr(self, flag):
                parts.append(flag)
        if self.scale is not None:
            parts.append("scale%g" % self.scale)
        if self.dtype != "f32":
            parts.append(self.dtype)
        return "-".join(parts)


def make_paged_inputs(cfg: PagedCaseConfig):
    """q, k_cache, v_cache (float32, rounded to ``cfg.dtype``), block_table
    and seq_lens (int32), seeded by ``cfg.seed``."""
    rng = np.random.default_rng(cfg.seed)
    s, p, m = cfg.page_size, cfg.num_pages, cfg.pages_per_sequence
    fill = np.nan if cfg.poison and not cfg.caller_error else 0.0
    q = rng.standard_normal(cfg.q_shape).astype(np.float32)
    if cfg.caller_error:
        k = rng.standard_normal(cfg.k_shape).astype(np.float32)
        v = rng.uniform(-1.0, 1.0, cfg.v_shape).astype(np.float32)
    else:
        k = np.full(cfg.k_shape, fill, dtype=np.float32)
        v = np.full(cfg.v_shape, fill, dtype=np.float32)
    order = rng.permutation(p)            # pages handed out shuffled
    table = np.zeros(cfg.table_shape, dtype=np.int64)
    lens = np.array(cfg.seq_lens, dtype=np.int64)
    next_page = 0
    for b in range(cfg.batch):
        used = -(-max(int(lens[b]), 0) // s)
        for col in range(m):
            if col < used:
                page = int(order[next_page])
                next_page += 1
                table[b, col] = page
                n = min(s, int(lens[b]) - col * s)   # slots this sequence owns
                if not cfg.caller_error:
                    k[page, :n] = rng.standard_normal((n,) + cfg.k_shape[2:])
                    v[page, :n] = rng.uniform(-1.0, 1.0, (n,) + cfg.v_shape[2:])
            elif cfg.poison:
                # Past the sequence's pages: anything, even out of range.
                table[b, col] = rng.choice([-7, p + 100, 2 ** 31 - 1,
                                            int(rng.integers(0, p))])
    if cfg.caller_error:
        # Sequence 0 claims more keys than its table addresses, through
        # entries outside [0, P): clamped to M*S keys and to pages P-1 and 0.
        lens[0] = m * s + 5
        table[0, 0] = p + 3
        if m > 1:
            table[0, 1] = -2
    if cfg.dtype != "f32":
        q, k, v = (round_to_dtype(x, cfg.dtype) for x in (q, k, v))
    return q, k, v, table.astype(np.int32), lens.astype(np.int32)


def paged_expected(cfg: PagedCaseConfig, inputs):
    """Oracle outputs and, for 16-bit cases, the per-element bounds
    (rounding_tolerance on each sequence's own keys)."""
    from flash_mlir.oracle import gather_pages, paged_attention_reference
    q, k, v, table, lens = inputs
    o, lse = paged_attention_reference(q, k, v, table, lens, causal=cfg.causal,
                                       scale=cfg.scale_f32)
    bounds = None
    if cfg.dtype != "f32":
        scale = cfg.scale_f32 if cfg.scale is not None else 1.0 / math.sqrt(cfg.d)
        keys, values = gather_pages(k, table, lens), gather_pages(v, table, lens)
        ob, lb = np.zeros(o.shape), np.zeros(lse.shape)
        for b in range(cfg.batch):
            ob[b:b + 1], lb[b:b + 1] = rounding_tolerance(
                q[b:b + 1], keys[b][None], values[b][None], cfg.causal, scale, cfg.dtype)
        bounds = (ob, lb)
    return o, lse, bounds


def _int_dense_literal(a) -> str:
    a = np.asarray(a)
    if a.size == 0:
        return "dense<>"
    return "dense<%s>" % json.dumps(a.tolist()).replace(" ", "")


def _paged_lines(cfg: PagedCaseConfig, inputs, tag: str):
    q, k, v, table, lens = inputs
    et = cfg.dtype
    qt, kt, vt = (tensor_type(cfg.q_shape, et), tensor_type(cfg.k_shape, et),
                  tensor_type(cfg.v_shape, et))
    bt = "tensor<%dx%dxi32>" % cfg.table_shape
    lt = "tensor<%dxi32>" % cfg.batch
    ot, lset = tensor_type(cfg.o_shape, et), tensor_type(cfg.lse_shape)
    lines = [
        "    %%%sq = arith.constant %s : %s" % (tag, dense_literal(q, et), qt),
        "    %%%skc = arith.constant %s : %s" % (tag, dense_literal(k, et), kt),
        "    %%%svc = arith.constant %s : %s" % (tag, dense_literal(v, et), vt),
        "    %%%sbt = arith.constant %s : %s" % (tag, _int_dense_literal(table), bt),
        "    %%%ssl = arith.constant %s : %s" % (tag, _int_dense_literal(lens), lt),
    ]
    attrs = attention_attr_dict(cfg)
    args = ", ".join("%%%s%s" % (tag, n) for n in ("q", "kc", "vc", "bt", "sl"))
    types = "%s, %s, %s, %s, %s" % (qt, kt, vt, bt, lt)
    if cfg.lse:
        lines.append("    %%%so, %%%slse = flash.paged_attention %s%s" % (tag, tag, args, attrs))
        lines.append("        : %s -> %s, %s" % (types, ot, lset))
        printed = [(tag + "o", cfg.o_shape), (tag + "lse", cfg.lse_shape)]
    else:
        lines.append("    %%%so = flash.paged_attention %s%s" % (tag, args, attrs))
        lines.append("        : %s -> %s" % (types, ot))
        printed = [(tag + "o", cfg.o_shape)]
    if et != "f32":
        lines += _widen_lines(tag + "o", cfg.o_shape, et)
        printed[0] = (tag + "o_f32", cfg.o_shape)
    return lines + _print_lines(printed), printed


def render_cases(configs):
    """One module whose main computes and prints every case in order
    (CaseConfig: flash.attention; PagedCaseConfig: flash.paged_attention),
    and the expected outputs: ``(text, [(name, array)], {name: bound})``."""
    body, expected, bounds = [], [], {}
    for i, cfg in enumerate(configs):
        tag = "c%d_" % i
        if isinstance(cfg, PagedCaseConfig):
            inputs = make_paged_inputs(cfg)
            o, lse, bnd = paged_expected(cfg, inputs)
            lines, printed = _paged_lines(cfg, inputs, tag)
        else:
            q, k, v = make_inputs(cfg)
            o, lse = expected_outputs(cfg, q, k, v)
            bnd = None
            if cfg.dtype != "f32":
                scale = cfg.scale_f32 if cfg.scale is not None else 1.0 / math.sqrt(cfg.d)
                bnd = rounding_tolerance(q, k, v, cfg.causal, scale, cfg.dtype)
            lines, printed = _attention_lines(cfg, q, k, v, tag)
        body += ["    // case %d: %s" % (i, cfg.short_id())] + lines
        arrays = [o, lse] if cfg.lse else [o]
        for (name, _), ref in zip(printed, arrays):
            expected.append((name, ref))
        if bnd is not None:
            bounds[printed[0][0]] = bnd[0]
            if cfg.lse:
                bounds[printed[1][0]] = bnd[1]
    text = _module(body, "// Generated by flash_mlir.testing.cpu_case.render_cases: %s"
                   % ", ".join(c.short_id() for c in configs))
    return text, expected, bounds


def generate_paged(cfg: PagedCaseConfig, mlir_path: str, expected_path: str):
    """Write the module of one paged case and its expected outputs (.npz,
    read by ``check``: O, then LSE, and 16-bit bounds)."""
    text, expected, bounds = render_cases([cfg])
    with open(mlir_path, "w") as f:
        f.write(text)
    o = expected[0][1]
    lse = expected[1][1] if cfg.lse else None
    b = None
    if bounds:
        b = (bounds[expected[0][0]], bounds[expected[1][0]] if cfg.lse else None)
    save_expected(expected_path, cfg, o, lse, b)


def run_cases(configs, flash_opt: str, pipeline_args, atol: float = DEFAULT_ATOL,
              rtol: float = DEFAULT_RTOL, timeout: float = 300.0,
              workdir: Optional[str] = None):
    """Several cases in one module (one compilation): render_cases, then
    ``flash-opt <file> <pipeline_args> | mlir-runner``, then the check of
    every printed tensor (16-bit ones to their bounds).  Returns ``(ok,
    message)``; a failure keeps the files and names them."""
    pargs = _as_argv(pipeline_args)
    tmp = workdir or tempfile.mkdtemp(prefix="flash_cases_")
    os.makedirs(tmp, exist_ok=True)
    mlir_path = os.path.join(tmp, "cases.mlir")
    text, expected, bounds = render_cases(configs)
    with open(mlir_path, "w") as f:
        f.write(text)

    def failed(msg):
        return False, ("%s\nfiles kept in %s (cases.mlir, cases.lowered.mlir, cases.out)\n"
                       "reproducer: %s %s %s | %s %s"
                       % (msg, tmp, flash_opt, mlir_path, " ".join(shlex.quote(a) for a in pargs),
                          MLIR_RUNNER, " ".join(RUNNER_ARGS)))
    out, problem, _ = _compile_and_run(flash_opt, mlir_path, pargs, "cases", timeout)
    if problem:
        return failed(problem)
    ok, msg = check_output(expected, out, atol, rtol, bounds=bounds)
    if not ok:
        return failed(msg)
    if workdir is None:
        shutil.rmtree(tmp, ignore_errors=True)
    return True, msg


# --------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------

def _add_config_args(p):
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--batch", type=int, required=True)
    p.add_argument("--hq", type=int, required=True)
    p.add_argument("--hkv", type=int, required=True)
    p.add_argument("--nq", type=int, required=True)
    p.add_argument("--nk", type=int, required=True)
    p.add_argument("--d", type=int, required=True)
    p.add_argument("--dv", type=int, default=None, help="defaults to --d")
    p.add_argument("--causal", action="store_true")
    p.add_argument("--scale", type=float, default=None, help="omit for the op's default 1/sqrt(D)")
    p.add_argument("--lse", action="store_true", help="also return and print the LSE")
    p.add_argument("--dtype", default="f32", choices=sorted(UNIT_ROUNDOFF),
                   help="element type of q, k, v and O (16-bit: checked to rounding_tolerance)")
    p.add_argument("--backward", action="store_true",
                   help="flash.attention_backward: print and check dQ, dK, dV (--lse is unused)")


def _config_from_args(a) -> CaseConfig:
    return CaseConfig(seed=a.seed, batch=a.batch, hq=a.hq, hkv=a.hkv, nq=a.nq, nk=a.nk,
                      d=a.d, dv=a.d if a.dv is None else a.dv, causal=a.causal,
                      scale=a.scale, lse=a.lse, dtype=a.dtype, backward=a.backward)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m flash_mlir.testing.cpu_case",
                                 description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)

    g = sub.add_parser("gen", help="write the MLIR module and the expected outputs")
    _add_config_args(g)
    g.add_argument("--mlir", required=True)
    g.add_argument("--expected", required=True, help=".npz (default) or .json")

    gp = sub.add_parser("gen-paged", help="write the module of one flash.paged_attention "
                        "(shuffled pages; NaN in every slot no sequence owns) and its expected outputs")
    gp.add_argument("--seed", type=int, required=True)
    gp.add_argument("--batch", type=int, required=True)
    gp.add_argument("--hq", type=int, required=True)
    gp.add_argument("--hkv", type=int, required=True)
    gp.add_argument("--nq", type=int, required=True)
    gp.add_argument("--d", type=int, required=True)
    gp.add_argument("--dv", type=int, default=None, help="defaults to --d")
    gp.add_argument("--page-size", type=int, required=True)
    gp.add_argument("--seq-lens", required=True, help="one length per sequence: 0,5,17")
    gp.add_argument("--causal", action="store_true")
    gp.add_argument("--scale", type=float, default=None)
    gp.add_argument("--lse", action="store_true")
    gp.add_argument("--dtype", default="f32", choices=sorted(UNIT_ROUNDOFF))
    gp.add_argument("--caller-error", action="store_true",
                    help="sequence 0 longer than its table, entries outside [0, P) (the clamps)")
    gp.add_argument("--mlir", required=True)
    gp.add_argument("--expected", required=True, help=".npz")

    c = sub.add_parser("check", help="compare printMemrefF32 output with the expected outputs")
    c.add_argument("--expected", required=True)
    c.add_argument("--output", required=True, help="runner stdout ('-' for stdin)")
    c.add_argument("--atol", type=float, default=DEFAULT_ATOL)
    c.add_argument("--rtol", type=float, default=DEFAULT_RTOL)
    c.add_argument("--print-digits", type=int, default=PRINT_DIGITS,
                   help="significant digits the printer used; its rounding is added to the "
                        "tolerance (0: add nothing)")

    r = sub.add_parser("run", help="gen + flash-opt + mlir-runner + check")
    _add_config_args(r)
    r.add_argument("--flash-opt", default=os.environ.get("FLASH_OPT", "build/bin/flash-opt"))
    r.add_argument("--pipeline", default="--flash-cpu-pipeline",
                   help="flash-opt arguments as one string, split like a shell command line: "
                        "--pipeline='--flash-cpu-pipeline=\"block-q=4 block-kv=3\"'")
    r.add_argument("--atol", type=float, default=DEFAULT_ATOL)
    r.add_argument("--rtol", type=float, default=DEFAULT_RTOL)
    r.add_argument("--keep", action="store_true")

    a = ap.parse_args(argv)
    if a.cmd == "gen":
        cfg = _config_from_args(a)
        generate(cfg, a.mlir, a.expected)
        return 0
    if a.cmd == "gen-paged":
        lens = tuple(int(x) for x in a.seq_lens.split(",") if x)
        cfg = PagedCaseConfig(seed=a.seed, batch=a.batch, hq=a.hq, hkv=a.hkv, nq=a.nq, d=a.d,
                              dv=a.d if a.dv is None else a.dv, page_size=a.page_size,
                              seq_lens=lens, causal=a.causal, scale=a.scale, lse=a.lse,
                              dtype=a.dtype, caller_error=a.caller_error)
        generate_paged(cfg, a.mlir, a.expected)
        return 0
    if a.cmd == "check":
        text = sys.stdin.read() if a.output == "-" else open(a.output).read()
        ok, msg = check_output(a.expected, text, a.atol, a.rtol, a.print_digits)
        print(msg)
        return 0 if ok else 1
    if a.cmd == "run":
        cfg = _config_from_args(a)
        ok, msg = run_case(cfg, a.flash_opt, a.pipeline, atol=a.atol, rtol=a.rtol, keep=a.keep)
        print(msg)
        return 0 if ok else 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
