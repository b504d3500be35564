// REQUIRES: ptxas
// The backward's sm_80 kernels through the whole pipeline (hand-written
// backward L1 -> flash-lower-to-nvgpu -> NVVM -> PTX -> bundles): every
// configuration the bundles ship (bf16/f16 × D 64/128/256 × causal or not ×
// the plan with atomics on 8 warps, block_q 128 at D = 64 and 64 at D = 128, or
// the deterministic one on 4 warps; at D = 256 two warps per 16 K/V rows,
// block_kv = 8·warps, and block_q 64 with one stage (the deterministic plan:
// 32 with two)), assembled by ptxas -v for sm_80 and for sm_90 (the cubin an
// H100/H200 runs) with no spill stores, spill loads or stack frame in any
// kernel; and, for sm_80, the atomic plan on 4 warps (a variant, compile
// --backward-warps 4; its sm_90 cubin at D = 128 spills 28 bytes: not
// shipped) and the D = 256 atomic plan's earlier 32×64 tiles with two stages.

// RUN: rm -rf %t && split-file %s %t
// RUN: flash-opt %t/shipped.mlir --flash-to-ptx="arch=sm_80 bundle-dir=%t/shipped cubin-archs=sm_80,sm_90" -o /dev/null
// RUN: flash-opt %t/variant.mlir --flash-to-ptx="arch=sm_80 bundle-dir=%t/variant cubin-archs=sm_80" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/shipped/bwd_bf16_d128_causal.ptx
// RUN: FileCheck %s --check-prefix=PLAN < %t/shipped/bwd_bf16_d128_causal.json
// RUN: FileCheck %s --check-prefix=PLAN256 < %t/shipped/bwd_bf16_d256.json
// RUN: FileCheck %s --check-prefix=PLAN256DET < %t/shipped/bwd_f16_d256_causal_det.json
// RUN: FileCheck %s --check-prefix=PLAN256-BQ32 < %t/variant/bwd_bf16_d256_bq32.json
// RUN: cat %t/shipped/*.json %t/variant/*.json | FileCheck %s --check-prefix=NOSPILL
// RUN: cat %t/shipped/*.json | grep -c '"spill_stores": 0' | FileCheck %s --check-prefix=COUNT
// RUN: cat %t/variant/*.json | grep -c '"spill_stores": 0' | FileCheck %s --check-prefix=COUNT-VARIANT
// No programmatic dependent launch on sm_80 (sm_90a's backward plans chain
// their kernels with it: lower-to-nvgpu-backward-sm90a-pdl.mlir): no plan
// field, no griddepcontrol in any kernel.
// RUN: cat %t/shipped/*.ptx %t/shipped/*.json | FileCheck %s --check-prefix=NOPDL
// NOPDL-NOT: griddepcontrol
// NOPDL-NOT: programmatic_dependent_launch

// Three entry points in one PTX file: preprocess, main (mma.sync, ldmatrix and
// ldmatrix.trans, f32 atomics for dQ; .minnctapersm 1), convert.
// PTX: .target sm_80
// PTX-DAG: .entry bwd_bf16_d128_causal_preprocess(
// PTX-DAG: .entry bwd_bf16_d128_causal(
// PTX-DAG: .entry bwd_bf16_d128_causal_convert(
// PTX-DAG: .minnctapersm 1
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-DAG: atom.global.add.f32
// PTX-DAG: cp.async.cg.shared.global

