"""A mutation and grammar fuzzer for ``flash-opt``: no input may crash it, hang it,
print a dangling value, or make a pipeline report success over half-lowered IR.

Inputs (all from fixed seeds, so a run is reproducible by its seed and index):

- *mutants* of the repository's own test inputs (every ``.mlir`` under ``test/``
  and ``examples/``, split at ``// -----``, comments dropped), each changed one to
  three times by the mutations in :data:`MUTATIONS`: element types, one dimension
  or all of a size, ``causal``, ``scale``, a ``#flash.schedule``, a function
  duplicated (several attentions), the whole input nested in a ``builtin.module``
  (one or two deep) or moved into a ``gpu.module`` (as ``func.func`` or as
  ``gpu.func``), a line deleted, duplicated or swapped, a token replaced;
- *grammar* cases built from scratch (:func:`grammar_case`): 0-3 functions of 0-3
  attentions each (``flash.attention``, a quarter of the time
  ``flash.paged_attention`` with its block table and lengths, caller errors
  included, and a quarter of the rest ``flash.attention_backward`` on
  constants), consistent or inconsistent shapes (zero and dynamic dims, GQA),
  f32/f16/bf16 and unsupported types, causal, scale, LSE, schedules (split-KV
  ones too), in a ``main`` with constants and ``printMemrefF32`` or as a
  function of its arguments, placed at the top level, in nested modules, or in
  a ``gpu.module``.

Each input runs through every pipeline of :data:`PIPELINES` (fourteen: none,
schedule+tile per arch, the CPU pipeline with random options and its reference
form, the IO report, decompose, the reference lowering, select-kernel-form with
random form options, the kernel-forms report, lower-to-nvgpu, and
``--flash-to-ptx`` for sm_80 and sm_90a with random options). A run is a
*finding* (:func:`classify`) when flash-opt

- crashes: a signal, an exit code other than 0 or 1, an LLVM stack dump, "PLEASE
  submit a bug report", "LLVM ERROR", or a sanitizer report;
- hangs: runs past ``timeout`` seconds (60: the largest seed input,
  test/Pipeline/ptx-sm80-backward.mlir through ``--flash-to-ptx=arch=sm_80``, and its
  mutants take 14-21 s alone on a 2-core machine, so a 20 s bound reported them as
  hangs: they finish, with exit 0);
- prints ``<<NULL TYPE>>`` or "operand is unlinked" (a dangling value);
- exits 1 without an ``error:``;
- exits 0 with output that is not lowered as far as the pipeline promises
  (:data:`LEFT_OVER`), or (pipeline "none") output that does not parse again.

Command line::

  PYTHONPATH=python python3 -m flash_mlir.testing.fuzz --mutants 400 --seed 21 \\
      [--jobs 2] [--timeout 60] [--time-budget 0] [--save build/fuzz-findings]

prints one line ``fuzz: M inputs x 14 pipelines = R runs in T s: crashes C, hangs H,
null types N, silent errors S, half-lowered L, round trips P`` and exits 1 on any
finding (each saved with its command under ``--save``).
"""

import argparse
import concurrent.futures
import dataclasses
import glob
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from typing import Callable, Dict, List, Optional, Sequence, Tuple

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, os.pardir))
DEFAULT_FLASH_OPT = os.path.join(REPO_ROOT, "build", "bin", "flash-opt")
DEFAULT_SEED = 21
# Seconds before a run is a hang (the module docstring says why 60).
DEFAULT_TIMEOUT = 60.0

# ---------------------------------------------------------------------------
# Pipelines: name -> (arguments drawn from rng, what success must have removed).


# The form options and their values (flash-select-kernel-form, flash-kernel-forms
# and --flash-to-ptx take them).
FORM_OPTIONS = [("persistent", ["auto", "yes", "no"]),
                ("ping-pong", ["auto", "yes", "no"]),
                ("rescale", ["auto", "eager", "lazy", "lazy-late"]),
                ("first-tile-mask", ["auto", "always", "branch"]),
                ("tile-order", ["auto", "head", "grouped"]),
                ("store-wait", ["auto", "immediate", "deferred"]),
                ("kv-range", ["auto", "block", "warpgroup"])]


def _form_options(rng, p=0.15):
    return [f"{name}={rng.choice(values)}" for name, values in FORM_OPTIONS if rng.random() < p]


def _ptx_options(rng, arch):
    opts = [f"arch={arch}"]
    if rng.random() < 0.5:
        opts.append(f"block-q={rng.choice([0, 64, 128, 192, 3])}")
    if rng.random() < 0.3:
        opts.append(f"block-kv={rng.choice([0, 16, 64, 128, 80])}")
    if rng.random() < 0.2:
        opts.append(f"stages={rng.choice([0, 1, 2, 3])}")
    if rng.random() < 0.2:
        opts.append(f"warps={rng.choice([0, 4, 8, 12])}")
    if arch == "sm_90a":
        opts += _form_options(rng)
    return ["--flash-to-ptx=" + " ".join(opts)]


