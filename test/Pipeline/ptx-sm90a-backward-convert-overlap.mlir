// REQUIRES: ptxas
// The sm_90a backward whose dQ convert overlaps the main kernel's last wave
// (SM90/BackwardKernel.h, kBackwardConvertOverlapsMain; docs/gpu.md): the
// preprocess zeroes an i32 per (batch, q-head) in the `dq_done` workspace;
// the main kernel's dQ writer triggers the convert once the preprocess is
// complete and, after its last reduction has completed, counts each q-head
// of its group with a release; the convert, launched with programmatic
// dependent launch, waits per block for its head's count (acquire, then the
// block's barrier) and its last block for the main grid.

// RUN: rm -rf %t && flash-opt %s --flash-to-ptx="arch=sm_90a bundle-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/bwd_bf16_d128.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t/bwd_bf16_d64.ptx
// RUN: FileCheck %s --check-prefix=PLAN < %t/bwd_bf16_d128.json
// RUN: cat %t/*.json | FileCheck %s --check-prefix=NOSPILL

// PTX: .entry bwd_{{.*}}_preprocess(
// PTX: griddepcontrol.launch_dependents;
// PTX: st.global.b32 [%rd{{[0-9]+}}], 0;
// PTX-NOT: griddepcontrol
// PTX: .entry bwd_bf16_d{{[0-9]+}}(
// PTX: griddepcontrol.wait;
// PTX: griddepcontrol.wait;
// PTX-NEXT: griddepcontrol.launch_dependents;
// PTX: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32
// PTX: cp.async.bulk.wait_group 0;
// PTX: fence.proxy.async.global;
// PTX: red.release.gpu.global.add.u32
// PTX: .entry bwd_{{.*}}_convert(
// PTX: ld.acquire.gpu.global.u32
// PTX: bar.sync 0;
// PTX: ld.global
// PTX: griddepcontrol.wait;

// The plan (keys in JSON order: a kernel's arguments before its name): the
// counters' workspace after the preprocess's arguments, after the main
// kernel's dq_accum, and with Nk after the convert's; the main kernel and
// the convert launched with programmatic dependent launch; the workspace of
// B·Hq i32.
// PLAN: "kernels": [
// PLAN: "name": "dout_stride2",
// PLAN: "name": "dq_done",
// PLAN-NEXT: "type": "ptr",
// PLAN-NEXT: "workspace": "dq_done"
// PLAN: "name": "bwd_bf16_d128_preprocess"
// PLAN: "name": "dq_accum",
// PLAN-NEXT: "type": "ptr",
// PLAN-NEXT: "workspace": "dq_accum"
// PLAN-NEXT: },
// PLAN-NEXT: {
// PLAN-NEXT: "name": "dq_done",
// PLAN: "name": "bwd_bf16_d128",
// PLAN-NEXT: "programmatic_dependent_launch": true
// PLAN: "name": "dq_stride2",
// PLAN: "name": "dq_done",
// PLAN: "name": "Nk",
// PLAN: "name": "bwd_bf16_d128_convert",
// PLAN-NEXT: "programmatic_dependent_launch": true
// PLAN: "workspaces": [
// PLAN: "name": "dq_accum",
// PLAN: "mul",
// PLAN-NEXT: "B",
// PLAN-NEXT: "Hq",
// PLAN-NEXT: 4
// PLAN-NEXT: ],
// PLAN: "name": "dq_done",

// NOSPILL-NOT: "spill_stores": {{[1-9]}}
// NOSPILL-NOT: "spill_loads": {{[1-9]}}
// NOSPILL-NOT: "stack_frame": {{[1-9]}}


func.func @bwd_bf16_d64(%q: tensor<2x8x1000x64xbf16>, %k: tensor<2x2x1000x64xbf16>, %v: tensor<2x2x1000x64xbf16>, %o: tensor<2x8x1000x64xbf16>, %do: tensor<2x8x1000x64xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x64xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x64xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x64xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 8) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 64, value_dim = 64, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>>}
  return %dq, %dk, %dv : tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>
}

func.func @bwd_bf16_d128(%q: tensor<2x8x1000x128xbf16>, %k: tensor<2x2x1000x128xbf16>, %v: tensor<2x2x1000x128xbf16>, %o: tensor<2x8x1000x128xbf16>, %do: tensor<2x8x1000x128xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x128xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x128xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x128xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 8) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 0.0883883461 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 12>>}
  return %dq, %dk, %dv : tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>
}
