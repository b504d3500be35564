"""What a split kernel executes (PTX, straight-line order) before its first K/V
cp.async: instructions, global loads, integer divisions, branches. Usage:
python3 ptx_start.py BUNDLE_DIR (the bf16 D = 128 decode bundles)."""
import glob
import re
import sys

SKIP = ('.reg', '//', '.param', '.local', '.shared', '.maxntid', '.minnctapersm',
        '.entry', '.visible', '{', '}', ')', '.pragma', '.target', '.version', '.address_size',
        '.extern', '.align')

for path in sorted(glob.glob(f"{sys.argv[1]}/*bf16_d128.ptx")):
    text = open(path).read()
    for m in re.finditer(r'\.entry (\w+)\(', text):
        name = m.group(1)
        if name.endswith('_merge'):
            continue
        body = text[m.start():]
        body = body[:body.index('\n}\n')]
        lines = [l.strip() for l in body.split('\n')
                 if l.strip() and not l.strip().startswith(SKIP)]
        instrs = [l for l in lines if not l.endswith(':')]
        first_commit = next(k for k, l in enumerate(instrs) if 'cp.async.commit_group' in l)
        first_kv = next(k for k, l in enumerate(instrs)
                        if k > first_commit and 'cp.async.cg' in l)
        head = instrs[:first_kv]
        loads = sum(1 for l in head if re.search(r'ld\.global', l))
        divs = sum(1 for l in head if re.search(r'\b(div|rem)\.[us]', l))
        bras = sum(1 for l in head if re.search(r'\bbra', l))
        print(f"{name}: {first_kv} PTX instructions before the first K/V cp.async "
              f"(straight-line order, both sides of branches); ld.global {loads}, "
              f"div/rem {divs}, branches {bras}")
