"""The kept-zero accumulator's two H200 runs against main, in the same rounds (docs/benchmarks.md,
twenty-fifth session). python3 tables.py [run1|run2]: candidate / main (speed: main's time over the
candidate's; > 1 = the candidate faster), per benchmark process, and the checks' lines."""
import json, pathlib, statistics as st, sys

HERE = pathlib.Path(__file__).resolve().parent
run = sys.argv[1] if len(sys.argv) > 1 else "run2"
benches = [json.loads((HERE / run / f"bench{i}.json").read_text())["rows"] for i in (1, 2)]
print(f"{run}: candidate / main, two processes of 9 rounds")
print("| D | causal | " + " | ".join(f"{r['N']}" for r in benches[0][:6]) + " |")
print("|---|---|" + "---|" * 6)
rows = {}
for rs in benches:
    for r in rs:
        m = r["round_ms"]
        rows.setdefault((r["D"], r["causal"]), {}).setdefault(r["N"], []).append(
            st.median(m["flash_mlir_main"]) / st.median(m["flash_mlir"]))
for (d, c), byn in sorted(rows.items()):
    print(f"| {d} | {'yes' if c else 'no'} | " + " | ".join(
        " / ".join(f"{x:.3f}" for x in xs) for _, xs in sorted(byn.items())) + " |")
allx = [x for byn in rows.values() for xs in byn.values() for x in xs]
print(f"range {min(allx):.3f}-{max(allx):.3f}")
print((HERE / run / "steps.txt").read_text())
