// RUN: rm -rf %t && mkdir -p %t
// RUN: flash-opt %s --flash-to-ptx="arch=sm_80 bundle-dir=%t/sm80" -o /dev/null
// RUN: FileCheck %s --check-prefix=SM80 < %t/sm80/bwd_d256.json

// flash.attention_backward as written, through --flash-to-ptx with no
// schedule options: the target model's schedule must be one the kernel
// takes. At D = 256 on sm_80 that is FlashAttention-2's A100 choice, 64×64
// on 8 warps with one stage of Q and dO (two warps share 16 keys, one
// computing their Sᵀ, the other dPᵀ); two stages of 64-row Q tiles would
// overflow an A100's shared memory (the kernel's 32×64 with two stages was
// the model's choice before the kernel took one stage).

// SM80: "block_kv": 64,
// SM80-NEXT: "block_q": 64,
// SM80: "stages": 1,
// SM80: "dynamic_shared_memory": 164352,
// SM80: "name": "bwd_d256"{{$}}
func.func @bwd_d256(%q: tensor<1x4x300x256xbf16>, %k: tensor<1x2x300x256xbf16>, %v: tensor<1x2x300x256xbf16>,
                    %o: tensor<1x4x300x256xbf16>, %do: tensor<1x4x300x256xbf16>, %lse: tensor<1x4x300xf32>)
    -> (tensor<1x4x300x256xbf16>, tensor<1x2x300x256xbf16>, tensor<1x2x300x256xbf16>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse {causal}
      : tensor<1x4x300x256xbf16>, tensor<1x2x300x256xbf16>, tensor<1x2x300x256xbf16>, tensor<1x4x300x256xbf16>,
        tensor<1x4x300x256xbf16>, tensor<1x4x300xf32>
      -> tensor<1x4x300x256xbf16>, tensor<1x2x300x256xbf16>, tensor<1x2x300x256xbf16>
  return %dq, %dk, %dv : tensor<1x4x300x256xbf16>, tensor<1x2x300x256xbf16>, tensor<1x2x300x256xbf16>
}
