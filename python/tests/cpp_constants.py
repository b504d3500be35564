"""Constants of the C++ policies and target models, as flash-opt reports them
(``--flash-kernel-forms``), so that the Python tests follow the compiler
without reading its source text."""
import json
import os
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
FLASH_OPT = os.environ.get("FLASH_OPT", str(ROOT / "build" / "bin" / "flash-opt"))

_SOURCE = """func.func @f(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16> {
  %o = flash.attention %q, %k, %v : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16> -> tensor<1x1x64x64xbf16>
  return %o : tensor<1x1x64x64xbf16>
}
"""


def _constants(arch):
    proc = subprocess.run([FLASH_OPT, "-", f"--flash-kernel-forms=arch={arch} lengths=64",
                           "-o", os.devnull], input=_SOURCE, capture_output=True, text=True,
                          check=True)
    return json.loads(proc.stdout)["constants"]


_SM90 = _constants("sm_90a")
LAZY_THRESHOLD_LOG2 = float(_SM90["lazy_rescale_log2"])
MIN_GROUPED_Q_TILES = int(_SM90["min_grouped_q_tiles"])
SM90_TILE_GROUP_BYTES = int(_SM90["tile_group_bytes"])
SM90_KV_TILES = tuple(int(x) for x in _SM90["block_kv_candidates"])
# The split-KV rule's and merges' constants per arch (Target/SplitKV.h; the
# fused merge's batch a value dimension; the separate merge's bound: 0 on
# sm_80, which has none).
SPLIT_KV = {"sm_90a": _SM90["split_kv"], "sm_80": _constants("sm_80")["split_kv"]}
