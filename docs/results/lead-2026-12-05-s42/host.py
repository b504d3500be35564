"""Prints run 2's host-time table (markdown): µs per call, median over the rounds
(min in brackets), of main's runtime (host-main*.json) and the new one
(host-new*.json), one column per process in the order they ran, and the torch op's
time over SDPA default's in the same process.

  python3 host.py run2        # host-run2.md
"""
import json
import sys
from pathlib import Path

ROWS = ["paged (KernelLibrary)", "split_kv (KernelLibrary)",
        "torch.ops.flash_mlir.paged_attention", "torch.ops.flash_mlir.paged_attention.default",
        "SDPA default", "SDPA cuDNN", "SDPA FA2", "part: flash_plan_launch (runtime alone)",
        "part: the prepared call", "part: the signature", "part: torch.empty_like(q)",
        "part: a torch op whose CUDA kernel returns q"]


def main(folder):
    runs = []
    for i in range(1, 10):
        for kind in ("main", "new"):
            f = Path(folder) / f"host-{kind}{i}.json"
            if f.exists():
                runs.append((f"{kind} {i}", json.loads(f.read_text())["us_per_call"]))
    print(f"<!-- python3 host.py {folder} -->")
    print("| µs per call, median (min) | " + " | ".join(n for n, _ in runs) + " |")
    print("|---|" + "---|" * len(runs))
    for row in ROWS:
        cells = [f"{r[row]['median']:.1f} ({r[row]['min']:.1f})" if row in r else "" for _, r in runs]
        print(f"| {row} | " + " | ".join(cells) + " |")
    op, sdpa = "torch.ops.flash_mlir.paged_attention.default", "SDPA default"
    print("| torch op (.default) / SDPA default, medians | " +
          " | ".join(f"{r[op]['median'] / r[sdpa]['median']:.3f}" for _, r in runs) + " |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "run2")
