"""decode_bench --cold (no GPU, no torch): how many K/V copies a row's graph
cycles through, and the rotation over them."""

from flash_mlir.tools import decode_bench

MiB = 1 << 20
L2 = 60 * MiB  # the H200's


def test_warm_reads_one_copy():
    for kv in (4 * MiB, 32 * MiB, 512 * MiB):
        assert decode_bench.cold_copies(kv, L2, cold=False) == 1


def test_cold_copies_span_the_l2():
    for kv in (1, 4 * MiB, 16 * MiB, 32 * MiB, 64 * MiB, 100 * MiB, 150 * MiB):
        n = decode_bench.cold_copies(kv, L2, cold=True)
        # Between two reads of one copy the other n - 1 copies stream through
        # at least 1.5x the L2; one copy fewer would not span 2.5x.
        assert n * kv >= 2.5 * L2
        assert n == 1 or (n - 1) * kv < 2.5 * L2
    # The rows: GQA 8/1 B=64 L=1k (32 MiB K+V) 5 copies, B=1 L=128k
    # (64 MiB) 3, B=128 L=2k (128 MiB) 2, GQA 32/8 B=1 L=128k (512 MiB) 1.
    assert [decode_bench.cold_copies(m * MiB, L2, True) for m in (32, 64, 128, 512)] \
        == [5, 3, 2, 1]


def test_rotating_cycles_through_the_calls():
    seen = []
    run = decode_bench.rotating([lambda i=i: seen.append(i) or i for i in range(3)])
    assert [run() for _ in range(7)] == [0, 1, 2, 0, 1, 2, 0]
    assert seen == [0, 1, 2, 0, 1, 2, 0]


def test_kernel_before_runs_first_and_keeps_the_result():
    """--between: the scratch add runs before each call, once a call, and
    the call's result is returned."""
    log = []

    class Scratch:
        def add_(self, x):
            log.append("add")

    fn = decode_bench.with_kernel_before(lambda: log.append("call") or 7, Scratch())
    assert fn() == 7 and fn() == 7
    assert log == ["add", "call", "add", "call"]
