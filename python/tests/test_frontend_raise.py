"""flash-raise-attention keeps the meaning of real frontend IR.

Every file under test/Frontend/Inputs (torch-mlir's linalg-on-tensors and TOSA
output, written by scripts/frontend/gen-frontend-ir.py) runs on the CPU as
written (upstream MLIR's lowering) and after --flash-raise-attention +
--flash-cpu-pipeline, on the same seeded random arguments; the results agree
to 1e-5 (f32) or a few bf16 units (bf16): flash_mlir.testing.frontend_case.
The near misses run too: the pass must leave them meaning the same.
"""
import glob
import os
import re
import subprocess

import pytest

from flash_opt import REPO_ROOT, flash_opt_path
from flash_mlir.testing import frontend_case

INPUTS = sorted(glob.glob(os.path.join(REPO_ROOT, "test", "Frontend", "Inputs", "*.mlir")))


def test_inputs_exist():
    # Every case the generator writes, in both dialects.
    assert len(INPUTS) >= 40, INPUTS


@pytest.fixture(scope="module")
def batch_results(tmp_path_factory):
    """Every input in one module: two flash-opt | mlir-runner runs in all."""
    return frontend_case.check_batch(INPUTS, flash_opt_path(),
                                     str(tmp_path_factory.mktemp("frontend")), seed=0)


@pytest.mark.parametrize("path", INPUTS, ids=[os.path.basename(p)[:-5] for p in INPUTS])
def test_raise_keeps_meaning(path, batch_results):
    ok, msg = batch_results[path]
    assert ok, msg


@pytest.mark.parametrize("name", ["sdpa_causal_f32.linalg", "sdpa_gqa_f32.tosa"])
def test_check_can_fail(name, tmp_path):
    """A planted wrong scale (the raised op's scale doubled) is caught."""
    path = os.path.join(REPO_ROOT, "test", "Frontend", "Inputs", name + ".mlir")
    text = open(path).read()
    module = frontend_case.driver_module(text)
    raised = subprocess.run([flash_opt_path(), "-", "--flash-raise-attention"], input=module,
                            capture_output=True, text=True, check=True).stdout
    assert "flash.attention" in raised
    planted = re.sub(r"scale = ([0-9.e+-]+) : f32",
                     lambda m: "scale = %.9e : f32" % (2 * float(m.group(1))), raised)
    assert planted != raised
    tail = frontend_case.pipeline_args(path, False)
    good = frontend_case.run(flash_opt_path(), raised, tail, str(tmp_path), "good")
    bad = frontend_case.run(flash_opt_path(), planted, tail, str(tmp_path), "bad")
    written = frontend_case.run(flash_opt_path(), module, tail, str(tmp_path), "written")
    assert abs(good[0] - written[0]).max() <= 1e-5 + 1e-5 * abs(written[0]).max()
    assert abs(bad[0] - written[0]).max() > 1e-3
