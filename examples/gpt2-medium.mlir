// The FlashAttention paper's GPT-2 medium example: N = 1024, d = 64, 16 heads,
// batch 64, fp16.
func.func @gpt2_medium(%q: tensor<64x16x1024x64xf16>, %k: tensor<64x16x1024x64xf16>, %v: tensor<64x16x1024x64xf16>) -> tensor<64x16x1024x64xf16> {
  %o = flash.attention %q, %k, %v : tensor<64x16x1024x64xf16>, tensor<64x16x1024x64xf16>, tensor<64x16x1024x64xf16> -> tensor<64x16x1024x64xf16>
  return %o : tensor<64x16x1024x64xf16>
}
