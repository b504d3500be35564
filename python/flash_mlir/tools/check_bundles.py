"""Checks a directory of kernel bundles: every cubin assembled without spills.

  python3 -m flash_mlir.tools.check_bundles DIR [--expect N] [--sass REGEX]

Prints one line per cubin of every launch plan's kernels (kernel, arch,
registers, spill stores/loads, stack)
and exits 1 if any cubin spills or has a stack frame, or if fewer than N
bundles are present. With --sass, each cubin is disassembled (cuobjdump
-sass: $CUOBJDUMP, else cuobjdump on PATH; PyPI's nvidia-cuda-cuobjdump
has one, and it calls nvdisasm: $NVDISASM_PATH or PATH) and the line also counts the SASS instructions matching REGEX
(e.g. 'UTC[A-Z0-9]*MMA' for Blackwell's tcgen05.mma); none is BAD.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys


def sass_count(cubin: str, pattern: str) -> int:
    """Instructions of cubin's SASS whose text matches pattern."""
    tool = os.environ.get("CUOBJDUMP") or shutil.which("cuobjdump")
    if not tool:
        raise SystemExit("--sass needs cuobjdump (set CUOBJDUMP or put it on PATH)")
    proc = subprocess.run([tool, "-sass", cubin], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{tool} -sass {cubin} failed (it needs nvdisasm: "
                         f"NVDISASM_PATH or PATH):\n{proc.stderr}")
    sass = proc.stdout
    regex = re.compile(pattern)
    return sum(1 for line in sass.splitlines() if line.strip().startswith("/*")
               and regex.search(line))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--expect", type=int, default=1)
    ap.add_argument("--sass", default=None,
                    help="regex of SASS instructions every cubin must contain")
    args = ap.parse_args(argv)
    paths = sorted(glob.glob(os.path.join(args.dir, "*.json")))
    bad = 0
    for path in paths:
        with open(path) as f:
            meta = json.load(f)
        for kernel in meta["kernels"]:
            for arch, c in sorted(kernel["files"]["cubins"].items()):
                spills = c.get("spill_stores", -1) + c.get("spill_loads", -1)
                ok = spills == 0 and c.get("stack_frame", -1) == 0
                sass = ""
                if args.sass:
                    found = sass_count(os.path.join(args.dir, c["file"]), args.sass)
                    ok &= found > 0
                    sass = f" sass[{args.sass}]={found}"
                bad += not ok
                print(f"{'OK  ' if ok else 'BAD '}{kernel['name']} {arch} "
                      f"registers={c.get('registers')} spill_stores={c.get('spill_stores')} "
                      f"spill_loads={c.get('spill_loads')} stack={c.get('stack_frame')}{sass}")
    if len(paths) < args.expect:
        print(f"BAD only {len(paths)} bundles, expected {args.expect}")
        bad += 1
    print(f"{len(paths)} bundles, {bad} bad")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
