"""Run the GPU kernels' math on the CPU and check it against the f64 oracle.

``flash-opt --flash-test-kernel-math`` (test/lib/TestKernelMath.cpp) defines
``@flash_kernel_math``: the shared kernel math of KernelBuilder.cpp (K/V
range, mask, online softmax with its lazy threshold, rescale, 16-bit P, the
epilogue's O = acc / l and LSE) emitted by the same builder functions as the
GPU kernels, on a warp simulated as vector<32 x T> lanes, around an f32 MMA
stand-in, on either accumulator layout (``layout``: ``quad``, the mma.sync /
wgmma fragment, or ``row``, sm_100a's tcgen05.ld row per thread). This module writes an MLIR module that calls it on several
problems of one kernel configuration (16-bit inputs as ``memref.global``
constants), runs it under ``mlir-runner``, decodes O (16-bit pairs printed as
i32 words) and LSE, and compares them with :mod:`flash_mlir.oracle` within
:func:`flash_mlir.testing.cpu_case.rounding_tolerance`.

Command line (with ``PYTHONPATH=python``)::

  python3 -m flash_mlir.testing.kernel_math --form sm90a --dtype bf16 --d 64 \\
      --block-q 128 --block-kv 64 --causal --lse --rescale lazy --nq 77 --nk 130
"""

import argparse
import dataclasses
import os
import shutil
import subprocess
import sys
import tempfile
from typing import Optional, Sequence

import numpy as np

from flash_mlir.oracle import attention_reference
from flash_mlir.testing.cpu_case import (MLIR_RUNNER, RUNNER_ARGS, compare,
                                         f32_literal, parse_memref_prints, print_results,
                                         rounding_tolerance, round_to_dtype)

# After the harness: upstream lowering of scf, vector, memref, arith to LLVM.
LOWERING = ["--convert-scf-to-cf", "--convert-vector-to-llvm",
            "--finalize-memref-to-llvm", "--convert-to-llvm",
            "--reconcile-unrealized-casts"]

# Words of O that the harness never wrote stay NaN pairs.
_SENTINEL = {"bf16": 0x7FC07FC0, "f16": 0x7E007E00}


@dataclasses.dataclass(frozen=True)
class KernelConfig:
    """One compiled harness: what a GPU kernel fixes at compile time."""
    form: str = "sm80"            # loop order: sm80 | sm90a
    dtype: str = "bf16"           # f16 | bf16
    d: int = 64
    block_q: int = 64
    block_kv: int = 64
    warps: int = 4                # sm80 only (sm90a: block_q / 16)
    causal: bool = False
    lse: bool = False
    rescale: str = "eager"        # sm90a: eager | lazy | lazy-late
    first_tile_mask: str = "always"  # sm90a: always | branch
    output: str = "direct"        # direct | staged
    layout: str = "quad"          # quad (mma.sync / wgmma C fragment) | row
                                  # (tcgen05.ld: a row per lane, warps = block_q / 32)
    # One column of P in this many by the polynomial exp2 on the FMA units
    # (KernelMath::exp2Polynomial; sm_100a: 5); 0: none.
    exp2_polynomial_period: int = 0

    def pass_option(self) -> str:
        opts = ["form=%s" % self.form, "element-type=%s" % self.dtype,
                "head-dim=%d" % self.d, "block-q=%d" % self.block_q,
                "block-kv=%d" % self.block_kv, "warps=%d" % self.warps,
                "causal=%d" % int(self.causal), "lse=%d" % int(self.lse),
                "rescale=%s" % self.rescale,
                "first-tile-mask=%s" % self.first_tile_mask,
                "output=%s" % self.output, "layout=%s" % self.layout]
        if self.exp2_polynomial_period:
            opts.append("exp2-polynomial-period=%d"
                        % self.exp2_polynomial_period)
        return "--flash-test-kernel-math=%s" % " ".join(opts)

    def short_id(self) -> str:
        parts = [self.form, self.dtype, "D%d" % self.d,
                 "%dx%d" % (self.block_q, self.block_kv)]
        if self.form == "sm80":
            parts.append("w%d" % self.warps)
        else:
            parts += [self.rescale, self.first_tile_mask]
        parts.append(self.output)
        if self.layout != "quad":
            parts.append("layout-" + self.layout)
        if self.exp2_polynomial_period:
            parts.append("exp2poly%d" % self.exp2_polynomial_period)
        if self.causal:
            parts.append("causal")
        if self.lse:
            parts.append("lse")
        return "-".join(parts)


