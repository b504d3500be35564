// The anchor shape of DESIGN.md: B·N = 16k tokens, H·D = 2048, D = 128, N = 8k, bf16.
func.func @d128_n8k(%q: tensor<2x16x8192x128xbf16>, %k: tensor<2x16x8192x128xbf16>, %v: tensor<2x16x8192x128xbf16>) -> tensor<2x16x8192x128xbf16> {
  %o = flash.attention %q, %k, %v : tensor<2x16x8192x128xbf16>, tensor<2x16x8192x128xbf16>, tensor<2x16x8192x128xbf16> -> tensor<2x16x8192x128xbf16>
  return %o : tensor<2x16x8192x128xbf16>
}
func.func @d128_n8k_causal(%q: tensor<2x16x8192x128xbf16>, %k: tensor<2x16x8192x128xbf16>, %v: tensor<2x16x8192x128xbf16>) -> tensor<2x16x8192x128xbf16> {
  %o = flash.attention %q, %k, %v {causal} : tensor<2x16x8192x128xbf16>, tensor<2x16x8192x128xbf16>, tensor<2x16x8192x128xbf16> -> tensor<2x16x8192x128xbf16>
  return %o : tensor<2x16x8192x128xbf16>
}
