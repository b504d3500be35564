"""The by-hand read yardsticks of scripts/bench (no GPU): read-floor.cu and
combine-floor.cu build with CUDA's nvcc as their headers say, and the PTX of
combine-floor's kernels does what docs/benchmarks.md says it timed."""

import pathlib
import re
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BENCH = ROOT / "scripts" / "bench"
NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"

needs_nvcc = pytest.mark.skipif(not pathlib.Path(NVCC).exists() and not shutil.which("nvcc"),
                                reason="needs CUDA's nvcc")


@needs_nvcc
@pytest.mark.parametrize("source", ["read-floor.cu", "combine-floor.cu"])
def test_builds_as_its_header_says(tmp_path, source):
    text = (BENCH / source).read_text()
    stem = source[:-3]
    command = f"nvcc -O3 -std=c++17 -arch=sm_90a -o {stem} scripts/bench/{source}"
    assert command in text
    subprocess.run([NVCC, "-O3", "-std=c++17", "-arch=sm_90a", "-o", str(tmp_path / stem),
                    str(BENCH / source)], check=True, cwd=ROOT)


def _entries(ptx):
    """{mangled entry name: body} of a PTX file."""
    out = {}
    for m in re.finditer(r"\.entry (\S+)\((.*?)\n\}", ptx, re.S):
        out[m.group(1)] = m.group(2)
    return out


@needs_nvcc
def test_combine_floor_kernels(tmp_path):
    ptx_file = tmp_path / "combine-floor.ptx"
    subprocess.run([NVCC, "-O3", "-std=c++17", "-arch=sm_90a", "-ptx", "-o", str(ptx_file),
                    str(BENCH / "combine-floor.cu")], check=True, cwd=ROOT)
    entries = _entries(ptx_file.read_text())

    def body(*parts):
        found = [b for name, b in entries.items() if all(p in name for p in parts)]
        assert len(found) == 1, (parts, list(entries))
        return found[0]

    # The stream in the split-KV kernels' order waits with stages - 2 later
    # groups in flight, issue-first with stages - 1 (mangled template
    # arguments: Li3ELb1E = <3, true>).
    for stages in (3, 4, 6):
        decode = body("streamAsync", f"Li{stages}ELb1E")
        first = body("streamAsync", f"Li{stages}ELb0E")
        assert f"cp.async.wait_group {stages - 2};" in decode
        assert f"cp.async.wait_group {stages - 1};" in first
        for b in (decode, first):
            assert "cp.async.cg.shared.global" in b
            assert "griddepcontrol.launch_dependents" in b
    # The dependent merge waits for the split grid before any load, and
    # has 8 parts' 16-byte loads in flight.
    merge = body("mergeAfter")
    assert merge.index("griddepcontrol.wait") < merge.index("ld.global")
    assert merge.count("ld.global.cg.v4.u32") == 8
    # The bulk stream: 16 KiB 1-D bulk copies completing on an mbarrier.
    bulk = body("streamBulk")
    assert "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" in bulk
    # The cluster reduction: cluster barriers around reads of the cluster's
    # shared memory, one 16-byte read (through a mapa address) a block.
    for c in (2, 4, 8):
        cluster = body("streamCluster", f"Li{c}E")
        assert cluster.count("barrier.cluster.arrive") == 2
        assert cluster.count("mapa.u64") == c
        assert cluster.count("ld.v4.u32") == c
    # The last-block combine: a fence and an atomic on the counter.
    last = body("splitRead", "Li4ELi1E")
    assert "membar.gl" in last or "fence.sc.gpu" in last or "fence.acq_rel.gpu" in last
    assert "atom.global.add.u32" in last