// The plan: op, tensors, workspaces sized by formulas, three kernels in
// launch order sharing the files, each with its own ptxas report per cubin;
// the causal main kernel's grid with the K/V tile on y (longest blocks
// first within a batch).
// PLAN: "kernels": [
// PLAN: "name": "bwd_bf16_d128_causal_preprocess"
// PLAN: "grid": {
// PLAN-NEXT: "kind": "tiles",
// PLAN-NEXT: "x": "Hkv",
// PLAN-NEXT: "y": [
// PLAN-NEXT: "ceildiv",
// PLAN-NEXT: "Nk",
// PLAN-NEXT: 128
// PLAN-NEXT: ],
// PLAN-NEXT: "z": "B"
// PLAN: "name": "bwd_bf16_d128_causal"{{$}}
// PLAN: "name": "bwd_bf16_d128_causal_convert"
// PLAN: "op": "attention_backward"
// PLAN: "variant": ""
// PLAN: "workspaces": [
// PLAN-NEXT: {
// PLAN-NEXT: "bytes": [
// PLAN-NEXT: "mul",
// PLAN-NEXT: "B",
// PLAN-NEXT: "Hq",

// D = 256: two warps per 16 K/V rows (8 warps, 64 keys a block), Q tiles of
// 64 rows with one stage; shared memory within an A100's 163 KB (166,912
// bytes): K, V, one stage of Q and dO, the exchange tile of Pᵀ and dSᵀ (rows
// of 128 elements), shift and Δ, and Pᵀ in f32 from the Sᵀ warps to the dPᵀ
// warps (2·(2·64·256 + 2·64·256 + 64·128) + 8·64 + 4·64·64 = 164,352
// bytes). The variant with Q tiles of 32 rows and two stages (the form
// before): 2·(2·64·256 + 4·32·256 + 64·64) + 16·32 + 4·64·32 = 147,968. The
// deterministic plan's main kernel (4 warps, 32 keys, 32-row Q tiles, two
// stages) and its dQ kernel (Q, dO of 64 rows, two stages of K and V of 32
// rows).
// PLAN256: "name": "bwd_bf16_d256_preprocess"
// PLAN256: "block": [
// PLAN256-NEXT: 256,
// PLAN256: "block_kv": 64,
// PLAN256-NEXT: "block_q": 64,
// PLAN256: "stages": 1,
// PLAN256: "dynamic_shared_memory": 164352,
// PLAN256: "name": "bwd_bf16_d256"{{$}}
// PLAN256-BQ32: "block_kv": 64,
// PLAN256-BQ32-NEXT: "block_q": 32,
// PLAN256-BQ32: "stages": 2,
// PLAN256-BQ32: "dynamic_shared_memory": 147968,
// PLAN256-BQ32: "name": "bwd_bf16_d256_bq32"{{$}}
// PLAN256DET: "name": "bwd_f16_d256_causal_det_preprocess"
// PLAN256DET: "dynamic_shared_memory": 107008,
// PLAN256DET: "name": "bwd_f16_d256_causal_det"{{$}}
// PLAN256DET: "dynamic_shared_memory": 131072,
// PLAN256DET: "name": "bwd_f16_d256_causal_det_dq"

// NOSPILL-NOT: "spill_stores": {{[1-9]}}
// NOSPILL-NOT: "spill_loads": {{[1-9]}}
// NOSPILL-NOT: "stack_frame": {{[1-9]}}
// 24 bundles × 3 kernels × 2 cubins.
// COUNT: 144
// COUNT-VARIANT: 6

//--- shipped.mlir
func.func @bwd_bf16_d64(%q: tensor<2x8x1000x64xbf16>, %k: tensor<2x2x1000x64xbf16>, %v: tensor<2x2x1000x64xbf16>, %o: tensor<2x8x1000x64xbf16>, %do: tensor<2x8x1000x64xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x64xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x64xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x64xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 8) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 64, value_dim = 64, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 128, block_kv = 128, stages = 2, warps = 8>>}
  return %dq, %dk, %dv : tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>
}

func.func @bwd_bf16_d64_det(%q: tensor<2x8x1000x64xbf16>, %k: tensor<2x2x1000x64xbf16>, %v: tensor<2x2x1000x64xbf16>, %o: tensor<2x8x1000x64xbf16>, %do: tensor<2x8x1000x64xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x64xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x64xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x64xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 64, value_dim = 64, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>, deterministic = true>}
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
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 64, value_dim = 64, causal = true, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 128, block_kv = 128, stages = 2, warps = 8>>}
  return %dq, %dk, %dv : tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>
}

