// What the split-KV lowering cannot take is a located "not supported yet"
// diagnostic, never a crash or a wrong kernel.
// RUN: flash-opt %s --split-input-file --flash-lower-to-nvgpu=arch=sm_80 -verify-diagnostics
// RUN: not flash-opt %s --split-input-file --flash-select-kernel-form="persistent=yes" 2>&1 | FileCheck %s --check-prefix=FORM
// RUN: not flash-opt %s --split-input-file --flash-lower-to-nvgpu="arch=sm_80 fused-page-sizes=16,x" 2>&1 | FileCheck %s --check-prefix=PAGES
// RUN: not flash-opt %s --split-input-file --flash-lower-to-nvgpu="arch=sm_90a fused-page-sizes=0" 2>&1 | FileCheck %s --check-prefix=PAGES0

// The split-KV kernels have one form: form options are refused.
// FORM: error: not supported yet: form options for a split_kv kernel on sm_80 (it has one form)

// fused-page-sizes (paged plans' fused split kernels with S a constant) takes
// auto, none or page sizes; anything else is an error before any lowering.
// PAGES: error: flash-lower-to-nvgpu: fused-page-sizes takes auto, none or page sizes of 1 to 65536 slots, comma-separated; got '16,x'
// PAGES0: error: flash-lower-to-nvgpu: fused-page-sizes takes auto, none or page sizes of 1 to 65536 slots, comma-separated; got '0'

