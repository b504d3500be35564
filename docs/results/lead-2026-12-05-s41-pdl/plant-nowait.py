#!/usr/bin/env python3
"""The plant of the forty-first session's chain check: the PTX of a decode
plan with every split kernel's griddepcontrol.wait removed (the merge
kernel's kept), so that a split kernel launched with programmatic dependent
launch may read and write global memory while the kernel before it runs.

  plant-nowait.py IN.ptx OUT.ptx      (prints how many waits it removed)
"""
import re
import sys

src, dst = sys.argv[1:3]
out, entry, removed = [], None, 0
for line in open(src):
    m = re.match(r"\.visible \.entry (\w+)\(", line.strip())
    if m:
        entry = m.group(1)
    if line.strip() == "griddepcontrol.wait;" and entry and not entry.endswith("_merge"):
        removed += 1
        continue
    out.append(line)
open(dst, "w").writelines(out)
print(removed)