func.func @bwd_bf16_d64_causal_det(%q: tensor<2x8x1000x64xbf16>, %k: tensor<2x2x1000x64xbf16>, %v: tensor<2x2x1000x64xbf16>, %o: tensor<2x8x1000x64xbf16>, %do: tensor<2x8x1000x64xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x64xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x64xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x64xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 64, value_dim = 64, causal = true, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>, deterministic = true>}
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
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 128, stages = 2, warps = 8>>}
  return %dq, %dk, %dv : tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>
}

func.func @bwd_bf16_d128_det(%q: tensor<2x8x1000x128xbf16>, %k: tensor<2x2x1000x128xbf16>, %v: tensor<2x2x1000x128xbf16>, %o: tensor<2x8x1000x128xbf16>, %do: tensor<2x8x1000x128xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x128xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x128xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x128xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>, deterministic = true>}
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
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 128, value_dim = 128, causal = true, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 128, stages = 2, warps = 8>>}
  return %dq, %dk, %dv : tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>
}

func.func @bwd_bf16_d128_causal_det(%q: tensor<2x8x1000x128xbf16>, %k: tensor<2x2x1000x128xbf16>, %v: tensor<2x2x1000x128xbf16>, %o: tensor<2x8x1000x128xbf16>, %do: tensor<2x8x1000x128xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x128xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x128xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x128xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 128, value_dim = 128, causal = true, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>, deterministic = true>}
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
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 64, value_dim = 64, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 128, block_kv = 128, stages = 2, warps = 8>>}
  return %dq, %dk, %dv : tensor<2x8x1000x64xf16>, tensor<2x2x1000x64xf16>, tensor<2x2x1000x64xf16>
}

func.func @bwd_f16_d64_det(%q: tensor<2x8x1000x64xf16>, %k: tensor<2x2x1000x64xf16>, %v: tensor<2x2x1000x64xf16>, %o: tensor<2x8x1000x64xf16>, %do: tensor<2x8x1000x64xf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x64xf16>, tensor<2x2x1000x64xf16>, tensor<2x2x1000x64xf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x64xf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x64xf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x64xf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x64xf16>, tensor<2x2x1000x64xf16>, tensor<2x2x1000x64xf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 64, value_dim = 64, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>, deterministic = true>}
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
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 64, value_dim = 64, causal = true, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 128, block_kv = 128, stages = 2, warps = 8>>}
  return %dq, %dk, %dv : tensor<2x8x1000x64xf16>, tensor<2x2x1000x64xf16>, tensor<2x2x1000x64xf16>
}

func.func @bwd_f16_d64_causal_det(%q: tensor<2x8x1000x64xf16>, %k: tensor<2x2x1000x64xf16>, %v: tensor<2x2x1000x64xf16>, %o: tensor<2x8x1000x64xf16>, %do: tensor<2x8x1000x64xf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x64xf16>, tensor<2x2x1000x64xf16>, tensor<2x2x1000x64xf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x64xf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x64xf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x64xf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x64xf16>, tensor<2x2x1000x64xf16>, tensor<2x2x1000x64xf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 64, value_dim = 64, causal = true, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>, deterministic = true>}
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
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 128, stages = 2, warps = 8>>}
  return %dq, %dk, %dv : tensor<2x8x1000x128xf16>, tensor<2x2x1000x128xf16>, tensor<2x2x1000x128xf16>
}

