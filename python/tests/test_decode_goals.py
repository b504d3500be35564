"""decode_goals (no GPU): item 5's goals from decode_bench JSON, on made-up
processes whose answers are known, and on the forty-sixth session's H200 files
(the counts docs/benchmarks.md quotes)."""

import json
import pathlib

import pytest

from flash_mlir.tools import decode_goals

ROOT = pathlib.Path(__file__).resolve().parents[2]
S46 = ROOT / "docs" / "results" / "lead-2026-12-06-s46-final"


def row(hq, hkv, b, length, ours_us, cudnn_us, fa2_us=None, variants=None, errors=None,
        ceiling=4.0):
    """A decode_bench row. ours_us: {form: µs} of the main slot; variants:
    {tag: {form: µs}}; errors: {impl name: max_err}."""
    names = {"contiguous": "split_kv contiguous", "S=16": "paged S=16", "S=64": "paged S=64"}
    tagged = {"contiguous": "split_kv", "S=16": "paged S=16", "S=64": "paged S=64"}
    impls = {"SDPA cuDNN": {"ms": cudnn_us * 1e-3, "max_err": 1e-3},
             "SDPA FA2": {"ms": (fa2_us or 2 * cudnn_us) * 1e-3, "max_err": 1e-3}}
    for form, us in ours_us.items():
        impls[names[form]] = {"ms": us * 1e-3, "max_err": 1e-3}
    for tag, forms in (variants or {}).items():
        for form, us in forms.items():
            impls["%s [%s]" % (tagged[form], tag)] = {"ms": us * 1e-3, "max_err": 1e-3}
    for name, err in (errors or {}).items():
        impls[name]["max_err"] = err
    nbytes = 2 * b * hkv * length * 128 * 2 + 2 * b * hq * 128 * 2
    return {"B": b, "L": length, "Hq": hq, "Hkv": hkv, "D": 128, "bytes": nbytes,
            "ceiling_TBps": ceiling, "impls": impls}


def write(tmp_path, name, rows, ceiling=4.0):
    path = tmp_path / name
    path.write_text(json.dumps({"ceiling_TBps": ceiling, "rows": rows}))
    return str(path)


def summary_of(capsys):
    out = capsys.readouterr().out
    return out, dict(line[2:].rsplit(": ", 1) for line in out.splitlines()
                     if line.startswith("- "))


def test_each_goal_on_known_numbers(tmp_path, capsys):
    long_bytes = 2 * 1 * 131072 * 128 * 2 + 2 * 8 * 128 * 2  # GQA 8/1 B=1
    at_91 = long_bytes / (0.91 * 4.0e12) * 1e6  # µs at 91% of a 4 TB/s ceiling
    rows = [
        # meets everything
        row(8, 1, 1, 131072, {"contiguous": at_91, "S=16": at_91 / 0.97, "S=64": at_91 / 0.99},
            cudnn_us=at_91 / 0.8),
        # paged S=16 below cuDNN and more than 5% behind contiguous; S=64 exactly level
        row(32, 8, 8, 32768, {"contiguous": 100.0, "S=16": 106.0, "S=64": 101.0}, cudnn_us=101.0),
        # long row under 90% of the ceiling
        row(32, 8, 1, 131072, {"contiguous": 2 * at_91, "S=16": 2 * at_91, "S=64": 2 * at_91},
            cudnn_us=4 * at_91),
    ]
    assert decode_goals.main([write(tmp_path, "a.json", rows)]) == 0
    out, summary = summary_of(capsys)
    assert summary["at or above cuDNN, contiguous"] == "3 of 3 rows"
    assert summary["at or above cuDNN, S=16"] == "2 of 3 rows"
    assert summary["at or above cuDNN, S=64"] == "3 of 3 rows"
    assert summary["paged S=16 within 5% of contiguous"] == "2 of 3 rows"
    assert summary["paged S=64 within 5% of contiguous"] == "3 of 3 rows"
    # GQA 32/8 B=1 moves 8x the bytes of GQA 8/1 B=1 in 2x the time: 4x 91%
    assert summary[">= 90% of the read ceiling (long rows, contiguous)"] == "2 of 2 rows"
    assert "| GQA 32/8 B=8 L=32768 | 100.0 |" in out
    assert "| 1.010 | 0.953 | 1.000 |" in out  # cuDNN over contiguous, S=16, S=64


def test_the_ceiling_goal_fails_below_90_percent(tmp_path, capsys):
    nbytes = 2 * 131072 * 128 * 2 + 2 * 8 * 128 * 2
    at_89 = nbytes / (0.89 * 4.0e12) * 1e6
    rows = [row(8, 1, 1, 131072, {"contiguous": at_89, "S=16": at_89, "S=64": at_89},
                cudnn_us=2 * at_89)]
    decode_goals.main([write(tmp_path, "a.json", rows)])
    out, summary = summary_of(capsys)
    assert summary[">= 90% of the read ceiling (long rows, contiguous)"] == "0 of 1 rows"
    assert "| 89 |" in out


