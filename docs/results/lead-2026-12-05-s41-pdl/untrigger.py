#!/usr/bin/env python3
"""Run 2's variants of the forty-first session: the PTX of a decode plan with
some griddepcontrol.launch_dependents removed, so that the kernels after
them launch when the kernel completes instead of early.

  untrigger.py IN.ptx OUT.ptx merge|fused|both
merge: the merge kernel's trigger at its start (the next call's split kernel
launches when the merge completes); fused: the fused merge's split kernels'
trigger after their K/V loop (`<name>`, `<name>_s16`, `<name>_s64`); both.
The separate merge's split kernels keep theirs. Prints how many it removed."""
import re
import sys

src, dst, which = sys.argv[1:4]
out, entry, removed = [], None, 0
for line in open(src):
    m = re.match(r"\.visible \.entry (\w+)\(", line.strip())
    if m:
        entry = m.group(1)
    if line.strip() == "griddepcontrol.launch_dependents;" and entry:
        merge = entry.endswith("_merge")
        fused = not merge and "_separate" not in entry
        if (merge and which in ("merge", "both")) or (fused and which in ("fused", "both")):
            removed += 1
            continue
    out.append(line)
open(dst, "w").writelines(out)
print(removed)