func.func @bwd_f16_d128_det(%q: tensor<2x8x1000x128xf16>, %k: tensor<2x2x1000x128xf16>, %v: tensor<2x2x1000x128xf16>, %o: tensor<2x8x1000x128xf16>, %do: tensor<2x8x1000x128xf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x128xf16>, tensor<2x2x1000x128xf16>, tensor<2x2x1000x128xf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x128xf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x128xf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x128xf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x128xf16>, tensor<2x2x1000x128xf16>, tensor<2x2x1000x128xf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>, deterministic = true>}
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
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 128, value_dim = 128, causal = true, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 128, stages = 2, warps = 8>>}
  return %dq, %dk, %dv : tensor<2x8x1000x128xf16>, tensor<2x2x1000x128xf16>, tensor<2x2x1000x128xf16>
}

func.func @bwd_f16_d128_causal_det(%q: tensor<2x8x1000x128xf16>, %k: tensor<2x2x1000x128xf16>, %v: tensor<2x2x1000x128xf16>, %o: tensor<2x8x1000x128xf16>, %do: tensor<2x8x1000x128xf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x128xf16>, tensor<2x2x1000x128xf16>, tensor<2x2x1000x128xf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x128xf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x128xf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x128xf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x128xf16>, tensor<2x2x1000x128xf16>, tensor<2x2x1000x128xf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 128, value_dim = 128, causal = true, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>, deterministic = true>}
  return %dq, %dk, %dv : tensor<2x8x1000x128xf16>, tensor<2x2x1000x128xf16>, tensor<2x2x1000x128xf16>
}

func.func @bwd_bf16_d256(%q: tensor<2x8x1000x256xbf16>, %k: tensor<2x2x1000x256xbf16>, %v: tensor<2x2x1000x256xbf16>, %o: tensor<2x8x1000x256xbf16>, %do: tensor<2x8x1000x256xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x256xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x256xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x256xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 256, value_dim = 256, causal = false, lse = false, scale = 6.250000e-02 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 1, warps = 8>>}
  return %dq, %dk, %dv : tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>
}

func.func @bwd_bf16_d256_det(%q: tensor<2x8x1000x256xbf16>, %k: tensor<2x2x1000x256xbf16>, %v: tensor<2x2x1000x256xbf16>, %o: tensor<2x8x1000x256xbf16>, %do: tensor<2x8x1000x256xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x256xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x256xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x256xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 32) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 256, value_dim = 256, causal = false, lse = false, scale = 6.250000e-02 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 32, block_kv = 32, stages = 2, warps = 4>, deterministic = true>}
  return %dq, %dk, %dv : tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>
}

func.func @bwd_bf16_d256_causal(%q: tensor<2x8x1000x256xbf16>, %k: tensor<2x2x1000x256xbf16>, %v: tensor<2x2x1000x256xbf16>, %o: tensor<2x8x1000x256xbf16>, %do: tensor<2x8x1000x256xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x256xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x256xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x256xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 256, value_dim = 256, causal = true, lse = false, scale = 6.250000e-02 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 1, warps = 8>>}
  return %dq, %dk, %dv : tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>
}

func.func @bwd_bf16_d256_causal_det(%q: tensor<2x8x1000x256xbf16>, %k: tensor<2x2x1000x256xbf16>, %v: tensor<2x2x1000x256xbf16>, %o: tensor<2x8x1000x256xbf16>, %do: tensor<2x8x1000x256xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x256xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x256xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x256xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 32) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 256, value_dim = 256, causal = true, lse = false, scale = 6.250000e-02 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 32, block_kv = 32, stages = 2, warps = 4>, deterministic = true>}
  return %dq, %dk, %dv : tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>
}

func.func @bwd_f16_d256(%q: tensor<2x8x1000x256xf16>, %k: tensor<2x2x1000x256xf16>, %v: tensor<2x2x1000x256xf16>, %o: tensor<2x8x1000x256xf16>, %do: tensor<2x8x1000x256xf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x256xf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x256xf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x256xf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 256, value_dim = 256, causal = false, lse = false, scale = 6.250000e-02 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 1, warps = 8>>}
  return %dq, %dk, %dv : tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>
}

