"""Sums JUnit XML reports into the one line CI reads: "N passed, N failed".

A missing or unreadable report counts as one failure, so that a runner that
crashed before writing its report can not pass silently. Exit status is 0 only
when nothing failed and at least one test ran.
"""
import sys
import xml.etree.ElementTree as ET


def count(path):
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as err:
        print(f"summarize-tests: cannot read {path}: {err}", file=sys.stderr)
        return 0, 1, 0
    passed = failed = skipped = 0
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def main(paths):
    passed = failed = skipped = 0
    for path in paths:
        p, f, s = count(path)
        passed, failed, skipped = passed + p, failed + f, skipped + s
    line = f"{passed} passed, {failed} failed"
    if skipped:
        line += f", {skipped} skipped"
    print(line)
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
