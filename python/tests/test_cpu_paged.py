"""Property tests: split-KV (Flash-Decoding) on the CPU against the f64 oracle.

``flash.paged_attention`` and few-row ``flash.attention`` (which
flash-select-schedule puts in the split-KV form) through
``--flash-cpu-pipeline`` (tiled: the split stage and the merge; and
``reference=true``), checked against :mod:`flash_mlir.oracle` at
atol = rtol = 1e-5 (f32) or the rounding bound of
``cpu_case.rounding_tolerance`` (16-bit).  Each module holds several cases
(``cpu_case.run_cases``: one compilation per module, which is what costs).

What the cases cover: page sizes 1, 3 and 16; lengths 0, 1, S - 1, S,
S + 1, 2S and longer; pages handed out in a shuffled order; NaN in every
slot past a length and in pages no sequence owns, garbage (negative, past P,
another sequence's page) in the block table past each sequence's pages;
causal with Nq > 1 (and Nq > length: rows that see nothing); GQA 4/1 and
8/2, MQA; LSE; f16 and bf16; the documented clamps of caller errors (a
length past M*S, table entries outside [0, P)).  More than one split is
exercised: the tiles are small (block-kv 2..4) and test_splits_exercised
asks flash-opt's own splitKVCount (flash-test-split-kv; the rule the GPU
decode kernels use too) how many splits the cases' lengths get, and checks in the tiled IR that every op took the
split-KV form.

Run (from the repository root):
  /usr/bin/python3 -m pytest python/tests/test_cpu_paged.py -q
"""

import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir))

from flash_mlir.testing.cpu_case import (CaseConfig, PagedCaseConfig,  # noqa: E402
                                         render_cases, run_cases)
from flash_opt import flash_opt_path  # noqa: E402

# The sm_80 model the CPU pipeline schedules with: its SM count is the
# default max_splits and the SM count splitKVCount fills.
SM80_SMS = 108


def P(seed, b, hq, hkv, nq, d, dv, s, lens, **kw):
    return PagedCaseConfig(seed=seed, batch=b, hq=hq, hkv=hkv, nq=nq, d=d, dv=dv,
                           page_size=s, seq_lens=tuple(lens), **kw)


def A(seed, b, hq, hkv, nq, nk, d, dv, **kw):
    return CaseConfig(seed=seed, batch=b, hq=hq, hkv=hkv, nq=nq, nk=nk, d=d, dv=dv, **kw)


# Each group: (name, cases, tiled pipeline options).  Lengths include 0, 1
# and the page boundaries S - 1, S, S + 1, 2S of each page size.
GROUPS = [
    ("paged-f32-small-tiles", [
        P(1, 3, 4, 1, 1, 8, 8, 1, [0, 1, 5], lse=True),                    # S = 1, MQA, empty sequence
        P(2, 4, 4, 2, 2, 8, 4, 3, [2, 3, 4, 6], causal=True, lse=True),     # S = 3 boundaries, causal Nq = 2
        P(3, 2, 8, 2, 3, 16, 16, 16, [15, 16], causal=True),                # S = 16: S - 1, S; GQA 4
        P(4, 2, 8, 2, 1, 16, 8, 16, [17, 32], scale=0.3, lse=True),         # S + 1, 2S
        P(5, 2, 2, 2, 4, 8, 8, 3, [2, 40], causal=True, lse=True),          # Nq > length: rows see nothing
        P(6, 1, 4, 1, 5, 8, 8, 16, [57], causal=True, lse=True,
          spare_pages=5, spare_columns=3),                                  # long, many spare pages
        P(7, 5, 4, 2, 1, 8, 8, 16, [40, 64, 100, 150, 200], lse=True),      # long: 2 to 10 splits
    ], "block-q=4 block-kv=4"),
    ("paged-f32-tiles-across-pages", [
        P(11, 3, 8, 1, 2, 16, 16, 3, [1, 10, 29], causal=True, lse=True),   # Bc = 8 spans 3 pages of 3
        P(12, 2, 4, 4, 1, 8, 8, 1, [0, 33]),                                 # Bc = 8 spans 8 pages of 1
        P(13, 2, 16, 2, 2, 8, 8, 16, [16, 47], causal=True),                 # 16 packed rows > Br = 8
        P(14, 3, 4, 1, 1, 8, 8, 3, [64, 90, 130], causal=True),              # long: 2 to 4 splits
    ], "block-q=8 block-kv=8"),
    ("split-kv-attention", [
        A(21, 1, 4, 1, 1, 37, 16, 16, lse=True),                             # decode, MQA
        A(22, 2, 8, 2, 3, 50, 8, 8, causal=True, lse=True),                  # speculative, GQA 4
        A(23, 1, 2, 2, 4, 2, 8, 8, causal=True, lse=True),                   # Nq > Nk: empty rows
        A(24, 2, 4, 2, 1, 0, 8, 8, lse=True),                                # no keys at all
        A(25, 1, 16, 2, 5, 33, 8, 16, causal=True, scale=0.2),               # 40 packed rows > Br
        A(26, 3, 4, 2, 1, 60, 8, 8, lse=True),                               # 5 splits of 4 tiles
    ], "block-q=16 block-kv=3"),
    ("paged-16bit", [
        P(31, 2, 8, 2, 2, 16, 16, 3, [7, 20], causal=True, lse=True, dtype="bf16"),
        P(32, 2, 4, 1, 1, 16, 16, 16, [1, 35], lse=True, dtype="f16"),
        A(33, 1, 8, 2, 2, 41, 16, 16, causal=True, lse=True, dtype="bf16"),
        P(34, 2, 4, 2, 1, 16, 16, 16, [48, 96], lse=True, dtype="bf16"),     # 3 and 6 splits
    ], "block-q=8 block-kv=4"),
    ("paged-caller-errors", [
        P(41, 2, 4, 2, 1, 8, 8, 3, [4, 9], lse=True, caller_error=True),
        P(42, 1, 2, 1, 3, 8, 8, 16, [20], causal=True, lse=True, caller_error=True),
    ], "block-q=4 block-kv=4"),
]

