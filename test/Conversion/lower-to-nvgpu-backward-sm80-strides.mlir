// RUN: flash-opt %S/lower-to-nvgpu-backward-sm80.mlir --split-input-file --flash-lower-to-nvgpu="arch=sm_80 strides=true" | FileCheck %s
// RUN: flash-opt %S/lower-to-nvgpu-backward-sm80.mlir --split-input-file --flash-lower-to-nvgpu="arch=sm_80 strides=true" | FileCheck %s --check-prefix=DET
// RUN: flash-opt %S/lower-to-nvgpu-backward-sm80.mlir --split-input-file --flash-lower-to-nvgpu="arch=sm_80" | FileCheck %s --check-prefix=SHIPPED
// RUN: not flash-opt %S/lower-to-nvgpu-backward-sm90a.mlir --split-input-file --flash-lower-to-nvgpu="arch=sm_90a strides=true" 2>&1 | FileCheck %s --check-prefix=SM90A
// RUN: not flash-opt %S/lower-to-nvgpu-decode-sm80.mlir --split-input-file --flash-lower-to-nvgpu="arch=sm_80 strides=true" 2>&1 | FileCheck %s --check-prefix=DECODE

// flash-lower-to-nvgpu's strides option on the sm_80 backward (the inputs
// of lower-to-nvgpu-backward-sm80.mlir): the main kernel takes the strides
// of q, k, v, dO, dK and dV (elements of B, H, N) after its other
// arguments, the deterministic dQ kernel those of q, k, v, dO and dQ; every
// head's base is batch·stride0 + head·stride1 (each tensor its own), the
// tile copies step rows by stride2 (once per pass: rows-per-pass·stride2)
// and dK, dV (dQ) are stored with their own row stride. The preprocess and
// convert kernels take O's, dO's and dQ's strides in both forms. Without
// the option the kernels keep their arguments (the shipped PTX).

// The launch contract (atomics): main's 15 arguments, then 18 strides.
// CHECK: module attributes {flash.kernels = [{
// CHECK-SAME: {args = ["q:ptr", "k:ptr", "v:ptr", "dout:ptr", "lse_log2:ptr", "delta:ptr", "dq_accum:ptr", "dk:ptr", "dv:ptr", "B:i32", "Hq:i32", "Hkv:i32", "Nq:i32", "Nk:i32", "scale:f32", "q_stride0:i32", "q_stride1:i32", "q_stride2:i32", "k_stride0:i32", "k_stride1:i32", "k_stride2:i32", "v_stride0:i32", "v_stride1:i32", "v_stride2:i32", "dout_stride0:i32", "dout_stride1:i32", "dout_stride2:i32", "dk_stride0:i32", "dk_stride1:i32", "dk_stride2:i32", "dv_stride0:i32", "dv_stride1:i32", "dv_stride2:i32"], dynamic_shared_memory = 58368 : i64, grid = ["Hkv", "ceildiv(Nk, 64)", "B"], kernel = "gqa_causal", threads = 128 : i64}
// CHECK-SAME: {args = ["dq_accum:ptr", "dq:ptr", "B:i32", "Hq:i32", "Nq:i32", "scale:f32", "dq_stride0:i32", "dq_stride1:i32", "dq_stride2:i32"]
// CHECK-LABEL: gpu.func @gqa_causal(
// CHECK-SAME: %{{.+}}: f32, %[[QB:arg15]]: i32, %[[QH:arg16]]: i32, %[[QN:arg17]]: i32, %[[KB:arg18]]: i32, %[[KH:arg19]]: i32, %[[KN:arg20]]: i32, %[[VB:arg21]]: i32, %[[VH:arg22]]: i32, %[[VN:arg23]]: i32, %[[OB:arg24]]: i32, %[[OH:arg25]]: i32, %[[ON:arg26]]: i32, %[[DKB:arg27]]: i32, %[[DKH:arg28]]: i32, %[[DKN:arg29]]: i32, %[[DVB:arg30]]: i32, %[[DVH:arg31]]: i32, %[[DVN:arg32]]: i32) kernel
// K's and V's bases (kv-head) and rows, before the loop: the prologue's copies.
// CHECK-DAG: arith.muli %{{.+}}, %[[KB]] : i32
// CHECK-DAG: arith.muli %{{.+}}, %[[KH]] : i32
// CHECK-DAG: arith.muli %{{.+}}, %[[VB]] : i32
// CHECK-DAG: arith.muli %{{.+}}, %[[VH]] : i32
// CHECK-DAG: arith.muli %{{.+}}, %[[KN]] : i32
// CHECK-DAG: arith.muli %{{.+}}, %[[VN]] : i32
// Visit 0's Q and dO (q-head of the visit), rows stride2 apart, a step of
// rows-per-pass (16)·stride2 per pass.
// CHECK: arith.muli %{{.+}}, %[[QH]] : i32
// CHECK: arith.muli %{{.+}}, %[[QN]] : i32
// CHECK: arith.muli %c16_i32{{.*}}, %[[QN]] : i32
// CHECK: nvgpu.device_async_copy
// CHECK: arith.muli %{{.+}}, %[[OH]] : i32
// CHECK: arith.muli %c16_i32{{.*}}, %[[ON]] : i32
// CHECK: scf.for
// Each visit's Q and dO again, from the visit's q-head.
// CHECK: arith.muli %{{.+}}, %[[QB]] : i32
// CHECK: arith.muli %{{.+}}, %[[QN]] : i32
// CHECK: arith.muli %{{.+}}, %[[ON]] : i32
// CHECK: nvvm.mma.sync
// CHECK: llvm.atomicrmw fadd
// The epilogue: dK's and dV's bases from the block's kv-head, their rows
// with their own row strides.
// CHECK: arith.muli %{{.+}}, %[[DKH]] : i32
// CHECK: arith.muli %{{.+}}, %[[DKN]] : i32
// CHECK: arith.muli %{{.+}}, %[[DVH]] : i32
// CHECK: arith.muli %{{.+}}, %[[DVN]] : i32
// CHECK: gpu.return

