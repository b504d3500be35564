"""bench with each do_bench call's wall-clock start/end recorded (to line rounds up with
nvidia-smi dmon's per-second samples). Usage: timed_bench.py OUT.json BENCH-ARGS..."""
import json, sys, time
import triton.testing as tt
from flash_mlir.tools import bench

marks = []
_orig = tt.do_bench

def do_bench(fn, *a, **k):
    t0 = time.time()
    r = _orig(fn, *a, **k)
    marks.append({"t0": t0, "t1": time.time(), "ms": r})
    return r

tt.do_bench = do_bench
out = sys.argv[1]
try:
    bench.main(sys.argv[2:])
finally:
    json.dump(marks, open(out, "w"))
