// Few-row flash.attention in the split-KV form: GQA 8/2 with Nq = 2 causal
// queries against Nk = 50 keys packs 8 rows per kv-head into one Q tile;
// with 4-key tiles the 13 tiles go to 5 splits of 3, 3, 3, 3 and 1 tiles
// (splitKVCount, the GPU kernels' rule: the 108 SMs want 54 parts of the
// 2·2 blocks, but the cut keeps parts of at least 2 tiles: 6 parts asked,
// of ceil(13 / 6) = 3 tiles, which is 5 splits), merged by their LSE; with
// max-splits=2, to 2 splits of 7 and 6 tiles. Each run is checked against the float64
// oracle at atol = rtol = 1e-5, as are the forward form (split-kv=false)
// and the reference.
// RUN: %python -m flash_mlir.testing.cpu_case gen --seed 21 --batch 2 --hq 8 --hkv 2 --nq 2 --nk 50 --d 16 --causal --lse --mlir %t.mlir --expected %t.npz
// RUN: flash-opt %t.mlir --flash-cpu-pipeline="block-kv=4" | %mlir_runner > %t.1.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.1.out
// RUN: flash-opt %t.mlir --flash-cpu-pipeline="block-kv=4 max-splits=2" | %mlir_runner > %t.2.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.2.out
// RUN: flash-opt %t.mlir --flash-cpu-pipeline="block-kv=4 split-kv=false" | %mlir_runner > %t.3.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.3.out
// RUN: flash-opt %t.mlir --flash-cpu-pipeline=reference=true | %mlir_runner > %t.4.out
// RUN: %python -m flash_mlir.testing.cpu_case check --expected %t.npz --output %t.4.out

// The tiled runs are the split-KV form, and cut the keys as said above.
// RUN: flash-opt %t.mlir --flash-select-schedule="arch=sm_80 block-kv=4" --flash-tile | FileCheck %s
// CHECK: scf.forall {{.*}} in (2, 2, 1, 108)
// CHECK: flash.kernel = #flash.kernel<kind = split_kv,{{.*}} max_splits = 108>, flash.stage = "split"
// CHECK: scf.forall {{.*}} in (2, 2)
// CHECK: flash.merge_splits
// CHECK: flash.stage = "merge"
// RUN: flash-opt %t.mlir --flash-test-split-kv="batch=2 kv-heads=2 row-tiles=1 keys=50 block-kv=4 sms=108 max-splits=108" | FileCheck %s --check-prefix=SPLITS
// SPLITS: keys=50 tiles=13 work_units=4 splits=5 tiles_per_split=3
// RUN: flash-opt %t.mlir --flash-test-split-kv="batch=2 kv-heads=2 row-tiles=1 keys=50 block-kv=4 sms=108 max-splits=2" | FileCheck %s --check-prefix=TWO
// TWO: keys=50 tiles=13 work_units=4 splits=2 tiles_per_split=7
