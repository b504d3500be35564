"""The GPU check's case list (pure Python; the check itself runs on the GPU machine)."""
import math
import pathlib
import re

from flash_mlir import gpu_check

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _source(path, pattern):
    """A constant read from the C++ source, so that this test follows it."""
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


def per_tile_rise(rise, tile):
    """Growth of a row's max over one K/V tile, in the exp2 domain."""
    return rise * tile / 64 * math.log2(math.e)


def test_every_kernel_key_gets_rising_cases_on_both_sides_of_the_threshold():
    for quick in (False, True):
        cases = list(gpu_check.cases(quick))
        keys = {(dt, d, c) for dt, d, c, _, _ in cases}
        for key in keys:
            rises = {r for dt, d, c, _, r in cases if (dt, d, c) == key and r}
            assert rises, key
            if quick:
                continue
            below = [r for r in rises
                     if all(per_tile_rise(r, t) < LAZY_THRESHOLD_LOG2 for t in SM90_KV_TILES)]
            above = [r for r in rises
                     if all(per_tile_rise(r, t) > LAZY_THRESHOLD_LOG2 for t in SM90_KV_TILES)]
            assert below and above, (key, rises)


def test_plain_cases_cover_odd_lengths_gqa_and_ragged_causal():
    shapes = {s for _, _, _, s, r in gpu_check.cases(False) if not r}
    assert any(nq % 2 for _, _, _, nq, _ in shapes)
    assert any(hq != hkv for _, hq, hkv, _, _ in shapes)
    assert any(nq < nk for _, _, _, nq, nk in shapes) and any(nq > nk for _, _, _, nq, nk in shapes)


def test_a_causal_d256_case_runs_the_grouped_tile_order_with_a_partial_last_group():
    # The grouped order (SM90.cpp prepareTileOrder) takes G heads whose K/V fit
    # in tileGroupBytes, once a head has MIN_GROUPED_Q_TILES Q tiles of 128 rows.
    def group(b, hq, nk, d):
        fits = (SM90_TILE_GROUP_BYTES // (2 * d * 2)) // nk
        return min(max(fits, 1), b * hq)
    found = False
    for _, d, causal, (b, hq, hkv, nq, nk), rise in gpu_check.cases(False):
        if d != 256 or not causal or rise:
            continue
        g = group(b, hq, nk, d)
        if -(-nq // 128) >= MIN_GROUPED_Q_TILES and g > 1 and (b * hq) % g:
            found = True
    assert found
