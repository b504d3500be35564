"""The CMake package, used the way an embedding compiler uses it (CI runs this
from scripts/test.sh; docs/embedding.md).

1. `cmake --install build --prefix build/embedding/prefix`: FlashMLIR as a
   package (headers, static libraries, libflash_runtime.so, flash-opt,
   lib/cmake/FlashMLIR).
2. This directory configured against that prefix alone (find_package(MLIR) +
   find_package(FlashMLIR), nothing from FlashMLIR's source or build tree) and
   built: `my-opt`, upstream passes + FlashMLIR's.
3. my-opt runs FlashMLIR's raise pass and pipelines on a committed torch-mlir
   file and gives what flash-opt gives, byte for byte.

$FLASH_JOBS (default 2) jobs; times of each step are printed (pytest -s).
"""
import os
import re
import shutil
import subprocess
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BUILD = os.path.join(REPO, "build")
WORK = os.path.join(BUILD, "embedding")
PREFIX = os.path.join(WORK, "prefix")
EXAMPLE_BUILD = os.path.join(WORK, "my-opt")
MLIR_DIR = "/usr/lib/llvm-22/lib/cmake/mlir"
FRONTEND = os.path.join(REPO, "test", "Frontend", "Inputs", "eager_gpt2_causal_d64_bf16.linalg.mlir")


def run(cmd, **kw):
    start = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    print("%.1f s: %s" % (time.time() - start, " ".join(cmd)))
    assert proc.returncode == 0, "%s\n%s\n%s" % (" ".join(cmd), proc.stdout[-4000:], proc.stderr[-4000:])
    return proc.stdout


@pytest.fixture(scope="module")
def installed():
    if not os.path.isfile(os.path.join(BUILD, "build.ninja")):
        pytest.fail("build/ not configured: run scripts/build.sh first", pytrace=False)
    run(["cmake", "--install", BUILD, "--prefix", PREFIX])
    return PREFIX


@pytest.fixture(scope="module")
def my_opt(installed):
    cmake_dir = os.path.join(installed, "lib", "cmake", "FlashMLIR")
    if not os.path.isfile(os.path.join(EXAMPLE_BUILD, "build.ninja")):
        args = ["cmake", "-G", "Ninja", "-S", HERE, "-B", EXAMPLE_BUILD,
                "-DCMAKE_BUILD_TYPE=Release", "-DMLIR_DIR=" + MLIR_DIR,
                "-DFlashMLIR_DIR=" + cmake_dir]
        if shutil.which("ld.lld") or os.path.exists("/usr/lib/llvm-22/bin/ld.lld"):
            args.append("-DLLVM_USE_LINKER=lld")
        run(args, env=dict(os.environ, PATH="/usr/lib/llvm-22/bin:" + os.environ["PATH"]))
    run(["ninja", "-C", EXAMPLE_BUILD, "-j", os.environ.get("FLASH_JOBS", "2")])
    return os.path.join(EXAMPLE_BUILD, "my-opt")


def test_package_layout(installed):
    cmake_dir = os.path.join(installed, "lib", "cmake", "FlashMLIR")
    for rel in ["include/flash/InitFlash.h", "include/flash-c/Dialect.h", "include/flash-c/Passes.h",
                "include/flash/Dialect/Flash/IR/FlashOps.h.inc", "include/flash/Runtime/flash_runtime.h",
                "lib/libMLIRFlash.a", "lib/libFlashPipelines.a", "lib/libFlashCAPI.a", "bin/flash-opt",
                "lib/cmake/FlashMLIR/FlashMLIRConfig.cmake",
                "lib/cmake/FlashMLIR/FlashMLIRConfigVersion.cmake"]:
        assert os.path.exists(os.path.join(installed, rel)), rel
    targets = open(os.path.join(cmake_dir, "FlashMLIRTargets.cmake")).read()
    for name in ["Dialect", "Transforms", "Conversion", "Bundle", "Passes", "Pipelines", "Target", "CAPI",
                 "flash-opt"]:
        assert "add_library(FlashMLIR::%s " % name in targets or \
            "add_executable(FlashMLIR::%s " % name in targets, name
    # Nothing in the package points back into the source or build tree.
    for f in os.listdir(cmake_dir):
        text = open(os.path.join(cmake_dir, f)).read()
        assert REPO not in text, (f, REPO)


def test_my_opt_registers_flash(my_opt):
    help_text = run([my_opt, "--help"])
    for flag in ["--flash-raise-attention", "--flash-cpu-pipeline", "--flash-to-ptx", "--convert-to-llvm"]:
        assert flag in help_text, flag


@pytest.mark.parametrize("pipeline", [
    ["--flash-raise-attention"],
    ["--flash-raise-attention", "--flash-cpu-pipeline"],
    ["--flash-raise-attention", "--canonicalize", "--flash-to-ptx=arch=sm_90a"],
], ids=["raise", "cpu-pipeline", "to-ptx-sm90a"])
def test_my_opt_equals_flash_opt(my_opt, pipeline):
    ours = run([my_opt, FRONTEND] + pipeline)
    reference = run([os.path.join(BUILD, "bin", "flash-opt"), FRONTEND] + pipeline)
    # gpu.binary records how long the LLVM IR -> PTX step took.
    timing = re.compile(r"TimeInMs = \d+")
    assert timing.sub("TimeInMs = N", ours) == timing.sub("TimeInMs = N", reference)
    if pipeline[-1] == "--flash-raise-attention":
        assert "flash.attention %arg0, %arg1, %arg2 {causal, scale = 1.250000e-01 : f32}" in ours
    elif pipeline[-1] == "--flash-cpu-pipeline":
        assert "llvm.func @forward" in ours and "flash.attention" not in ours
    else:
        assert "wgmma.mma_async" in ours and ".entry forward" in ours
