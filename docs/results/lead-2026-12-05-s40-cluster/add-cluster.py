"""Adds `.explicitcluster` and `.reqnctapercluster 1, C, 1` to every split
kernel of a decode bundle's PTX (not its `_merge` kernel), for the cluster
experiment of the fortieth session (README.md here). Usage:
  python3 add-cluster.py C IN.ptx OUT.ptx
Prints how many kernels it changed."""
import re
import sys

c, src, dst = sys.argv[1:]
out, kernel, changed = [], None, 0
for line in open(src).read().split("\n"):
    m = re.match(r"\.visible \.entry (\w+)\(", line)
    if m:
        kernel = m.group(1)
    out.append(line)
    if line == ".maxnreg 255" and kernel and not kernel.endswith("_merge"):
        out += [".explicitcluster", ".reqnctapercluster 1, %s, 1" % c]
        changed += 1
open(dst, "w").write("\n".join(out))
print(changed)
