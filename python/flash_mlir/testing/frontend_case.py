"""Run a frontend (torch-mlir) IR file on the CPU as written and after
``--flash-raise-attention``, on the same random inputs, and compare.

The files under test/Frontend/Inputs hold one ``func.func @forward`` in
linalg-on-tensors or TOSA (scripts/frontend/gen-frontend-ir.py writes them).
A driver ``@main`` is appended that bakes seeded random arguments as
constants, calls ``@forward``, widens a 16-bit result to f32 and prints it.
Both modules go through flash-opt and mlir-runner:

  as written:  [TOSA -> linalg] --flash-cpu-pipeline
  raised:      --flash-raise-attention [TOSA -> linalg] --flash-cpu-pipeline

(TOSA -> linalg: :data:`TOSA_TO_LINALG`, upstream's passes.)

Without a flash op, --flash-cpu-pipeline is upstream MLIR's own bufferization
and lowering to LLVM, so the first run is the frontend's meaning; the second
runs flash.attention through the tiled algorithm (flash-tile,
flash-decompose).  f32 results must agree to atol = rtol = 1e-5 (plus the
6-digit printing of both); bf16 results to :data:`BF16_TOL` (the frontend
rounds the scores and P to bf16, flash.attention keeps them in f32).

Command line (``PYTHONPATH=python``)::

  python3 -m flash_mlir.testing.frontend_case test/Frontend/Inputs/sdpa_causal_f32.tosa.mlir
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
from typing import List, Optional, Tuple

import numpy as np

from flash_mlir.testing.cpu_case import (MLIR_RUNNER, RUNNER_SHARED_LIBS, _widen_lines,
                                         dense_literal, parse_memref_prints,
                                         print_rounding_bound, round_to_dtype,
                                         tensor_type)

F32_TOL = 1e-5
# bf16: a few units of bf16 roundoff (2^-8) of O's magnitude: the frontend
# rounds Q·Kᵀ, the scaled scores and P to bf16, flash.attention does not.
BF16_TOL = 2.0 ** -8 * 4

_TENSOR_RE = re.compile(r"tensor<((?:\d+x)*)(f32|bf16|f16)>")
_SIG_RE = re.compile(r"func\.func @forward\((?P<args>[^)]*)\)\s*->\s*(?P<res>[^{]*)\{")


def parse_signature(text: str) -> Tuple[List[Tuple[Tuple[int, ...], str]], List[Tuple[Tuple[int, ...], str]]]:
    """(shape, dtype) of each argument and result of @forward."""
    m = _SIG_RE.search(text)
    if not m:
        raise ValueError("no func.func @forward(...) -> ... in the file")

    def types(s):
        out = []
        for dims, dt in _TENSOR_RE.findall(s):
            out.append((tuple(int(d) for d in dims.split("x") if d), dt))
        return out
    return types(m.group("args")), types(m.group("res"))


def driver_module(text: str, seed: int = 0) -> str:
    """The file's module with an @main that calls @forward on seeded inputs
    and prints each result (widened to f32)."""
    args, results = parse_signature(text)
    rng = np.random.default_rng(seed)
    lines = []
    names = []
    for i, (shape, dt) in enumerate(args):
        a = round_to_dtype(rng.standard_normal(shape).astype(np.float32), dt)
        lines.append("    %%arg%d = arith.constant %s : %s" % (i, dense_literal(a, dt), tensor_type(shape, dt)))
        names.append("%%arg%d" % i)
    arg_types = ", ".join(tensor_type(s, d) for s, d in args)
    res_types = ", ".join(tensor_type(s, d) for s, d in results)
    res_names = ["%%res%d" % i for i in range(len(results))]
    lines.append("    %s = func.call @forward(%s) : (%s) -> (%s)"
                 % (", ".join(res_names), ", ".join(names), arg_types, res_types))
    for i, (shape, dt) in enumerate(results):
        name = "res%d" % i
        if dt != "f32":
            lines += _widen_lines(name, shape, dt)
            name += "_f32"
        mt = "memref<%sf32>" % "".join("%dx" % d for d in shape)
        lines += [
            "    %%%s_buf = bufferization.to_buffer %%%s : %s to %s" % (name, name, tensor_type(shape), mt),
            "    %%%s_unranked = memref.cast %%%s_buf : %s to memref<*xf32>" % (name, name, mt),
            "    func.call @printMemrefF32(%%%s_unranked) : (memref<*xf32>) -> ()" % name,
        ]
    main = ["  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}",
            "  func.func @main() {"] + lines + ["    return", "  }"]
    body = text.rstrip()
    # Strip trailing resource blobs, insert before the module's closing brace.
    resources = ""
    if "{-#" in body:
        body, resources = body.split("{-#", 1)
        body, resources = body.rstrip(), "{-#" + resources
    assert body.endswith("}"), "the file must end with its module"
    return body[:-1] + "\n".join(main) + "\n}\n" + resources


# Upstream's --tosa-to-linalg-pipeline without its tosa-validate (which
# refuses the f64 of SDPA's all-masked-row guard), then the TOSA ops it leaves
# (tosa.const, tosa.reshape, ...).
TOSA_TO_LINALG = ("func.func(tosa-optional-decompositions,canonicalize,tosa-infer-shapes,"
                  "tosa-make-broadcastable,tosa-to-linalg-named,canonicalize,"
                  "tosa-layerwise-constant-fold,tosa-make-broadcastable,tosa-to-linalg,"
                  "tosa-to-arith,tosa-to-tensor)")


def pipeline_args(path: str, raise_attention: bool) -> List[str]:
    """flash-opt's arguments: one --pass-pipeline."""
    passes = ["flash-raise-attention"] if raise_attention else []
    if ".tosa." in os.path.basename(path):
        passes.append(TOSA_TO_LINALG)
    passes.append("flash-cpu-pipeline")
    return ["--pass-pipeline=builtin.module(%s)" % ",".join(passes)]


