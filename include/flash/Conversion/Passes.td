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
    with a `#flash.kernel` descriptor that `flash-tile` produced, over the
    function's arguments) becomes a `gpu.module` of the same name holding one kernel
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

    The kernel is built from the `#flash.kernel` descriptor alone: its
    shapes, flags, schedule and form. A descriptor without a form gets the
    arch policy's `auto` form (as `flash-select-kernel-form` with its
    defaults would choose); run `flash-select-kernel-form` first to choose
    another.

    `arch=sm_100a` (the forward only; no Blackwell GPU has run it): one
    128-row Q tile per block in six warps, or two (block_q = 256, where
    their O and S fit tensor memory) in sixteen: a softmax warpgroup per
    tile, a correction warpgroup (O's rescale and the epilogue), registers
    moved by setmaxnreg, the MMAs of one tile issued while the other
    tile's softmax runs. A TMA warp loads Q, K, V as on
    sm_90a (the same tensor maps, `q:tensormap`..., and mbarrier ring); an
    MMA warp allocates tensor memory and issues S = Q·Kᵀ (`tcgen05.mma`
    from shared memory) and O += P·V (`tcgen05.mma` with P in tensor
    memory), both accumulating in tensor memory and signalled by
    `tcgen05.commit` on mbarriers; a softmax warpgroup reads each row of S
    with `tcgen05.ld` (a thread holds a row), runs the same mask and online
    softmax and writes P back with `tcgen05.st`; O in tensor memory is
    rescaled only where a row max moved past the lazy threshold (by the
    correction warpgroup with two tiles). O leaves through shared memory
    and TMA stores (`o:tensormap`, sm_90a's epilogue helpers). Every
    tcgen05.alloc is checked to have its dealloc on
    every path and the columns to fit the SM's 512.
  }];
  let options = [
    Option<"arch", "arch", "std::string", /*default=*/"\"sm_80\"",
           "Target: sm_80, sm_90a or sm_100a (forward only); it must "
           "be the arch of the descriptors' schedules">,
    Option<"batchMaps", "batch-maps", "bool", /*default=*/"false",
           "sm_90a forward and backward: rank-4 tensor maps over (D, N, H, "
           "B), boxes addressed at (column, row, head, batch entry), so that "
           "a tensor's batch has its own stride (B×N×H×D views of any B in "
           "one launch; not with the D=256 backward's cluster form); false: "
           "rank 3 over (D, N, B·H)">,
    Option<"strides", "strides", "bool", /*default=*/"false",
           "sm_80 forward: the kernel takes the strides of q, k, v and o "
           "(<tensor>_stride0..2, elements of B, H, N) as arguments and "
           "addresses rows through them, so strided views (B×N×H×D "
           "transposed) need no copy; sm_80 backward: the main kernel those "
           "of q, k, v, dout, dk, dv, the deterministic dQ kernel those of "
           "q, k, v, dout, dq; false: rows of D elements, heads N·D apart">,
    Option<"sharedMemoryPerBlock", "shared-memory-per-block", "int64_t",
           /*default=*/"0",
           "Bytes of shared memory one block may opt in to on the devices "
           "the kernels are for; 0: the target model's (sm_80: an A100's "
           "163 KB); as flash-select-schedule's option of the name">,
    Option<"fusedPageSizes", "fused-page-sizes", "std::string",
           /*default=*/"\"auto\"",
           "flash.paged_attention's plans: the page sizes S (comma-separated "
           "slot counts) for which the plan carries a fused split kernel of "
           "its own with S a constant (`<kernel>_s<S>`), which the launch "
           "plan runs instead of the one for any S on calls of that S; auto: "
           "the target's (sm_90a 16,64; sm_80 none), none: only the kernels "
           "for any S">
  ];
  let dependentDialects = ["gpu::GPUDialect", "nvgpu::NVGPUDialect",
                           "NVVM::NVVMDialect", "LLVM::LLVMDialect",
                           "arith::ArithDialect", "math::MathDialect",
                           "memref::MemRefDialect", "scf::SCFDialect",
                           "vector::VectorDialect"];
}

