"""The grouped order of causal Q tiles (sm_90a, `tile-order=grouped`), as a formula.

SM90/TileScheduler.cpp's makeTileScheduler and TileScheduler::decode compute it at
run time in the kernel; test/Conversion/lower-to-nvgpu-sm90a-tile-order.mlir pins the ops they emit, one
by one, to the formula below. Here the formula itself is checked on many sizes:
every tile of a launch is handed out exactly once, longest first within a group,
and a group's K/V fits in the target's tileGroupBytes. (The GPU check runs the
kernels themselves against PyTorch; the last test checks that its case list
has a partial last group.)"""

import itertools
import random

from cpp_constants import MIN_GROUPED_Q_TILES, SM90_TILE_GROUP_BYTES
from flash_mlir.tools import gpu_check


def group_size(num_q_tiles, heads, seq_kv, row_bytes):
    fits = (SM90_TILE_GROUP_BYTES // row_bytes) // max(seq_kv, 1)
    group = min(max(fits, 1), heads)
    return group if num_q_tiles >= MIN_GROUPED_Q_TILES else 1


def decode(tile, num_q_tiles, heads, group):
    """(head, q) of tile number `tile`: group by group, q-major within a group,
    the last group as wide as the heads left; q counted down (longest first)."""
    group_tiles = group * num_q_tiles
    first_head = tile // group_tiles * group
    in_group = tile % group_tiles
    width = min(group, heads - first_head)
    return first_head + in_group % width, num_q_tiles - 1 - in_group // width


def sizes():
    rng = random.Random(5)
    fixed = [(1, 5, 2500, 4097, 256), (1, 2, 4097, 4097, 256), (4, 8, 4096, 4096, 256),
             (2, 16, 8192, 8192, 128), (1, 8, 16384, 16384, 256), (3, 7, 2048, 300, 64)]
    drawn = [(rng.randint(1, 4), rng.randint(1, 40), rng.randint(1, 9000), rng.randint(1, 20000),
              rng.choice((64, 128, 256))) for _ in range(200)]
    return fixed + drawn


def test_every_tile_once_longest_first_within_a_group_and_the_group_fits():
    grouped_partial = False
    for b, hq, nq, nk, d in sizes():
        heads, num_q_tiles, row_bytes = b * hq, -(-nq // 128), 2 * d * 2
        group = group_size(num_q_tiles, heads, nk, row_bytes)
        if group > 1:
            assert group * nk * row_bytes <= SM90_TILE_GROUP_BYTES
            grouped_partial |= heads % group != 0
        order = [decode(t, num_q_tiles, heads, group) for t in range(heads * num_q_tiles)]
        assert sorted(order) == sorted(itertools.product(range(heads), range(num_q_tiles)))
        for start in range(0, heads, group):
            members = [(h, q) for h, q in order if start <= h < start + group]
            # A group's tiles are consecutive, and their work (q + 1 K/V tiles on
            # the diagonal) never grows.
            first = order.index(members[0])
            assert order[first:first + len(members)] == members
            assert all(a[1] >= c[1] for a, c in zip(members, members[1:]))
    assert grouped_partial


def test_short_heads_keep_the_order_by_head():
    for heads, nq in ((5, 512), (64, 1920)):
        num_q_tiles = -(-nq // 128)
        assert num_q_tiles < MIN_GROUPED_Q_TILES
        group = group_size(num_q_tiles, heads, 4096, 512)
        order = [decode(t, num_q_tiles, heads, group) for t in range(heads * num_q_tiles)]
        assert order == [(h, num_q_tiles - 1 - q) for h in range(heads) for q in range(num_q_tiles)]


def test_a_causal_d256_gpu_check_case_runs_a_partial_last_group():
    found = False
    for _, d, causal, (b, hq, hkv, nq, nk), rise in gpu_check.cases(False):
        if d != 256 or not causal or rise:
            continue
        group = group_size(-(-nq // 128), b * hq, nk, 2 * d * 2)
        if group > 1 and (b * hq) % group:
            found = True
    assert found
