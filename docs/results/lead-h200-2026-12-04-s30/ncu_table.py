"""Thirtieth session, runs 2-3: main's separate split kernels (contiguous, paged S = 16 over
the same bytes) and run 1's paged `new`, from ncu's csv pages: cycles and duration (run 2's
SpeedOfLight), warp instructions executed, and the share of warp-stall samples per reason
(run 3: a sample every 32 cycles). Usage: python3 ncu_table.py (from this folder)."""
import csv

from stalls import kernels, num

def details(path):
    out = {}
    rows = list(csv.reader(open(path)))
    hdr = rows[0]
    for row in rows[1:]:
        d = dict(zip(hdr, row))
        out.setdefault(d['Kernel Name'], {})[d['Metric Name']] = d['Metric Value']
    return out

def short(name):
    return 'paged S=16' if '_paged_' in name else 'contiguous'

print("| run | L | build | kernel | cycles | µs | warp instructions | stall samples | no_inst | long_sb | wait | selected | dispatch |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for run, length, build, det, src in [
        ('2', '8k', 'main', 'run2/l8k-details.log', 'run2/l8k-source.log.gz'),
        ('2', '128k', 'main', 'run2/l128k-details.log', 'run2/l128k-source.log.gz'),
        ('3', '8k', 'main', 'run3/main90-8192-details.log', 'run3/main90-8192-source.log.gz'),
        ('3', '32k', 'main', 'run3/main90-32768-details.log', 'run3/main90-32768-source.log.gz'),
        ('3', '8k', 'new', 'run3/new90-8192-details.log', 'run3/new90-8192-source.log.gz'),
        ('3', '32k', 'new', 'run3/new90-32768-details.log', 'run3/new90-32768-source.log.gz')]:
    D = details(det)
    for name, rows in kernels(src).items():
        m = D.get(name, {})
        samples = sum(num(r['Warp Stall Sampling (All Samples)']) for r in rows)
        share = lambda k: f"{100 * sum(num(r['stall_' + k]) for r in rows) / samples:.1f}%"
        print(f"| {run} | {length} | {build} | {short(name)} | {m.get('Elapsed Cycles', '')} | "
              f"{m.get('Duration', '')} | {m.get('Executed Instructions', '')} | {samples:,.0f} | "
              f"{share('no_inst')} | {share('long_sb')} | {share('wait')} | {share('selected')} | {share('dispatch')} |")

print()
print("Run 3's no_inst samples by tenth of each kernel's SASS (address order; the last tenth"
      " holds the partials' stores and the exit), as no_inst / all samples:")
print()
print("| L | kernel | " + " | ".join(f"{i + 1}" for i in range(10)) + " |")
print("|---|---|" + "---|" * 10)
for length, src in [('8k', 'run3/main90-8192-source.log.gz'), ('32k', 'run3/main90-32768-source.log.gz')]:
    for name, rows in kernels(src).items():
        n = len(rows)
        cells = []
        for i in range(10):
            part = rows[i * n // 10:(i + 1) * n // 10]
            cells.append(f"{sum(num(r['stall_no_inst']) for r in part):.0f} / "
                         f"{sum(num(r['Warp Stall Sampling (All Samples)']) for r in part):.0f}")
        print(f"| {length} | {short(name)} | " + " | ".join(cells) + " |")