@dataclasses.dataclass(frozen=True)
class Problem:
    """One call: run-time sizes and inputs (``rising``: K rows grow along the
    sequence, so a row's max keeps rising across K/V tiles, past the lazy
    rescale threshold)."""
    seed: int
    batch: int
    hq: int
    hkv: int
    nq: int
    nk: int
    scale: Optional[float] = None
    rising: float = 0.0

    def short_id(self) -> str:
        s = "s%d-B%d-Hq%d-Hkv%d-Nq%d-Nk%d" % (self.seed, self.batch, self.hq,
                                            self.hkv, self.nq, self.nk)
        if self.scale is not None:
            s += "-scale%g" % self.scale
        if self.rising:
            s += "-rising%g" % self.rising
        return s


def make_inputs(cfg: KernelConfig, p: Problem):
    """q, k, v rounded to cfg.dtype (as float32 arrays holding those values)."""
    rng = np.random.default_rng(p.seed)
    q = rng.standard_normal((p.batch, p.hq, p.nq, cfg.d))
    k = rng.standard_normal((p.batch, p.hkv, p.nk, cfg.d))
    v = rng.uniform(-1.0, 1.0, (p.batch, p.hkv, p.nk, cfg.d))
    if p.rising and p.nk:
        ramp = 1.0 + p.rising * np.arange(p.nk) / p.nk
        k = k * ramp[None, None, :, None]
    return tuple(round_to_dtype(x, cfg.dtype) for x in (q, k, v))


