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

print("| row | S=16 new/main | S=64 new/main | S=16 % of contiguous: new | main | S=64: new | main | cuDNN / S=16: new | main | cuDNN / S=64: new | main |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for k in keys:
    cols = {c: [] for c in range(10)}
    for _, R, new, main in procs:
        I = R[k]
        contig = t(I, 'split_kv contiguous', '' if main == '' else None) if main == '' else t(I, 'split_kv', main)
        cudnn = I['SDPA cuDNN']['ms'] * 1000
        for j, s in enumerate((16, 64)):
            n, m = t(I, f'paged S={s}', new), t(I, f'paged S={s}', main)
            cols[j].append(f"{n / m:.3f}")
            cols[2 + 2 * j].append(f"{100 * contig / n:.1f}")
            cols[3 + 2 * j].append(f"{100 * contig / m:.1f}")
            cols[6 + 2 * j].append(f"{cudnn / n:.3f}")
            cols[7 + 2 * j].append(f"{cudnn / m:.3f}")
    print(f"| {k} | " + " | ".join(" / ".join(cols[c]) for c in range(10)) + " |")
print()
print("Processes: " + ", ".join(p[0] for p in procs) + ". Contiguous is main's contiguous"
      " plan (unchanged by the build) in each process.")