def _cpu_options(rng):
    opts = []
    if rng.random() < 0.6:
        opts.append(f"block-q={rng.choice([0, 1, 3, 16, 64, 128])}")
    if rng.random() < 0.6:
        opts.append(f"block-kv={rng.choice([0, 1, 5, 16, 64])}")
    if rng.random() < 0.2:
        opts.append(f"max-splits={rng.choice([0, 1, 3, 200])}")
    if rng.random() < 0.1:
        opts.append("split-kv=false")
    return ["--flash-cpu-pipeline" + ("=" + " ".join(opts) if opts else "")]


def _nvgpu(rng):
    arch = rng.choice(["sm_80", "sm_90a"])
    return [f"--flash-select-schedule=arch={arch}", "--flash-tile",
            f"--flash-lower-to-nvgpu=arch={arch}"]


def _form(rng):
    arch = rng.choice(["sm_80", "sm_90a"])
    opts = _form_options(rng, 0.3 if arch == "sm_90a" else 0.05)
    return [f"--flash-select-schedule=arch={arch}", "--flash-tile",
            "--flash-select-kernel-form" + ("=" + " ".join(opts) if opts else "")]


def _kernel_forms(rng):
    arch = rng.choice(["sm_80", "sm_90a", "sm_100a"])
    lengths = ",".join(str(rng.choice([1, 7, 64, 512, 1000, 4096])) for _ in range(rng.randint(1, 3)))
    opts = [f"arch={arch}", f"lengths={lengths}"] + _form_options(rng)
    return ["--flash-kernel-forms=" + " ".join(opts)]


PIPELINES: Dict[str, Callable[[random.Random], List[str]]] = {
    "none": lambda rng: [],
    "tile-sm80": lambda rng: ["--flash-select-schedule=arch=sm_80", "--flash-tile"],
    "tile-sm90a": lambda rng: ["--flash-select-schedule=arch=sm_90a", "--flash-tile"],
    "tile-sm100a": lambda rng: ["--flash-select-schedule=arch=sm_100a", "--flash-tile"],
    "cpu": _cpu_options,
    "cpu-reference": lambda rng: ["--flash-cpu-pipeline=reference=true"],
    "io-report": lambda rng: [f"--flash-select-schedule=arch={rng.choice(['sm_80', 'sm_90a', 'sm_100a'])}",
                              "--flash-io-report"],
    "decompose": lambda rng: ["--flash-select-schedule=arch=sm_80", "--flash-tile", "--flash-decompose"],
    "reference": lambda rng: ["--flash-lower-to-reference"],
    "form": _form,
    "kernel-forms": _kernel_forms,
    "nvgpu": _nvgpu,
    "ptx-sm80": lambda rng: _ptx_options(rng, "sm_80"),
    "ptx-sm90a": lambda rng: _ptx_options(rng, "sm_90a"),
}

# Op-name prefixes that must not survive a successful run of each pipeline. The
# CPU pipelines promise the LLVM dialect only (checked by the allowed set below).
LEFT_OVER: Dict[str, Tuple[str, ...]] = {
    "form": ("flash.attention", "flash.paged_attention"),
    "tile-sm80": ("flash.attention", "flash.paged_attention"),
    "tile-sm90a": ("flash.attention", "flash.paged_attention"),
    "tile-sm100a": ("flash.attention", "flash.paged_attention"),
    "io-report": (),
    "decompose": ("flash.",),
    # L1 ops are not its input: it leaves them
    "reference": ("flash.attention", "flash.paged_attention"),
    "nvgpu": ("flash.", "scf.forall"),
    "ptx-sm80": ("flash.", "scf.forall", "gpu.module", "gpu.func", "nvgpu.", "nvvm."),
    "ptx-sm90a": ("flash.", "scf.forall", "gpu.module", "gpu.func", "nvgpu.", "nvvm."),
}
CPU_ALLOWED = ("llvm.", "module", "builtin.module")

_OP_LINE = re.compile(r'^\s*(?:%[^=]*=\s*)?"?([A-Za-z_][\w$]*(?:\.[\w$]+)+|module)\b')


def op_names(ir: str) -> List[str]:
    """The op names that start lines of printed IR (custom or generic form);
    the file's trailing `{-# dialect_resources ... #-}` section (blob keys
    such as `torch_tensor_8_8_torch.float32: "0x..."`) holds no ops."""
    names = []
    end = ir.find("\n{-#")
    for line in (ir if end < 0 else ir[:end]).splitlines():
        stripped = line.lstrip()
        if not stripped or stripped[0] in "#^})]/!":
            continue
        m = _OP_LINE.match(line)
        if m:
            names.append(m.group(1))
    return names


