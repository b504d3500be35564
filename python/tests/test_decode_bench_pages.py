"""decode_bench's page placement (no GPU, no torch): --page-order."""

import argparse

import numpy as np
import pytest

from flash_mlir.tools import decode_bench


def _gather(perm, b, length, page, keys):
    """A pool filled as decode_bench fills it (pool[perm[j]] = block j), then
    every key read back through the table as the kernels read it."""
    m = length // page
    blocks = keys.reshape(b * m, page)
    pool = np.full_like(blocks, -1)
    pool[perm] = blocks
    table = perm.reshape(b, m)
    out = np.empty_like(keys)
    for s in range(b):
        for t in range(length):
            out[s, t] = pool[table[s, t // page], t % page]
    return table, out


@pytest.mark.parametrize("b,length,page", [(1, 64, 16), (3, 128, 16), (4, 256, 64)])
def test_sequential_pages_consecutive_in_key_order(b, length, page):
    calls = []
    perm = decode_bench.page_placement(
        b, length, page, "sequential",
        lambda n: calls.append(n) or np.random.default_rng(0).permutation(n), np.arange)
    assert calls == []  # no draw from the generator
    keys = np.arange(b * length).reshape(b, length)
    table, out = _gather(perm, b, length, page, keys)
    m = length // page
    for s in range(b):
        assert list(table[s]) == list(range(s * m, (s + 1) * m))
    assert (out == keys).all()


@pytest.mark.parametrize("b,length,page", [(1, 64, 16), (3, 128, 16), (4, 256, 64)])
def test_shuffled_pages_are_the_generators_permutation(b, length, page):
    calls = []

    def randperm(n):
        calls.append(n)
        return np.random.default_rng(7).permutation(n)

    perm = decode_bench.page_placement(b, length, page, "shuffled", randperm, np.arange)
    # One draw of `pages` entries, returned as is: the table of the bench
    # before --page-order (torch.randperm(pages) viewed as (b, L/S)).
    assert calls == [b * length // page]
    assert (perm == np.random.default_rng(7).permutation(b * length // page)).all()
    keys = np.arange(b * length).reshape(b, length)
    _, out = _gather(perm, b, length, page, keys)
    assert (out == keys).all()


def test_page_order_option():
    assert decode_bench.page_orders("shuffled") == ["shuffled"]
    assert decode_bench.page_orders("sequential") == ["sequential"]
    assert decode_bench.page_orders("shuffled,sequential") == ["shuffled", "sequential"]
    assert decode_bench.page_orders("shuffled,local") == ["shuffled", "local"]
    for bad in ("random", "", "shuffled,shuffled", "sequential,bogus"):
        with pytest.raises(argparse.ArgumentTypeError):
            decode_bench.page_orders(bad)
    with pytest.raises(ValueError):
        decode_bench.page_placement(1, 16, 16, "random", None, None)
    # Shuffled keeps the names (and JSON keys) decode_bench always printed.
    assert decode_bench.paged_name(16, "shuffled") == "paged S=16"
    assert decode_bench.paged_name(64, "sequential") == "paged S=64 seq"
    assert decode_bench.paged_name(16, "local") == "paged S=16 local"


def test_page_sizes_option(capsys):
    assert decode_bench.page_sizes("16,64") == [16, 64]
    assert decode_bench.page_sizes("16") == [16]
    assert decode_bench.page_sizes("256, 1") == [256, 1]
    for bad in ("", "0", "-16", "16,16", "x", "16,,y"):
        with pytest.raises(argparse.ArgumentTypeError):
            decode_bench.page_sizes(bad)
    # A page size that does not divide a row's length is refused before any
    # GPU work (torch is imported after the check).
    with pytest.raises(SystemExit):
        decode_bench.main(["--bundles", "none", "--rows", "1x8192,1x1000",
                           "--page-sizes", "16"])
    err = capsys.readouterr().err
    assert "page size 16 does not divide the row length 1000" in err


def test_help_lists_page_order(capsys):
    with pytest.raises(SystemExit):
        decode_bench.main(["--help"])
    text = capsys.readouterr().out
    assert "--page-order" in text and "sequential" in text and "local" in text


@pytest.mark.parametrize("b,length,page,page_bytes", [
    (2, 8192, 16, 4096),      # GQA 8/1, S = 16: 512 pages a 2 MiB span, 2 spans
    (3, 8192, 16, 32768),     # GQA 32/8, S = 16: 64 pages a span
    (2, 1024, 64, 1 << 22),   # pages larger than a span: one page a span
])
def test_local_pages_stay_in_their_span(b, length, page, page_bytes):
    calls = []

    def randperm(n):
        calls.append(n)
        return np.random.default_rng(3).permutation(n)

    perm = decode_bench.page_placement(b, length, page, "local", randperm, np.arange,
                                       page_bytes=page_bytes)
    pages = b * length // page
    span = max(decode_bench.LOCAL_SPAN_BYTES // page_bytes, 1)
    assert calls == [pages]
    assert sorted(perm.tolist()) == list(range(pages))       # a permutation
    assert (perm // span == np.arange(pages) // span).all()  # each page in its span
    if span > 1:
        assert (perm != np.arange(pages)).any()              # and shuffled in it
    keys = np.arange(b * length).reshape(b, length)
    _, out = _gather(perm, b, length, page, keys)
    assert (out == keys).all()
    with pytest.raises(ValueError):
        decode_bench.page_placement(b, length, page, "local", randperm, np.arange)