PIPELINES = {
    "tiled": lambda opts: ["--flash-cpu-pipeline=%s" % opts],
    "reference": lambda opts: ["--flash-cpu-pipeline=reference=true"],
}


@pytest.mark.parametrize("group,pipeline", [
    pytest.param(g, p, id="%s-%s" % (g[0], p)) for g in GROUPS for p in PIPELINES])
def test_split_kv_matches_oracle(group, pipeline):
    name, cases, opts = group
    ok, msg = run_cases(cases, flash_opt_path(), PIPELINES[pipeline](opts))
    assert ok, "%s, %s pipeline:\n%s" % (name, pipeline, msg)


def test_one_split_matches_oracle():
    """max-splits=1: the split stage computes everything, the merge copies."""
    name, cases, opts = GROUPS[0]
    ok, msg = run_cases(cases, flash_opt_path(),
                        ["--flash-cpu-pipeline=%s max-splits=1" % opts])
    assert ok, msg


def _splits(batch, kv_heads, row_tiles, keys, block_kv):
    """splitKVCount of each length, as flash-opt evaluates it."""
    opts = ("batch=%d kv-heads=%d row-tiles=%d keys=%s block-kv=%d sms=%d max-splits=%d"
            % (batch, kv_heads, row_tiles, ",".join(str(k) for k in keys), block_kv,
               SM80_SMS, SM80_SMS))
    out = subprocess.run([flash_opt_path(), "-", "--flash-test-split-kv=" + opts],
                         input="", capture_output=True, text=True, check=True).stdout
    return [int(m) for m in re.findall(r"splits=(\d+)", out)]


def test_splits_exercised():
    """The tiled runs above cut sequences into several splits (and their
    IR is the split-KV form for every op)."""
    many = 0
    for name, cases, opts in GROUPS:
        block_kv = int(re.search(r"block-kv=(\d+)", opts).group(1))
        block_q = int(re.search(r"block-q=(\d+)", opts).group(1))
        for c in cases:
            if isinstance(c, PagedCaseConfig):
                m = c.pages_per_sequence * c.page_size
                keys = [min(max(n, 0), m) for n in c.seq_lens]
                if c.caller_error:
                    keys[0] = m
            else:
                keys = [c.nk]
            row_tiles = -(-(c.hq // c.hkv * c.nq) // block_q)
            splits = _splits(c.batch, c.hkv, row_tiles, keys, block_kv)
            many += sum(1 for s in splits if s > 1)
            # An empty sequence has no split (O = 0, LSE = -inf), any other
            # at least one.
            assert all((s >= 1) == (n > 0) for s, n in zip(splits, keys))
        text, _, _ = render_cases(cases)
        tiled = subprocess.run(
            [flash_opt_path(), "-", "--flash-select-schedule=arch=sm_80 %s" % opts,
             "--flash-tile"], input=text, capture_output=True, text=True, check=True).stdout
        assert tiled.count('flash.stage = "split"') == len(cases), name
        assert tiled.count('flash.stage = "merge"') == len(cases), name
        assert "flash.paged_attention" not in tiled and "flash.attention" not in tiled
    assert many >= 20, "only %d sequences are cut into more than one split" % many


def test_case_coverage():
    """The cases cover what the module docstring promises."""
    paged = [c for _, cases, _ in GROUPS for c in cases if isinstance(c, PagedCaseConfig)]
    dense = [c for _, cases, _ in GROUPS for c in cases if isinstance(c, CaseConfig)]
    assert {1, 3, 16} <= {c.page_size for c in paged}
    lens = {(n, c.page_size) for c in paged for n in c.seq_lens}
    assert {0, 1} <= {n for n, _ in lens}
    for s in (3, 16):
        assert {s - 1, s, s + 1, 2 * s} <= {n for n, ps in lens if ps == s}
    assert any(c.causal and c.nq > 1 for c in paged)
    assert any(c.causal and c.nq > min(c.seq_lens) for c in paged)
    assert any(c.hq // c.hkv >= 4 for c in paged) and any(c.hkv == 1 for c in paged)
    assert any(c.poison for c in paged) and any(c.caller_error for c in paged)
    assert {"f32", "f16", "bf16"} <= {c.dtype for c in paged + dense}
    assert any(c.hq // c.hkv * c.nq > 16 for c in dense)          # several Q tiles
    assert any(c.nk == 0 for c in dense) and any(c.causal and c.nq > c.nk for c in dense)
