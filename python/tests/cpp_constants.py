"""Constants read from the C++ sources, so that the Python tests follow them."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _source(path, pattern):
    """The first group of `pattern` in the C++ file `path` (which must match)."""
    match = re.search(pattern, (ROOT / path).read_text(), re.S)
    assert match, f"{pattern!r} not found in {path}"
    return match.group(1)


LAZY_THRESHOLD_LOG2 = float(_source("include/flash/Conversion/FlashToNVGPU/KernelBuilder.h",
                                    r"kLazyRescaleLog2 = ([0-9.]+);"))
MIN_GROUPED_Q_TILES = int(_source("include/flash/Conversion/FlashToNVGPU/KernelBuilder.h",
                                  r"kMinGroupedQTiles = ([0-9]+);"))
SM90_TILE_GROUP_BYTES = (lambda m: int(m[0]) << int(m[1]))(_source(
    "lib/Target/TargetModel.cpp",
    r"/\*tileGroupBytes=\*/([0-9]+ << [0-9]+),\n};\n\nstatic const TargetModel kSM100a").split(" << "))
SM90_KV_TILES = tuple(int(x) for x in _source(
    "lib/Dialect/Flash/Transforms/Schedule.cpp",
    r"case MmaKind::WarpgroupMma:.*?blockKVs = \{([0-9, ]+)\};").split(","))
