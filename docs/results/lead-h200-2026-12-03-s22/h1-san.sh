#!/usr/bin/env bash
# H1 confirmation run: the branch head's D = 128 backward (skipsFirstDQ) against main 2485bd3's
# and SDPA FA2/cuDNN, 9 interleaved rounds, bf16 D = 128 N 512..4k, causal both.
set -u
here=$(cd "$(dirname "$0")" && pwd); cd "$here"
O=$(mktemp -d); export PYTHONPATH=$here/python FLASH_RUNTIME_LIB=$here/lib/libflash_runtime.so PYTHONUNBUFFERED=1
t0=$(date +%s)
save() { tar czf "${OUT:-$here}/res2.tgz" -C "$O" .; }
trap 'echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save' EXIT
# compute-sanitizer on the head's D = 128 kernels (identical to the measured skip ones)
for tool in memcheck racecheck; do
  timeout 35 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool $tool --kernel-name kns=flash_bwd --error-exitcode 3 \
    python3 -m flash_mlir.gpu_check --mode backward --bundles "$here/bench" --dtypes bf16 --head-dims 128 --causal both \
    --shape 1,4,2,300,270 --repeat 0 --deterministic no > "$O/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$O/$tool.log" | tail -1) | $(tail -1 "$O/$tool.log")" | tee -a "$O/steps.txt"
done
timeout 35 python3 -m flash_mlir.bench --mode backward --bundles "$here/bench" --head-dims 128 --seqlens 512,1024,2048,4096 --rounds 5 --rep-ms 20 --variants --json "$O/bench2.json" > "$O/bench2.log" 2>&1
echo "bench2 rc=$?" | tee -a "$O/steps.txt"
grep ^backward "$O/bench2.log" | sed 's/err.*//' | tee -a "$O/steps.txt"
