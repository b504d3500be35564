"""Issue 17 item 5's goals, read from `decode_bench --json` files.

  python3 -m flash_mlir.tools.decode_goals [--build NAME] [--long-length L]
      [--floors] FILE[:SLOT] [FILE[:SLOT] ...]

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

--floors (the files from `decode_bench --read-floor`) judges the same goals
on the read floors, kernels that read each row's K and V and compute
nothing, and prints them as a second table: the contiguous floor's % of the
ceiling, cuDNN's time over each floor, and each paged floor's % of the
contiguous one. A paged form's floor is the better of its two readers: a
kv-head's rows at a time, as the decode kernels read a page, and whole pages
(every kv-head of a page together; with one kv-head the two are the same
reads). Then, for each goal, the rows ours misses, split into those where a
pure reader misses it too, those where only a reader of whole pages meets it (a kernel
reading a page a kv-head at a time, as ours do, would have to read whole
pages instead) and those where a reader reading as our kernels do meets it
(room left in ours). The floor kernel is a plain reader, not the fastest
possible one (ours can beat its contiguous floor on the largest rows), so
"misses it too" says what that reader does, not what every reader must;
and a reader hands no partial results to a merge, which an attention
split across blocks must.
"""

import argparse
import json
import math
import sys

CUDNN = "SDPA cuDNN"
FA2 = "SDPA FA2"
CONTIGUOUS = "contiguous"
FORMS = (CONTIGUOUS, "S=16", "S=64")
CEILING_GOAL = ">= 90% of the read ceiling (long rows, contiguous)"


def floor_key(form):
    """decode_bench --read-floor's name of a form's floor (a kv-head's rows
    at a time for the paged forms)."""
    return "read floor " + form


def pages_key(form):
    """The whole-page floor of a paged form (rows with Hkv > 1 only)."""
    return "read floor %s pages" % form


def impl_key(form, primary):
    """decode_bench's name of `form` for the main slot (primary) or a variant
    (the tag is added by the caller)."""
    if form == CONTIGUOUS:
        return "split_kv contiguous" if primary else "split_kv"
    return "paged " + form


def build_times(data, slot, build, floors=False):
    """{row name: {"times": {form or 'cudnn'/'fa2': ms or None}, "bytes",
    "ceiling" (TB/s), "L"}} of `build` in one decode_bench JSON whose main
    slot is `slot`; with floors, also "floors": row_floors' {"head": {form:
    ms or None}, "best": {form: ms or None}} (the read floors belong to the
    process, not to a build)."""
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
        if floors:
            out[name]["floors"] = row_floors(impls, row["Hkv"], name)
    return out


def row_floors(impls, hkv, name):
    """{"head": {form: ms}, "best": {form: ms}} of a row's read floors:
    "head" reads a paged form a kv-head's rows at a time (as the decode
    kernels do), "best" is the better of that and whole pages (Hkv > 1; with
    one kv-head a page is that head's rows, the same reads)."""
    head, best = {}, {}
    for form in FORMS:
        if floor_key(form) not in impls:
            raise SystemExit("decode_goals --floors: row %s has no '%s' "
                             "(time it with decode_bench --read-floor)"
                             % (name, floor_key(form)))
        head[form] = timed_ms(impls.get(floor_key(form)), needs_error=False)
        best[form] = head[form]
        if form != CONTIGUOUS and hkv > 1:
            pages = timed_ms(impls.get(pages_key(form)), needs_error=False)
            best[form] = None if head[form] is None or pages is None else min(head[form], pages)
    return {"head": head, "best": best}


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
        per = [p[name] for p in processes]
        cols = {"contiguous µs": [None if r["times"][CONTIGUOUS] is None
                                  else r["times"][CONTIGUOUS] * 1e3 for r in per]}
        judged = judge(per, ours, per[0]["L"] == long_length)
        for goal, (key, values, bound) in judged.items():
            cols[key] = values
            if goal != "% of ceiling":
                count(goal, meets(values, bound))
            if key == "cuDNN / " + FORMS[-1]:
                cols["FA2 / contiguous"] = [ratio(r["times"]["fa2"], r["times"][CONTIGUOUS])
                                            for r in per]
        rows.append((name, cols))
    return rows, summary