def run(flash_opt: str, module: str, args: List[str], workdir: str, tag: str,
        timeout: float = 120) -> np.ndarray:
    """flash-opt <args> | mlir-runner; the printed results as arrays."""
    src = os.path.join(workdir, tag + ".mlir")
    with open(src, "w") as f:
        f.write(module)
    opt = subprocess.run([flash_opt, src] + args, capture_output=True, text=True, timeout=timeout)
    if opt.returncode != 0:
        raise RuntimeError("flash-opt %s failed:\n%s" % (" ".join(args), opt.stderr[-4000:]))
    runner = subprocess.run([MLIR_RUNNER, "-e", "main", "-entry-point-result=void", "-O0",
                             "-shared-libs=" + RUNNER_SHARED_LIBS],
                            input=opt.stdout, capture_output=True, text=True, timeout=timeout)
    if runner.returncode != 0:
        raise RuntimeError("mlir-runner failed:\n%s" % runner.stderr[-4000:])
    return [p.values for p in parse_memref_prints(runner.stdout)]


def check_file(path: str, flash_opt: str, seed: int = 0,
               workdir: Optional[str] = None) -> Tuple[bool, str, List[Tuple[float, float]]]:
    """Run `path` as written and raised; (ok, message, [(max|diff|, tol)])."""
    text = open(path).read()
    module = driver_module(text, seed)
    _, results = parse_signature(text)
    own = workdir is None
    workdir = workdir or tempfile.mkdtemp(prefix="frontend-")
    tag = os.path.basename(path).replace(".mlir", "")
    written = run(flash_opt, module, pipeline_args(path, False), workdir, tag + ".written")
    raised = run(flash_opt, module, pipeline_args(path, True), workdir, tag + ".raised")
    if own:
        for f in os.listdir(workdir):
            os.unlink(os.path.join(workdir, f))
        os.rmdir(workdir)
    ok, msg = compare_results(results, written, raised)
    return ok, msg, []


def _split_module(text: str) -> Tuple[str, List[str], List[str]]:
    """(the module body's lines, alias lines, resource entry lines)."""
    resources = []
    if "{-#" in text:
        text, blob = text.split("{-#", 1)
        resources = [l for l in blob.splitlines() if re.match(r"\s+\S+: \"0x", l)]
    lines = text.splitlines()
    aliases = [l for l in lines if l.startswith("#")]
    start = next(i for i, l in enumerate(lines) if l.startswith("module"))
    end = max(i for i, l in enumerate(lines) if l.rstrip() == "}")
    return lines[start + 1:end], aliases, resources