def left_over_ops(pipeline: str, ir: str) -> List[str]:
    """Ops in successful output that `pipeline` should have lowered away."""
    names = op_names(ir)
    if pipeline.startswith("cpu"):
        return sorted({n for n in names if not (n in CPU_ALLOWED or n.startswith("llvm."))})
    bad = LEFT_OVER.get(pipeline, ())
    return sorted({n for n in names if any(n == b or n.startswith(b) for b in bad)})


# ---------------------------------------------------------------------------
# Classification of one run.

CRASH_MARKERS = ("PLEASE submit a bug report", "Stack dump", "LLVM ERROR",
                 "ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer")


@dataclasses.dataclass
class Finding:
    kind: str            # crash, hang, null-type, silent-error, half-lowered, round-trip
    pipeline: str
    args: List[str]
    detail: str
    source: str = ""
    name: str = ""


def classify(pipeline: str, returncode: Optional[int], stdout: str, stderr: str) -> Optional[Tuple[str, str]]:
    """(kind, detail) when a run of `pipeline` is a finding, else None.
    returncode None means the run was killed at the timeout."""
    if returncode is None:
        return "hang", "timed out"
    for marker in CRASH_MARKERS:
        if marker in stderr:
            return "crash", f"exit {returncode}, '{marker}'"
    if returncode not in (0, 1):
        return "crash", f"exit {returncode}"
    if "<<NULL TYPE>>" in stderr or "<<NULL TYPE>>" in stdout:
        return "null-type", "'<<NULL TYPE>>' printed"
    # A verifier error no parser input can cause: a pass erased an op whose
    # result is still used (the dangling value of issue 21, which a sanitized
    # build reports this way instead of crashing).
    if "operand is unlinked" in stderr:
        return "null-type", "a dangling operand ('operand is unlinked')"
    if returncode == 1:
        return None if "error:" in stderr else ("silent-error", "exit 1 without 'error:'")
    left = left_over_ops(pipeline, stdout)
    if left:
        return "half-lowered", "exit 0 with " + ", ".join(left[:6])
    return None


# ---------------------------------------------------------------------------
# Seed corpus and mutations.


def seed_corpus(root: str = REPO_ROOT) -> List[Tuple[str, str]]:
    """(name, text) for every split of every .mlir under test/ and examples/."""
    corpus = []
    files = sorted(glob.glob(os.path.join(root, "test", "**", "*.mlir"), recursive=True) +
                   glob.glob(os.path.join(root, "examples", "*.mlir")))
    for path in files:
        with open(path) as f:
            text = f.read()
        for i, part in enumerate(re.split(r"^// -----\s*$", text, flags=re.M)):
            lines = [l for l in part.splitlines() if not l.lstrip().startswith("//")]
            body = "\n".join(lines).strip()
            if body:
                corpus.append((f"{os.path.relpath(path, root)}#{i}", body + "\n"))
    return corpus


TYPES = ["f32", "f16", "bf16"]
ODD_TYPES = ["f64", "i32", "f8E4M3FN", "i1", "index"]
DIMS = [0, 1, 2, 3, 7, 8, 16, 17, 63, 64, 65, 100, 128, 129, 192, 256, 1000]


def _schedule(rng):
    text = ('#flash.schedule<arch = "%s", block_q = %d, block_kv = %d, stages = %d, warps = %d'
            % (rng.choice(["sm_80", "sm_90a", "sm_100a"]), rng.choice([1, 3, 16, 64, 128, 192, 256]),
               rng.choice([1, 5, 16, 40, 64, 128, 256]), rng.choice([1, 2, 3, 4]),
               rng.choice([1, 4, 8, 12, 16])))
    if rng.random() < 0.3:  # a split-KV schedule
        text += ", max_splits = %d" % rng.choice([1, 2, 7, 132, -1])
    return text + ">"


def _mut_type(rng, text):
    old = rng.choice(TYPES)
    new = rng.choice(TYPES + ODD_TYPES[:2] if rng.random() < 0.8 else ODD_TYPES)
    if rng.random() < 0.5:
        return re.sub(rf"x{old}>", f"x{new}>", text)
    hits = [m.start() for m in re.finditer(rf"x{old}>", text)]
    if not hits:
        return text
    at = rng.choice(hits)
    return text[:at] + f"x{new}>" + text[at + len(old) + 2:]


def _mut_dim(rng, text):
    dims = re.findall(r"(?<=[<x])(\d+)(?=x)", text)
    if not dims:
        return text
    old, new = rng.choice(dims), str(rng.choice(DIMS + ["?"]))
    if rng.random() < 0.6:  # the same size everywhere: keeps shapes consistent
        return re.sub(rf"(?<=[<x]){old}(?=x)", new, text)
    hits = [m.start() for m in re.finditer(rf"(?<=[<x]){old}(?=x)", text)]
    at = rng.choice(hits)
    return text[:at] + new + text[at + len(old):]


