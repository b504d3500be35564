"""flash-opt's guard against MLIR 22's crashing list parsers (tools/flash-opt/ParserGuard.h)
rejects exactly the inputs Debian's mlir-opt crashes on and changes nothing else.

Random lists (integers in and past i64, hexadecimal, `-`, true/false, floats, values,
comments, stray brackets and commas, a missing `[` or `]`) after `permutation =` or
`dimensions =` of linalg.transpose, linalg.broadcast and linalg.reduce, each parsed by
both tools: where mlir-opt crashes, flash-opt must exit 1, not crash, and report its error
where mlir-opt's first error points; everywhere else flash-opt's exit code, output and diagnostics must equal
mlir-opt's. FLASH_TEST_SEED (21) picks the lists, FLASH_PARSER_GUARD_CASES (120) how many.
"""
import os
import random
import re
import subprocess

import pytest

from flash_opt import flash_opt_path

MLIR_OPT = os.environ.get("MLIR_OPT", "/usr/lib/llvm-22/bin/mlir-opt")
SEED = int(os.environ.get("FLASH_TEST_SEED", "21"))
CASES = int(os.environ.get("FLASH_PARSER_GUARD_CASES", "120"))
GUARD = "flash-opt stops here: MLIR 22's parser crashes on this list"

FORMS = {
    "transpose": ("linalg.transpose ins(%a : tensor<2x2xf32>) outs(%b : tensor<2x2xf32>) "
                  "permutation", "tensor<2x2xf32>", ""),
    "broadcast": ("linalg.broadcast ins(%c : tensor<2xf32>) outs(%b : tensor<2x2xf32>) "
                  "dimensions", "tensor<2x2xf32>", ""),
    "reduce": ("linalg.reduce ins(%a : tensor<2x2xf32>) outs(%c : tensor<2xf32>) dimensions",
               "tensor<2xf32>",
               "\n    (%x: f32, %y: f32) {\n      %s = arith.addf %x, %y : f32\n"
               "      linalg.yield %s : f32\n    }"),
}
ELEMENTS = ["0", "1", "-1", "- 1", "01", "0x1", "0x", "0xg", "-0x8000000000000000",
            "0x7fffffffffffffff", "0x8000000000000000", "9223372036854775807",
            "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
            "true", "false", "-true", "1.0", "1e3", "x", "%q", "+1", '"s"', "[1]", ""]
TRIVIA = ["", " ", "\n    ", " // note\n    "]


def source(form, text):
    head, result, region = FORMS[form]
    return ("func.func @f(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %c: tensor<2xf32>) -> "
            f"{result} {{\n  %t = {head} {text}{region}\n  return %t : {result}\n}}\n")


def random_list(rng):
    """`= [e, e, ...]` with, now and then, one thing wrong."""
    elems = [rng.choice(ELEMENTS) if rng.random() < 0.35 else rng.choice(["0", "1", "false"])
             for _ in range(rng.randint(0, 3))]
    seps = [rng.choice([",", ",", ",", "", ", ,"]) for _ in elems[1:]]
    body = elems[0] if elems else ""
    for sep, e in zip(seps, elems[1:]):
        body += rng.choice(TRIVIA) + sep + rng.choice(TRIVIA) + e
    close = rng.choice(["]", "]", "]", "", ",]", ")"])
    opening = rng.choice(["= [", "= [", "= [", "=[", "= ", "= array<i64: ", "["])
    return opening + rng.choice(TRIVIA) + body + rng.choice(TRIVIA) + close


def first_location(stderr):
    m = re.search(r"\.mlir:(\d+):(\d+): error:", stderr)
    return m and m.groups()


def run(tool, path):
    return subprocess.run([tool, path], capture_output=True, text=True, timeout=60)


def cases():
    rng = random.Random(SEED)
    fixed = [("transpose", "= [1, %q]"), ("transpose", "= [1 0]"), ("transpose", "= [1, 0]"),
             ("broadcast", "= [1]"), ("reduce", "= [0x0]"), ("reduce", "= []")]
    return fixed + [(rng.choice(sorted(FORMS)), random_list(rng)) for _ in range(CASES)]


def test_guard_rejects_exactly_the_crashes(tmp_path):
    flash_opt = flash_opt_path()
    if not os.access(MLIR_OPT, os.X_OK):
        pytest.fail(f"mlir-opt not found at {MLIR_OPT} (Debian's mlir-22-tools)", pytrace=False)
    crashed = guarded_clean = 0
    for i, (form, text) in enumerate(cases()):
        path = tmp_path / f"case{i}.mlir"
        path.write_text(source(form, text))
        upstream, ours = run(MLIR_OPT, str(path)), run(flash_opt, str(path))
        what = f"case {i} ({form} {text!r})"
        assert ours.returncode >= 0, f"{what}: flash-opt crashed\n{ours.stderr}"
        if upstream.returncode < 0:
            crashed += 1
            assert ours.returncode == 1 and GUARD in ours.stderr, \
                f"{what}: mlir-opt crashes, flash-opt did not reject it\n{ours.stderr}"
            # Located where the parser's own first error is, before it crashes.
            assert first_location(ours.stderr) == first_location(upstream.stderr), \
                f"{what}: located elsewhere\n{ours.stderr}\n{upstream.stderr}"
            assert ours.stdout == ""
        else:
            assert GUARD not in ours.stderr, f"{what}: rejected what mlir-opt parses\n{ours.stderr}"
            assert (ours.returncode, ours.stdout) == (upstream.returncode, upstream.stdout), what
            assert ours.stderr == upstream.stderr, what
            guarded_clean += 1
    # Both sides are reached: the lists crash mlir-opt often, and often do not.
    # (An MLIR that no longer crashes fails here: the guard can then go.)
    assert crashed >= 20 and guarded_clean >= 20, (crashed, guarded_clean)
