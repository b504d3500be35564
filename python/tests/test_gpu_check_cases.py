"""The GPU check's case list (pure Python; the check itself runs on the GPU machine)."""
import math

from flash_mlir.tools import gpu_check

from cpp_constants import LAZY_THRESHOLD_LOG2, SM90_KV_TILES


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
