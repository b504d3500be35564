#!/usr/bin/env bash
# Stage the hD GPU run under /work/main/build/hD-run (git-ignored there).
set -eu
W=/work/wt-robust; S=/work/main/build/hD-run; V=$W/docs/results/bwd-d256-perf-h200-2026-12-02/variant.py
rm -rf "$S"; mkdir -p "$S"/{b90,b80,bench,scripts/gpu}
cp -r "$W/python" "$S/" && find "$S/python" -name __pycache__ -prune -exec rm -rf {} +
cp "$W"/scripts/gpu/one-launch-profile.py "$W"/scripts/gpu/torch-dropin-check.py "$S/scripts/gpu/"
cp "$W/docs/results/torch-dropin-6-h200-2026-12-02/run.sh" "$S/run.sh"
cp "$W/build/lib/libflash_runtime.so" "$S/"
# b90: batch maps, forward (main's flash-opt: forward PTX does not change here) + backward (this branch)
for d in /tmp/hD/b90fwd /tmp/hD/b90bwd; do cp "$d"/*.json "$d"/*.ptx "$d"/*.cubin "$S/b90/"; done
# b80: main's sm_80 forward plans (/work/main/build/bundles-sm80), D 64/128
for f in /work/main/build/bundles-sm80/*.json; do case $f in *d256*) continue;; esac
  n=${f%.json}; cp "$f" "$n".ptx "$n".*.cubin "$S/b80/"; done
# bench: bf16 D 64/128; defaults rank-3 (forward: PTX = baseline, backward: this branch), variants bm, base
for f in /tmp/hD/b90r3fwd/*.json; do n=${f%.json}; cp "$f" "$n".ptx "$n".*.cubin "$S/bench/"; done
for f in /tmp/hD/b90r3bwd/flash_bwd_sm_90a_bf16_d{64,128}{,_causal}.json; do
  n=${f%.json}; cp "$f" "$n".ptx "$n".*.cubin "$S/bench/"; done
for f in /tmp/hD/b90fwd/flash_fwd_sm_90a_bf16_d{64,128}*.json; do case $f in *lse*) continue;; esac
  python3 "$V" "$f" "$S/bench" bm >/dev/null; done
for f in /tmp/hD/b90bwd/flash_bwd_sm_90a_bf16_d{64,128}{,_causal}.json; do python3 "$V" "$f" "$S/bench" bm >/dev/null; done
# the backward bench needs forward plans with LSE (for O and LSE): the batch-maps ones
# (in the recorded run they were copied on the machine: see README.md)
cp "$S"/b90/flash_fwd_sm_90a_bf16_d*lse* "$S/bench/"
for f in /work/baseline/sm90a-bwd/flash_bwd_sm_90a_bf16_d{64,128}{,_causal}.json; do python3 "$V" "$f" "$S/bench" base >/dev/null; done
du -sh "$S"; ls "$S/bench" | grep -c json; ls "$S/b90" | grep -c json; ls "$S/b80" | grep -c json