def batch_module(paths: List[str], seed: int = 0) -> str:
    """One module holding every file's @forward (renamed @forward_<k>, its
    attribute aliases and resources renamed alike) and one @main that calls
    each on its own seeded arguments and prints its results in order."""
    aliases, bodies, resources, main = [], [], [], []
    for k, path in enumerate(paths):
        text = open(path).read()
        text = re.sub(r"#map(\d*)\b", r"#f%dmap\1" % k, text)
        text = re.sub(r"\btorch_tensor_", "f%d_torch_tensor_" % k, text)
        text = text.replace("@forward(", "@forward_%d(" % k)
        body, alias, res = _split_module(text)
        aliases += alias
        bodies += body
        resources += res
        one = driver_module(open(path).read(), seed)
        lines = one.splitlines()
        i = next(i for i, l in enumerate(lines) if l.strip().startswith("func.func @main"))
        j = next(i2 for i2 in range(i, len(lines)) if lines[i2].strip() == "return")
        for l in lines[i + 1:j]:
            l = re.sub(r"%(arg|res)(\d+)", r"%%c%d_\1\2" % k, l)
            main.append(l.replace("@forward(", "@forward_%d(" % k))
    out = aliases + ["module {"] + bodies + [
        "  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}",
        "  func.func @main() {"] + main + ["    return", "  }", "}"]
    if resources:
        out += ["{-#", "  dialect_resources: {", "    builtin: {", ",\n".join(
            r.rstrip().rstrip(",") for r in resources), "    }", "  }", "#-}"]
    return "\n".join(out) + "\n"


def check_batch(paths: List[str], flash_opt: str, workdir: str, seed: int = 0):
    """check_file for many files with two flash-opt | mlir-runner runs in all:
    {path: (ok, message)}."""
    module = batch_module(paths, seed)
    any_tosa = any(".tosa." in os.path.basename(p) for p in paths)
    tag = "x.tosa.mlir" if any_tosa else "x.mlir"
    written = run(flash_opt, module, pipeline_args(tag, False), workdir, "batch.written")
    raised = run(flash_opt, module, pipeline_args(tag, True), workdir, "batch.raised")
    out, at = {}, 0
    for path in paths:
        _, results = parse_signature(open(path).read())
        n = len(results)
        out[path] = compare_results(results, written[at:at + n], raised[at:at + n])
        at += n
    return out


def compare_results(results, written, raised) -> Tuple[bool, str]:
    if len(written) != len(results) or len(raised) != len(results):
        return False, "expected %d printed results, got %d and %d" % (
            len(results), len(written), len(raised))
    ok, msgs = True, []
    for i, ((shape, dt), a, b) in enumerate(zip(results, written, raised)):
        tol = F32_TOL if dt == "f32" else BF16_TOL
        bound = tol + tol * np.abs(a) + print_rounding_bound(a) + print_rounding_bound(b)
        diff = np.abs(a - b)
        finite = bool(np.isfinite(a).all() and np.isfinite(b).all())
        worst = float(diff.max()) if diff.size else 0.0
        ok &= finite and bool((diff <= bound).all())
        msgs.append("result %d (%s %s): max|written - raised| = %.3g, tol %.1g%s"
                    % (i, "x".join(map(str, shape)), dt, worst, tol, "" if finite else ", NOT FINITE"))
    return ok, "; ".join(msgs)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--flash-opt", default=os.environ.get("FLASH_OPT", "build/bin/flash-opt"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", action="store_true", help="one module for all files (faster)")
    args = ap.parse_args(argv)
    bad = 0
    if args.batch:
        workdir = tempfile.mkdtemp(prefix="frontend-")
        results = check_batch(args.files, args.flash_opt, workdir, args.seed)
    else:
        results = {p: check_file(p, args.flash_opt, args.seed)[:2] for p in args.files}
    for path, (ok, msg) in results.items():
        print("%s %s: %s" % ("ok  " if ok else "FAIL", path, msg))
        bad += not ok
    print("%d ok, %d failed" % (len(results) - bad, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
