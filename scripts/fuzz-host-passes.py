#!/usr/bin/env python3
"""The fuzzer of flash_mlir.testing.fuzz (the same inputs and oracle as
python/tests/test_no_crash.py) restricted to the host-code passes of
docs/embedding.md: --flash-host-to-llvm (checked like the CPU pipeline: LLVM
dialect only on success), flash-extract-attention-kernels and
flash-attention-to-runtime-calls. Not in CI (test_no_crash's pipelines are).

  PYTHONPATH=python /usr/bin/python3 scripts/fuzz-host-passes.py [INPUTS] [SECONDS]
"""
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir))
sys.path.insert(0, os.path.join(ROOT, "python"))
from flash_mlir.testing import fuzz  # noqa: E402

fuzz.PIPELINES.clear()
fuzz.PIPELINES.update({
    "cpu-host": lambda rng: ["--flash-host-to-llvm"],  # "cpu" prefix: LLVM dialect only
    "extract": lambda rng: ["--flash-extract-attention-kernels"],
    "calls": lambda rng: ["--flash-attention-to-runtime-calls"],
})
fuzz.LEFT_OVER["extract"] = ()
fuzz.LEFT_OVER["calls"] = ()
inputs = int(sys.argv[1]) if len(sys.argv) > 1 else 400
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 240
report = fuzz.fuzz(inputs, fuzz.DEFAULT_SEED, fuzz.DEFAULT_FLASH_OPT, jobs=1, timeout=20.0,
                   time_budget=seconds)
print(report.summary())
for f in report.findings[:5]:
    print(f"{f.kind} through {f.pipeline} ({f.name}): {f.detail[:500]}\n{f.source[:1500]}")
sys.exit(1 if report.findings else 0)