def _attention_attrs(rng, text, edit):
    # flash.attention (three operands), flash.attention_backward (six) or
    # flash.paged_attention (five).
    hits = list(re.finditer(
        r"flash\.((?:paged_)?attention(?:_backward)?) ((?:%[\w#]+, )*%[\w#]+)( \{[^}]*\})?", text))
    if not hits:
        return text
    m = rng.choice(hits)
    attrs = [a.strip() for a in (m.group(3) or "").strip(" {}").split(",") if a.strip()]
    attrs = edit(attrs)
    new = f"flash.{m.group(1)} {m.group(2)}" + (" {" + ", ".join(attrs) + "}" if attrs else "")
    return text[:m.start()] + new + text[m.end():]


def _mut_causal(rng, text):
    return _attention_attrs(rng, text, lambda a: [x for x in a if x != "causal"]
                            if "causal" in a else a + ["causal"])


def _mut_scale(rng, text):
    value = rng.choice(["0.125", "1.0", "-1.0", "0.0", "1e30", "1e-30", "0x7FC00000"])
    return _attention_attrs(rng, text, lambda a: [x for x in a if not x.startswith("scale")]
                            + [f"scale = {value} : f32"])


def _mut_schedule(rng, text):
    return _attention_attrs(rng, text, lambda a: [x for x in a if not x.startswith("schedule")]
                            + ([f"schedule = {_schedule(rng)}"] if rng.random() < 0.8 else []))


def _mut_nest(rng, text):
    depth = rng.choice([1, 1, 2])
    for d in range(depth):
        name = rng.choice(["", f" @inner{d}"])
        text = f"module{name} {{\n{text}}}\n"
    return text


def _mut_gpu_module(rng, text):
    if rng.random() < 0.5:
        text = re.sub(r"\bfunc\.func\b", "gpu.func", text)
        text = re.sub(r"^(\s*)return\b", r"\1gpu.return", text, flags=re.M)
        text = re.sub(r"gpu\.func private (@\w+\([^)]*\))", r"func.func private \1", text)
    return ("module attributes {gpu.container_module} {\n  gpu.module @kernels {\n"
            + text + "  }\n}\n")


def _mut_duplicate_function(rng, text):
    m = re.search(r"^func\.func (?!private)@(\w+)[\s\S]*?^}\s*$", text, flags=re.M)
    if not m:
        return text
    copy = m.group(0).replace(f"@{m.group(1)}", f"@{m.group(1)}_dup", 1)
    return text + "\n" + copy + "\n"


def _mut_lines(rng, text):
    lines = text.splitlines()
    if len(lines) < 2:
        return text
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    op = rng.choice(["delete", "duplicate", "swap"])
    if op == "delete":
        del lines[i]
    elif op == "duplicate":
        lines.insert(j, lines[i])
    else:
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines) + "\n"


def _mut_token(rng, text):
    tokens = list(re.finditer(r"\b\d+\b|\b(?:causal|f32|f16|bf16|index|func\.func|return)\b", text))
    if not tokens:
        return text
    m = rng.choice(tokens)
    new = rng.choice(["0", "1", "-1", "2147483648", "64", "?", "f16", "causal", "gpu.func", "%q"])
    return text[:m.start()] + new + text[m.end():]


MUTATIONS = [(_mut_type, 3), (_mut_dim, 4), (_mut_causal, 2), (_mut_scale, 1), (_mut_schedule, 2),
             (_mut_nest, 3), (_mut_gpu_module, 2), (_mut_duplicate_function, 2), (_mut_lines, 1),
             (_mut_token, 1)]


def mutate(rng: random.Random, text: str) -> str:
    funcs, weights = zip(*MUTATIONS)
    for _ in range(rng.choice([1, 1, 2, 3])):
        text = rng.choices(funcs, weights)[0](rng, text)
    return text


# ---------------------------------------------------------------------------
# Grammar.


