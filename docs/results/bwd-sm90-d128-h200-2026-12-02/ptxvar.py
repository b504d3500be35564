"""Timing-only edits of the D = 128 sm_90a backward's PTX (the dQ writer's loop):
  python3 ptxvar.py IN.ptx OUT.ptx nored|red50|nowait
nored: the bulk reduction left out (dQ wrong); red50: it adds half the tile's bytes
(its size operand's shift by 9 made 8; dQ wrong); nowait: the writer does not wait for
the reduction to have read the staged tile before it frees it (the consumers may
overwrite it while it is read: dQ wrong; what a second dQ tile could gain at most)."""
import re, sys
src, dst, kind = sys.argv[1:4]
lines = open(src).read().split("\n")
red = [i for i, l in enumerate(lines) if "cp.reduce.async.bulk" in l]
assert len(red) == 1, red
i = red[0]
size = re.search(r"\], (%r\d+);", lines[i]).group(1)
if kind == "nored":
    lines[i] = "\t// " + lines[i].strip()
elif kind == "red50":
    j = max(k for k in range(i) if re.match(rf"\s*shl\.b32\s+{re.escape(size)}, %r\d+, 9;", lines[k]))
    lines[j] = lines[j].replace(", 9;", ", 8;")
elif kind == "nowait":
    assert lines[i + 2].strip() == "cp.async.bulk.commit_group;" and "wait_group.read" in lines[i + 3], lines[i:i + 4]
    lines[i + 3] = "\t// " + lines[i + 3].strip()
else:
    raise SystemExit("kind?")
open(dst, "w").write("\n".join(lines))
