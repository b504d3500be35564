//===- Passes.td - IO-aware passes of the flash dialect -----*- tablegen -*-===//
//
// L0 -> L1 (select a schedule, tile into an online softmax or the tiled
// backward), L1 -> linalg for the CPU, the naive reference lowering, and the
// IO report.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_TRANSFORMS_PASSES_TD
#define FLASH_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FlashLowerToReference : Pass<"flash-lower-to-reference"> {
  let summary = "Lower flash.attention and flash.attention_backward to the naive algorithm on linalg (the oracle)";
  let description = [{
    Rewrites each `flash.attention` into whole-tensor linalg ops that follow
    the definition: S = scale·Q·Kᵀ (B×Hq×Nq×Nk, f32), the causal mask, a
    row softmax, and P·V, divided by the row sum at the end. Grouped-query
    attention broadcasts K and V over the query heads of a group.

    Each `flash.attention_backward` becomes its formulas on whole tensors:
    S as above, P = exp(S − LSE) (0 where LSE = −inf), D = rowsum(dO ∘ O),
    dV = Pᵀ·dO and dK = scale·dSᵀ·Q summed over each kv-head's query heads,
    dP = dO·Vᵀ, dS = P ∘ (dP − D), dQ = scale·dS·K, in f32 without rounding
    P or dS.

    `flash.paged_attention` is lowered the same way on K and V gathered
    through the block table at run time (B×Hkv×(M·S)×D, zero past each
    sequence's length; a table entry is read only for a key inside the
    length), with the scores masked by each sequence's length and, when
    causal, by its diagonal (key t > i + len − Nq).

    This is the semantics every other lowering is checked against; it
    materialises Nq×Nk scores and is not meant to be fast.
  }];
  let dependentDialects = ["linalg::LinalgDialect", "tensor::TensorDialect",
                           "arith::ArithDialect", "math::MathDialect"];
}

