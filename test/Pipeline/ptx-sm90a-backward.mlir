// REQUIRES: ptxas
// The backward's sm_90a kernels through the whole pipeline (hand-written
// backward L1 -> flash-lower-to-nvgpu -> NVVM -> PTX -> bundles): the main
// kernel of SM90/BackwardKernel.cpp between the shared preprocess and
// convert, every configuration (bf16/f16 × D 64/128 × causal or not, in
// the tiles the target model gives them: 128×128 at D = 64, dQ split by
// rows; 64×128 at D = 128), assembled by ptxas -arch=sm_90a -v with no
// spill stores, spill loads or stack frame in any kernel; and the
// deterministic plan (dQ reductions ordered by semaphores, 64×128) at bf16
// D=128 causal and f16 D=64.

// RUN: rm -rf %t && flash-opt %s --flash-to-ptx="arch=sm_90a bundle-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/bwd_bf16_d128_causal.ptx
// RUN: FileCheck %s --check-prefix=PLAN < %t/bwd_bf16_d128_causal.json
// RUN: cat %t/*.json | FileCheck %s --check-prefix=NOSPILL
// RUN: cat %t/*.json | grep -c '"spill_stores": 0' | FileCheck %s --check-prefix=COUNT

// Three entry points in one PTX file; the main kernel's wgmma (SS with
// K-major and with transposed operands, RS from registers), TMA and bulk
// copies, and the bulk f32 reductions of dQ.
// PTX: .target sm_90a
// PTX-DAG: .entry bwd_bf16_d128_causal_preprocess(
// PTX-DAG: .entry bwd_bf16_d128_causal(
// PTX-DAG: .entry bwd_bf16_d128_causal_convert(
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-DAG: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX-DAG: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32
// PTX-DAG: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 240
// D = 128: dQ staged with 16-byte stores (8 a thread, in each of the masked
// loop, the unmasked loop and the drain); D = 64 keeps 8-byte ones.
// RUN: FileCheck %s --check-prefix=V4 < %t/bwd_bf16_d128_causal.ptx
// V4-COUNT-24: st.shared.v4.b32
// V4-NOT: st.shared.v4.b32
// D = 128: the first step issues no dQ GEMM (skipsFirstDQ): each loop's
// step tail is a branch on the step having a previous one, the copy with
// the previous step's dQ (8 wgmma m64n64k16 of transposed operands, as in
// the drain: 24 in all, none more) and the one without, both storing dSᵀ
// (4 stmatrix each: 16 where main had 8).
// RUN: FileCheck %s --check-prefix=FIRST < %t/bwd_bf16_d128_causal.ptx
// RUN: grep -c 'stmatrix' %t/bwd_bf16_d128_causal.ptx | FileCheck %s --check-prefix=STM
// FIRST-COUNT-24: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1,  1, 1,  1;
// FIRST-NOT: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1,  1, 1,  1;
// STM: 16

// The plan: three kernels in launch order; the main kernel's tensor maps
// (Q and dO boxes of 64 rows, K and V of 128, dK and dV stores of 64).
// PLAN: "kernels": [
// PLAN: "name": "bwd_bf16_d128_causal_preprocess"
// PLAN: "name": "q",
// PLAN-NEXT: "tensor": "q",
// PLAN-NEXT: "tensor_map": {
// PLAN-NEXT: "box": [
// PLAN-NEXT: 64,
// PLAN-NEXT: 64,
// PLAN: "name": "dk",
// PLAN-NEXT: "tensor": "dk",
// PLAN-NEXT: "tensor_map": {
// PLAN-NEXT: "box": [
// PLAN-NEXT: 64,
// PLAN-NEXT: 64,
// PLAN: "Nk",
// PLAN: "mul",
// PLAN-NEXT: "B",
// PLAN-NEXT: "Hkv"
// PLAN: "block": [
// PLAN-NEXT: 384,
// PLAN: "name": "bwd_bf16_d128_causal",
// PLAN-NEXT: "programmatic_dependent_launch": true
// PLAN: "name": "bwd_bf16_d128_causal_convert"
// PLAN: "op": "attention_backward"

