//===- Passes.td - flash -> GPU conversion passes -----------*- tablegen -*-===//
//
// L1 -> L2: the tiled loops into one GPU kernel per attention, per arch.
// (The kernel bundle the runtime loads is written by flash-write-bundle,
// include/flash/Bundle/Passes.td.)
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_PASSES_TD
#define FLASH_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def FlashLowerToNVGPU : Pass<"flash-lower-to-nvgpu", "ModuleOp"> {
  let summary = "Lower tiled attention (L1) to a GPU kernel on nvgpu/nvvm ops (L2)";
  let description = [{
    Each `func.func` whose body is one tiled attention (the `scf.forall`
    with a `flash.schedule` that `flash-tile` produced, over the function's
    arguments) becomes a `gpu.module` of the same name holding one kernel
    `gpu.func`; the host function is removed and the kernel's launch
    contract is recorded in the module attribute `flash.kernels` (grid,
    block, dynamic shared memory, argument list, schedule).

    The kernel takes raw pointers (or tensor maps) and run-time sizes:
    `(Q, K, V, O, LSE: !llvm.ptr<1>, B, Hq, Hkv, Nq, Nk: i32, scale: f32)`,
    tensors contiguous in B×H×N×D; grid (⌈Nq/Br⌉, Hq, B). So one kernel
    serves every batch, head count and sequence length with the compiled
    element type, head dimension, causal flag and schedule.

    `arch=sm_80`: cp.async into two swizzled shared-memory stages, ldmatrix,
    mma.sync m16n8k16, the online softmax on accumulator fragments, P kept in
    registers (FlashAttention-2's design).

    `arch=sm_90a`: FlashAttention-3's design. A producer warpgroup loads Q,
    K, V with TMA (tensor maps passed as `__grid_constant__` parameters, so
    Q, K, V, O become `q:tensormap`... arguments and the kernel is an
    `llvm.func`) into 128-byte-swizzled shared memory, completing on
    mbarriers; consumer warpgroups of 64 rows run S = Q·Kᵀ on wgmma from
    shared memory and O += P·V on wgmma with P in registers, the softmax of
    one tile overlapping the GEMMs of the next, taking turns on the tensor
    cores (ping-pong); setmaxnreg gives the consumers the registers; O leaves
    through shared memory and a TMA store. A persistent grid draws tiles from
    a global counter (an extra `counter:ptr` argument). The mask, softmax
    and epilogue math are the same code as sm_80.

    sm_100a says "not supported yet".
  }];
  let options = [
    Option<"arch", "arch", "std::string", /*default=*/"\"sm_80\"",
           "Target: sm_80 or sm_90a (sm_100a is not supported yet)">,
    Option<"persistent", "persistent", "std::string", /*default=*/"\"auto\"",
           "sm_90a: a persistent grid (blocks_per_sm blocks per SM drawing "
           "tiles from a global counter, Q double-buffered where shared "
           "memory allows, so that the next tile's loads overlap this one's "
           "end): yes, no, or auto (yes for D <= 128, where it measured "
           "faster on the H200; no for D = 256, where it measured slower and "
           "the persistent form measured no faster and spills)">,
    Option<"pingPong", "ping-pong", "std::string", /*default=*/"\"auto\"",
           "sm_90a: the consumer warpgroups take turns issuing their GEMMs "
           "(named barriers), so that one's softmax and epilogue run while "
           "another's GEMMs use the tensor cores: yes, no, or auto (yes with "
           "two or more consumer warpgroups; yes with one is an error)">,
    Option<"rescale", "rescale", "std::string", /*default=*/"\"auto\"",
           "sm_90a: how the online softmax rescales the O accumulator: eager "
           "(at every new row max), lazy (a row keeps its max until a tile "
           "exceeds it by 2^8, and a warp whose rows kept theirs skips the "
           "rescale, after the P·V it follows), lazy-late (the same, the "
           "skip placed just before the next P·V), or auto (lazy for D = 256 "
           "and non-causal D = 64, lazy-late for D = 128, eager for causal "
           "D = 64: the forms measured fastest on the H200)">,
    Option<"firstTileMask", "first-tile-mask", "std::string",
           /*default=*/"\"auto\"",
           "sm_90a: the mask of a Q tile's first K/V tile: always (a compare "
           "and a select per score, whether or not the tile is ragged or on "
           "the diagonal), branch (masked only when it is, with the first "
           "softmax under a uniform branch), or auto (branch for causal "
           "attention and D = 64, always otherwise: measured on the H200)">,
    Option<"tileOrder", "tile-order", "std::string", /*default=*/"\"auto\"",
           "sm_90a, causal: the order Q tiles are handed out in: head (head "
           "by head, each head's longest tile first), grouped (every head's "
           "longest tile first across a group of heads whose K/V fit in the "
           "target's tileGroupBytes, once a head has 16 or more Q tiles), or "
           "auto (grouped for D = 64 and 256 kernels compiled for 16 or more "
           "Q tiles per head, head otherwise: measured on the H200). Non-causal "
           "tiles are all alike and keep the order by head">,
    Option<"storeWait", "store-wait", "std::string", /*default=*/"\"auto\"",
           "sm_90a, persistent grids whose tiles are pipelined: when the "
           "leader thread of a consumer warpgroup waits for the TMA store of "
           "O to have read shared memory, and releases it: immediate (right "
           "after issuing the store), deferred (after the next tile's first "
           "softmax, so that its warp does not hold up the warpgroup), or "
           "auto (deferred, except non-causal D = 64: measured on the H200). "
           "A block of one tile always waits at the end">,
    Option<"kvRange", "kv-range", "std::string", /*default=*/"\"auto\"",
           "sm_90a, causal, two or more consumer warpgroups: the K/V tiles "
           "each consumer warpgroup visits: block (the block's range: the "
           "first warpgroup also visits tiles past its rows' diagonal, all "
           "masked), warpgroup (only the tiles its own 64 rows see; the "
           "producer releases the rest for it, and it takes their ping-pong "
           "turns without GEMMs), or auto (warpgroup for D = 256 "
           "without a persistent grid, block otherwise: measured on the "
           "H200)">
  ];
  let dependentDialects = ["gpu::GPUDialect", "nvgpu::NVGPUDialect",
                           "NVVM::NVVMDialect", "LLVM::LLVMDialect",
                           "arith::ArithDialect", "math::MathDialect",
                           "memref::MemRefDialect", "scf::SCFDialect",
                           "vector::VectorDialect"];
}

#endif // FLASH_CONVERSION_PASSES_TD
