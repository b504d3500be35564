#!/usr/bin/env bash
# Lead's H200 run 1, twenty-eighth session (issue 17, item 5): what scattered pages cost
# the bandwidth-bound paged rows. (1) main's paged plans on shuffled, sequential and local
# pages (local: shuffled inside 2 MiB spans of the pool, the GPU's virtual-memory page):
# local ~ sequential means address translation, local ~ shuffled the DRAM. (2) tlbN: the
# paged kernel touches (prefetch.global.L2, one line of K and V) every page of the tile N
# tiles past the one it issues (FLASH_DECODE_TLB=N at compile time; tlb0 = main, PTX
# cmp-identical to main 26cc152's bf16 D = 128 sm_90a decode bundles).
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
DB="python3 -m flash_mlir.tools.decode_bench --gqa 8/1,32/8 --rounds 5"
step pages 170 $DB --bundles $S/tlb0 --page-order shuffled,sequential,local --json $O/pages.json
step ab-a 170 $DB --bundles $S/tlb0 --variant tlb1=$S/tlb1 --variant tlb2=$S/tlb2 --json $O/ab-a.json
step ab-b 170 $DB --bundles $S/tlb1 --variant main=$S/tlb0 --variant tlb2=$S/tlb2 --json $O/ab-b.json
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$O/steps.txt"; save
