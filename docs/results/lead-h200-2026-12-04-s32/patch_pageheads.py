"""Runs 4-5's plans (thirty-second session, an experiment, not shipped): the paged plans
compiled with FLASH_DECODE_EXP=pageheads carry `_s16` and `_s64` kernels of 8 warps, a
block for every kv-head of a part (at most 32 parts, one block an SM); with
FLASH_DECODE_EXP=pageheads4 kernels of 4 warps, a block for 4 kv-heads of a part (two
blocks an SM). This rewrites their launch in each plan JSON of DIR (block, shared
memory, grid: x = clamp(SMs / B, 1, 32), y = Hkv / heads; the partials' workspaces sized
for the larger of both part counts).
Usage: python3 patch_pageheads.py DIR [HEADS]   (HEADS 8, the default, or 4)"""
import json
import pathlib
import sys

PARTS = ["max", ["min", ["ceildiv", ["sub", "SMs", ["sub", "B", 1]], "B"], 32], 1]
HEADS = int(sys.argv[2]) if len(sys.argv) > 2 else 8
SHARED = HEADS * 16 * 128 * 2 + 2 * 3 * 16 * HEADS * 128 * 2 + (512 if HEADS == 8 else 256) * 4

for path in sorted(pathlib.Path(sys.argv[1]).glob("flash_decode_paged_*.json")):
    plan = json.loads(path.read_text())
    for k in plan["kernels"]:
        if k["name"].endswith(("_s16", "_s64")):
            k["block"] = [32 * HEADS, 1, 1]
            k["dynamic_shared_memory"] = SHARED
            k["grid"]["x"] = PARTS
            k["grid"]["y"] = ["ceildiv", "Hkv", HEADS]
    for w in plan["workspaces"]:
        if w["name"] == "partial_o":
            w["bytes"] = ["max", w["bytes"], ["mul", PARTS, "B", "Hq", "Nq", "Dv", 4]]
        if w["name"] == "partial_lse":
            w["bytes"] = ["max", w["bytes"], ["mul", PARTS, "B", "Hq", "Nq", 4]]
    path.write_text(json.dumps(plan, indent=1))
    print("patched", path)
