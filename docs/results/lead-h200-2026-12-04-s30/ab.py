"""Thirtieth session: a build of the paged kernels against main per row and process, and the
issue's goals for both. Each argument is FILE:NEW:MAIN, the json of one decode_bench process
and the bracketed variant names of the new build and of main in it ('' for the bundles' own
timings), e.g. run1/ab-a.json:new: run1/ab-b.json::main.
Usage: python3 ab.py ARG [ARG ...]"""
import json, sys

def rows(path):
    d = json.load(open(path))
    return {f"GQA {r['Hq']}/{r['Hkv']} B={r['B']} L={r['L']}": r['impls'] for r in d['rows']}

def name(base, v):
    return f"{base} [{v}]" if v else base

procs = []
for arg in sys.argv[1:]:
    path, new, main = arg.split(':')
    procs.append((path, rows(path), new, main))
keys = list(procs[0][1])

def t(impls, base, v):
    return impls[name(base, v)]['ms'] * 1000

# The page sizes timed (decode_bench --page-sizes; 16 and 64 by default).
sizes = [s for s in (16, 64) if f"paged S={s}" in procs[0][1][keys[0]]]
head = ([f"S={s} new/main" for s in sizes]
        + [c for s in sizes for c in (f"S={s} % of contiguous: new", "main")]
        + [c for s in sizes for c in (f"cuDNN / S={s}: new", "main")])
print("| row | " + " | ".join(head) + " |")
print("|---|" + "---|" * len(head))
for k in keys:
    n = len(sizes)
    cols = {c: [] for c in range(5 * n)}
    for _, R, new, main in procs:
        I = R[k]
        contig = t(I, 'split_kv contiguous', '' if main == '' else None) if main == '' else t(I, 'split_kv', main)
        cudnn = I['SDPA cuDNN']['ms'] * 1000
        for j, s in enumerate(sizes):
            tn, tm = t(I, f'paged S={s}', new), t(I, f'paged S={s}', main)
            cols[j].append(f"{tn / tm:.3f}")
            cols[n + 2 * j].append(f"{100 * contig / tn:.1f}")
            cols[n + 1 + 2 * j].append(f"{100 * contig / tm:.1f}")
            cols[3 * n + 2 * j].append(f"{cudnn / tn:.3f}")
            cols[3 * n + 1 + 2 * j].append(f"{cudnn / tm:.3f}")
    print(f"| {k} | " + " | ".join(" / ".join(cols[c]) for c in range(5 * n)) + " |")
print()
print("Processes: " + ", ".join(p[0] for p in procs) + ". Contiguous is main's contiguous"
      " plan (unchanged by the build) in each process.")
