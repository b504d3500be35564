"""decode_bench's read-ceiling kernel (no GPU): the PTX it loads and its launch."""

import pathlib
import re
import shutil
import subprocess

import pytest

from flash_mlir.tools import decode_bench

PTX = pathlib.Path(decode_bench.__file__).with_name("read_ceiling.ptx")
ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_ptx_is_the_read_ceiling_kernel():
    text = PTX.read_text()
    assert ".target sm_80" in text
    entry = re.search(r"\.visible \.entry read_ceiling\((.*?)\)", text, re.S)
    assert entry and entry.group(1).count(".param .u64") == 3  # data, words, sink
    # 4 streaming 16-byte loads a thread in flight, L1 bypassed
    assert text.count("ld.global.nc.L1::no_allocate.v4.u32") == 4
    assert (ROOT / "scripts" / "bench" / "read-ceiling.cu").exists()


def test_launch_covers_the_bytes_in_whole_words():
    for nbytes, sms in [(1 << 32, 132), (1 << 32, 108), (1 << 20, 7)]:
        blocks, words = decode_bench.read_ceiling_launch(nbytes, sms)
        assert blocks == 4 * sms
        assert blocks * words * 16 <= nbytes < blocks * (words + 1) * 16


@pytest.mark.skipif(not (shutil.which("ptxas") or pathlib.Path("/usr/local/cuda/bin/ptxas").exists()),
                    reason="needs CUDA's ptxas")
@pytest.mark.parametrize("ptx", ["read_ceiling.ptx", "read_pages.ptx"])
def test_ptxas_assembles_it(tmp_path, ptx):
    """Both read kernels of decode_bench (the ceiling, and --read-floor's)."""
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    for arch in ("sm_80", "sm_90"):
        subprocess.run([ptxas, f"-arch={arch}", str(PTX.with_name(ptx)), "-o",
                        str(tmp_path / f"{arch}.cubin")], check=True)
