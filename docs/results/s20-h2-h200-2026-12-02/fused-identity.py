#!/usr/bin/env python3
"""The fused-merge split kernel <name> of every sm_90a decode bundle in DIR against
main f4eef72's (BEFORE: before the separate merge), function body by function body,
ignoring only the declaration of the dynamic shared-memory symbol (module scope
with several kernels, function scope with one); and the merge kernel <name>_merge
against main 67f485d's (MAIN), label numbers normalised.
  python3 fused-identity.py DIR /work/baseline-new/sm90a-dec /work/baseline-s20/sm90a"""
import glob, os, re, sys

def funcs(path):
    parts = re.split(r'(?=^\.visible \.entry )', open(path).read(), flags=re.M)
    return {re.search(r'\.entry (\w+)\(', p).group(1): p for p in parts[1:]}

def norm(body):
    return [l for l in body.splitlines() if 'demoted variable' not in l
            and not re.match(r'\s*\.shared .*__dynamic_shmem__0;', l)
            and l.strip() and not l.strip().startswith('// .globl')]

new, before, main = sys.argv[1:4]
fused = merge = total = 0
for f in sorted(glob.glob(os.path.join(new, '*.ptx'))):
    b = os.path.basename(f); n = b[:-4]; total += 1
    ours = funcs(f)
    fused += norm(ours[n]) == norm(funcs(os.path.join(before, b))[n])
    lab = lambda s: re.sub(r'\$L__BB\d+_', '$L__BB_', s)
    merge += lab(ours[n + '_merge']) == lab(funcs(os.path.join(main, b))[n + '_merge'])
print(f"fused split kernel = f4eef72's: {fused}/{total}; merge kernel = 67f485d's: {merge}/{total}")