def _bits(x: np.ndarray, dtype: str) -> np.ndarray:
    """uint16 bit patterns of float32 values exactly representable in dtype."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    if dtype == "f16":
        return x.astype(np.float16).view(np.uint16)
    return (x.view(np.uint32) >> 16).astype(np.uint16)


def _from_bits(u16: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "f16":
        return u16.view(np.float16).astype(np.float64)
    return (u16.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def _scale_of(cfg: KernelConfig, p: Problem) -> float:
    s = p.scale if p.scale is not None else 1.0 / np.sqrt(cfg.d)
    return float(np.float32(s))


def render_module(cfg: KernelConfig, problems: Sequence[Problem], inputs) -> str:
    et = cfg.dtype
    lines = ["// Generated by flash_mlir.testing.kernel_math for %s" % cfg.short_id(),
             "module {"]
    for n, (q, k, v) in enumerate(inputs):
        for name, a in (("q", q), ("k", k), ("v", v)):
            hexdata = _bits(a, et).astype("<u2").tobytes().hex().upper()
            lines.append('  memref.global "private" constant @%s%d : memref<%dx%s> = dense<"0x%s">'
                         % (name, n, a.size, et, hexdata))
    lines += [
        "  func.func private @flash_kernel_math(memref<?x{0}>, memref<?x{0}>, memref<?x{0}>, "
        "memref<?xi32>, memref<?xf32>, i32, i32, i32, i32, i32, f32)".format(et),
        "  func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}",
        "  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}",
        "  func.func @main() {",
        "    %c0 = arith.constant 0 : index",
        "    %c1 = arith.constant 1 : index",
        "    %%sentinel = arith.constant %d : i32" % int(np.uint32(_SENTINEL[et]).astype(np.int32)),
        "    %nan = arith.constant 0x7FC00000 : f32",
    ]
    for n, p in enumerate(problems):
        q, k, v = inputs[n]
        args = []
        for name, a in (("q", q), ("k", k), ("v", v)):
            lines.append("    %%%s%d = memref.get_global @%s%d : memref<%dx%s>" % (name, n, name, n, a.size, et))
            lines.append("    %%%s%d_d = memref.cast %%%s%d : memref<%dx%s> to memref<?x%s>"
                         % (name, n, name, n, a.size, et, et))
            args.append("%%%s%d_d" % (name, n))
        words = p.batch * p.hq * p.nq * cfg.d // 2
        rows = p.batch * p.hq * p.nq
        for name, size, ty, fill in (("o", words, "i32", "%sentinel"), ("lse", rows, "f32", "%nan")):
            lines += [
                "    %%%s%d = memref.alloc() : memref<%dx%s>" % (name, n, size, ty),
                "    %%%s%d_n = arith.constant %d : index" % (name, n, size),
                "    scf.for %%i = %%c0 to %%%s%d_n step %%c1 {" % (name, n),
                "      memref.store %s, %%%s%d[%%i] : memref<%dx%s>" % (fill, name, n, size, ty),
                "    }",
                "    %%%s%d_d = memref.cast %%%s%d : memref<%dx%s> to memref<?x%s>" % (name, n, name, n, size, ty, ty),
                "    %%%s%d_u = memref.cast %%%s%d : memref<%dx%s> to memref<*x%s>" % (name, n, name, n, size, ty, ty),
            ]
            args.append("%%%s%d_d" % (name, n))
        for name, val in (("b", p.batch), ("hq", p.hq), ("hkv", p.hkv), ("nq", p.nq), ("nk", p.nk)):
            lines.append("    %%%s%d = arith.constant %d : i32" % (name, n, val))
            args.append("%%%s%d" % (name, n))
        lines.append("    %%scale%d = arith.constant %s : f32" % (n, f32_literal(_scale_of(cfg, p))))
        args.append("%%scale%d" % n)
        lines.append("    func.call @flash_kernel_math(%s) : (memref<?x%s>, memref<?x%s>, memref<?x%s>, "
                     "memref<?xi32>, memref<?xf32>, i32, i32, i32, i32, i32, f32) -> ()"
                     % (", ".join(args), et, et, et))
        lines.append("    func.call @printMemrefI32(%%o%d_u) : (memref<*xi32>) -> ()" % n)
        if cfg.lse:
            lines.append("    func.call @printMemrefF32(%%lse%d_u) : (memref<*xf32>) -> ()" % n)
        lines.append("    memref.dealloc %%o%d : memref<%dxi32>" % (n, words))
        lines.append("    memref.dealloc %%lse%d : memref<%dxf32>" % (n, rows))
    lines += ["    return", "  }", "}", ""]
    return "\n".join(lines)


def decode_output(cfg: KernelConfig, p: Problem, words: np.ndarray) -> np.ndarray:
    """O from the printed i32 words (element 2w in the low half of word w)."""
    u32 = (np.asarray(words, dtype=np.float64).astype(np.int64) & 0xFFFFFFFF).astype(np.uint32)
    u16 = u32.astype("<u4").view("<u2")
    return _from_bits(u16, cfg.dtype).reshape(p.batch, p.hq, p.nq, cfg.d)


def run(cfg: KernelConfig, problems: Sequence[Problem], flash_opt: str,
        timeout: float = 300.0, workdir: Optional[str] = None):
    """Run every problem of ``cfg`` in one module.

    Returns ``(results, error)``: per problem ``(ok, message)``, or an error
    message (and no results) when flash-opt or mlir-runner failed.
    """
    inputs = [make_inputs(cfg, p) for p in problems]
    tmp = workdir or tempfile.mkdtemp(prefix="flash_kernel_math_")
    os.makedirs(tmp, exist_ok=True)
    mlir_path = os.path.join(tmp, "kernel_math.mlir")
    with open(mlir_path, "w") as f:
        f.write(render_module(cfg, problems, inputs))
    argv = [flash_opt, mlir_path, cfg.pass_option()] + LOWERING
    reproducer = "%s | %s %s" % (" ".join("'%s'" % a if " " in a else a for a in argv),
                                 MLIR_RUNNER, " ".join(RUNNER_ARGS))
    p1 = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    if p1.returncode != 0:
        return None, "flash-opt failed (%d):\n%s\nreproducer: %s" % (
            p1.returncode, p1.stderr.decode()[-3000:], reproducer)
    p2 = subprocess.run([MLIR_RUNNER] + RUNNER_ARGS, input=p1.stdout, stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, timeout=timeout)
    text = p2.stdout.decode("utf-8", "replace")
    if p2.returncode != 0:
        return None, "mlir-runner failed (%d):\n%s\nreproducer: %s" % (
            p2.returncode, p2.stderr.decode()[-3000:], reproducer)
    blocks = parse_memref_prints(text)
    per = 2 if cfg.lse else 1
    if len(blocks) != per * len(problems):
        return None, "expected %d printed memrefs, found %d" % (per * len(problems), len(blocks))
    results = []
    for n, p in enumerate(problems):
        q, k, v = inputs[n]
        scale = _scale_of(cfg, p)
        o_ref, lse_ref = attention_reference(q, k, v, causal=cfg.causal, scale=scale)
        o_tol, lse_tol = rounding_tolerance(q, k, v, cfg.causal, scale, cfg.dtype)
        o = decode_output(cfg, p, blocks[per * n].values)
        checks = [compare_with_bound("o", o, o_ref, o_tol, print_digits=0)]
        if cfg.lse:
            lse_out = blocks[per * n + 1].values.reshape(lse_ref.shape)
            checks.append(compare_with_bound("lse", lse_out, lse_ref, lse_tol))
        ok = all(c[0] for c in checks)
        results.append((ok, "%s: %s" % (p.short_id(), "; ".join(c[1] for c in checks))))
    if workdir is None and all(ok for ok, _ in results):
        shutil.rmtree(tmp, ignore_errors=True)
    elif not all(ok for ok, _ in results):
        results = [(ok, msg + "\nfiles in %s; reproducer: %s" % (tmp, reproducer) if not ok else msg)
                   for ok, msg in results]
    return results, None


def compare_with_bound(name, out, ref, bound, print_digits=6):
    """cpu_case.compare against a per-element bound alone."""
    ok, msg, _ = compare(name, out, ref, 0.0, 0.0, print_digits, bound=bound)
    return ok, msg


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m flash_mlir.testing.kernel_math",
                                 description=__doc__.split("\n\n")[0])
    for f in dataclasses.fields(KernelConfig):
        flag = "--" + f.name.replace("_", "-")
        if f.type in ("bool", bool):
            ap.add_argument(flag, action="store_true")
        else:
            ap.add_argument(flag, type=type(f.default), default=f.default)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--hq", type=int, default=2)
    ap.add_argument("--hkv", type=int, default=1)
    ap.add_argument("--nq", type=int, default=77)
    ap.add_argument("--nk", type=int, default=130)
    ap.add_argument("--scale", type=float, default=None)
    ap.add_argument("--rising", type=float, default=0.0)
    ap.add_argument("--flash-opt", default=os.environ.get("FLASH_OPT", "build/bin/flash-opt"))
    ap.add_argument("--keep", default=None, help="directory for the module and outputs")
    a = ap.parse_args(argv)
    cfg = KernelConfig(**{f.name: getattr(a, f.name) for f in dataclasses.fields(KernelConfig)})
    prob = Problem(a.seed, a.batch, a.hq, a.hkv, a.nq, a.nk, a.scale, a.rising)
    return print_results(*run(cfg, [prob], a.flash_opt, workdir=a.keep))


if __name__ == "__main__":
    sys.exit(main())