def _attention(rng, args, lse_prefix):
    """One flash.attention on q, k, v values `args`; returns (text, q/k/v/o/lse types)."""
    consistent = rng.random() < 0.75
    et = rng.choice(TYPES * 4 + ODD_TYPES[:2])
    b, hkv = rng.choice([1, 1, 2]), rng.choice([1, 1, 2, 3])
    hq = hkv * rng.choice([1, 1, 2, 4]) if consistent else rng.choice([1, 2, 3, 4])
    nq, nk = rng.choice([1, 7, 16, 64, 100, 130]), rng.choice([1, 7, 16, 64, 100, 200])
    d, dv = rng.choice([8, 16, 64, 64, 128, 256]), rng.choice([8, 16, 64, 128, 256])
    if rng.random() < 0.6:
        dv = d
    if not consistent:
        pick = lambda v: rng.choice([v, v, 0, "?", v + 1])
        b, hq, nq, d = pick(b), pick(hq), pick(nq), pick(d)
    q, k = f"{b}x{hq}x{nq}x{d}", f"{b}x{hkv}x{nk}x{d}"
    v, o = f"{b}x{hkv}x{nk}x{dv}", f"{b}x{hq}x{nq}x{dv}"
    attrs = []
    if rng.random() < 0.4:
        attrs.append("causal")
    if rng.random() < 0.2:
        attrs.append(f"scale = {rng.choice(['0.5', '-1.0', '0.0', '1e30'])} : f32")
    if rng.random() < 0.25:
        attrs.append(f"schedule = {_schedule(rng)}")
    attr = " {" + ", ".join(attrs) + "}" if attrs else ""
    lse = rng.random() < 0.3
    results = f"%{lse_prefix}o, %{lse_prefix}l" if lse else f"%{lse_prefix}o"
    result_types = f"tensor<{o}x{et}>" + (f", tensor<{b}x{hq}x{nq}xf32>" if lse else "")
    text = (f"{results} = flash.attention {args[0]}, {args[1]}, {args[2]}{attr} : "
            f"tensor<{q}x{et}>, tensor<{k}x{et}>, tensor<{v}x{et}> -> {result_types}")
    return text, (q, k, v, o, et, lse)


def _backward(rng, i):
    """Lines building constant inputs and one flash.attention_backward; returns
    (lines, name of dQ, its tensor type's shape, element type)."""
    text, (q, k, v, o, et, _) = _attention(rng, [f"%q{i}", f"%k{i}", f"%v{i}"], f"a{i}")
    q, k, v, o = (x.replace("?", "1") for x in (q, k, v, o))
    b, hq, nq = q.split("x")[:3]
    lse = f"{b}x{hq}x{nq}"
    if rng.random() < 0.1:  # an inconsistent LSE
        lse = f"{b}x{hq}x{rng.choice([1, 3, 64])}"
    attr = re.search(r" \{[^}]*\}", text)
    attr = attr.group(0) if attr else ""
    if rng.random() < 0.2:
        attr = (attr[:-1] + ", deterministic}") if attr else " {deterministic}"
    grads = [q, k, v] if rng.random() < 0.9 else [k, q, v]  # or swapped gradients
    lines = [f"%q{i} = arith.constant dense<0.5> : tensor<{q}x{et}>",
             f"%k{i} = arith.constant dense<0.25> : tensor<{k}x{et}>",
             f"%v{i} = arith.constant dense<1.0> : tensor<{v}x{et}>",
             f"%o{i} = arith.constant dense<1.0> : tensor<{o}x{et}>",
             f"%do{i} = arith.constant dense<{rng.choice(['0.5', '-1.0'])}> : tensor<{o}x{et}>",
             f"%l{i} = arith.constant dense<{rng.choice(['2.0', '0xFF800000'])}> : tensor<{lse}xf32>",
             f"%a{i}o, %a{i}k, %a{i}v = flash.attention_backward %q{i}, %k{i}, %v{i}, %o{i}, %do{i}, %l{i}"
             f"{attr} : tensor<{q}x{et}>, tensor<{k}x{et}>, tensor<{v}x{et}>, tensor<{o}x{et}>, "
             f"tensor<{o}x{et}>, tensor<{lse}xf32> -> "
             + ", ".join(f"tensor<{g}x{et}>" for g in grads)]
    return lines, f"%a{i}o", grads[0], et


def _paged_attention(rng, args, lse_prefix):
    """One flash.paged_attention on q, k_cache, v_cache, block_table, seq_lens
    values `args`; returns (text, q/kc/vc/bt/sl/o types, element type, lse)."""
    consistent = rng.random() < 0.75
    et = rng.choice(TYPES * 4 + ODD_TYPES[:2])
    b, hkv = rng.choice([1, 1, 2]), rng.choice([1, 1, 2, 3])
    hq = hkv * rng.choice([1, 1, 2, 4]) if consistent else rng.choice([1, 2, 3, 4])
    nq = rng.choice([1, 1, 2, 4, 65])
    pages, slots, m = rng.choice([1, 4, 33]), rng.choice([1, 3, 16]), rng.choice([0, 1, 2, 5])
    d = rng.choice([8, 16, 64, 128])
    dv = d if rng.random() < 0.6 else rng.choice([8, 16, 64])
    ti, li = "i32", "i32"
    if not consistent:
        pick = lambda v: rng.choice([v, v, 0, "?", v + 1])
        b, hq, pages, slots, d = pick(b), pick(hq), pick(pages), pick(slots), pick(d)
        ti, li = rng.choice(["i32", "i32", "i64"]), rng.choice(["i32", "i32", "index"])
    q, kc, vc = f"{b}x{hq}x{nq}x{d}", f"{pages}x{slots}x{hkv}x{d}", f"{pages}x{slots}x{hkv}x{dv}"
    bt, sl, o = f"{b}x{m}x{ti}", f"{b}x{li}", f"{b}x{hq}x{nq}x{dv}"
    attrs = []
    if rng.random() < 0.4:
        attrs.append("causal")
    if rng.random() < 0.2:
        attrs.append(f"scale = {rng.choice(['0.5', '-1.0', '0.0', '1e30'])} : f32")
    if rng.random() < 0.25:
        attrs.append(f"schedule = {_schedule(rng)}")
    attr = " {" + ", ".join(attrs) + "}" if attrs else ""
    lse = rng.random() < 0.3
    results = f"%{lse_prefix}o, %{lse_prefix}l" if lse else f"%{lse_prefix}o"
    result_types = f"tensor<{o}x{et}>" + (f", tensor<{b}x{hq}x{nq}xf32>" if lse else "")
    text = (f"{results} = flash.paged_attention {', '.join(args)}{attr} : "
            f"tensor<{q}x{et}>, tensor<{kc}x{et}>, tensor<{vc}x{et}>, tensor<{bt}>, "
            f"tensor<{sl}> -> {result_types}")
    return text, (q, kc, vc, bt, sl, o, et, lse)


