#!/usr/bin/env bash
# Lead's H200 run, twenty-first session: the merged main's decode plans (the twentieth
# session's s20-h2 + s20-h3 merged, never run together before) checked in full on sm_90a
# (sm_80's decode is byte-identical to the nineteenth session's, checked then); then H3's staged run 2 (sanitizers + bench of the sm_90a backward's
# side kernels, build/s21-h3-run2/run2.sh).
set -u
S=$(cd "$(dirname "$0")" && pwd); O=$(mktemp -d)
export FLASH_RUNTIME_LIB=$S/lib/libflash_runtime.so PYTHONUNBUFFERED=1 PYTHONPATH=$S/python
t0=$(date +%s)
# H3's and H1's staged dirs use this dir's python/ and lib/ (identical files; copied here to fit the carry limit).
for d in s21-h3-run2 s21-h1-run; do cp -r $S/python $S/lib $S/../$d/; done
save() { tar czf "$OUT/res.tgz" -C "$O" .; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > "$O/env.txt" 2>&1
timeout 110 python3 -m flash_mlir.tools.decode_check --bundles $S/dec90 --json $O/check90.json > $O/check90.log 2>&1 &
wait
for f in check90; do echo "$f: $(tail -1 $O/$f.log)" | tee -a $O/steps.txt; done
echo "decode checks $(( $(date +%s) - t0 ))s" | tee -a $O/steps.txt; save
mkdir -p $O/h3; ( OUT=$O/h3 bash $S/../s21-h3-run2/run2.sh > $O/h3/run2.out 2>&1 )
echo "h3 done $(( $(date +%s) - t0 ))s" | tee -a $O/steps.txt; save
# H1's staged run (build/s21-h1-run/run.sh): the decode tail's variants against main and cuDNN.
mkdir -p $O/h1; ( OUT=$O/h1 B1_LIMIT=150 CHECK_LIMIT=100 bash $S/../s21-h1-run/run.sh > $O/h1/run.out 2>&1 )
echo "total $(( $(date +%s) - t0 ))s" | tee -a $O/steps.txt; save
