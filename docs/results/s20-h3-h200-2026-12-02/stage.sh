#!/usr/bin/env bash
# Build machine: stage the H200 run of H3 (twentieth session, issue 17 item 5: the
# paged decode's start latency) as /work/main/build/s20-h3-run.
# The variants come from a temporary switch FLASH_DECODE_EXP (variants.diff):
#   mlen  the separate merge kernel reads seq_lens[b] and computes the part count
#         before griddepcontrol.wait (paged only; contiguous takes Nk, an argument)
#   guess the prologue's block-table entries loaded for the split of a sequence
#         that fills its table row (length M*S) while seq_lens[b] is in flight, used
#         when the real split gives the part the same first tile and last key
#   pre   the loop's page lookups of tile j + stages - 1 before the cp.async wait
#         and barrier of iteration j (not after them)
#   guessplant (planted bug) the guessed entries used without the check
set -eu
W=${W:-/work/wt-h3}; S=/work/main/build/s20-h3-run; T=$(mktemp -d)
cd $W
export PYTHONPATH=python
FO=$W/build/bin/flash-opt
c() { local name=$1 exp=$2; shift 2
      FLASH_DECODE_EXP=$exp /usr/bin/python3 -m flash_mlir.compile --out $T/$name --flash-opt $FO "$@"; }
small="--arch sm_90a --ops split_kv,paged --dtypes bf16 --head-dims 128 --causal no --lse no --cubin-archs sm_90a"
c mlen90 mlen $small
c guess90 guess $small
c pre90 pre $small
c cand90 mlen,guess,pre --arch sm_90a --ops split_kv,paged --dtypes bf16,f16 --head-dims 64,128,256 --cubin-archs sm_90a
c cand80 mlen,guess,pre --arch sm_80 --ops split_kv,paged --dtypes bf16,f16 --head-dims 64,128,256 --cubin-archs sm_90
c plant90 mlen,guess,pre,guessplant --arch sm_90a --ops split_kv,paged --dtypes bf16,f16 --head-dims 64,128,256 --cubin-archs sm_90a
rm -rf $S; mkdir -p $S/b/main90 $S/lib
for d in mlen90 guess90 pre90 cand90 cand80 plant90; do
  mkdir -p $S/b/$d; cp $T/$d/*.json $T/$d/*.ptx $T/$d/*.cubin $S/b/$d/
done
cp /work/baseline-s20/sm90a/flash_decode_*_bf16_d128.{json,ptx,sm_90a.cubin} $S/b/main90/   # main 67f485d
cp build/lib/libflash_runtime.so $S/lib/; cp -r python $S/python; rm -rf $S/python/tests
(cd $S && tar czf bundles.tgz -C b . && rm -rf b)
cp $W/docs/results/s20-h3-h200-2026-12-02/run.sh $S/run.sh
du -sh $S
# H200: run(command="bash build/s20-h3-run/run.sh", carry=["build/s20-h3-run"], timeout_s=240)
