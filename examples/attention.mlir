// The example attention of the README: GQA 8/2, causal, N = 1000 (not a
// multiple of any tile), D = 64, bf16, with its log-sum-exp.
func.func @attention(%q: tensor<2x8x1000x64xbf16>, %k: tensor<2x2x1000x64xbf16>, %v: tensor<2x2x1000x64xbf16>)
    -> (tensor<2x8x1000x64xbf16>, tensor<2x8x1000xf32>) {
  %o, %lse = flash.attention %q, %k, %v {causal, scale = 0.125 : f32}
      : tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>
      -> tensor<2x8x1000x64xbf16>, tensor<2x8x1000xf32>
  return %o, %lse : tensor<2x8x1000x64xbf16>, tensor<2x8x1000xf32>
}
