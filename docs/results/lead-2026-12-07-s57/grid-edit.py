"""Writes a copy of decode bundles whose launch plans size the split kernels'
grid x as before the fifty-seventh session (splitKVMaxSplits alone): every
`["min", X, CAP]` whose CAP is the bound by capacity that splitKVGridParts adds
(`max(ceildiv(ceildiv(M*S or Nk, 64) - 1, 2), 1)`) becomes X, in the grid and
the cluster formulas. The kernels (cubins) are copied as they are: the change
is in the plans only.

    python3 grid-edit.py NEW_DIR OUT_DIR [--against OLD_DIR]

--against checks that the edited plans equal OLD_DIR's (main's before the
change, compiled by its own flash-opt) apart from the kernels' text
descriptions, so that the edit is known to give the old grid exactly."""
import json
import pathlib
import shutil
import sys


def is_capacity_bound(x):
    return (isinstance(x, list) and x[:1] == ["max"] and len(x) == 3 and x[2] == 1
            and isinstance(x[1], list) and x[1][:1] == ["ceildiv"]
            and isinstance(x[1][1], list) and x[1][1][:1] == ["sub"]
            and isinstance(x[1][1][1], list) and x[1][1][1][:1] == ["ceildiv"]
            and x[1][1][1][1] in (["mul", "M", "S"], "Nk"))


def edit(x, count):
    if isinstance(x, list):
        if x[:1] == ["min"] and len(x) == 3 and is_capacity_bound(x[2]):
            count[0] += 1
            return edit(x[1], count)
        return [edit(y, count) for y in x]
    if isinstance(x, dict):
        return {k: (v if k == "description" else edit(v, count)) for k, v in x.items()}
    return x


def strip_descriptions(plan):
    return {**plan, "kernels": [{k: v for k, v in kern.items() if k != "description"}
                                for kern in plan["kernels"]]}


def main(argv):
    new, out = pathlib.Path(argv[0]), pathlib.Path(argv[1])
    against = pathlib.Path(argv[3]) if len(argv) > 3 and argv[2] == "--against" else None
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(new, out)
    edits = 0
    for path in sorted(out.glob("*.json")):
        count = [0]
        plan = edit(json.loads(path.read_text()), count)
        if count[0] == 0:
            raise SystemExit(f"{path.name}: no capacity bound found")
        edits += count[0]
        path.write_text(json.dumps(plan))
        if against is not None:
            old = json.loads((against / path.name).read_text())
            if strip_descriptions(plan) != strip_descriptions(old):
                raise SystemExit(f"{path.name}: the edited plan differs from {against}'s")
    print(f"{edits} grid formulas edited in {len(list(out.glob('*.json')))} plans"
          + (f", equal to {against}'s" if against else ""))


if __name__ == "__main__":
    main(sys.argv[1:])
