// What a call from host code cannot take is refused with a located
// "not supported yet" naming it, by flash-attention-to-runtime-calls and by
// flash-extract-attention-kernels alike (the host call and the bundle must
// agree), before anything is rewritten.
// RUN: flash-opt %s --split-input-file --flash-attention-to-runtime-calls -verify-diagnostics
// RUN: flash-opt %s --split-input-file --flash-extract-attention-kernels -verify-diagnostics

func.func @lse(%q: tensor<1x1x64x64xbf16>) -> tensor<1x1x64xf32> {
  // expected-error @+1 {{not supported yet: the LSE result in a call from host code (flash_attention_memref writes O only)}}
  %o, %lse = flash.attention %q, %q, %q : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16> -> tensor<1x1x64x64xbf16>, tensor<1x1x64xf32>
  return %lse : tensor<1x1x64xf32>
}

// -----

func.func @f32(%q: tensor<1x1x64x64xf32>) -> tensor<1x1x64x64xf32> {
  // expected-error @+1 {{not supported yet: 'f32' attention on the GPU path (its kernels take bf16 and f16; f32 is the CPU pipeline's)}}
  %o = flash.attention %q, %q, %q : tensor<1x1x64x64xf32>, tensor<1x1x64x64xf32>, tensor<1x1x64x64xf32> -> tensor<1x1x64x64xf32>
  return %o : tensor<1x1x64x64xf32>
}

// -----

func.func @dynamic_head_dim(%q: tensor<1x1x64x?xbf16>) -> tensor<1x1x64x?xbf16> {
  // expected-error @+1 {{not supported yet: a dynamic head dimension (D and Dv select the kernel)}}
  %o = flash.attention %q, %q, %q : tensor<1x1x64x?xbf16>, tensor<1x1x64x?xbf16>, tensor<1x1x64x?xbf16> -> tensor<1x1x64x?xbf16>
  return %o : tensor<1x1x64x?xbf16>
}

// -----

func.func @backward(%q: tensor<1x1x64x64xbf16>, %lse: tensor<1x1x64xf32>) -> tensor<1x1x64x64xbf16> {
  // expected-error @+1 {{'flash.attention_backward' op not supported yet: 'flash.attention_backward' in host code lowered to runtime calls (the runtime's host ABI calls flash.attention only)}}
  %dq, %dk, %dv = flash.attention_backward %q, %q, %q, %q, %q, %lse : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64xf32> -> tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>
  return %dq : tensor<1x1x64x64xbf16>
}
