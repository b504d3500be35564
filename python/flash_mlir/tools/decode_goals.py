"""Issue 17 item 5's goals, read from `decode_bench --json` files.

  python3 -m flash_mlir.tools.decode_goals [--build NAME] [--long-length L]
      FILE[:SLOT] [FILE[:SLOT] ...]

Each FILE is one decode_bench process. SLOT names the build that process
timed in its main slot (default `main`); its variants are named by their tags
(`--variant NAME=DIR` times `split_kv [NAME]`, `paged S=16 [NAME]`, ...).
--build picks the build whose goals are printed (default `main`): in a file
whose SLOT is that name its main slot's numbers, in any other its variant of
that name.

The goals (issue 17, item 5), each judged on every process given (a row meets
a goal only if it does in all of them; the table prints min-max):
  - at or above cuDNN: SDPA cuDNN's time over ours >= 1, for the contiguous
    form and each page size (cuDNN reads the contiguous K/V, its only form);
  - >= 90% of the read ceiling (torch's sum over 4 GiB, measured in the same
    process) on the long rows (L = --long-length, 131072 by default);
  - paged within 5% of contiguous: contiguous's time over paged's >= 0.95.
A form with no time in a process (not timed, or failed) fails every goal it
enters, and so does one whose max_err is not a finite number: NaN never
passes. Prints a markdown table and one summary line a goal.
"""

import argparse
import json
import math
import sys

CUDNN = "SDPA cuDNN"
FA2 = "SDPA FA2"
CONTIGUOUS = "contiguous"
FORMS = (CONTIGUOUS, "S=16", "S=64")


def impl_key(form, primary):
    """decode_bench's name of `form` for the main slot (primary) or a variant
    (the tag is added by the caller)."""
    if form == CONTIGUOUS:
        return "split_kv contiguous" if primary else "split_kv"
    return "paged " + form


def build_times(data, slot, build):
    """{row name: {form or 'cudnn'/'fa2': (ms or None, bytes, ceiling TB/s)}}
    of `build` in one decode_bench JSON whose main slot is `slot`."""
    primary = slot == build
    out = {}
    for row in data["rows"]:
        name = "GQA %d/%d B=%d L=%d" % (row["Hq"], row["Hkv"], row["B"], row["L"])
        impls = row["impls"]
        times = {}
        for form in FORMS:
            key = impl_key(form, primary)
            if not primary:
                key += " [%s]" % build
            times[form] = timed_ms(impls.get(key))
        times["cudnn"] = timed_ms(impls.get(CUDNN), needs_error=False)
        times["fa2"] = timed_ms(impls.get(FA2), needs_error=False)
        out[name] = {"times": times, "bytes": row["bytes"],
                     "ceiling": row.get("ceiling_TBps", data.get("ceiling_TBps")),
                     "L": row["L"]}
    return out


def timed_ms(impl, needs_error=True):
    """The median time in ms, or None: not timed, failed, or (ours) a
    max_err that is not finite."""
    if not impl or "ms" not in impl:
        return None
    if needs_error:
        err = impl.get("max_err")
        if not isinstance(err, (int, float)) or not math.isfinite(err):
            return None
    return impl["ms"]


def ratio(num, den):
    return None if num is None or den is None else num / den


def span(values, fmt):
    if any(v is None for v in values):
        return "n/a"
    lo, hi = min(values), max(values)
    return fmt % lo if fmt % lo == fmt % hi else (fmt + "-" + fmt) % (lo, hi)


def meets(values, bound):
    return all(v is not None and v >= bound for v in values)


def goals(processes, long_length):
    """processes: [build_times(...)]; returns (rows, summary) where rows are
    [(row name, {column: [value per process]})] and summary
    {goal: (rows met, rows judged)}."""
    names = list(processes[0])
    for p in processes[1:]:
        if list(p) != names:
            raise SystemExit("decode_goals: the files time different rows")
    rows, summary = [], {}

    def count(goal, ok):
        met, judged = summary.get(goal, (0, 0))
        summary[goal] = (met + ok, judged + 1)

    for name in names:
        cols = {}
        per = [p[name] for p in processes]
        cols["contiguous µs"] = [None if r["times"][CONTIGUOUS] is None
                                 else r["times"][CONTIGUOUS] * 1e3 for r in per]
        cols["% of ceiling"] = [
            None if r["times"][CONTIGUOUS] is None else
            100 * r["bytes"] / (r["times"][CONTIGUOUS] * 1e-3) / 1e12 / r["ceiling"]
            for r in per]
        for form in FORMS:
            cols["cuDNN / " + form] = [ratio(r["times"]["cudnn"], r["times"][form])
                                       for r in per]
            count("at or above cuDNN, " + form, meets(cols["cuDNN / " + form], 1.0))
        cols["FA2 / contiguous"] = [ratio(r["times"]["fa2"], r["times"][CONTIGUOUS])
                                    for r in per]
        for form in FORMS[1:]:
            key = "paged %s %% of contiguous" % form
            cols[key] = [None if v is None else 100 * v for v in
                         (ratio(r["times"][CONTIGUOUS], r["times"][form]) for r in per)]
            count("paged %s within 5%% of contiguous" % form, meets(cols[key], 95.0))
        if per[0]["L"] == long_length:
            count(">= 90% of the read ceiling (long rows, contiguous)",
                  meets(cols["% of ceiling"], 90.0))
        rows.append((name, cols))
    return rows, summary


def markdown(rows, summary, header):
    fmts = {"contiguous µs": "%.1f", "% of ceiling": "%.0f"}
    cols = list(rows[0][1])
    out = [header, "| row | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    for name, values in rows:
        cells = [span(values[c], fmts.get(c, "%.1f" if "%" in c else "%.3f"))
                 for c in cols]
        out.append("| %s | %s |" % (name, " | ".join(cells)))
    out.append("")
    for goal, (met, judged) in summary.items():
        out.append("- %s: %d of %d rows" % (goal, met, judged))
    return "\n".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Issue 17 item 5's goals from decode_bench JSON files.")
    parser.add_argument("files", nargs="+", metavar="FILE[:SLOT]",
                        help="a decode_bench --json file, and the name of the "
                             "build in its main slot (default main)")
    parser.add_argument("--build", default="main",
                        help="the build whose goals are printed (default main)")
    parser.add_argument("--long-length", type=int, default=131072,
                        help="the length of the long rows, which the read-ceiling "
                             "goal is judged on (default 131072)")
    args = parser.parse_args(argv)
    processes = []
    for arg in args.files:
        path, _, slot = arg.partition(":")
        with open(path) as f:
            data = json.load(f)
        processes.append(build_times(data, slot or "main", args.build))
    rows, summary = goals(processes, args.long_length)
    header = "<!-- python3 -m flash_mlir.tools.decode_goals --build %s %s -->" % (
        args.build, " ".join(args.files))
    print(markdown(rows, summary, header))
    return 0


if __name__ == "__main__":
    sys.exit(main())