def FlashRaiseAttention : Pass<"flash-raise-attention"> {
  let summary = "Raise softmax(scale·Q·Kᵀ [+ causal mask])·V written in linalg or TOSA (torch-mlir's output) to flash.attention";
  let description = [{
    Finds attention in the linalg-on-tensors or TOSA that a frontend writes
    (torch-mlir's FX importer for `F.scaled_dot_product_attention` and for
    eager model code) and replaces it with one `flash.attention`, leaving
    every other op alone. From the P·V batch matmul
    (`linalg.batch_matmul` or `tosa.matmul`) it reads upward:

    - the softmax over the last dimension, exp(S − rowmax(S)) / rowsum(·)
      (division, or a reciprocal and a product), through casts, with the
      guard SDPA's decomposition adds (rows whose scores are all −inf give
      0, as in `flash.attention`);
    - the mask, evaluated at compile time on every (…, i, j) (constants,
      iota, compares, selects, reshapes): a select against −inf or the most
      negative f32, or an additive tensor of 0 and such values. It is
      raised only when it is nothing or exactly the causal mask
      j > i + (Nk − Nq) of `flash.attention`; PyTorch's `is_causal` with
      Nq ≠ Nk (top-left) and any other bias are left alone. A row that sees
      no key is raised only behind SDPA's guard;
    - the scale: constant factors on the scores, on Q and on Kᵀ (√scale on
      both, as PyTorch's SDPA decomposition writes) multiply into `scale`;
    - the Q·Kᵀ batch matmul. Q, K and V are traced through reshapes,
      transposes, broadcasts and tiles to B×H×N×D tensors; K and V
      broadcast over a group of query heads (`enable_gqa`, repeat_kv) are
      recovered as B×Hkv×N×D (grouped-query attention). Otherwise each
      batch matmul row is one head (B = 1).

    The result is collapsed back into the P·V matmul's B·H×Nq×Dv form (and
    element type: a wider accumulator is the cast after the matmul), so the
    ops around the attention are unchanged; the replaced ops are erased
    once dead. Anything else between the matmuls (dropout, tanh, softmax
    over another dimension) leaves the function as it was. A mask that
    reads only (i, j) is evaluated on Nq×Nk (any other on every score) and
    operand layouts are checked element by element: more than 2^22 such
    elements is not raised yet.

    With `remarks=true`, each near miss (a batch matmul whose left operand
    is computed through an `exp`, not raised) gets a remark naming the
    first step that refused it, e.g. "not raised: a top-left causal mask
    (j > i) with Nq != Nk".

    ```mlir
    // torch-mlir: F.scaled_dot_product_attention(q, k, v, is_causal=True)
    // becomes
    %0 = flash.attention %arg0, %arg1, %arg2 {causal, scale = 0.353553385 : f32}
        : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>
        -> tensor<1x2x8x8xf32>
    ```
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark at each near miss (a batch matmul reading a "
           "softmax-like exp that is not raised) naming why">
  ];
  let dependentDialects = ["FlashDialect", "tensor::TensorDialect",
                           "linalg::LinalgDialect"];
}

def FlashSelectSchedule : Pass<"flash-select-schedule"> {
  let summary = "Choose tiles, stages and warps for each flash.attention (and backward) from a target model";
  let description = [{
    For every `flash.attention` without a schedule, picks the query tile
    (Br), K/V tile (Bc), pipeline stages and warps from the head dimensions,
    the element type and the target model of `arch` (shared memory per block,
    register file, tensor-core shapes), so that the Q tile and `stages` K/V
    tiles fit in shared memory and the accumulators fit in registers, and
    records it as `#flash.schedule<...>`. Among the tiles that fit it
    maximises Br·Bc/(Br + Bc) times the share of executed (whole-tile) FLOPs
    that are useful, so the sequence lengths of the op matter: short causal
    attention gets smaller tiles than long (docs/io-model.md). On sm_90a the
    first factor is 1/(w·D + u/C + 1/Br + 1/Bc), with the MMA work and the
    softmax not hidden by C = Br/64 consumer warpgroups weighed by w and u
    fitted on the H200 (TargetModel.cpp).

    Every `flash.attention_backward` without a schedule gets the backward's
    tiles: a block keeps one Bc-row K/V tile with its f32 dK and dV
    accumulators while `stages` Br-row Q tiles (with dO, LSE and D) stream
    past, and P and dS pass through shared memory; among the tiles that fit
    shared memory and registers it maximises Br·Bc/(Br + Bc) times the useful
    share of the executed FLOPs, ties going to the larger K/V tile (Q, dO and
    the dQ workspace are re-read once per K/V tile). sm_80: 8 warps, one or
    two stages; sm_90a: two MMA warpgroups and a producer (12 warps).

    Split-KV (Flash-Decoding): every `flash.paged_attention`, and each
    `flash.attention` whose packed query rows (Hq/Hkv × Nq, the rows of the
    q-heads that share a kv-head) fit the target's smallest Q tile (64 rows
    on sm_80 and sm_90a, 128 on sm_100a), gets a split-KV schedule: the
    tiles of the GPU split-KV kernels (`splitKVTileShape`,
    include/flash/Target/SplitKV.h: row tiles of 16·m packed rows with
    m ≤ max(256/D, 1), 64 keys a K/V tile on 4 warps, as many stages as half
    an SM's shared memory holds next to the Q tile, 2 to 8), so that the CPU
    form and the kernels cut every sequence into the same parts, and
    `max_splits` = the SM count (the workspace's capacity; how many splits a
    call uses is chosen per sequence at run time, Target/SplitKV.h).
    `split-kv=false` keeps every `flash.attention` in the forward form.

    A non-zero option overrides the corresponding field (no fit check is
    made for overridden fields). `shared-memory-per-block` replaces the
    target model's shared memory per block (the devices a plan is for).
  }];
  let options = [
    Option<"arch", "arch", "std::string", /*default=*/"\"sm_80\"",
           "Target: sm_80, sm_90a or sm_100a">,
    Option<"blockQ", "block-q", "int64_t", /*default=*/"0",
           "Query rows per tile (Br); 0 chooses from the target model">,
    Option<"blockKV", "block-kv", "int64_t", /*default=*/"0",
           "Key/value rows per tile (Bc); 0 chooses">,
    Option<"stages", "stages", "int64_t", /*default=*/"0",
           "K/V tiles in flight; 0 chooses">,
    Option<"warps", "warps", "int64_t", /*default=*/"0",
           "Warps per thread block; 0 chooses">,
    Option<"overwrite", "overwrite", "bool", /*default=*/"false",
           "Replace a schedule that an op already has">,
    Option<"splitKV", "split-kv", "bool", /*default=*/"true",
           "Give flash.attention with few query rows a split-KV schedule">,
    Option<"maxSplits", "max-splits", "int64_t", /*default=*/"0",
           "Split-KV workspace capacity (max_splits); 0 chooses (SM count)">,
    Option<"sharedMemoryPerBlock", "shared-memory-per-block", "int64_t",
           /*default=*/"0",
           "Bytes of shared memory one block may opt in to on the devices "
           "the plan is for; 0: the target model's (sm_80: an A100's 163 "
           "KB). A larger budget (e.g. 232448, the H100/H200's 227 KB, for "
           "sm_80 kernels run there) lets the model take schedules that need "
           "it; the runtime chooses such a plan only on a device that has the "
           "memory (docs/launch-plan.md, Selection)">
  ];
}

def FlashTile : Pass<"flash-tile"> {
  let summary = "Tile flash.attention into loops with an online softmax, and flash.attention_backward into FlashAttention-2's backward (L0 -> L1)";
  let description = [{
    Rewrites each scheduled `flash.attention` into the FlashAttention
    algorithm: an `scf.forall` over (batch, q-head, Q tile) whose body loads
    one Br×D query tile and runs an `scf.for` over Bc-row K/V tiles carrying
    the running max m, running sum l and the f32 accumulator, updated by
    `flash.online_softmax` and `flash.accumulate_pv`; `flash.finalize` then
    produces acc / l and LSE = m + log(l).

    - Causal: K/V tiles wholly above the (bottom-right aligned) diagonal are
      not visited; the loop is split so that only tiles crossing the
      diagonal or the end of the sequence carry a `flash.mask`.
    - Ragged tails: tiles past the end of a sequence read zeros and are
      masked; only valid rows are written back.
    - GQA: q-head h reads kv-head h / (Hq/Hkv) without copying K or V.

    Each scheduled `flash.attention_backward` becomes FlashAttention-2's
    backward in three `scf.forall` loop nests, the three kernels of a GPU
    backward:

    - `flash.stage = "preprocess"`, over (batch, q-head, Q tile):
      D = rowsum(dO ∘ O) (`flash.row_dot`, f32, B×Hq×Nq) and the f32 dQ
      workspace (B×Hq×Nq×D) zeroed.
    - the main loop nest, over (batch, kv-head), carrying the
      `#flash.kernel<kind = backward, ...>` descriptor: an `scf.for` over
      K/V tiles carrying the group's f32 dQ workspace; per K/V tile, f32 dK
      and dV accumulators, a loop over the group's q-heads and over the Q
      tiles that see the tile (causal tiles wholly above the diagonal are
      not visited; tiles that need no mask skip `flash.mask`), which
      recomputes S and P = exp(S − LSE) (`flash.recompute_probs`), then
      dV += Pᵀ·dO, dP = dO·Vᵀ (`flash.qk` with scale 1),
      dS = P ∘ (dP − D) (`flash.score_grad`), dK += dSᵀ·Q and
      dQacc += dS·K (`flash.accumulate_product`); dK = scale·dK and dV are
      converted to the element type (`flash.finalize_grad`) and written.
    - `flash.stage = "dq_convert"`, over (batch, q-head, Q tile):
      dQ = scale·dQacc in the element type.

    No tensor of size Nq×Nk exists after this pass: every value inside the
    loops is tile-sized or a head's rows.

    Split-KV schedules (`max_splits` ≥ 1: `flash.paged_attention`, and
    `flash.attention` with few query rows) are tiled into two stages
    (TileSplitKV.cpp):

    - the split stage, an `scf.forall` over (batch, kv-head, Q tile, split
      < max_splits) carrying the `#flash.kernel` descriptor (kind
      `split_kv` or `paged`) and `flash.stage = "split"`: the Q tile packs
      the query rows of the q-heads that share the kv-head (row r is q-head
      h0 + r / Nq, query r mod Nq; Q viewed as B×Hkv×(G·Nq)×D inside the
      loop), so each K/V byte is read once per kv-head; the sequence's
      length (Nk, or `seq_lens[b]` clamped to
      [0, M·S], a run-time value) gives its K/V tiles (VisibleKV.h), the
      number of splits and this split's tiles (`splitKVCount`,
      include/flash/Target/SplitKV.h, the rule the GPU kernels use); paged
      K/V tiles are read through the block table by `flash.load_paged_tile`;
      the partial O (f32) and LSE of the split go to workspaces
      [B, Hkv, max_splits, G·Nq, Dv] and [B, Hkv, max_splits, G·Nq] (a split
      past the call's count writes (0, −inf));
    - the merge stage, an `scf.forall` over (batch, kv-head) with
      `flash.stage = "merge"`: `flash.merge_splits` combines the used
      splits by their LSE into O (and LSE), written into q-heads
      [g·G, g·G + G) of the B×Hq×Nq×Dv (and B×Hq×Nq) results; a sequence
      with no key has no split: O = 0, LSE = −inf.

    The function is then the two loops over the op's operands, returning
    the merge loop's results: the form `flash-lower-to-nvgpu` builds the
    split-KV kernels from (`--flash-to-ptx`), and the one
    `--flash-cpu-pipeline` decomposes and runs.
  }];
  let dependentDialects = ["scf::SCFDialect", "tensor::TensorDialect",
                           "arith::ArithDialect", "linalg::LinalgDialect"];
}

def FlashDecompose : Pass<"flash-decompose"> {
  let summary = "Decompose the L1 tile ops into linalg/tensor/arith/math";
  let description = [{
    Expands `flash.load_tile`, `flash.qk`, `flash.mask`,
    `flash.online_softmax`, `flash.accumulate_pv` and `flash.finalize`, the
    backward's `flash.row_dot`, `flash.recompute_probs`, `flash.score_grad`,
    `flash.accumulate_product` and `flash.finalize_grad`, and the split-KV
    form's `flash.load_paged_tile` and `flash.merge_splits`, into tile-sized
    linalg.generic ops (the same builders the reference lowering uses), so
    that the tiled algorithm runs on the CPU.
  }];
  let dependentDialects = ["linalg::LinalgDialect", "tensor::TensorDialect",
                           "arith::ArithDialect", "math::MathDialect"];
}

def FlashIOReport : Pass<"flash-io-report"> {
  let summary = "Print the IO model of each scheduled flash.attention, flash.attention_backward and flash.paged_attention";
  let description = [{
    For every `flash.attention` (and `flash.paged_attention`) with a
    `#flash.schedule`, prints (to stdout,
    or to `output` when set) the schedule, the shared memory a thread block
    needs, the HBM bytes the tiled schedule moves against standard attention
    (three kernels that write S and P), the FLOPs and the arithmetic
    intensity. For every scheduled `flash.attention_backward` it prints the
    same for the tiled backward (preprocess, main loop, dQ conversion)
    against standard attention's backward (P read, dP and dS written and
    read). docs/io-model.md explains the model. The IR is not changed.

    For split-KV schedules (`flash.paged_attention`, few-row
    `flash.attention`) it prints the split-KV model instead: the splits a
    call uses at the op's K/V length (M·S for a paged op: every sequence
    full), the blocks of each stage, K/V read once per kv-head against the
    forward form's once per q-head, the block table, and the partials'
    workspace traffic (f32 O and LSE, written by the splits and read by the
    merge).
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "File to write the report to ('-' is stdout)">
  ];
}

#endif // FLASH_TRANSFORMS_PASSES_TD
