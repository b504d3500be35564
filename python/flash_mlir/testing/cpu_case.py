"""Generate, run and check one CPU numerical case of ``flash.attention``.

A case is a random (seeded) set of float32 inputs q, k, v baked into an MLIR
module as ``arith.constant dense<...>`` tensors, one ``flash.attention`` op in
the dialect's textual form, and ``printMemrefF32`` calls that print O (and
LSE).  The expected values come from :mod:`flash_mlir.oracle` in float64 on
the same float32 inputs.

Command line (with ``PYTHONPATH=python``)::

  python3 -m flash_mlir.testing.cpu_case gen --seed 1 --batch 1 --hq 4 --hkv 2 \\
      --nq 7 --nk 9 --d 16 --dv 8 [--causal] [--scale 0.125] [--lse] \\
      --mlir case.mlir --expected case.npz
  flash-opt case.mlir --flash-cpu-pipeline | mlir-runner -e main \\
      -entry-point-result=void -O3 -shared-libs=...c_runner_utils.so,...runner_utils.so > case.out
  python3 -m flash_mlir.testing.cpu_case check --expected case.npz --output case.out

  # or all three steps at once:
  python3 -m flash_mlir.testing.cpu_case run --seed 1 ... \\
      --flash-opt build/bin/flash-opt --pipeline='--flash-cpu-pipeline="block-q=4 block-kv=3"'

Python API: :class:`CaseConfig`, :func:`generate`, :func:`parse_memref_prints`,
:func:`check_output`, :func:`run_case`.
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

from flash_mlir.oracle import attention_reference

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

@dataclasses.dataclass(frozen=True)
class CaseConfig:
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

    def __post_init__(self):
        for f in ("batch", "hq", "hkv", "nq", "nk", "d", "dv"):
            if getattr(self, f) < 0:
                raise ValueError("%s must be >= 0" % f)
        if self.hkv == 0 or self.hq % self.hkv != 0:
            raise ValueError("hkv (%d) must divide hq (%d)" % (self.hkv, self.hq))

    # Shapes -----------------------------------------------------------
    @property
    def q_shape(self):
        return (self.batch, self.hq, self.nq, self.d)

    @property
    def k_shape(self):
        return (self.batch, self.hkv, self.nk, self.d)

    @property
    def v_shape(self):
        return (self.batch, self.hkv, self.nk, self.dv)

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

def make_inputs(cfg: CaseConfig):
    """float32 q, k, v drawn from ``default_rng(seed)``.

    q and k are standard normal, so with the default scale 1/sqrt(D) the
    scores have unit spread (softmax neither flat nor one-hot); v is uniform
    in [-1, 1] so |O| <= 1.
    """
    rng = np.random.default_rng(cfg.seed)
    q = rng.standard_normal(cfg.q_shape).astype(np.float32)
    k = rng.standard_normal(cfg.k_shape).astype(np.float32)
    v = rng.uniform(-1.0, 1.0, cfg.v_shape).astype(np.float32)
    return q, k, v


def expected_outputs(cfg: CaseConfig, q, k, v):
    """Oracle (float64) on the float32 inputs, with the op's f32 scale."""
    return attention_reference(q, k, v, causal=cfg.causal, scale=cfg.scale_f32)


def tensor_type(shape) -> str:
    return "tensor<%sxf32>" % "x".join(str(s) for s in shape)


def memref_type(shape) -> str:
    return "memref<%sxf32>" % "x".join(str(s) for s in shape)


def f32_literal(x) -> str:
    """A decimal literal that MLIR parses back to exactly ``float32(x)``.

    10 significant digits; always has a '.', which MLIR's float lexer needs.
    """
    return "%.9e" % float(np.float32(x))


def _elem_literal(x) -> str:
    x = np.float32(x)
    if np.isfinite(x):
        return "%.9e" % float(x)
    # inf / nan: the f32 bit pattern, which MLIR accepts inside dense<...>
    return "0x%08X" % int(np.array(x, dtype=np.float32).view(np.uint32))


def dense_literal(a: np.ndarray) -> str:
    """``dense<...>`` body (nested brackets) for a float32 array."""
    a = np.asarray(a, dtype=np.float32)
    if a.size == 0:
        return "dense<>"
    flat = [_elem_literal(x) for x in a.ravel()]
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