def _paged_case(rng, i, form):
    """A flash.paged_attention of the i-th slot of `_function`: ('args': of
    its arguments) its text, signature arguments and first result; ('main':
    on constants) the lines."""
    names = ["%q", "%kc", "%vc", "%bt", "%sl"] if form == "args" else \
        [f"%q{i}", f"%kc{i}", f"%vc{i}", f"%bt{i}", f"%sl{i}"]
    text, (q, kc, vc, bt, sl, o, et, lse) = _paged_attention(rng, names, f"a{i}")
    if form == "args":
        sig = [f"{n}: tensor<{t}>" for n, t in zip(names, [f"{q}x{et}", f"{kc}x{et}", f"{vc}x{et}", bt, sl])]
        return [text], sig, (f"%a{i}o", f"tensor<{o}x{et}>")
    if "?" in q + kc + vc + bt + sl + o:
        text = text.replace("?", "1")
        q, kc, vc, bt, sl, o = (s.replace("?", "1") for s in (q, kc, vc, bt, sl, o))
    length = rng.choice(["0", "1", "5", "-3", "100000"])
    lines = [f"%q{i} = arith.constant dense<0.5> : tensor<{q}x{et}>",
             f"%kc{i} = arith.constant dense<0.25> : tensor<{kc}x{et}>",
             f"%vc{i} = arith.constant dense<1.0> : tensor<{vc}x{et}>",
             f"%bt{i} = arith.constant dense<{rng.choice(['0', '1', '-1', '7'])}> : tensor<{bt}>",
             f"%sl{i} = arith.constant dense<{length}> : tensor<{sl}>", text]
    return lines, None, (f"%a{i}o", f"tensor<{o}x{et}>")


def _function(rng, name, count, form):
    """A func.func holding `count` attentions: 'args' form computes them from
    its arguments and returns the first; 'main' form builds constant inputs and
    prints every output with printMemrefF32."""
    if count == 0:
        return (f"func.func @{name}(%x: tensor<4xf32>) -> tensor<4xf32> {{\n"
                f"  return %x : tensor<4xf32>\n}}\n")
    body, first = [], None
    sig_args = []
    for i in range(count):
        if rng.random() < 0.25:  # a paged attention instead
            lines, sig, result = _paged_case(rng, i, form if i == 0 else "main")
            if sig is not None:
                sig_args, first = sig, result
            body += lines
            continue
        if form == "args" and i == 0:
            args = ["%q", "%k", "%v"]
            text, (q, k, v, o, et, lse) = _attention(rng, args, f"a{i}")
            sig_args = [f"%q: tensor<{q}x{et}>", f"%k: tensor<{k}x{et}>", f"%v: tensor<{v}x{et}>"]
            first = (f"%a{i}o", f"tensor<{o}x{et}>")
            body.append(text)
            continue
        if rng.random() < 0.25:  # the backward, on constants
            lines, printed, shape, et = _backward(rng, i)
            body += lines
            if form == "main" and et == "f32":
                body += [f"%b{i} = bufferization.to_buffer {printed} : tensor<{shape}x{et}> to memref<{shape}x{et}>",
                         f"%u{i} = memref.cast %b{i} : memref<{shape}x{et}> to memref<*x{et}>",
                         f"call @printMemrefF32(%u{i}) : (memref<*x{et}>) -> ()"]
            continue
        # A case consistent enough for constants: static shapes only.
        text, (q, k, v, o, et, lse) = _attention(rng, [f"%q{i}", f"%k{i}", f"%v{i}"], f"a{i}")
        if "?" in q + k + v + o:
            text = text.replace("?", "1")
            q, k, v, o = (s.replace("?", "1") for s in (q, k, v, o))
        fill = rng.choice(["0.5", "-1.0", "0.0"])
        body += [f"%q{i} = arith.constant dense<{fill}> : tensor<{q}x{et}>",
                 f"%k{i} = arith.constant dense<0.25> : tensor<{k}x{et}>",
                 f"%v{i} = arith.constant dense<1.0> : tensor<{v}x{et}>", text]
        if form == "main" and et == "f32":
            body += [f"%b{i} = bufferization.to_buffer %a{i}o : tensor<{o}x{et}> to memref<{o}x{et}>",
                     f"%u{i} = memref.cast %b{i} : memref<{o}x{et}> to memref<*x{et}>",
                     f"call @printMemrefF32(%u{i}) : (memref<*x{et}>) -> ()"]
    if form == "args":
        ret = f"  return {first[0]} : {first[1]}\n"
        sig = f"({', '.join(sig_args)}) -> {first[1]}"
    else:
        ret, sig = "  return\n", "()"
    return (f"func.func @{name}{sig} {{\n" + "".join(f"  {l}\n" for l in body) + ret + "}\n")


