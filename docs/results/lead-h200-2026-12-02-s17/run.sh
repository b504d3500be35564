#!/usr/bin/env bash
# Lead's H200 run, seventeenth session: merged main 555fd5d+ (hA shared-memory plans,
# hE 16-byte dQ staging, hD sm_80 strides). new80 = sm_80 fwd+bwd D 64/128/256 (sm_90
# cubins), base = main 4431325's sm_80 bf16 D 64/128 plans, b90 = sm_90a bf16 D 128.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
export PYTHONPATH="$here/python" FLASH_RUNTIME_LIB="$here/lib/libflash_runtime.so" PYTHONUNBUFFERED=1
py=python3
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader;
  $py -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'; } > "$OUT/env.txt" 2>&1
t0=$(date +%s)
step() { echo "== $1 $(( $(date +%s) - t0 ))s" | tee -a "$OUT/steps.txt"; }
run() { name=$1; lim=$2; shift 2; step $name; timeout $lim "$@" > "$OUT/$name.log" 2>&1; echo "rc=$?" >> "$OUT/steps.txt"; tail -1 "$OUT/$name.log"; }
run fwd80 60 $py -m flash_mlir.gpu_check --bundles new80 --layout both --seed 1702 --json "$OUT/fwd80.json"
run bwd80 80 $py -m flash_mlir.gpu_check --mode backward --bundles new80 --layout both --variants --repeat 3 --torch-op --seed 1703 --json "$OUT/bwd80.json"
run fwd90 25 $py -m flash_mlir.gpu_check --bundles b90 --head-dims 128 --dtypes bf16 --layout both --seed 1704 --json "$OUT/fwd90.json"
run bwd90 30 $py -m flash_mlir.gpu_check --mode backward --bundles b90 --head-dims 128 --dtypes bf16 --layout both --deterministic both --repeat 3 --seed 1705 --json "$OUT/bwd90.json"
run profile 30 $py one-launch-profile.py --bundles new80 --label sm80-strides-merged --json "$OUT/profile.json"
run bench_fwd 30 $py -m flash_mlir.bench --bundles new80 --baseline base --head-dims 64,128 --seqlens 2048,8192 --rounds 5 --rep-ms 40 --json "$OUT/bench_fwd.json"
run bench_bwd 30 $py -m flash_mlir.bench --mode backward --bundles new80 --baseline base --head-dims 64,128 --seqlens 2048,8192 --rounds 5 --rep-ms 40 --json "$OUT/bench_bwd.json"
# hC's decode-merge-7 (f6fe662) merge, never timed: dec/new90 (its sm_90a decode plans),
# dec/new80 (its sm_80 ones, sm_90 cubins), dec/base90 = main 4431325's bf16 D=128.
run dec_bench 45 $py -m flash_mlir.tools.decode_bench --bundles dec/new90 --baseline-bundles dec/base90 --gqa 8/1,32/8 --rows 1x8192,1x32768,1x131072,64x1024,128x2048,8x32768 --rounds 3 --json "$OUT/dec_bench.json"
step dec_checks
timeout 50 $py -m flash_mlir.tools.decode_check --bundles dec/new90 --json "$OUT/dec_check90.json" > "$OUT/dec_check90.log" 2>&1 &
timeout 50 $py -m flash_mlir.tools.decode_check --bundles dec/new80 --quick --json "$OUT/dec_check80.json" > "$OUT/dec_check80.log" 2>&1 &
wait; tail -1 "$OUT/dec_check90.log" "$OUT/dec_check80.log"
run memcheck 60 compute-sanitizer --tool memcheck --error-exitcode 9 $py -m flash_mlir.gpu_check --bundles new80 --quick --head-dims 128 --dtypes bf16 --layout bnhd
step done