// NOSPILL-NOT: "spill_stores": {{[1-9]}}
// NOSPILL-NOT: "spill_loads": {{[1-9]}}
// NOSPILL-NOT: "stack_frame": {{[1-9]}}
// 10 bundles × 3 kernels.
// COUNT: 30
// RUN: FileCheck %s --check-prefix=DET < %t/bwd_bf16_d128_causal_deterministic.ptx
// DET: .entry bwd_bf16_d128_causal_deterministic(
// DET: ld.acquire.gpu.global.u32
// DET: fence.proxy.async.global;
// DET: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32
// DET: red.release.gpu.global.add.u32
// RUN: FileCheck %s --check-prefix=D64 < %t/bwd_bf16_d64.ptx
// D = 64, Q tiles of 128 rows: Sᵀ and dPᵀ of 64 × 128 per warpgroup (n128,
// k = D), dV and dK over the 128 queries (n64), dQ of the warpgroup's 64
// rows (n64, k = 128 keys).
// D64: .entry bwd_bf16_d64(
// D64-NOT: st.shared.v4.b32
// D64-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// D64-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// RUN: FileCheck %s --check-prefix=PTXNODET < %t/bwd_bf16_d128_causal.ptx
// Programmatic dependent launch (lower-to-nvgpu-backward-sm90a-pdl.mlir):
// the preprocess lets the main kernel start; the main kernel waits in its
// producer's first thread, its dQ writer and its consumers.
// RUN: FileCheck %s --check-prefix=PDL < %t/bwd_bf16_d128_causal.ptx
// PDL: .entry bwd_bf16_d128_causal_preprocess(
// PDL-NOT: griddepcontrol.wait
// PDL: griddepcontrol.launch_dependents;
// PDL-NOT: griddepcontrol
// PDL: .entry bwd_bf16_d128_causal(
// PDL: griddepcontrol.wait;
// PDL-NOT: griddepcontrol
// The convert overlaps the main kernel's last wave
// (kBackwardConvertOverlapsMain, ptx-sm90a-backward-convert-overlap.mlir):
// the dQ writer triggers it right after its wait; the convert waits per
// block on its head's count, and its last block for the main grid.
// PDL: griddepcontrol.wait;
// PDL-NEXT: griddepcontrol.launch_dependents;
// PDL-NOT: griddepcontrol
// PDL: griddepcontrol.wait;
// PDL-NOT: griddepcontrol
// PDL: .entry bwd_bf16_d128_causal_convert(
// PDL-NOT: griddepcontrol
// PDL: ld.acquire.gpu.global.u32
// PDL-NOT: griddepcontrol
// PDL: griddepcontrol.wait;
// PDL-NOT: griddepcontrol
// Without the deterministic plan's semaphores, the main kernel acquires
// nothing; its only releases count the q-heads' dQ (one per head of the
// group), which the convert acquires.
// PTXNODET: .entry bwd_bf16_d128_causal(
// PTXNODET-NOT: ld.acquire
// PTXNODET: red.release.gpu.global.add.u32
// PTXNODET-NOT: ld.acquire
// PTXNODET: .entry bwd_bf16_d128_causal_convert(
// PTXNODET-NOT: red.release
// PTXNODET: ld.acquire.gpu.global.u32
// PTXNODET-NOT: red.release
// The side kernels issue the loads of up to 16 row passes per thread before
// any store (BackwardLaunch::loadPasses): at D = 128 all 16 of the row
// block's, so every global load comes first. The preprocess: O and dO (16
// bytes each) and the row's lse per pass; then Δ, the shift, the zeroed
// accumulator and the head's dq_done counter. The convert: four 8-byte pairs of the accumulator per pass,
// then 16 stores of dQ.
// RUN: awk '/^\.visible \.entry bwd_bf16_d128_causal_preprocess\(/,/^}/' %t/bwd_bf16_d128_causal.ptx \
// RUN:   | grep -o -E '(ld|st)\.global' | uniq -c | FileCheck %s --check-prefix=PRELOADS
// PRELOADS: {{^ *}}48 ld.global
// PRELOADS-NEXT: {{^ *}}65 st.global
// PRELOADS-NOT: ld.global
// RUN: awk '/^\.visible \.entry bwd_bf16_d128_causal_convert\(/,/^}/' %t/bwd_bf16_d128_causal.ptx \
// RUN:   | grep -o -E '(ld|st)\.global' | uniq -c | FileCheck %s --check-prefix=CONVLOADS
// CONVLOADS: {{^ *}}64 ld.global
// CONVLOADS-NEXT: {{^ *}}16 st.global
// CONVLOADS-NOT: ld.global

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

func.func @bwd_bf16_d64_causal(%q: tensor<2x8x1000x64xbf16>, %k: tensor<2x2x1000x64xbf16>, %v: tensor<2x2x1000x64xbf16>, %o: tensor<2x8x1000x64xbf16>, %do: tensor<2x8x1000x64xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x64xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x64xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x64xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 8) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 64, value_dim = 64, causal = true, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>>}
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

