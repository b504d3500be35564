"""flash-opt never crashes: random well- and ill-formed flash.attention ops through the
passes end with exit code 0, or 1 with a diagnostic, never a signal or an assertion.

Each case draws shapes (some consistent, some not, with zero and dynamic dimensions),
element types (including unsupported ones), causal/scale/schedule attributes and an
optional LSE result, and runs the CPU pipelines, the IO report and the GPU lowerings.
FLASH_TEST_SEED changes the draw; FLASH_TEST_FUZZ the number of cases.
"""
import os
import random
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.abspath(os.path.join(HERE, os.pardir, os.pardir))
FLASH_OPT = os.environ.get("FLASH_OPT", os.path.join(REPO_ROOT, "build", "bin", "flash-opt"))
SEED = int(os.environ.get("FLASH_TEST_SEED", "20261129"))
CASES = int(os.environ.get("FLASH_TEST_FUZZ", "80"))

PIPELINES = [
    ["--flash-cpu-pipeline"],
    ["--flash-cpu-pipeline=reference=true"],
    ["--flash-select-schedule=arch=sm_90a", "--flash-io-report", "--flash-tile",
     "--flash-lower-to-nvgpu=arch=sm_90a"],
    ["--flash-select-schedule=arch=sm_80", "--flash-tile", "--flash-lower-to-nvgpu=arch=sm_80"],
]


def random_case(rng):
    def dim():
        return rng.choice(["?", 0, 1, 2, 3, 7, 8, 16, 64, 100, 128, 256])

    def shape():
        return "x".join(str(dim()) for _ in range(rng.choice([4, 4, 4, 3, 5])))

    et = rng.choice(["f32", "f16", "bf16", "bf16", "i32", "f64"])
    b, hq, hkv = rng.choice([1, 2]), rng.choice([1, 2, 4, 8]), rng.choice([1, 2, 3])
    nq, nk = rng.choice([1, 7, 64, 100]), rng.choice([0, 1, 7, 64, 100])
    d, dv = rng.choice([8, 16, 64, 128, 256]), rng.choice([8, 64, 128, 256])
    if rng.random() < 0.6:
        q, k, v, o = f"{b}x{hq}x{nq}x{d}", f"{b}x{hkv}x{nk}x{d}", f"{b}x{hkv}x{nk}x{dv}", f"{b}x{hq}x{nq}x{dv}"
    else:
        q, k, v, o = shape(), shape(), shape(), shape()
    attrs = []
    if rng.random() < 0.5:
        attrs.append("causal")
    if rng.random() < 0.3:
        attrs.append(f"scale = {rng.choice(['0.5', '-1.0', '0.0', '1e30'])} : f32")
    if rng.random() < 0.3:
        attrs.append('schedule = #flash.schedule<arch = "%s", block_q = %d, block_kv = %d, stages = %d, warps = %d>'
                     % (rng.choice(["sm_80", "sm_90a", "sm_100a"]), rng.choice([1, 16, 64, 128, 192, 256]),
                        rng.choice([1, 16, 40, 64, 128]), rng.choice([1, 2, 3]), rng.choice([1, 4, 8, 12, 16])))
    attr = "{" + ", ".join(attrs) + "}" if attrs else ""
    lse = f", tensor<{b}x{hq}x{nq}xf32>" if rng.random() < 0.3 else ""
    res = "%o, %l" if lse else "%o"
    rt = f"tensor<{o}x{et}>{lse}"
    return (f"func.func @f(%q: tensor<{q}x{et}>, %k: tensor<{k}x{et}>, %v: tensor<{v}x{et}>) -> ({rt}) {{\n"
            f"  {res} = flash.attention %q, %k, %v {attr} : tensor<{q}x{et}>, tensor<{k}x{et}>, "
            f"tensor<{v}x{et}> -> {rt}\n  return {res} : {rt}\n}}\n")


@pytest.mark.parametrize("index", range(CASES))
def test_no_crash(index, tmp_path):
    if not os.access(FLASH_OPT, os.X_OK):
        pytest.fail(f"flash-opt not found at {FLASH_OPT}: build it first", pytrace=False)
    src = random_case(random.Random(SEED * 1000 + index))
    path = tmp_path / "case.mlir"
    path.write_text(src)
    for pipeline in PIPELINES:
        r = subprocess.run([FLASH_OPT, str(path), *pipeline, "-o", os.devnull],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode in (0, 1), (
            f"flash-opt exited with {r.returncode} on {pipeline}:\n{src}\n{r.stderr[-2000:]}")
        if r.returncode == 1:
            assert "error:" in r.stderr, f"exit 1 without a diagnostic on {pipeline}:\n{src}\n{r.stderr}"
