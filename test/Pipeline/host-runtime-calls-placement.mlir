// Host calls are emitted in func.func ops of the module that runs the pass;
// an attention elsewhere is refused (flash-extract-attention-kernels takes
// it), and a symbol of the runtime's name with another type is an error.
// RUN: flash-opt %s --split-input-file --flash-attention-to-runtime-calls -verify-diagnostics

module {
  module @inner {
    func.func @nested(%q: tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16> {
      // expected-error @+1 {{not supported yet: flash.attention outside a func.func of the module (host calls are emitted in the module's functions)}}
      %o = flash.attention %q, %q, %q : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16> -> tensor<1x1x64x64xbf16>
      return %o : tensor<1x1x64x64xbf16>
    }
  }
}

// -----

// expected-error @+1 {{'func.func' op is not the runtime's declaration}}
func.func private @flash_attention_memref_bf16(i32) -> i32
func.func @taken(%q: tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16> {
  %o = flash.attention %q, %q, %q : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16> -> tensor<1x1x64x64xbf16>
  return %o : tensor<1x1x64x64xbf16>
}
