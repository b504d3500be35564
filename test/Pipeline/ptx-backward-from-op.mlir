// RUN: rm -rf %t && mkdir -p %t
// RUN: flash-opt %s --flash-to-ptx="arch=sm_80 bundle-dir=%t/sm80" -o /dev/null
// RUN: FileCheck %s --check-prefix=SM80 < %t/sm80/bwd_d256.json
// RUN: flash-opt %s --flash-to-ptx="arch=sm_80 shared-memory-per-block=232448 bundle-dir=%t/h100" -o /dev/null
// RUN: FileCheck %s --check-prefix=H100 < %t/h100/bwd_d256.json
// RUN: not flash-opt %s --flash-to-ptx="arch=sm_80 block-q=64 block-kv=64 warps=8 stages=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=A100TWO

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
// With the H100/H200's 227 KB (shared-memory-per-block=232448, a plan for
// devices with that much) the model takes two stages of the 64-row Q tiles:
// 230,400 bytes, which an A100 cannot launch; the runtime chooses it only
// on a device with the memory (flash_library_select).
// H100: "block_kv": 64,
// H100-NEXT: "block_q": 64,
// H100: "stages": 2,
// H100: "dynamic_shared_memory": 230400,
// H100: "name": "bwd_d256"{{$}}
// Without the budget the lowering refuses those tiles on sm_80.
// A100TWO: error: not supported yet: 230400 bytes of shared memory in the backward (166912 per block) on sm_80
func.func @bwd_d256(%q: tensor<1x4x300x256xbf16>, %k: tensor<1x2x300x256xbf16>, %v: tensor<1x2x300x256xbf16>,
                    %o: tensor<1x4x300x256xbf16>, %do: tensor<1x4x300x256xbf16>, %lse: tensor<1x4x300xf32>)
    -> (tensor<1x4x300x256xbf16>, tensor<1x2x300x256xbf16>, tensor<1x2x300x256xbf16>) {
  %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse {causal}
      : tensor<1x4x300x256xbf16>, tensor<1x2x300x256xbf16>, tensor<1x2x300x256xbf16>, tensor<1x4x300x256xbf16>,
        tensor<1x4x300x256xbf16>, tensor<1x4x300xf32>
      -> tensor<1x4x300x256xbf16>, tensor<1x2x300x256xbf16>, tensor<1x2x300x256xbf16>
  return %dq, %dk, %dv : tensor<1x4x300x256xbf16>, tensor<1x2x300x256xbf16>, tensor<1x2x300x256xbf16>
}