def grammar_case(rng: random.Random) -> str:
    funcs = []
    needs_print = False
    for f in range(rng.choice([0, 1, 1, 1, 2, 3])):
        form = rng.choice(["args", "main"])
        needs_print |= form == "main"
        funcs.append(_function(rng, "main" if form == "main" and f == 0 else f"f{f}",
                               rng.choice([0, 1, 1, 1, 2, 3]), form))
    text = "".join(funcs)
    if needs_print:
        text = ("func.func private @printMemrefF32(memref<*xf32>) "
                "attributes {llvm.emit_c_interface}\n" + text)
    placement = rng.choice(["top", "top", "nested", "nested2", "gpu-func", "gpu-gpufunc", "mixed"])
    if placement == "nested":
        text = f"module @inner {{\n{text}}}\n"
    elif placement == "nested2":
        text = f"module {{\nmodule @m {{\n{text}}}\n}}\n"
    elif placement == "gpu-func":
        text = _mut_gpu_module(random.Random(0), text)  # seed 0: func.func kept
    elif placement == "gpu-gpufunc":
        text = _mut_gpu_module(random.Random(1), text)  # seed 1: gpu.func
    elif placement == "mixed":
        text = text + "module @inner {\n" + _function(rng, "g", rng.choice([1, 2]), "args") + "}\n"
    return text


# ---------------------------------------------------------------------------
# Driver.