// The deterministic plan: the main kernel's 14 arguments, then 18 strides;
// the dQ kernel's 13, then q's, k's, v's, dO's and dQ's.
// DET: deterministic = true
// DET-SAME: {args = ["q:ptr", "k:ptr", "v:ptr", "dout:ptr", "lse_log2:ptr", "delta:ptr", "dq:ptr", "B:i32", "Hq:i32", "Hkv:i32", "Nq:i32", "Nk:i32", "scale:f32", "q_stride0:i32", "q_stride1:i32", "q_stride2:i32", "k_stride0:i32", "k_stride1:i32", "k_stride2:i32", "v_stride0:i32", "v_stride1:i32", "v_stride2:i32", "dout_stride0:i32", "dout_stride1:i32", "dout_stride2:i32", "dq_stride0:i32", "dq_stride1:i32", "dq_stride2:i32"], dynamic_shared_memory = 98304 : i64, grid = ["ceildiv(Nq, 64)", "Hq", "B"], kernel = "deterministic_f16_d128_dq", threads = 128 : i64}]
// DET: gpu.func @deterministic_f16_d128(
// DET-SAME: %{{.+}}: f32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32) kernel
// DET-LABEL: gpu.func @deterministic_f16_d128_dq(
// DET-SAME: %{{.+}}: f32, %[[QB:arg13]]: i32, %[[QH:arg14]]: i32, %[[QN:arg15]]: i32, %[[KB:arg16]]: i32, %[[KH:arg17]]: i32, %[[KN:arg18]]: i32, %[[VB:arg19]]: i32, %[[VH:arg20]]: i32, %[[VN:arg21]]: i32, %[[OB:arg22]]: i32, %[[OH:arg23]]: i32, %[[ON:arg24]]: i32, %[[DQB:arg25]]: i32, %[[DQH:arg26]]: i32, %[[DQN:arg27]]: i32) kernel
// DET-DAG: arith.muli %{{.+}}, %[[QB]] : i32
// DET-DAG: arith.muli %{{.+}}, %[[QH]] : i32
// DET-DAG: arith.muli %{{.+}}, %[[OH]] : i32
// DET-DAG: arith.muli %{{.+}}, %[[DQH]] : i32
// DET-DAG: arith.muli %{{.+}}, %[[KH]] : i32
// DET-DAG: arith.muli %{{.+}}, %[[VH]] : i32
// DET: arith.muli %{{.+}}, %[[QN]] : i32
// DET: arith.muli %{{.+}}, %[[ON]] : i32
// DET: arith.muli %{{.+}}, %[[KN]] : i32
// DET: arith.muli %{{.+}}, %[[VN]] : i32
// DET: scf.for
// The K/V prefetch in the loop: rows kv_stride2 apart.
// DET: arith.muli %{{.+}}, %[[KN]] : i32
// DET: arith.muli %{{.+}}, %[[VN]] : i32
// DET: nvvm.mma.sync
// dQ stored with its own row stride.
// DET: arith.muli %{{.+}}, %[[DQN]] : i32
// DET: gpu.return

// Without the option: the main kernel's 15 arguments (no stride of q).
// SHIPPED: {args = ["q:ptr", "k:ptr", "v:ptr", "dout:ptr", "lse_log2:ptr", "delta:ptr", "dq_accum:ptr", "dk:ptr", "dv:ptr", "B:i32", "Hq:i32", "Hkv:i32", "Nq:i32", "Nk:i32", "scale:f32"], dynamic_shared_memory
// SHIPPED-NOT: "q_stride0
// SHIPPED: gpu.func @gqa_causal(%{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: f32) kernel

// What the option does not take: sm_90a (its tensor maps carry strides) and
// the decode kernels.
// SM90A: error: not supported yet: strides for sm_90a backward kernels (only sm_80's forward and backward kernels take stride arguments; sm_90a's tensor maps carry strides: batch-maps)
// DECODE: error: not supported yet: strides for split_kv kernels
