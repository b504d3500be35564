"""The README's main job, `bash scripts/demo.sh`, runs to the end and shows what
it promises: the IO report, the tiled CPU run against the oracle, and for each
arch the launch plan's kernel and the PTX instructions of its lowering (the
demo once broke silently when the bundle's JSON became a launch plan)."""
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.skipif(not (shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas")),
                    reason="needs CUDA's ptxas")
def test_demo_runs_to_the_end():
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "demo.sh")], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    out = proc.stdout
    assert proc.returncode == 0, out[-3000:] + proc.stderr[-3000:]
    assert "HBM saving" in out
    assert "  PASS o:" in out
    for arch, instruction in (("sm_80", "mma.sync.aligned.m16n8k16"),
                              ("sm_90a", "wgmma.mma_async.sync.aligned"),
                              ("sm_100a", "tcgen05.mma.cta_group::1.kind::f16")):
        assert f"ptxas {arch}: " in out and " 0 B spill stores" in out
        assert f"PTX has {instruction}" in out