def render_module(cfg: CaseConfig, q, k, v) -> str:
    qt, kt, vt = tensor_type(cfg.q_shape), tensor_type(cfg.k_shape), tensor_type(cfg.v_shape)
    ot, lt = tensor_type(cfg.o_shape), tensor_type(cfg.lse_shape)
    lines = [
        "// Generated by flash_mlir.testing.cpu_case gen %s" % " ".join(cfg.gen_argv()),
        "module {",
        "  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}",
        "",
        "  func.func @main() {",
        "    %%q = arith.constant %s : %s" % (dense_literal(q), qt),
        "    %%k = arith.constant %s : %s" % (dense_literal(k), kt),
        "    %%v = arith.constant %s : %s" % (dense_literal(v), vt),
    ]
    attrs = attention_attr_dict(cfg)
    if cfg.lse:
        lines.append("    %%o, %%lse = flash.attention %%q, %%k, %%v%s" % attrs)
        lines.append("        : %s, %s, %s -> %s, %s" % (qt, kt, vt, ot, lt))
        printed = [("o", cfg.o_shape), ("lse", cfg.lse_shape)]
    else:
        lines.append("    %%o = flash.attention %%q, %%k, %%v%s" % attrs)
        lines.append("        : %s, %s, %s -> %s" % (qt, kt, vt, ot))
        printed = [("o", cfg.o_shape)]
    for name, shape in printed:
        tt, mt = tensor_type(shape), memref_type(shape)
        lines += [
            "    %%%s_buf = bufferization.to_buffer %%%s : %s to %s" % (name, name, tt, mt),
            "    %%%s_unranked = memref.cast %%%s_buf : %s to memref<*xf32>" % (name, name, mt),
            "    func.call @printMemrefF32(%%%s_unranked) : (memref<*xf32>) -> ()" % name,
        ]
    lines += ["    return", "  }", "}", ""]
    return "\n".join(lines)


def generate(cfg: CaseConfig, mlir_path: str, expected_path: str):
    """Write the MLIR module and the expected outputs (.npz or .json)."""
    q, k, v = make_inputs(cfg)
    o, lse = expected_outputs(cfg, q, k, v)
    with open(mlir_path, "w") as f:
        f.write(render_module(cfg, q, k, v))
    save_expected(expected_path, cfg, o, lse if cfg.lse else None)
    return o, lse


def save_expected(path: str, cfg: CaseConfig, o, lse):
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
        for name in ("o", "lse"):
            if name in z.files:
                out.append((name, np.array(z[name], dtype=np.float64)))
    return out


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
            print_digits: int = PRINT_DIGITS):
    """Return ``(ok, message, stats)`` for one tensor.

    Rules: any NaN in ``out`` fails; an infinity must match the reference's
    infinity exactly (LSE of a fully masked row is -inf); every finite
    element must satisfy |out - ref| <= atol + rtol*|ref| (+ the printing
    rounding bound of ``out``).
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
                 print_digits: int = PRINT_DIGITS):
    """Compare runner stdout with the expected tensors.  Returns ``(ok, message)``."""
    if isinstance(expected, str):
        expected = load_expected(expected)
    try:
        blocks = parse_memref_prints(output_text)
    except ValueError as e:
        return False, "cannot parse runner output: %s" % e
    if len(blocks) != len(expected):
        return False, ("expected %d printed memref(s) (%s), found %d"
                       % (len(expected), ", ".join(n for n, _ in expected), len(blocks)))
    msgs = []
    for blk, (name, ref) in zip(blocks, expected):
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


def _run_steps(cfg, flash_opt, pargs, tmp, atol, rtol, timeout):
    mlir_path = os.path.join(tmp, "case.mlir")
    exp_path = os.path.join(tmp, "case.npz")
    times = []
    t0 = time.monotonic()
    generate(cfg, mlir_path, exp_path)
    times.append(("gen", time.monotonic() - t0))
    if not (os.path.isfile(flash_opt) and os.access(flash_opt, os.X_OK)):
        return False, "flash-opt not found or not executable at %r" % flash_opt
    t0 = time.monotonic()
    try:
        p1 = subprocess.run([flash_opt, mlir_path] + pargs, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, "flash-opt timed out after %gs" % timeout
    times.append(("flash-opt", time.monotonic() - t0))
    if p1.returncode != 0:
        return False, "flash-opt exited with %d:\n%s" % (p1.returncode, _tail(p1.stderr))
    with open(os.path.join(tmp, "case.lowered.mlir"), "wb") as f:
        f.write(p1.stdout)
    t0 = time.monotonic()
    try:
        p2 = subprocess.run([MLIR_RUNNER] + RUNNER_ARGS, input=p1.stdout,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, "mlir-runner timed out after %gs" % timeout
    times.append(("runner", time.monotonic() - t0))
    text = p2.stdout.decode("utf-8", "replace")
    with open(os.path.join(tmp, "case.out"), "w") as f:
        f.write(text)
    if p2.returncode != 0:
        return False, ("mlir-runner exited with %d:\n%s\n(stdout tail:)\n%s"
                       % (p2.returncode, _tail(p2.stderr), _tail(text, 1000)))
    ok, msg = check_output(exp_path, text, atol, rtol)
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


def _config_from_args(a) -> CaseConfig:
    return CaseConfig(seed=a.seed, batch=a.batch, hq=a.hq, hkv=a.hkv, nq=a.nq, nk=a.nk,
                      d=a.d, dv=a.d if a.dv is None else a.dv, causal=a.causal,
                      scale=a.scale, lse=a.lse)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m flash_mlir.testing.cpu_case",
                                 description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)

    g = sub.add_parser("gen", help="write the MLIR module and the expected outputs")
    _add_config_args(g)
    g.add_argument("--mlir", required=True)
    g.add_argument("--expected", required=True, help=".npz (default) or .json")

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