def test_a_goal_needs_every_process(tmp_path, capsys):
    good = [row(8, 1, 64, 8192, {"contiguous": 90.0, "S=16": 92.0, "S=64": 91.0}, cudnn_us=93.0)]
    bad = [row(8, 1, 64, 8192, {"contiguous": 90.0, "S=16": 94.0, "S=64": 91.0}, cudnn_us=93.0)]
    decode_goals.main([write(tmp_path, "a.json", good), write(tmp_path, "b.json", bad)])
    out, summary = summary_of(capsys)
    assert summary["at or above cuDNN, S=16"] == "0 of 1 rows"
    assert "0.989-1.011" in out  # 93/94 and 93/92, min-max over the two processes


@pytest.mark.parametrize("err", [float("nan"), float("inf"), "error: boom", None])
def test_an_unfinite_or_missing_error_fails(tmp_path, capsys, err):
    rows = [row(8, 1, 64, 8192, {"contiguous": 90.0, "S=16": 91.0, "S=64": 91.0}, cudnn_us=99.0,
                errors={"paged S=16": err})]
    decode_goals.main([write(tmp_path, "a.json", rows)])
    out, summary = summary_of(capsys)
    assert summary["at or above cuDNN, S=16"] == "0 of 1 rows"
    assert summary["paged S=16 within 5% of contiguous"] == "0 of 1 rows"
    assert summary["at or above cuDNN, S=64"] == "1 of 1 rows"
    assert "n/a" in out


def test_a_form_not_timed_fails(tmp_path, capsys):
    rows = [row(8, 1, 64, 8192, {"contiguous": 90.0, "S=16": 91.0}, cudnn_us=99.0)]
    decode_goals.main([write(tmp_path, "a.json", rows)])
    _, summary = summary_of(capsys)
    assert summary["at or above cuDNN, S=64"] == "0 of 1 rows"
    assert summary["paged S=64 within 5% of contiguous"] == "0 of 1 rows"


def test_the_build_is_read_from_its_slot_or_its_variant(tmp_path, capsys):
    """Two processes with the slots swapped: `new` in the main slot of a.json and
    a variant of b.json. Reading `new` must not take old's numbers."""
    new = {"contiguous": 90.0, "S=16": 91.0, "S=64": 92.0}
    old = {"contiguous": 80.0, "S=16": 120.0, "S=64": 120.0}
    a = write(tmp_path, "a.json", [row(8, 1, 64, 8192, new, cudnn_us=95.0, variants={"old": old})])
    b = write(tmp_path, "b.json", [row(8, 1, 64, 8192, old, cudnn_us=95.0, variants={"new": new})])
    decode_goals.main(["--build", "new", a + ":new", b + ":old"])
    out, summary = summary_of(capsys)
    assert "| GQA 8/1 B=64 L=8192 | 90.0 |" in out
    assert summary["at or above cuDNN, S=16"] == "1 of 1 rows"
    decode_goals.main(["--build", "old", a + ":new", b + ":old"])
    out, summary = summary_of(capsys)
    assert "| GQA 8/1 B=64 L=8192 | 80.0 |" in out
    assert summary["at or above cuDNN, S=16"] == "0 of 1 rows"


def test_files_of_different_rows_are_refused(tmp_path):
    a = write(tmp_path, "a.json", [row(8, 1, 64, 8192, {"contiguous": 1.0}, cudnn_us=1.0)])
    b = write(tmp_path, "b.json", [row(8, 1, 64, 1024, {"contiguous": 1.0}, cudnn_us=1.0)])
    with pytest.raises(SystemExit, match="different rows"):
        decode_goals.main([a, b])


def test_the_h200_counts_docs_quote(capsys):
    """docs/benchmarks.md, forty-sixth session: on the H200 main f018569's paged
    S = 16 at or above cuDNN on 8 of 14 rows, contiguous on all 14, GQA 8/1
    B = 1 L = 128k under 90% of the read ceiling."""
    files = ["h200/run3/a.json:new", "h200/run3/b.json:pre", "h200/run5/a2.json:new",
             "h200/run5/b2.json:pre"]
    decode_goals.main(["--build", "new"] + [str(S46 / f) for f in files])
    out, summary = summary_of(capsys)
    assert summary["at or above cuDNN, contiguous"] == "14 of 14 rows"
    assert summary["at or above cuDNN, S=16"] == "8 of 14 rows"
    assert summary[">= 90% of the read ceiling (long rows, contiguous)"] == "1 of 2 rows"
    assert "| GQA 32/8 B=1 L=8192 | 8.7-8.9 |" in out
    assert "93.8-94.6" in out  # paged S=16 % of contiguous there


def with_floors(r, contiguous, s16, s64, s16_pages=None, s64_pages=None):
    """Row r with read floors (µs) as decode_bench --read-floor names them."""
    floors = {"read floor contiguous": contiguous, "read floor S=16": s16,
              "read floor S=64": s64, "read floor S=16 pages": s16_pages,
              "read floor S=64 pages": s64_pages}
    for name, us in floors.items():
        if us is not None:
            r["impls"][name] = {"ms": us * 1e-3, "max_err": None}
    return r


