#!/usr/bin/env python3
"""Rewrite a decode bundle's PTX with L2 eviction hints (an experiment of the fifty-third
session, by hand; never in CI):

  hint.py IN.ptx OUT.ptx [--meta evict_last] [--kv evict_first]

--meta: every `ld.global.b32` (in the paged kernels: the sequence length and the
  block-table entries; the partials are read by `ld.volatile`) gets `.L2::cache_hint` with
  a `createpolicy.fractional.L2::<policy>` made at the kernel's entry.
--kv: every `cp.async.cg.shared.global` (the Q, K and V tile copies) the same.
"""
import argparse
import re

ap = argparse.ArgumentParser()
ap.add_argument("src")
ap.add_argument("dst")
ap.add_argument("--meta", choices=["evict_last", "evict_first", "evict_normal"])
ap.add_argument("--kv", choices=["evict_last", "evict_first", "evict_normal"])
a = ap.parse_args()

lines = open(a.src).read().split("\n")
out, in_entry, counts = [], False, {"entry": 0, "meta": 0, "kv": 0}
ld = re.compile(r"^(\s*)ld\.global\.b32(\s+)(%r\d+), (\[[^\]]*\]);$")
cp = re.compile(r"^(\s*)cp\.async\.cg\.shared\.global (\[[^\]]*\]), (\[[^\]]*\]), 16(, %r\d+)?;$")
for line in lines:
    if line.startswith(".visible .entry") or line.startswith(".entry"):
        in_entry = True
    out.append(line)
    if in_entry and line == "{":
        in_entry = False
        counts["entry"] += 1
        if a.meta:
            out.append("\t.reg .b64 \t%hmeta;")
            out.append(f"\tcreatepolicy.fractional.L2::{a.meta}.b64 \t%hmeta, 1.0;")
        if a.kv:
            out.append("\t.reg .b64 \t%hkv;")
            out.append(f"\tcreatepolicy.fractional.L2::{a.kv}.b64 \t%hkv, 1.0;")
        continue
    if a.meta and (m := ld.match(line)):
        out[-1] = f"{m[1]}ld.global.L2::cache_hint.b32{m[2]}{m[3]}, {m[4]}, %hmeta;"
        counts["meta"] += 1
    elif a.kv and (m := cp.match(line)):
        out[-1] = f"{m[1]}cp.async.cg.shared.global.L2::cache_hint {m[2]}, {m[3]}, 16{m[4] or ''}, %hkv;"
        counts["kv"] += 1
open(a.dst, "w").write("\n".join(out))
print(a.dst, counts)
