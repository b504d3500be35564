"""Tables of the twenty-fifth session's H200 runs (docs/benchmarks.md).

  python3 tables.py pooled   # main's backward against cuDNN: each run's ratio and the pooled one
  python3 tables.py run1     # run 1: the 15-round D = 128 rows, forward + backward
  python3 tables.py noise    # run 4: power, SM clock and the rounds' spread

Ratio = cuDNN's time / ours (> 1: ours faster), from the medians of the rounds. "pooled" takes
the median over every round of every run of main's kernels (the same PTX in all of them: runs 1
(run1x, run1y: its 15-round D = 128 rows), 4 and 5 `b90`, the kept-zero runs' `main` variant;
run 4 times three rows only, with rounds of 25, 5 and 10 ms)."""
import json, pathlib, statistics as st, sys

HERE = pathlib.Path(__file__).resolve().parent
KZ = HERE.parent / "s25-kz-h200-2026-12-03"
RUNS = [("run1", HERE / "run1/bench-bwd.json", "flash_mlir"),
        ("run1x", HERE / "run1/nc-a.json", "flash_mlir"),
        ("run1y", HERE / "run1/nc-b.json", "flash_mlir"),
        ("kz1a", KZ / "run1/bench1.json", "flash_mlir_main"),
        ("kz1b", KZ / "run1/bench2.json", "flash_mlir_main"),
        ("kz2a", KZ / "run2/bench1.json", "flash_mlir_main"),
        ("kz2b", KZ / "run2/bench2.json", "flash_mlir_main"),
        ("run4a", HERE / "run4-noise/r25.json", "flash_mlir"),
        ("run4b", HERE / "run4-noise/r5.json", "flash_mlir"),
        ("run4c", HERE / "run4-noise/d64.json", "flash_mlir"),
        ("run5a", HERE / "run5/bwd-a.json", "flash_mlir"),
        ("run5b", HERE / "run5/bwd-b.json", "flash_mlir")]


def ratio(ours, cudnn):
    return st.median(cudnn) / st.median(ours)


def pooled():
    rows = {}
    for tag, path, key in RUNS:
        for r in json.loads(path.read_text())["rows"]:
            k = (r["D"], int(r["causal"]), r["N"])
            rows.setdefault(k, {})[tag] = (r["round_ms"][key], r["round_ms"]["sdpa_cudnn"])
    tags = [t for t, _, _ in RUNS]
    print("| D | causal | N | " + " | ".join(tags) + " | pooled (rounds) |")
    print("|---|---|---|" + "---|" * len(tags) + "---|")
    at_or_above = below = readings = 0
    for k in sorted(rows):
        cells, ours, cudnn = [], [], []
        for t in tags:
            if t not in rows[k]:
                cells.append("")
                continue
            a, c = rows[k][t]
            x = ratio(a, c)
            below += x < 1
            readings += 1
            cells.append(f"{x:.3f}" if x >= 1 else f"**{x:.3f}**")
            ours += a
            cudnn += c
        p = ratio(ours, cudnn)
        at_or_above += p >= 1
        print(f"| {k[0]} | {'yes' if k[1] else 'no'} | {k[2]} | " + " | ".join(cells) +
              f" | {p:.3f} ({len(ours)}) |")
    print(f"\npooled at or above cuDNN: {at_or_above} of {len(rows)} rows; "
          f"single-run readings below: {below} of {readings}")
    for t in tags:
        xs = [ratio(*rows[k][t]) for k in rows if t in rows[k]]
        print(f"{t}: {sum(x >= 1 for x in xs)} of {len(xs)} rows at or above")


def run1():
    for name in ("nc-a", "nc-b"):
        for r in json.loads((HERE / f"run1/{name}.json").read_text())["rows"]:
            m = r["round_ms"]
            paired = [c / a for a, c in zip(m["flash_mlir"], m["sdpa_cudnn"])]
            print(f"{name} D={r['D']} N={r['N']}: {len(paired)} rounds, ratio "
                  f"{ratio(m['flash_mlir'], m['sdpa_cudnn']):.3f}, per-round "
                  f"{min(paired):.3f}-{max(paired):.3f}, ours {min(m['flash_mlir']):.3f}-"
                  f"{max(m['flash_mlir']):.3f} ms")
    rows = json.loads((HERE / "run1/bench-train.json").read_text())["rows"]
    xs = [(r["D"], r["causal"], r["N"], r["tflops"]["flash_mlir"] / r["tflops"]["sdpa_cudnn"])
          for r in rows]
    print("forward + backward:", " ".join(f"D{d}{'c' if c else ''}{n}:{x:.3f}" for d, c, n, x in xs),
          f"-> {sum(x >= 1 for *_, x in xs)} of {len(xs)} at or above")


def noise():
    samples = []
    for line in (HERE / "run4-noise/dmon.txt").read_text().splitlines():
        if line.startswith("#"):
            continue
        p = line.split()
        samples.append((p[0], int(p[2]), int(p[6])))
    busy = [s for s in samples if s[1] > 500]
    print(f"dmon: {len(busy)} one-second samples above 500 W: power {min(s[1] for s in busy)}-"
          f"{max(s[1] for s in busy)} W, SM clock {min(s[2] for s in busy)}-{max(s[2] for s in busy)}"
          f" MHz (idle boost {max(s[2] for s in samples)} MHz)")
    for name in ("r25", "r5", "d64"):
        for r in json.loads((HERE / f"run4-noise/{name}.json").read_text())["rows"]:
            m = r["round_ms"]
            a, c = m["flash_mlir"], m["sdpa_cudnn"]
            print(f"{name} D={r['D']} N={r['N']}: {len(a)} rounds of {json.loads((HERE / f'run4-noise/{name}.json').read_text())['rep_ms']} ms,"
                  f" ratio {ratio(a, c):.3f}, max/min of the rounds: ours {max(a) / min(a):.3f},"
                  f" cuDNN {max(c) / min(c):.3f}")


{"pooled": pooled, "run1": run1, "noise": noise}[sys.argv[1] if len(sys.argv) > 1 else "pooled"]()
