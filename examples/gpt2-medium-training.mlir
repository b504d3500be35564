// The FlashAttention paper's GPT-2 medium example as training runs it: the
// forward (with the LSE the backward needs) and the backward. N = 1024,
// d = 64, 16 heads, batch 64, fp16. docs/io-model.md reads the IO report of
// both against the paper's 40.3 GB / 4.4 GB.
func.func @gpt2_medium_training(%q: tensor<64x16x1024x64xf16>, %k: tensor<64x16x1024x64xf16>, %v: tensor<64x16x1024x64xf16>,
                                %do: tensor<64x16x1024x64xf16>)
    -> (tensor<64x16x1024x64xf16>, tensor<64x16x1024x64xf16>, tensor<64x16x1024x64xf16>) {
  %o, %lse = flash.attention %q, %k, %v
      : tensor<64x16x1024x64xf16>, tensor<64x16x1024x64xf16>, tensor<64x16x1024x64xf16>
      -> tensor<64x16x1024x64xf16>, tensor<64x16x1024xf32>
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse
      : tensor<64x16x1024x64xf16>, tensor<64x16x1024x64xf16>, tensor<64x16x1024x64xf16>,
        tensor<64x16x1024x64xf16>, tensor<64x16x1024x64xf16>, tensor<64x16x1024xf32>
      -> tensor<64x16x1024x64xf16>, tensor<64x16x1024x64xf16>, tensor<64x16x1024x64xf16>
  return %dq, %dk, %dv : tensor<64x16x1024x64xf16>, tensor<64x16x1024x64xf16>, tensor<64x16x1024x64xf16>
}