func.func @bwd_bf16_d128_causal(%q: tensor<2x8x1000x128xbf16>, %k: tensor<2x2x1000x128xbf16>, %v: tensor<2x2x1000x128xbf16>, %o: tensor<2x8x1000x128xbf16>, %do: tensor<2x8x1000x128xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x128xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x128xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x128xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 8) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 128, value_dim = 128, causal = true, lse = false, scale = 0.0883883461 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 12>>}
  return %dq, %dk, %dv : tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>
}

func.func @bwd_f16_d64(%q: tensor<2x8x1000x64xf16>, %k: tensor<2x2x1000x64xf16>, %v: tensor<2x2x1000x64xf16>, %o: tensor<2x8x1000x64xf16>, %do: tensor<2x8x1000x64xf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x64xf16>, tensor<2x2x1000x64xf16>, tensor<2x2x1000x64xf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x64xf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x64xf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x64xf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 8) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x64xf16>, tensor<2x2x1000x64xf16>, tensor<2x2x1000x64xf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 64, value_dim = 64, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>>}
  return %dq, %dk, %dv : tensor<2x8x1000x64xf16>, tensor<2x2x1000x64xf16>, tensor<2x2x1000x64xf16>
}

func.func @bwd_f16_d64_causal(%q: tensor<2x8x1000x64xf16>, %k: tensor<2x2x1000x64xf16>, %v: tensor<2x2x1000x64xf16>, %o: tensor<2x8x1000x64xf16>, %do: tensor<2x8x1000x64xf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x64xf16>, tensor<2x2x1000x64xf16>, tensor<2x2x1000x64xf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x64xf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x64xf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x64xf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 8) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x64xf16>, tensor<2x2x1000x64xf16>, tensor<2x2x1000x64xf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 64, value_dim = 64, causal = true, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>>}
  return %dq, %dk, %dv : tensor<2x8x1000x64xf16>, tensor<2x2x1000x64xf16>, tensor<2x2x1000x64xf16>
}

func.func @bwd_f16_d128(%q: tensor<2x8x1000x128xf16>, %k: tensor<2x2x1000x128xf16>, %v: tensor<2x2x1000x128xf16>, %o: tensor<2x8x1000x128xf16>, %do: tensor<2x8x1000x128xf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x128xf16>, tensor<2x2x1000x128xf16>, tensor<2x2x1000x128xf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x128xf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x128xf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x128xf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 8) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x128xf16>, tensor<2x2x1000x128xf16>, tensor<2x2x1000x128xf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 0.0883883461 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 12>>}
  return %dq, %dk, %dv : tensor<2x8x1000x128xf16>, tensor<2x2x1000x128xf16>, tensor<2x2x1000x128xf16>
}

func.func @bwd_f16_d128_causal(%q: tensor<2x8x1000x128xf16>, %k: tensor<2x2x1000x128xf16>, %v: tensor<2x2x1000x128xf16>, %o: tensor<2x8x1000x128xf16>, %do: tensor<2x8x1000x128xf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x128xf16>, tensor<2x2x1000x128xf16>, tensor<2x2x1000x128xf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x128xf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x128xf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x128xf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 8) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x128xf16>, tensor<2x2x1000x128xf16>, tensor<2x2x1000x128xf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 128, value_dim = 128, causal = true, lse = false, scale = 0.0883883461 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 12>>}
  return %dq, %dk, %dv : tensor<2x8x1000x128xf16>, tensor<2x2x1000x128xf16>, tensor<2x2x1000x128xf16>
}

func.func @bwd_bf16_d128_causal_deterministic(%q: tensor<2x8x1000x128xbf16>, %k: tensor<2x2x1000x128xbf16>, %v: tensor<2x2x1000x128xbf16>, %o: tensor<2x8x1000x128xbf16>, %do: tensor<2x8x1000x128xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x128xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x128xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x128xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 8) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 128, value_dim = 128, causal = true, lse = false, scale = 0.0883883461 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 12>, deterministic = true>}
  return %dq, %dk, %dv : tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>
}

func.func @bwd_f16_d64_deterministic(%q: tensor<2x8x1000x64xf16>, %k: tensor<2x2x1000x64xf16>, %v: tensor<2x2x1000x64xf16>, %o: tensor<2x8x1000x64xf16>, %do: tensor<2x8x1000x64xf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x64xf16>, tensor<2x2x1000x64xf16>, tensor<2x2x1000x64xf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x64xf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x64xf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x64xf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 8) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x64xf16>, tensor<2x2x1000x64xf16>, tensor<2x2x1000x64xf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 64, value_dim = 64, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 12>, deterministic = true>}
  return %dq, %dk, %dv : tensor<2x8x1000x64xf16>, tensor<2x2x1000x64xf16>, tensor<2x2x1000x64xf16>
}
