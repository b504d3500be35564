"""decode_check's case lists (no GPU): --page-sizes replaces the paged cases' page sizes."""

from flash_mlir.tools import decode_check


def test_default_page_sizes():
    cases = decode_check.paged_cases(quick=False)
    assert {c[7] for c in cases[:27]} == {16, 64, 256}
    assert len(cases) == 31  # 3 D x 3 S x 3 forms + 4 extra cases


def test_page_sizes_option():
    cases = decode_check.paged_cases(quick=False, pages=(8, 48))
    main = cases[:18]
    assert {c[7] for c in main} == {8, 48}
    assert len(cases) == 18 + 4
    # The lengths straddle the page: S - 1, S, S + 1.
    import random
    lengths = decode_check.lengths_for(48, 1, random.Random(0))
    assert {47, 48, 49} <= set(lengths)
