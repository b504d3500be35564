#!/usr/bin/env python3
"""Rewrite a plan's PTX compiled by branch s54-ef-gate (K/V copies under the per-call L2
policy: `selp.b64 %rdP, <evict-first>, <evict-normal>, %p`) into one of three variants, to
tell where that branch's warm slowdown on L2-resident rows comes from (an experiment of the
fifty-sixth session, by hand; never in CI):

  policy-edit.py IN.ptx OUT.ptx nh|eu|el

nh: no policy at all: every `cp.async.cg.shared.global.L2::cache_hint` loses the hint and
    its policy operand (the branch's code otherwise: is the slowdown the policy's?).
eu: under the gate's bound, `createpolicy.fractional.L2::evict_unchanged` instead of the
    evict-normal constant (over it, evict-first as before).
el: the same with `L2::evict_last`.
"""
import re
import sys

src, dst, mode = sys.argv[1:4]
text = open(src).read()
normal = "1652821063244972032"  # kL2EvictNormalPolicy, 0x16F0000000000000
if mode == "nh":
    text, n = re.subn(r"cp\.async\.cg\.shared\.global\.L2::cache_hint (\[[^\]]*\]), (\[[^\]]*\]), 16(, %r\d+)?, %rd\d+;",
                      r"cp.async.cg.shared.global \1, \2, 16\3;", text)
else:
    prio = {"eu": "evict_unchanged", "el": "evict_last"}[mode]
    sel = re.compile(r"^(\s*)selp\.b64 \t(%rd\d+), (\d+), " + normal + r", (%p\d+);$", re.M)
    text, n = sel.subn(lambda m: "%s{\n%s.reg .b64 %%hpol;\n%screatepolicy.fractional.L2::%s.b64 %%hpol, 1.0;\n"
                       "%sselp.b64 %s, %s, %%hpol, %s;\n%s}" % (m[1], m[1], m[1], prio, m[1], m[2], m[3], m[4], m[1]),
                       text)
if n == 0 or "cache_hint" in text and mode == "nh":
    sys.exit("%s: nothing rewritten in %s" % (mode, src))
open(dst, "w").write(text)
print("%s: %d rewritten" % (mode, n))
