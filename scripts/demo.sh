#!/usr/bin/env bash
# The main job: build flash-opt, then take examples/attention.mlir as far as
# the pipeline goes today and print what each stage produced:
#   1. L0 -> L1: the schedule chosen for each architecture and the tiled loops;
#   2. the IO report (HBM bytes, FLOPs, SRAM) for sm_80, sm_90a, sm_100a;
#   3. the tiled algorithm run on the CPU (mlir-runner) against the f64 oracle;
#   4. PTX for each architecture whose GPU lowering exists.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/install-deps.sh
bash scripts/build.sh >/dev/null
export PATH="$root/build/bin:/usr/lib/llvm-22/bin:/usr/local/cuda/bin:$PATH"
example=examples/attention.mlir
out=build/demo
mkdir -p "$out"

echo "== 1. L0 -> L1 ($example)"
for arch in sm_80 sm_90a sm_100a; do
  flash-opt "$example" --flash-select-schedule=arch=$arch | grep -o '#flash.schedule<[^>]*>' | sed "s/^/  $arch: /"
done
flash-opt "$example" --flash-select-schedule=arch=sm_80 --flash-tile > "$out/attention.L1.mlir"
echo "  L1 (sm_80 schedule) written to $out/attention.L1.mlir; its K/V loops:"
grep -E 'scf.forall|scf.for|flash\.' "$out/attention.L1.mlir" | sed 's/^ */    /' | cut -c1-150

echo
echo "== 2. IO report"
for arch in sm_80 sm_90a sm_100a; do
  flash-opt "$example" --flash-select-schedule=arch=$arch --flash-io-report -o /dev/null
done

echo
echo "== 3. The tiled algorithm on the CPU (f32 inputs of the same structure: GQA 8/2, causal, N = 1000 -> 100 to keep it quick)"
PYTHONPATH=python /usr/bin/python3 -m flash_mlir.testing.cpu_case gen --seed 7 --batch 1 --hq 8 --hkv 2 \
  --nq 100 --nk 100 --d 64 --causal --scale 0.125 --lse --mlir "$out/cpu.mlir" --expected "$out/cpu.npz"
flash-opt "$out/cpu.mlir" --flash-cpu-pipeline \
  | mlir-runner -e main -entry-point-result=void -O3 \
      -shared-libs=/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_runner_utils.so \
  > "$out/cpu.out"
PYTHONPATH=python /usr/bin/python3 -m flash_mlir.testing.cpu_case check --expected "$out/cpu.npz" --output "$out/cpu.out" \
  | sed 's/^/  /'

echo
echo "== 4. PTX and kernel bundles per architecture"
for arch in sm_80 sm_90a sm_100a; do
  if flash-opt "$example" --flash-to-ptx="arch=$arch bundle-dir=$out/bundle-$arch" \
       -o "$out/attention.$arch.mlir" 2> "$out/ptx.$arch.err"; then
    json="$out/bundle-$arch/attention.json"
    echo "  $arch: gpu.binary in $out/attention.$arch.mlir; bundle $out/bundle-$arch/:"
    /usr/bin/python3 - "$json" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))  # the launch plan (docs/launch-plan.md)
for k in plan["kernels"]:
    threads = k["block"][0] * k["block"][1] * k["block"][2]
    for arch, c in k["files"]["cubins"].items():
        print(f"    {k['name']}: {k['description']['schedule']}, {threads} threads, "
              f"{k['dynamic_shared_memory']} B shared; ptxas {arch}: {c['registers']} registers, "
              f"{c['spill_stores']} B spill stores")
PY
    grep -oE 'cp.async.cg.shared.global|ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16|mma.sync.aligned.m16n8k16[a-z0-9.]*|cp.async.bulk.tensor.3d[a-z:._]*|wgmma.mma_async.sync.aligned.m64n[0-9]+k16[a-z0-9.]*|setmaxnreg.[a-z]+|tcgen05.mma.cta_group::1.kind::f16|tcgen05.(alloc|ld|st|commit)[a-z0-9.:_]*' \
      "$out/bundle-$arch/attention.ptx" | sort -u | sed 's/^/    PTX has /'
  else
    echo "  $arch: $(grep -m1 error "$out/ptx.$arch.err" | sed 's/.*error: //')"
  fi
done