// The form options, declared once: flash-select-kernel-form and
// flash-kernel-forms take them (and --flash-to-ptx forwards them). Their
// values are the dialect's enums (KernelForm.h lists their spellings).
defvar FlashFormChoiceOptions = [
    Option<"persistent", "persistent", "::mlir::flash::Toggle",
           /*default=*/"::mlir::flash::Toggle::Auto",
           "sm_90a: a persistent grid (blocks_per_sm blocks per SM drawing "
           "tiles from a global counter, Q double-buffered where shared "
           "memory allows, so that the next tile's loads overlap this one's "
           "end): yes, no, or auto (yes for D <= 128, where it measured "
           "faster on the H200; no for D = 256, where it measured slower and "
           "the persistent form measured no faster and spills)",
           "FLASH_TOGGLE_VALUES">,
    Option<"pingPong", "ping-pong", "::mlir::flash::Toggle",
           /*default=*/"::mlir::flash::Toggle::Auto",
           "sm_90a: the consumer warpgroups take turns issuing their GEMMs "
           "(named barriers), so that one's softmax and epilogue run while "
           "another's GEMMs use the tensor cores: yes, no, or auto (yes with "
           "two or more consumer warpgroups; yes with one is an error)",
           "FLASH_TOGGLE_VALUES">,
    Option<"rescale", "rescale", "::mlir::flash::Rescale",
           /*default=*/"::mlir::flash::Rescale::Auto",
           "sm_90a: how the online softmax rescales the O accumulator: eager "
           "(at every new row max), lazy (a row keeps its max until a tile "
           "exceeds it by 2^8, and a warp whose rows kept theirs skips the "
           "rescale, after the P·V it follows), lazy-late (the same, the "
           "skip placed just before the next P·V), or auto (lazy for D = 256 "
           "and non-causal D = 64, lazy-late for D = 128, eager for causal "
           "D = 64: the forms measured fastest on the H200)",
           "FLASH_RESCALE_VALUES">,
    Option<"firstTileMask", "first-tile-mask", "::mlir::flash::FirstTileMask",
           /*default=*/"::mlir::flash::FirstTileMask::Auto",
           "sm_90a: the mask of a Q tile's first K/V tile: always (a compare "
           "and a select per score, whether or not the tile is ragged or on "
           "the diagonal), branch (masked only when it is, with the first "
           "softmax under a uniform branch), or auto (branch for causal "
           "attention and D = 64, always otherwise: measured on the H200)",
           "FLASH_FIRST_TILE_MASK_VALUES">,
    Option<"tileOrder", "tile-order", "::mlir::flash::TileOrder",
           /*default=*/"::mlir::flash::TileOrder::Auto",
           "sm_90a, causal: the order Q tiles are handed out in: head (head "
           "by head, each head's longest tile first), grouped (every head's "
           "longest tile first across a group of heads whose K/V fit in the "
           "target's tileGroupBytes, once a head has 16 or more Q tiles), or "
           "auto (grouped for D = 64 and 256 kernels compiled for 16 or more "
           "Q tiles per head, head otherwise: measured on the H200). Non-causal "
           "tiles are all alike and keep the order by head",
           "FLASH_TILE_ORDER_VALUES">,
    Option<"storeWait", "store-wait", "::mlir::flash::StoreWait",
           /*default=*/"::mlir::flash::StoreWait::Auto",
           "sm_90a, persistent grids whose tiles are pipelined: when the "
           "leader thread of a consumer warpgroup waits for the TMA store of "
           "O to have read shared memory, and releases it: immediate (right "
           "after issuing the store), deferred (after the next tile's first "
           "softmax, so that its warp does not hold up the warpgroup), or "
           "auto (deferred, except non-causal D = 64: measured on the H200). "
           "A block of one tile always waits at the end",
           "FLASH_STORE_WAIT_VALUES">,
    Option<"kvRange", "kv-range", "::mlir::flash::KVRangeMode",
           /*default=*/"::mlir::flash::KVRangeMode::Auto",
           "sm_90a, causal, two or more consumer warpgroups: the K/V tiles "
           "each consumer warpgroup visits: block (the block's range: the "
           "first warpgroup also visits tiles past its rows' diagonal, all "
           "masked), warpgroup (only the tiles its own 64 rows see; the "
           "producer releases the rest for it, and it takes their ping-pong "
           "turns without GEMMs), or auto (warpgroup for D = 256 "
           "without a persistent grid, block otherwise: measured on the "
           "H200)",
           "FLASH_KV_RANGE_VALUES">
];

def FlashSelectKernelForm : Pass<"flash-select-kernel-form"> {
  let summary = "Choose each tiled attention's kernel form with its target's policy";
  let description = [{
    For every loop nest that `flash-tile` built (an op carrying a
    `#flash.kernel` descriptor without a form), checks the kernel against
    what the GPU lowering of its schedule's arch supports ("not supported
    yet: ..." otherwise) and records the form the arch's policy chooses:
    a `#flash.sm90_form` on sm_90a (persistent grid, ping-pong, rescale,
    first-tile mask, tile order, store wait, K/V range per warpgroup); sm_80
    kernels have one form and keep none. Each option is `auto` (the policy's
    measured rule; lib/Conversion/FlashToNVGPU/SM90/FormPolicy.cpp) or a
    named form; a form the kernel cannot take is an error.
    `flash-lower-to-nvgpu` then reads only the descriptor.
  }];
  let options = !listconcat(FlashFormChoiceOptions, [
    Option<"overwrite", "overwrite", "bool", /*default=*/"false",
           "Choose again for descriptors that have a form">,
    Option<"sharedMemoryPerBlock", "shared-memory-per-block", "int64_t",
           /*default=*/"0",
           "Bytes of shared memory one block may opt in to on the devices "
           "the kernels are for; 0: the target model's (sm_80: an A100's "
           "163 KB); as flash-select-schedule's option of the name">
  ]);
}

def FlashKernelForms : Pass<"flash-kernel-forms", "ModuleOp"> {
  let summary = "Report the ranges of sequence lengths over which each attention's kernel stays the same";
  let description = [{
    For every `flash.attention` (no schedule needed), evaluates the target
    model's schedule and the arch's form policy at each length of `lengths`
    (the op's Nq = Nk set to it) and writes JSON: per attention, the ranges
    of consecutive lengths with one schedule and form
    (`{"min_seq_len", "max_seq_len" (null: open), "schedule", "form"}`),
    and the policies' constants. `flash_mlir.compile` builds one bundle per
    range. The IR is not changed.
  }];
  let options = !listconcat([
    Option<"arch", "arch", "std::string", /*default=*/"\"sm_90a\"",
           "Target: sm_80, sm_90a or sm_100a">,
    ListOption<"lengths", "lengths", "int64_t",
               "Sequence lengths to evaluate (e.g. 512,1024,2048)">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "File to write the JSON to ('-' is stdout)">
  ], FlashFormChoiceOptions);
}

#endif // FLASH_CONVERSION_PASSES_TD