def miss_lines(out):
    return {line[2:].split(", missed by ours")[0]: line.split(", missed by ours on ")[1]
            for line in out.splitlines() if ", missed by ours on " in line}


def test_floors_sort_each_miss_by_what_a_pure_reader_does(tmp_path, capsys):
    rows = [
        # S=16 below cuDNN (0.99); the per-head floor below cuDNN too, whole pages above:
        # only a reader of whole pages meets it. S=64 below cuDNN, its floors too: walled.
        with_floors(row(32, 8, 8, 32768, {"contiguous": 98.0, "S=16": 101.0, "S=64": 100.5},
                        cudnn_us=100.0),
                    contiguous=97.0, s16=102.0, s64=100.4, s16_pages=99.0, s64_pages=100.2),
        # S=16 more than 5% behind contiguous, while a per-head reader is within 5%: open.
        with_floors(row(8, 1, 64, 1024, {"contiguous": 8.0, "S=16": 9.0, "S=64": 8.2},
                        cudnn_us=11.0),
                    contiguous=7.0, s16=7.2, s64=7.1),
    ]
    assert decode_goals.main(["--floors", write(tmp_path, "a.json", rows)]) == 0
    out, summary = summary_of(capsys)
    assert summary["at or above cuDNN, S=16"] == "1 of 2 rows"
    misses = miss_lines(out)
    assert misses["at or above cuDNN, S=16"] == (
        "1: only a pure reader of whole pages meets it on 1 (GQA 32/8 B=8 L=32768)")
    assert misses["at or above cuDNN, S=64"] == (
        "1: a pure reader misses it too on 1 (GQA 32/8 B=8 L=32768)")
    assert misses["paged S=16 within 5% of contiguous"] == (
        "1: a pure reader reading as our kernels do meets it on 1 (GQA 8/1 B=64 L=1024)")
    assert set(misses) == {"at or above cuDNN, S=16", "at or above cuDNN, S=64",
                           "paged S=16 within 5% of contiguous"}
    # the floor table: cuDNN over the best S=16 floor (pages, 99 µs), and the
    # per-head S=16 floor's % of the contiguous floor on GQA 8/1 (7.0 / 7.2)
    assert "| GQA 32/8 B=8 L=32768 | " in out.split("Read floors")[1]
    assert "1.010" in out.split("Read floors")[1]
    assert "97.2" in out.split("Read floors")[1]


def test_floors_judge_the_ceiling_goal_and_need_every_process(tmp_path, capsys):
    nbytes = 2 * 131072 * 128 * 2 + 2 * 8 * 128 * 2
    at = lambda pct: nbytes / (pct / 100 * 4.0e12) * 1e6
    a = [with_floors(row(8, 1, 1, 131072, {"contiguous": at(84), "S=16": at(84), "S=64": at(84)},
                         cudnn_us=at(70)), contiguous=at(93), s16=at(93), s64=at(93))]
    b = [with_floors(row(8, 1, 1, 131072, {"contiguous": at(84), "S=16": at(84), "S=64": at(84)},
                         cudnn_us=at(70)), contiguous=at(89), s16=at(93), s64=at(93))]
    decode_goals.main(["--floors", write(tmp_path, "a.json", a)])
    out, _ = summary_of(capsys)
    assert miss_lines(out)[">= 90% of the read ceiling (long rows, contiguous)"] == (
        "1: a pure reader reading as our kernels do meets it on 1 (GQA 8/1 B=1 L=131072)")
    # a floor that misses in one process of two misses
    decode_goals.main(["--floors", write(tmp_path, "a.json", a), write(tmp_path, "b.json", b)])
    out, _ = summary_of(capsys)
    assert miss_lines(out)[">= 90% of the read ceiling (long rows, contiguous)"] == (
        "1: a pure reader misses it too on 1 (GQA 8/1 B=1 L=131072)")


def test_floors_are_required_when_asked_for(tmp_path):
    rows = [row(8, 1, 64, 8192, {"contiguous": 90.0, "S=16": 91.0, "S=64": 91.0}, cudnn_us=99.0)]
    with pytest.raises(SystemExit, match="read-floor"):
        decode_goals.main(["--floors", write(tmp_path, "a.json", rows)])


def test_a_failed_floor_is_no_floor(tmp_path, capsys):
    """A floor with no time (its step failed) cannot meet a goal: the miss is
    counted as one a pure reader misses too, never as room in ours."""
    rows = [with_floors(row(8, 1, 64, 1024, {"contiguous": 8.0, "S=16": 9.0, "S=64": 8.2},
                            cudnn_us=11.0), contiguous=7.0, s16=7.2, s64=7.1)]
    rows[0]["impls"]["read floor S=16"] = {"error": "launch failed"}
    decode_goals.main(["--floors", write(tmp_path, "a.json", rows)])
    out, _ = summary_of(capsys)
    assert miss_lines(out)["paged S=16 within 5% of contiguous"] == (
        "1: a pure reader misses it too on 1 (GQA 8/1 B=64 L=1024)")
