"""Tables of H2's run (twenty-third session) from decode_bench's JSON files.

  python3 tables.py pages raw/bench.json [raw/bench-gap.json]
      per row: contiguous, paged shuffled and sequential (S = 16, 64) in us and in %
      of contiguous (contiguous / paged time), sequential / shuffled time as median
      [min, max] of the per-round ratios, and the noise floor: the second copy of
      main's bundles ('[again]') against the first, shuffled S = 16.
  python3 tables.py diag raw/bench-diag.json
      per row: sequential S = 16 / S = 64 of main ('[main]') and of the diagnostics
      L, LS, LSN (ratio to main's sequential, per round), contiguous, and each one's
      % of contiguous.
"""
import json
import statistics
import sys


def rounds_ratio(a, b):
    """median [min, max] of a[r] / b[r] over the rounds."""
    r = [x / y for x, y in zip(a["all_ms"], b["all_ms"])]
    return f"{statistics.median(r):.3f} [{min(r):.3f}, {max(r):.3f}]"


def us(x):
    return f"{x['ms'] * 1e3:.2f}"


def label(row):
    return f"GQA {row['Hq']}/{row['Hkv']} B={row['B']} L={row['L'] // 1024}k"


def pages(path):
    data = json.load(open(path))
    print(f"{path} (read ceiling {data['ceiling_TBps']:.2f} TB/s)\n")
    print("| row | contiguous | S=16 shuffled | S=16 sequential | S=16 seq / shuf | "
          "S=64 shuffled | S=64 sequential | S=64 seq / shuf | noise: [again] / main, S=16 shuf |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in data["rows"]:
        m = row["impls"]
        c = m["split_kv contiguous"]
        cells = [label(row), us(c)]
        for page in (16, 64):
            sh, sq = m.get(f"paged S={page}"), m.get(f"paged S={page} seq")
            for x in (sh, sq):
                cells.append(f"{us(x)} ({100 * c['ms'] / x['ms']:.1f}%)" if x and "ms" in x else "–")
            cells.append(rounds_ratio(sq, sh) if sh and sq and "ms" in sh and "ms" in sq else "–")
        again = m.get("paged S=16 [again]")
        cells.append(rounds_ratio(again, m["paged S=16"]) if again and "ms" in again else "–")
        print("| " + " | ".join(cells) + " |")
    print()


def diag(path):
    data = json.load(open(path))
    names = ["main", "L", "LS", "LSN"]
    print(f"{path} (read ceiling {data['ceiling_TBps']:.2f} TB/s); sequential pages\n")
    for page in (16, 64):
        print(f"S = {page}: us (% of contiguous); ratio to main's sequential, median [min, max] over rounds\n")
        print("| row | contiguous | " + " | ".join(names) + " |")
        print("|---|---|" + "---|" * len(names))
        for row in data["rows"]:
            m = row["impls"]
            c = m["split_kv contiguous"]
            base = m.get(f"paged S={page} seq [main]")
            cells = [label(row), us(c)]
            for n in names:
                x = m.get(f"paged S={page} seq [{n}]")
                if not x or "ms" not in x:
                    cells.append("–")
                    continue
                cell = f"{us(x)} ({100 * c['ms'] / x['ms']:.1f}%)"
                if n != "main" and base and "ms" in base:
                    cell += " " + rounds_ratio(x, base)
                cells.append(cell)
            print("| " + " | ".join(cells) + " |")
        print()


if __name__ == "__main__":
    kind, files = sys.argv[1], sys.argv[2:]
    for f in files:
        {"pages": pages, "diag": diag}[kind](f)
