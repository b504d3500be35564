// The tensor-level passes handle an attention wherever it sits (issue 21): in
// a gpu.func of a gpu.module and twice in one function of a nested module,
// each is scheduled, tiled, decomposed, lowered to the reference or reported.
// RUN: flash-opt %s --flash-select-schedule=arch=sm_80 --flash-tile | FileCheck %s --check-prefix=TILE
// RUN: flash-opt %s --flash-select-schedule=arch=sm_80 --flash-tile --flash-decompose | FileCheck %s --check-prefix=DECOMPOSE
// RUN: flash-opt %s --flash-lower-to-reference | FileCheck %s --check-prefix=REF
// RUN: flash-opt %s --flash-select-schedule=arch=sm_90a --flash-io-report -o /dev/null | FileCheck %s --check-prefix=REPORT

// Each attention becomes a scheduled scf.forall in its own function.
// TILE-LABEL: gpu.func @in_gpu_func(
// TILE: scf.forall {{.*}} shared_outs
// TILE: flash.kernel = #flash.kernel<{{.*}}schedule = <arch = "sm_80"
// TILE: gpu.return
// TILE-LABEL: func.func @two_in_nested(
// TILE-COUNT-2: flash.kernel = #flash.kernel<{{.*}}schedule = <arch = "sm_80"
// TILE-NOT: flash.attention

// DECOMPOSE-NOT: {{= flash\.}}
// DECOMPOSE-LABEL: gpu.func @in_gpu_func(
// DECOMPOSE: linalg.generic
// DECOMPOSE-LABEL: func.func @two_in_nested(
// DECOMPOSE-NOT: {{= flash\.}}

// REF-NOT: {{= flash\.}}
// REF-LABEL: gpu.func @in_gpu_func(
// REF: linalg.
// REF-LABEL: func.func @two_in_nested(
// REF-NOT: {{= flash\.}}

// One report per attention, located.
// REPORT: flash-io-report: loc({{.*}}nested-placement.mlir":[[@LINE+4]]:10)
// REPORT: problem        B=1 Hq=1 Hkv=1 Nq=256 Nk=256 D=64 Dv=64 f16 causal=no lse=no
gpu.module @kernels {
  gpu.func @in_gpu_func(%q: tensor<1x1x256x64xf16>, %k: tensor<1x1x256x64xf16>, %v: tensor<1x1x256x64xf16>) -> tensor<1x1x256x64xf16> {
    %o = flash.attention %q, %k, %v : tensor<1x1x256x64xf16>, tensor<1x1x256x64xf16>, tensor<1x1x256x64xf16> -> tensor<1x1x256x64xf16>
    gpu.return %o : tensor<1x1x256x64xf16>
  }
}
// REPORT: flash-io-report: loc({{.*}}nested-placement.mlir":[[@LINE+6]]:11)
// REPORT: problem        B=1 Hq=2 Hkv=1 Nq=100 Nk=100 D=64 Dv=64 f32 causal=no lse=no
// REPORT: flash-io-report: loc({{.*}}nested-placement.mlir":[[@LINE+5]]:15)
// REPORT: problem        B=1 Hq=2 Hkv=1 Nq=100 Nk=100 D=64 Dv=64 f32 causal=yes lse=yes
module @inner {
  func.func @two_in_nested(%q: tensor<1x2x100x64xf32>, %k: tensor<1x1x100x64xf32>, %v: tensor<1x1x100x64xf32>) -> tensor<1x2x100x64xf32> {
    %o1 = flash.attention %q, %k, %v : tensor<1x2x100x64xf32>, tensor<1x1x100x64xf32>, tensor<1x1x100x64xf32> -> tensor<1x2x100x64xf32>
    %o2, %l = flash.attention %o1, %k, %v {causal} : tensor<1x2x100x64xf32>, tensor<1x1x100x64xf32>, tensor<1x1x100x64xf32> -> tensor<1x2x100x64xf32>, tensor<1x2x100xf32>
    return %o2 : tensor<1x2x100x64xf32>
  }
}
