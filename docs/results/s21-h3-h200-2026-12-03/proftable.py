"""Per-kernel GPU times from prof.log (prof.py's output) as a markdown table: python3 proftable.py run/prof.log"""
import re, sys
rows = {}; cur = None
for l in open(sys.argv[1]):
    m = re.match(r'D=(\d+) causal=(\d) N=(\d+) (\S+): call\s+([\d.]+) us', l)
    if m:
        cur = (m.group(1), m.group(2), m.group(3)); v = m.group(4); rows.setdefault(cur, {})[v] = {'call': float(m.group(5))}; continue
    m = re.match(r'\s+([\d.]+) us x1\s+(.+)$', l)
    if m and cur:
        k = m.group(2)
        kind = 'pre' if ('preprocess' in k or 'dot_do_o' in k) else 'conv' if ('convert' in k) else 'memset' if k.startswith('Memset') else 'main'
        rows[cur][v][kind] = float(m.group(1))
names = ['main', 'p4', 'default', 'p16', 'cudnn']
print("| D | causal | N | preprocess µs: main / p4 / p8 / p16 / cuDNN | convert µs: main / p4 / p8 / p16 / cuDNN | main kernel µs: main / p4 / p8 / p16 / cuDNN | call µs: main / p4 / p8 / p16 / cuDNN |")
print("|---|---|---|---|---|---|---|")
for (d, c, n), vs in rows.items():
    f = lambda k: ' / '.join(f"{vs[x].get(k, 0):.1f}" for x in names)
    print(f"| {d} | {'yes' if c == '1' else 'no'} | {n} | {f('pre')} | {f('conv')} | {f('main')} | {f('call')} |")
