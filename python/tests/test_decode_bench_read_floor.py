"""decode_bench --read-floor (no GPU): the read_pages kernel's PTX, the items'
layout and the launch, checked by following the kernel's addressing
(scripts/bench/read-pages.cu) over every thread of a small launch."""

import pathlib
import re

import numpy as np
import pytest

from flash_mlir.tools import decode_bench

PTX = pathlib.Path(decode_bench.__file__).with_name("read_pages.ptx")
ROOT = pathlib.Path(__file__).resolve().parents[2]


def arange(n):
    return np.arange(n, dtype=np.int64)


def words_read(item_base, row_stride, items, sms, page, row_bytes):
    """{(tensor, 16-byte word of the cache)} that read_pages reads, following
    read-pages.cu's addressing for every block, thread and slot."""
    blocks, per_block, k_log2, tensor_log2, row_log2 = decode_bench.read_pages_launch(
        items, sms, page, row_bytes)
    seen = []
    for block in range(blocks):
        first = block * per_block
        last = min(first + per_block, items)
        if first >= last:
            continue
        slots = (last - first) << k_log2
        for slot in range(slots):
            item = first + (slot >> k_log2)
            word = np.arange(decode_bench.READ_PAGES_THREADS) + 512 * (slot & ((1 << k_log2) - 1))
            tensor = word >> tensor_log2
            in_tensor = word & ((1 << tensor_log2) - 1)
            row, column = in_tensor >> row_log2, in_tensor & ((1 << row_log2) - 1)
            address = item_base[item] // 16 + row * row_stride + column
            seen += list(zip(tensor.tolist(), address.tolist()))
    return seen


def cache_words(b, hkv, length, page, d, table=None):
    """{(tensor, word)} of the row's keys: K and V rows of every (b, h, key)."""
    words = set()
    row_words = d * 2 // 16
    for tensor in (0, 1):
        for bb in range(b):
            for h in range(hkv):
                for t in range(length):
                    if table is None:  # B x Hkv x L x D
                        row = (bb * hkv + h) * length + t
                    else:  # P x S x Hkv x D
                        row = (table[bb, t // page] * page + t % page) * hkv + h
                    words.update((tensor, row * row_words + c) for c in range(row_words))
    return words


@pytest.mark.parametrize("b,hkv,length,page,sms", [
    (2, 3, 64, 16, 2),   # more blocks than items: one item a block
    (3, 2, 128, 32, 1),  # several items a block, the last block short
    (1, 1, 128, 64, 5),  # items of 64 rows: 2 words a thread an item
])
@pytest.mark.parametrize("paged", [False, True])
def test_the_reads_are_the_rows_bytes_each_once(b, hkv, length, page, sms, paged):
    d = 128
    table = None
    if paged:
        rng = np.random.default_rng(7)
        table = rng.permutation(b * length // page).reshape(b, length // page)
        # a padded table (a serving engine's, sized for a longer maximum)
        table = np.concatenate([table, table[:, :1]], axis=1)
    base, stride = decode_bench.read_floor_layout(b, hkv, length, page, d * 2, arange,
                                                  table)
    assert base.shape == (b * hkv * (length // page),)
    seen = words_read(base, stride, base.size, sms, page, d * 2)
    assert len(seen) == len(set(seen))  # no word twice
    assert set(seen) == cache_words(b, hkv, length, page, d, table)


def test_items_in_key_order_of_a_head():
    base, stride = decode_bench.read_floor_layout(1, 2, 64, 16, 256, arange)
    assert stride == 16 and base.tolist() == [0, 4096, 8192, 12288,
                                              16384, 20480, 24576, 28672]
    table = np.array([[3, 0, 2, 1]])
    base, stride = decode_bench.read_floor_layout(1, 2, 64, 16, 256, arange, table)
    # page p holds 16 slots x 2 heads x 256 bytes; head h at h * 256
    assert stride == 32 and base.tolist() == [3 * 8192, 0, 2 * 8192, 8192,
                                              3 * 8192 + 256, 256, 2 * 8192 + 256, 8192 + 256]


def test_launch_limits():
    for items in (10_000, 528, 529, 1):
        blocks, per_block = decode_bench.read_pages_launch(items, 132, 16, 256)[:2]
        assert blocks <= 4 * 132 and (blocks - 1) * per_block < items <= blocks * per_block
    assert decode_bench.read_pages_launch(100, 132, 64, 256)[:2] == (100, 1)
    with pytest.raises(ValueError, match="at least 4 KiB"):
        decode_bench.read_pages_launch(8, 1, 8, 256)
    with pytest.raises(ValueError, match="power of two"):
        decode_bench.read_pages_launch(8, 1, 48, 256)
    with pytest.raises(ValueError, match="does not divide"):
        decode_bench.read_floor_layout(1, 1, 100, 16, 256, arange)


def test_option_checks_page_sizes(capsys):
    with pytest.raises(SystemExit):
        decode_bench.main(["--bundles", "x", "--read-floor", "--page-sizes", "48",
                           "--rows", "1x96"])
    assert "--read-floor" in capsys.readouterr().err


def test_the_ptx_is_the_read_pages_kernel():
    text = PTX.read_text()
    assert ".target sm_80" in text
    entry = re.search(r"\.visible \.entry read_pages\((.*?)\)", text, re.S)
    assert entry
    params = entry.group(1)
    # k, v, item_base, items, per_block, row_stride, sink; three log2 sizes
    assert params.count(".param .u64") == 7 and params.count(".param .u32") == 3
    body = text[entry.end():]
    assert body.count("ld.global.nc.L1::no_allocate.v4.u32") == 4
    assert (ROOT / "scripts" / "bench" / "read-pages.cu").exists()


def test_read_floor_checks_the_head_dim(capsys):
    """--head-dim sets the rows' bytes the read floor's items are cut from: a
    page of 16 rows of D = 64 (2 KiB a tensor) is below the kernel's 4 KiB."""
    with pytest.raises(SystemExit):
        decode_bench.main(["--bundles", "x", "--read-floor", "--page-sizes", "16",
                           "--rows", "1x8192", "--head-dim", "64"])
    assert "got 2048" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        decode_bench.main(["--bundles", "x", "--head-dim", "96"])
    assert "--head-dim" in capsys.readouterr().err
