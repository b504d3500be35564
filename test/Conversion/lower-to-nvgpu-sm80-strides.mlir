// RUN: flash-opt %s --split-input-file --flash-tile --flash-lower-to-nvgpu="arch=sm_80 strides=true" | FileCheck %s
// RUN: flash-opt %s --split-input-file --flash-tile --flash-lower-to-nvgpu="arch=sm_80" | FileCheck %s --check-prefix=ROWMAJOR
// RUN: not flash-opt %S/lower-to-nvgpu-sm90a.mlir --split-input-file --flash-tile --flash-lower-to-nvgpu="arch=sm_90a strides=true" 2>&1 | FileCheck %s --check-prefix=SM90A
// RUN: not flash-opt %S/lower-to-nvgpu-decode-sm80.mlir --split-input-file --flash-lower-to-nvgpu="arch=sm_80 strides=true" 2>&1 | FileCheck %s --check-prefix=DECODE
// RUN: not flash-opt %S/lower-to-nvgpu-backward-sm90a.mlir --split-input-file --flash-lower-to-nvgpu="arch=sm_90a strides=true" 2>&1 | FileCheck %s --check-prefix=BWD90

// flash-lower-to-nvgpu's strides option (sm_80 forward): the kernel takes
// the strides of q, k, v and o (elements of B, H, N) after its other
// arguments, the launch contract names them (the runtime binds a call's
// strides), and every address is b·stride0 + h·stride1 + row·stride2 +
// column: K and V each with their own strides, O's rows o_stride2 apart.
// Without the option the kernel keeps its 11 arguments and rows of D.

// CHECK: module attributes {flash.kernels = [{
// CHECK-SAME: args = ["q:ptr", "k:ptr", "v:ptr", "o:ptr", "lse:ptr", "B:i32", "Hq:i32", "Hkv:i32", "Nq:i32", "Nk:i32", "scale:f32", "q_stride0:i32", "q_stride1:i32", "q_stride2:i32", "k_stride0:i32", "k_stride1:i32", "k_stride2:i32", "v_stride0:i32", "v_stride1:i32", "v_stride2:i32", "o_stride0:i32", "o_stride1:i32", "o_stride2:i32"]
// CHECK: gpu.func @gqa_bf16(%{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: f32, %[[QS0:.+]]: i32, %[[QS1:.+]]: i32, %[[QS2:.+]]: i32, %[[KS0:.+]]: i32, %[[KS1:.+]]: i32, %[[KS2:.+]]: i32, %[[VS0:.+]]: i32, %[[VS1:.+]]: i32, %[[VS2:.+]]: i32, %[[OS0:.+]]: i32, %[[OS1:.+]]: i32, %[[OS2:.+]]: i32) kernel
// The heads' bases: batch·stride0 + head·stride1, per tensor.
// CHECK-DAG: arith.muli %{{.+}}, %[[QS0]] : i32
// CHECK-DAG: arith.muli %{{.+}}, %[[QS1]] : i32
// CHECK-DAG: arith.muli %{{.+}}, %[[OS1]] : i32
// CHECK-DAG: arith.muli %{{.+}}, %[[KS1]] : i32
// CHECK-DAG: arith.muli %{{.+}}, %[[VS1]] : i32
// The copies' rows: row·stride2 (Q, K, V), one step of rows-per-pass·stride2.
// CHECK-DAG: arith.muli %{{.+}}, %[[QS2]] : i32
// CHECK-DAG: arith.muli %{{.+}}, %[[KS2]] : i32
// CHECK-DAG: arith.muli %{{.+}}, %[[VS2]] : i32
// CHECK: nvgpu.device_async_copy
// The epilogue's O rows: row·o_stride2.
// CHECK: arith.divf
// CHECK: arith.muli %{{.+}}, %[[OS2]] : i32
// CHECK: memref.store %{{.+}}, %{{.+}}[%{{.+}}] : memref<1099511627776xi32, 1>
// CHECK: gpu.return

// ROWMAJOR: args = ["q:ptr", "k:ptr", "v:ptr", "o:ptr", "lse:ptr", "B:i32", "Hq:i32", "Hkv:i32", "Nq:i32", "Nk:i32", "scale:f32"]
// ROWMAJOR: gpu.func @gqa_bf16({{[^)]*}}: f32) kernel
// ROWMAJOR-NOT: _stride

// SM90A: error: not supported yet: strides for sm_90a forward kernels (only sm_80's forward and backward kernels take stride arguments; sm_90a's tensor maps carry strides: batch-maps)
// DECODE: error: not supported yet: strides for split_kv kernels
// BWD90: error: not supported yet: strides for sm_90a backward kernels
// (The sm_80 backward's strides: lower-to-nvgpu-backward-sm80-strides.mlir.)
func.func @gqa_bf16(%q: tensor<2x8x1000x64xbf16>, %k: tensor<2x2x1000x64xbf16>, %v: tensor<2x2x1000x64xbf16>) -> (tensor<2x8x1000x64xbf16>, tensor<2x8x1000xf32>) {
  %o, %l = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 16, stages = 2, warps = 4>}
      : tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16> -> tensor<2x8x1000x64xbf16>, tensor<2x8x1000xf32>
  return %o, %l : tensor<2x8x1000x64xbf16>, tensor<2x8x1000xf32>
}