func.func @f(%q: tensor<1x32x1x128xbf16>, %k: tensor<1x8x4096x128xbf16>, %v: tensor<1x8x4096x128xbf16>) -> (tensor<1x32x1x128xbf16>) {
  %partials = tensor.empty() : tensor<64x1x32x1x128xf32>
  %o0 = tensor.empty() : tensor<1x32x1x128xbf16>
  // expected-error @+1 {{not supported yet: a split_kv attention without its merge loop (an scf.forall tagged flash.stage = "merge")}}
  %p = scf.forall (%s, %h, %b) in (64, 8, 1) shared_outs(%part = %partials) -> (tensor<64x1x32x1x128xf32>) {
    scf.forall.in_parallel {
    }
  } {flash.kernel = #flash.kernel<kind = split_kv, element_type = bf16, batch = 1, q_heads = 32, kv_heads = 8, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 0.08838834764831843 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 16, block_kv = 64, stages = 2, warps = 4>, max_splits = 64>}
  return %o0 : tensor<1x32x1x128xbf16>
}

// -----

func.func @f(%q: tensor<1x32x1x128xbf16>, %k: tensor<1x8x4096x128xbf16>, %v: tensor<1x8x4096x128xbf16>) -> (tensor<1x32x1x128xbf16>) {
  %partials = tensor.empty() : tensor<64x1x32x1x128xf32>
  %o0 = tensor.empty() : tensor<1x32x1x128xbf16>
  %p = scf.forall (%s, %h, %b) in (64, 8, 1) shared_outs(%part = %partials) -> (tensor<64x1x32x1x128xf32>) {
    scf.forall.in_parallel {
    }
  } {flash.kernel = #flash.kernel<kind = split_kv, element_type = bf16, batch = 1, q_heads = 32, kv_heads = 8, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 0.08838834764831843 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 16, block_kv = 64, stages = 2, warps = 4>, max_splits = 64>}
  %o = scf.forall (%r) in (32) shared_outs(%out = %o0) -> (tensor<1x32x1x128xbf16>) {
    scf.forall.in_parallel {
    }
  } {flash.stage = "merge"}
  // expected-error @+1 {{not supported yet: more than one merge loop in one function lowered to GPU kernels}}
  %o2 = scf.forall (%r) in (32) shared_outs(%out = %o0) -> (tensor<1x32x1x128xbf16>) {
    scf.forall.in_parallel {
    }
  } {flash.stage = "merge"}
  return %o : tensor<1x32x1x128xbf16>
}

// -----

func.func @f(%q: tensor<1x32x1x128xbf16>, %k: tensor<1x8x4096x128xbf16>, %v: tensor<1x8x4096x128xbf16>) -> (tensor<1x32x1x128xbf16>) {
  %partials = tensor.empty() : tensor<64x1x32x1x128xf32>
  %o0 = tensor.empty() : tensor<1x32x1x128xbf16>
  // expected-error @+1 {{not supported yet: max_splits = 2000 (1 to 1024) on sm_80}}
  %p = scf.forall (%s, %h, %b) in (64, 8, 1) shared_outs(%part = %partials) -> (tensor<64x1x32x1x128xf32>) {
    scf.forall.in_parallel {
    }
  } {flash.kernel = #flash.kernel<kind = split_kv, element_type = bf16, batch = 1, q_heads = 32, kv_heads = 8, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 0.08838834764831843 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 16, block_kv = 64, stages = 2, warps = 4>, max_splits = 2000>}
  %o = scf.forall (%r) in (32) shared_outs(%out = %o0) -> (tensor<1x32x1x128xbf16>) {
    scf.forall.in_parallel {
    }
  } {flash.stage = "merge"}
  return %o : tensor<1x32x1x128xbf16>
}

// -----

// expected-error @+1 {{not supported yet: a paged kernel function must take exactly Q, the K and V caches, the block table and the sequence lengths}}
func.func @g(%q: tensor<1x32x1x128xbf16>, %k: tensor<256x16x8x128xbf16>, %v: tensor<256x16x8x128xbf16>) -> (tensor<1x32x1x128xbf16>) {
  %partials = tensor.empty() : tensor<64x1x32x1x128xf32>
  %o0 = tensor.empty() : tensor<1x32x1x128xbf16>
  %p = scf.forall (%s, %h, %b) in (64, 8, 1) shared_outs(%part = %partials) -> (tensor<64x1x32x1x128xf32>) {
    scf.forall.in_parallel {
    }
  } {flash.kernel = #flash.kernel<kind = paged, element_type = bf16, batch = 1, q_heads = 32, kv_heads = 8, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 0.08838834764831843 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 16, block_kv = 64, stages = 2, warps = 4>, page_size = 16, max_splits = 64>}
  %o = scf.forall (%r) in (32) shared_outs(%out = %o0) -> (tensor<1x32x1x128xbf16>) {
    scf.forall.in_parallel {
    }
  } {flash.stage = "merge"}
  return %o : tensor<1x32x1x128xbf16>
}

// -----

func.func @f(%q: tensor<1x32x1x128xbf16>, %k: tensor<1x8x4096x128xbf16>, %v: tensor<1x8x4096x128xbf16>) -> (tensor<1x32x1x128xbf16>) {
  %partials = tensor.empty() : tensor<64x1x32x1x128xf32>
  %o0 = tensor.empty() : tensor<1x32x1x128xbf16>
  %p = scf.forall (%s, %h, %b) in (64, 8, 1) shared_outs(%part = %partials) -> (tensor<64x1x32x1x128xf32>) {
    scf.forall.in_parallel {
    }
  } {flash.kernel = #flash.kernel<kind = forward, element_type = bf16, batch = 1, q_heads = 32, kv_heads = 8, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 0.08838834764831843 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 16, block_kv = 64, stages = 2, warps = 4>>}
  // expected-error @+1 {{not supported yet: a merge loop beside a forward attention}}
  %o = scf.forall (%r) in (32) shared_outs(%out = %o0) -> (tensor<1x32x1x128xbf16>) {
    scf.forall.in_parallel {
    }
  } {flash.stage = "merge"}
  return %o : tensor<1x32x1x128xbf16>
}

// -----

func.func @f(%q: tensor<1x32x1x128xbf16>, %k: tensor<1x8x4096x128xbf16>, %v: tensor<1x8x4096x128xbf16>) -> (tensor<1x32x1x128xbf16>) {
  %partials = tensor.empty() : tensor<64x1x32x1x128xf32>
  %o0 = tensor.empty() : tensor<1x32x1x128xbf16>
  %p = scf.forall (%s, %h, %b) in (64, 8, 1) shared_outs(%part = %partials) -> (tensor<64x1x32x1x128xf32>) {
    scf.forall.in_parallel {
    }
  } {flash.kernel = #flash.kernel<kind = split_kv, element_type = bf16, batch = 1, q_heads = 32, kv_heads = 8, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 0.08838834764831843 : f32, schedule = #flash.schedule<arch = "sm_80", block_q = 16, block_kv = 64, stages = 2, warps = 4>, max_splits = 64>}
  %o = scf.forall (%r) in (32) shared_outs(%out = %o0) -> (tensor<1x32x1x128xbf16>) {
    scf.forall.in_parallel {
    }
  } {flash.stage = "merge"}
  // expected-error @+1 {{not supported yet: the function must return exactly the attention's results}}
  return %o0 : tensor<1x32x1x128xbf16>
}

// -----

// flash.paged_attention is lowered from its tiled form (flash-tile's split
// and merge loops; --flash-to-ptx runs flash-tile first).
func.func @untiled(%q: tensor<1x32x1x128xbf16>, %k: tensor<64x16x8x128xbf16>, %v: tensor<64x16x8x128xbf16>, %bt: tensor<1x64xi32>, %sl: tensor<1xi32>) -> tensor<1x32x1x128xbf16> {
  // expected-error @+1 {{'flash.paged_attention' op must be tiled (flash-tile) before flash-lower-to-nvgpu}}
  %o = flash.paged_attention %q, %k, %v, %bt, %sl : tensor<1x32x1x128xbf16>, tensor<64x16x8x128xbf16>, tensor<64x16x8x128xbf16>, tensor<1x64xi32>, tensor<1xi32> -> tensor<1x32x1x128xbf16>
  return %o : tensor<1x32x1x128xbf16>
}
