// What --flash-cpu-pipeline cannot lower is refused before anything runs, with
// a located "not supported yet" and no dump of the IR around it (issue 21:
// these inputs crashed on a dangling value or printed '<<NULL TYPE>>'), and
// what a lowering leaves behind is an error, never a silent success.
// RUN: not flash-opt %s --split-input-file --flash-cpu-pipeline 2>&1 | FileCheck %s
// RUN: not flash-opt %s --split-input-file --flash-cpu-pipeline=reference=true 2>&1 | FileCheck %s
// RUN: not flash-opt %s --split-input-file --flash-cpu-check-input 2>&1 | FileCheck %s
// RUN: not flash-opt %s --split-input-file --flash-check-lowered-to-llvm 2>&1 | FileCheck %s --check-prefix=LEFT
// CHECK-NOT: see current operation
// CHECK-NOT: NULL TYPE
// LEFT-NOT: see current operation

// A gpu.func on tensors: one-shot-bufferize does not rewrite it.
// CHECK: cpu-pipeline-errors.mlir:[[@LINE+3]]:5: error: 'gpu.func' op not supported yet: tensors in a 'gpu.func' in --flash-cpu-pipeline, which lowers func.func ops of builtin.modules
// LEFT: cpu-pipeline-errors.mlir:[[@LINE+1]]:1: error: 'gpu.module' op was not lowered to the LLVM dialect by --flash-cpu-pipeline
gpu.module @kernels {
    gpu.func @f(%q: tensor<1x1x64x16xf32>, %k: tensor<1x1x64x16xf32>, %v: tensor<1x1x64x16xf32>) -> tensor<1x1x64x16xf32> {
      %o = flash.attention %q, %k, %v : tensor<1x1x64x16xf32>, tensor<1x1x64x16xf32>, tensor<1x1x64x16xf32> -> tensor<1x1x64x16xf32>
      gpu.return %o : tensor<1x1x64x16xf32>
    }
}
// LEFT: cpu-pipeline-errors.mlir:[[@LINE+1]]:1: error: 'func.func' op was not lowered to the LLVM dialect by --flash-cpu-pipeline
func.func @top(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// A func.func in a gpu.module (a single Q tile: silently half-lowered before).
// CHECK: cpu-pipeline-errors.mlir:[[@LINE+2]]:3: error: 'func.func' op not supported yet: tensors in a func.func inside a 'gpu.module' in --flash-cpu-pipeline, which lowers func.func ops of builtin.modules
gpu.module @kernels {
  func.func @f(%q: tensor<1x1x16x16xf32>, %k: tensor<1x1x16x16xf32>, %v: tensor<1x1x16x16xf32>) -> tensor<1x1x16x16xf32> {
    %o = flash.attention %q, %k, %v : tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32> -> tensor<1x1x16x16xf32>
    return %o : tensor<1x1x16x16xf32>
  }
}

// -----

// Attention outside any function, on constants of the module body.
// CHECK: cpu-pipeline-errors.mlir:[[@LINE+1]]:6: error: 'arith.constant' op not supported yet: tensors outside a function in --flash-cpu-pipeline, which lowers func.func ops of builtin.modules
%q = arith.constant dense<1.0> : tensor<1x1x16x16xf32>
// CHECK: cpu-pipeline-errors.mlir:[[@LINE+1]]:6: error: 'flash.attention' op not supported yet: a flash op outside a function in --flash-cpu-pipeline, which lowers func.func ops of builtin.modules
%o = flash.attention %q, %q, %q : tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32> -> tensor<1x1x16x16xf32>