def make_inputs(count: int, seed: int = DEFAULT_SEED, root: str = REPO_ROOT) -> List[Tuple[str, str]]:
    """`count` inputs (name, text), in a fixed order from `seed`: of every five,
    one unmutated corpus entry, two mutants and two grammar cases."""
    corpus = seed_corpus(root)
    order = list(corpus)
    random.Random(seed).shuffle(order)
    inputs = []
    for i in range(count):
        case_rng = random.Random(seed * 1_000_003 + i)
        kind = i % 5
        if kind == 0:
            name, text = order[(i // 5) % len(order)]
            inputs.append((f"seed:{name}", text))
        elif kind in (1, 2):
            name, text = case_rng.choice(corpus)
            inputs.append((f"mutant-{i}:{name}", mutate(case_rng, text)))
        else:
            inputs.append((f"grammar-{i}", grammar_case(case_rng)))
    return inputs


def run_one(flash_opt: str, pipeline: str, args: Sequence[str], source: str, timeout: float,
            workdir: str) -> Tuple[Optional[int], str, str]:
    fd, path = tempfile.mkstemp(suffix=".mlir", dir=workdir)
    with os.fdopen(fd, "w") as f:
        f.write(source)
    try:
        r = subprocess.run([flash_opt, path, *args], capture_output=True, text=True,
                           timeout=timeout, errors="replace")
        result = (r.returncode, r.stdout, r.stderr)
        # The "none" pipeline's output must parse again (print/re-parse round trip).
        if pipeline == "none" and r.returncode == 0:
            again = subprocess.run([flash_opt, "-", "-o", os.devnull], input=r.stdout,
                                   capture_output=True, text=True, timeout=timeout, errors="replace")
            if again.returncode != 0:
                result = (0, r.stdout, "round-trip: " + again.stderr)
        return result
    except subprocess.TimeoutExpired:
        return None, "", ""
    finally:
        os.unlink(path)


@dataclasses.dataclass
class Report:
    inputs: int = 0
    runs: int = 0
    seconds: float = 0.0
    findings: List[Finding] = dataclasses.field(default_factory=list)
    stopped_early: bool = False
    succeeded: Dict[str, int] = dataclasses.field(default_factory=dict)  # exit 0 per pipeline

    def counts(self) -> Dict[str, int]:
        kinds = ["crash", "hang", "null-type", "silent-error", "half-lowered", "round-trip"]
        return {k: sum(f.kind == k for f in self.findings) for k in kinds}

    def summary(self) -> str:
        c = self.counts()
        return (f"fuzz: {self.inputs} inputs x {len(PIPELINES)} pipelines = {self.runs} runs in "
                f"{self.seconds:.0f} s: crashes {c['crash']}, hangs {c['hang']}, null types "
                f"{c['null-type']}, silent errors {c['silent-error']}, half-lowered "
                f"{c['half-lowered']}, round trips {c['round-trip']}"
                + (" (stopped at the time budget)" if self.stopped_early else "")
                + "\nexit 0 per pipeline: "
                + ", ".join(f"{k} {v}" for k, v in sorted(self.succeeded.items())))


def fuzz(count: int, seed: int = DEFAULT_SEED, flash_opt: str = DEFAULT_FLASH_OPT, jobs: int = 2,
         timeout: float = DEFAULT_TIMEOUT, time_budget: float = 0.0, pipelines: Optional[Sequence[str]] = None,
         log: Optional[Callable[[str], None]] = None) -> Report:
    """Runs `count` inputs through the pipelines; stops taking new inputs after
    `time_budget` seconds when it is > 0 (the inputs run so far are a prefix of
    the same sequence, so a shorter run checks a subset of a longer one)."""
    names = list(pipelines or PIPELINES)
    report = Report()
    start = time.monotonic()
    inputs = make_inputs(count, seed)

    def check(index_and_input):
        index, (name, source) = index_and_input
        rng = random.Random(seed * 7919 + index)
        out, ok = [], []
        for pipeline in names:
            args = PIPELINES[pipeline](rng)
            with tempfile.TemporaryDirectory() as workdir:
                rc, stdout, stderr = run_one(flash_opt, pipeline, args, source, timeout, workdir)
            if rc == 0 and stderr.startswith("round-trip: "):
                out.append(Finding("round-trip", pipeline, args, stderr[-1500:], source, name))
                continue
            if rc == 0:
                ok.append(pipeline)
            verdict = classify(pipeline, rc, stdout, stderr)
            if verdict:
                out.append(Finding(verdict[0], pipeline, args,
                                   f"{verdict[1]}\n{stderr[-1500:]}", source, name))
        return len(names), out, ok

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        pending = set()
        it = iter(enumerate(inputs))
        exhausted = False
        while True:
            while not exhausted and len(pending) < 2 * max(1, jobs):
                if time_budget and time.monotonic() - start > time_budget:
                    report.stopped_early = True
                    exhausted = True
                    break
                nxt = next(it, None)
                if nxt is None:
                    exhausted = True
                    break
                pending.add(pool.submit(check, nxt))
            if not pending:
                break
            done, pending = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for fut in done:
                runs, found, ok = fut.result()
                for pipeline in ok:
                    report.succeeded[pipeline] = report.succeeded.get(pipeline, 0) + 1
                report.inputs += 1
                report.runs += runs
                report.findings += found
                for f in found:
                    if log:
                        log(f"{f.kind}: {f.name} through {f.pipeline} {' '.join(f.args)}: "
                            f"{f.detail.splitlines()[0]}")
    report.seconds = time.monotonic() - start
    for pipeline in names:
        report.succeeded.setdefault(pipeline, 0)
    return report


def save_findings(report: Report, directory: str, flash_opt: str) -> None:
    os.makedirs(directory, exist_ok=True)
    for i, f in enumerate(report.findings):
        base = os.path.join(directory, f"{i:03d}-{f.kind}-{f.pipeline}")
        with open(base + ".mlir", "w") as out:
            out.write(f"// {f.name}\n// {flash_opt} %s {' '.join(f.args)}\n"
                      f"// {f.kind}: {f.detail.splitlines()[0]}\n{f.source}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mutants", type=int, default=400, help="inputs to generate and run")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds before a run is a hang (default %(default)s)")
    p.add_argument("--time-budget", type=float, default=0.0, help="stop taking inputs after this (0: none)")
    p.add_argument("--flash-opt", default=os.environ.get("FLASH_OPT", DEFAULT_FLASH_OPT))
    p.add_argument("--pipelines", default="", help="comma-separated subset of " + ",".join(PIPELINES))
    p.add_argument("--save", default=os.path.join(REPO_ROOT, "build", "fuzz-findings"))
    a = p.parse_args(argv)
    report = fuzz(a.mutants, a.seed, a.flash_opt, a.jobs, a.timeout, a.time_budget,
                  [x for x in a.pipelines.split(",") if x] or None,
                  log=lambda line: print(line, flush=True))
    if report.findings:
        save_findings(report, a.save, a.flash_opt)
        print(f"findings saved in {a.save}")
    print(report.summary())
    return 1 if report.findings else 0


if __name__ == "__main__":
    sys.exit(main())
