// docs/embedding.md's worked example: torch-mlir's linalg (and TOSA) for eager
// GPT-2 style causal attention, bf16, B=1 H=4 N=128 D=64, raised by
// flash-raise-attention and compiled to PTX by --flash-to-ptx. The
// canonicalizer folds the frontend's collapse/expand pair around the raised op,
// so that the function is the attention alone (what --flash-to-ptx takes).

// RUN: flash-opt %S/Inputs/eager_gpt2_causal_d64_bf16.linalg.mlir --flash-raise-attention | FileCheck %s --check-prefix=RAISED
// RUN: flash-opt %S/Inputs/eager_gpt2_causal_d64_bf16.tosa.mlir --flash-raise-attention | FileCheck %s --check-prefix=RAISED
// RUN: flash-opt %S/Inputs/eager_gpt2_causal_d64_bf16.linalg.mlir --flash-raise-attention --canonicalize | FileCheck %s --check-prefix=CANON
// RUN: flash-opt %S/Inputs/eager_gpt2_causal_d64_bf16.linalg.mlir --flash-raise-attention --canonicalize --flash-to-ptx=arch=sm_90a | FileCheck %s --check-prefix=SM90A
// RUN: flash-opt %S/Inputs/eager_gpt2_causal_d64_bf16.linalg.mlir --flash-raise-attention --canonicalize --flash-to-ptx=arch=sm_80 | FileCheck %s --check-prefix=SM80
// The TOSA form keeps its tosa.reshape back to 1x4x128x64 (host code around
// the attention): --flash-to-ptx refuses the function, naming the op.
// RUN: not flash-opt %S/Inputs/eager_gpt2_causal_d64_bf16.tosa.mlir --flash-raise-attention --canonicalize --flash-to-ptx=arch=sm_80 2>&1 | FileCheck %s --check-prefix=TOSA-HOST

// RAISED-LABEL: func.func @forward
// RAISED-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// RAISED: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {causal, scale = 1.250000e-01 : f32} : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16> -> tensor<1x4x128x64xbf16>
// RAISED-NOT: {{batch_matmul|tosa.matmul|math.exp|tosa.exp}}
// RAISED: return

// CANON-LABEL: func.func @forward
// CANON-NEXT: %[[O:.+]] = flash.attention %arg0, %arg1, %arg2 {causal, scale = 1.250000e-01 : f32}
// CANON-NEXT: return %[[O]] : tensor<1x4x128x64xbf16>

// SM90A: module attributes {flash.kernels = [{arch = "sm_90a"
// SM90A-SAME: causal = true
// SM90A-SAME: element_type = "bf16"
// SM90A-SAME: head_dim = 64
// SM90A-SAME: kernel = "forward"
// SM90A-NOT: func.func
// SM90A: gpu.binary @forward_module
// SM90A-SAME: .entry forward
// SM90A-SAME: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k16.f32.bf16.bf16

// SM80: module attributes {flash.kernels = [{arch = "sm_80"
// SM80-SAME: causal = true
// SM80-NOT: func.func
// SM80: gpu.binary @forward_module
// SM80-SAME: .entry forward
// SM80-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

// TOSA-HOST: error: not supported yet: host code around the attention in a function lowered to a GPU kernel