def judge(per, time, long_row):
    """{goal: (column, [value per process], bound)} of one row, with a form's
    time in a process r given by time(r, form) (ours, or a read floor);
    cuDNN's time is always its own. "% of ceiling" is a column on every row
    and a goal (CEILING_GOAL) on the long ones."""
    out = {"% of ceiling": ("% of ceiling", [
        None if time(r, CONTIGUOUS) is None else
        100 * r["bytes"] / (time(r, CONTIGUOUS) * 1e-3) / 1e12 / r["ceiling"]
        for r in per], 90.0)}
    for form in FORMS:
        out["at or above cuDNN, " + form] = (
            "cuDNN / " + form, [ratio(r["times"]["cudnn"], time(r, form)) for r in per], 1.0)
    for form in FORMS[1:]:
        out["paged %s within 5%% of contiguous" % form] = (
            "paged %s %% of contiguous" % form,
            [None if v is None else 100 * v for v in
             (ratio(time(r, CONTIGUOUS), time(r, form)) for r in per)], 95.0)
    if long_row:
        out[CEILING_GOAL] = out["% of ceiling"]
    return out


def ours(r, form):
    return r["times"][form]


def per_head_floor(r, form):
    return r["floors"]["head"][form]


def best_floor(r, form):
    return r["floors"]["best"][form]


# How a goal ours misses on a row stands against the read floors.
WALLED = "a pure reader misses it too"
PAGES_ONLY = "only a pure reader of whole pages meets it"
OPEN = "a pure reader reading as our kernels do meets it"


def floor_goals(processes, long_length):
    """The goals judged on the read floors: (rows, misses) where rows are as
    goals()' (the best floor's values) and misses {goal: {WALLED |
    PAGES_ONLY | OPEN: [row names]}} for the goals ours misses."""
    rows, misses = [], {}
    for name in processes[0]:
        per = [p[name] for p in processes]
        long_row = per[0]["L"] == long_length
        mine = judge(per, ours, long_row)
        head = judge(per, per_head_floor, long_row)
        best = judge(per, best_floor, long_row)
        cols = {}
        for goal, (key, values, bound) in best.items():
            if goal != CEILING_GOAL:
                cols[key.replace("contiguous", "floor contiguous")
                      .replace("paged S=", "floor S=").replace("/ S=", "/ floor S=")] = values
            if goal == "% of ceiling" or meets(mine[goal][1], bound):
                continue
            if meets(head[goal][1], bound):
                kind = OPEN
            elif meets(values, bound):
                kind = PAGES_ONLY
            else:
                kind = WALLED
            misses.setdefault(goal, {}).setdefault(kind, []).append(name)
        rows.append((name, cols))
    return rows, misses


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


def floors_markdown(rows, misses):
    out = ["", "Read floors (decode_bench --read-floor: the same K and V read by a "
           "kernel that computes nothing; a paged form's floor is the better of a "
           "kv-head's rows at a time and whole pages), judged by the same goals:", ""]
    out.append(markdown(rows, {}, "").strip())
    out.append("")
    if not misses:
        out.append("- ours meets every goal")
    for goal, kinds in misses.items():
        out.append("- %s, missed by ours on %d: %s" % (
            goal, sum(len(v) for v in kinds.values()),
            "; ".join("%s on %d (%s)" % (kind, len(kinds[kind]), ", ".join(kinds[kind]))
                      for kind in (WALLED, PAGES_ONLY, OPEN) if kind in kinds)))
    return "\n".join(out) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Issue 17 item 5's goals from decode_bench JSON files.")
    parser.add_argument("files", nargs="+", metavar="FILE[:SLOT]",
                        help="a decode_bench --json file, and the name of the "
                             "build in its main slot (default main)")
    parser.add_argument("--build", default="main",
                        help="the build whose goals are printed (default main)")
    parser.add_argument("--floors", action="store_true",
                        help="judge the goals on the files' read floors too "
                             "(decode_bench --read-floor) and split ours' misses "
                             "into those a pure reader misses too and the others")
    parser.add_argument("--long-length", type=int, default=131072,
                        help="the length of the long rows, which the read-ceiling "
                             "goal is judged on (default 131072)")
    args = parser.parse_args(argv)
    processes = []
    for arg in args.files:
        path, _, slot = arg.partition(":")
        with open(path) as f:
            data = json.load(f)
        processes.append(build_times(data, slot or "main", args.build, args.floors))
    rows, summary = goals(processes, args.long_length)
    header = "<!-- python3 -m flash_mlir.tools.decode_goals --build %s%s %s -->" % (
        args.build, " --floors" if args.floors else "", " ".join(args.files))
    print(markdown(rows, summary, header))
    if args.floors:
        print(floors_markdown(*floor_goals(processes, args.long_length)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