func.func @bwd_f16_d256_det(%q: tensor<2x8x1000x256xf16>, %k: tensor<2x2x1000x256xf16>, %v: tensor<2x2x1000x256xf16>, %o: tensor<2x8x1000x256xf16>, %do: tensor<2x8x1000x256xf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x256xf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x256xf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x256xf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 32) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 256, value_dim = 256, causal = false, lse = false, scale = 6.250000e-02 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 32, block_kv = 32, stages = 2, warps = 4>, deterministic = true>}
  return %dq, %dk, %dv : tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>
}

func.func @bwd_f16_d256_causal(%q: tensor<2x8x1000x256xf16>, %k: tensor<2x2x1000x256xf16>, %v: tensor<2x2x1000x256xf16>, %o: tensor<2x8x1000x256xf16>, %do: tensor<2x8x1000x256xf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x256xf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x256xf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x256xf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 256, value_dim = 256, causal = true, lse = false, scale = 6.250000e-02 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 1, warps = 8>>}
  return %dq, %dk, %dv : tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>
}

func.func @bwd_f16_d256_causal_det(%q: tensor<2x8x1000x256xf16>, %k: tensor<2x2x1000x256xf16>, %v: tensor<2x2x1000x256xf16>, %o: tensor<2x8x1000x256xf16>, %do: tensor<2x8x1000x256xf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x256xf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x256xf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x256xf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 32) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = f16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 256, value_dim = 256, causal = true, lse = false, scale = 6.250000e-02 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 32, block_kv = 32, stages = 2, warps = 4>, deterministic = true>}
  return %dq, %dk, %dv : tensor<2x8x1000x256xf16>, tensor<2x2x1000x256xf16>, tensor<2x2x1000x256xf16>
}

//--- variant.mlir
func.func @bwd_bf16_d128_causal_w4(%q: tensor<2x8x1000x128xbf16>, %k: tensor<2x2x1000x128xbf16>, %v: tensor<2x2x1000x128xbf16>, %o: tensor<2x8x1000x128xbf16>, %do: tensor<2x8x1000x128xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x128xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x128xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x128xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 128, value_dim = 128, causal = true, lse = false, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 64, block_kv = 64, stages = 2, warps = 4>>}
  return %dq, %dk, %dv : tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16>
}

func.func @bwd_bf16_d256_bq32(%q: tensor<2x8x1000x256xbf16>, %k: tensor<2x2x1000x256xbf16>, %v: tensor<2x2x1000x256xbf16>, %o: tensor<2x8x1000x256xbf16>, %do: tensor<2x8x1000x256xbf16>, %lse: tensor<2x8x1000xf32>) -> (tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>) {
  %d0 = tensor.empty() : tensor<2x8x1000xf32>
  %delta = scf.forall (%b, %h) in (2, 8) shared_outs(%acc = %d0) -> (tensor<2x8x1000xf32>) {
  } {flash.stage = "preprocess"}
  %dq0 = tensor.empty() : tensor<2x8x1000x256xbf16>
  %dk0 = tensor.empty() : tensor<2x2x1000x256xbf16>
  %dv0 = tensor.empty() : tensor<2x2x1000x256xbf16>
  %dq, %dk, %dv = scf.forall (%b, %h, %j) in (2, 2, 16) shared_outs(%a = %dq0, %c = %dk0, %e = %dv0) -> (tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>) {
  } {flash.kernel = #flash.kernel<kind = backward, element_type = bf16, batch = 2, q_heads = 8, kv_heads = 2, seq_q = 1000, seq_kv = 1000, head_dim = 256, value_dim = 256, causal = false, lse = false, scale = 6.250000e-02 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 32, block_kv = 64, stages = 2, warps = 8>>}
  return %dq, %dk, %dv : tensor<2x8x1000x256xbf16>, tensor<2x2x1000x256xbf16>, tensor<2x2x1000x256xbf16>
}
