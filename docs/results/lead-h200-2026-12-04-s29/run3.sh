#!/usr/bin/env bash
# Lead's H200 run 3, twenty-ninth session (issue 17, item 5): what the paged kernel's
# dependent loads cost on the GQA 8/1 rows. Variants of main's bf16 D = 128 sm_90a paged
# plans: seqpages (FLASH_DECODE_EXP=seqpages: page b*M + index, no table read; right only
# on sequential pages without padding), lenM (length M*S, no seq_lens read; right for
# decode_bench's tables), seqpages-lenM (both: no dependent load). Their split-KV plans
# are main's. On sequential and shuffled pages (the variants are wrong on shuffled ones).
set -u
S=$(cd "$(dirname "$0")" && pwd); cd "$S"; O=$(mktemp -d)
t0=$(date +%s)
save() { tar czf "$OUT/res.tgz" -C "$O" .; cp "$O/steps.txt" "$OUT/" 2>/dev/null; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version())'; } > "$O/env.txt" 2>&1
export FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so PYTHONUNBUFFERED=1 PYTHONPATH=$S/python
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s ))s | $(tail -1 "$O/$name.log" | cut -c1-300)" | tee -a "$O/steps.txt"; save; }
V=""; for v in seqpages lenM seqpages-lenM; do V="$V --variant $v=$S/$v"; done
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1 --rounds 5 --rows 1x8192,1x32768,1x131072,8x32768,64x1024,128x2048 --page-order sequential,shuffled"
step a 170 $DB --bundles $S/main $V --json $O/a.json
step b 170 $DB --bundles $S/main $V --json $O/b.json
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
