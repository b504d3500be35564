//===- FlashOps.td - flash dialect ops ----------------------*- tablegen -*-===//
//
// L0: flash.attention and flash.attention_backward. L1: the tile ops that
// flash-tile emits inside the loops of the forward (a parallel loop over
// (batch, q-head, Q tile) and a sequential K/V loop) and of the backward (a
// preprocess, a loop over (batch, kv-head) with K/V and Q tile loops, a dQ
// conversion).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_OPS_TD
#define FLASH_OPS_TD

include "flash/Dialect/Flash/IR/FlashDialect.td"
include "flash/Dialect/Flash/IR/FlashAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

//===----------------------------------------------------------------------===//
// L0
//===----------------------------------------------------------------------===//

def Flash_AttentionOp : Flash_Op<"attention", [Pure]> {
  let summary = "Exact scaled dot-product attention, softmax(scale·Q·Kᵀ + mask)·V";
  let description = [{
    Computes attention over tensors in PyTorch's B×H×N×D layout:

    - `query`: B×Hq×Nq×D, `key`: B×Hkv×Nk×D, `value`: B×Hkv×Nk×Dv,
      `output`: B×Hq×Nq×Dv. All four share one element type: f32, f16 or
      bf16 (f16/bf16 accumulate in f32).
    - Grouped-query attention (GQA/MQA) when Hkv divides Hq: q-head `h` reads
      kv-head `h floordiv (Hq / Hkv)`.
    - `scale` multiplies Q·Kᵀ; it defaults to 1/sqrt(D) and must be finite and
      non-zero.
    - `causal` masks key `j` for query row `i` when `j > i + (Nk - Nq)`: the
      diagonal is aligned bottom-right, as FlashAttention ≥ 2.1 and decoding
      need. A row that sees no key (Nq > Nk, or Nk = 0) yields 0, never NaN.
    - An optional second result `lse` (B×Hq×Nq, f32) holds the log-sum-exp
      of each row's scaled, masked scores (−inf for a row that sees no key).
    - `schedule` is set by `flash-select-schedule` and read by `flash-tile`.

    Example:

    ```mlir
    %o = flash.attention %q, %k, %v {causal, scale = 0.125 : f32}
        : tensor<2x8x1000x64xf32>, tensor<2x2x1000x64xf32>, tensor<2x2x1000x64xf32>
        -> tensor<2x8x1000x64xf32>
    %o2, %lse = flash.attention %q, %k, %v
        : tensor<2x8x1000x64xf32>, tensor<2x2x1000x64xf32>, tensor<2x2x1000x64xf32>
        -> tensor<2x8x1000x64xf32>, tensor<2x8x1000xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$query,
    AnyRankedTensor:$key,
    AnyRankedTensor:$value,
    UnitAttr:$causal,
    OptionalAttr<F32Attr>:$scale,
    OptionalAttr<Flash_ScheduleAttr>:$schedule
  );
  let results = (outs AnyRankedTensor:$output, Optional<AnyRankedTensor>:$lse);
  let assemblyFormat = [{
    $query `,` $key `,` $value attr-dict `:` type($query) `,` type($key) `,`
    type($value) `->` type($output) (`,` type($lse)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The scale applied to Q·Kᵀ: the attribute, or 1/sqrt(D).
    float getEffectiveScale();
    /// Query heads per key/value head (Hq / Hkv).
    int64_t getGroupSize();
  }];
}

def Flash_AttentionBackwardOp : Flash_Op<"attention_backward", [Pure]> {
  let summary = "Gradients dQ, dK, dV of flash.attention's output";
  let description = [{
    Given the inputs of a `flash.attention` with the same attributes, its
    output `output` (O) and log-sum-exp `lse`, and the gradient `grad_output`
    (dO) of a loss with respect to O, computes the gradients of that loss
    with respect to Q, K and V:

    ```
    S  = scale · Q·Kᵀ, masked as the forward masks it (−inf)
    P  = exp(S − LSE)             recomputed from LSE (0 where LSE = −inf)
    dV = Pᵀ·dO
    dP = dO·Vᵀ
    Dᵢ = rowsum(dO ∘ O)           (= Σⱼ Pᵢⱼ·dPᵢⱼ for the forward's O)
    dS = P ∘ (dP − D)
    dQ = scale · dS·K
    dK = scale · dSᵀ·Q
    ```

    - Shapes and types are the forward's: `query` B×Hq×Nq×D, `key`
      B×Hkv×Nk×D, `value` B×Hkv×Nk×Dv, `output` and `grad_output`
      B×Hq×Nq×Dv, all of one element type T (f32, f16 or bf16); `lse`
      B×Hq×Nq in f32. The results have the types of Q, K and V.
    - `causal`, `scale` (default 1/sqrt(D)) and grouped-query attention mean
      what they mean for `flash.attention`. Under GQA the dK and dV of a
      kv-head sum the contributions of the Hq/Hkv query heads that read it.
    - A row that sees no key (LSE = −inf) contributes nothing, and its dQ
      row is 0; never NaN.
    - Products accumulate in f32. The tiled lowering rounds P and dS to T
      before the products that take them (as the tensor cores take them);
      the reference lowering does not.
    - `deterministic` asks a GPU kernel for results that are bitwise
      identical from run to run (no order-dependent floating-point
      accumulation of dQ). The CPU lowerings are always deterministic.
    - `schedule` is set by `flash-select-schedule` and read by `flash-tile`.

    Example:

    ```mlir
    %dq, %dk, %dv = flash.attention_backward %q, %k, %v, %o, %do, %lse {causal, scale = 0.125 : f32}
        : tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>,
          tensor<2x8x1000x64xbf16>, tensor<2x8x1000x64xbf16>, tensor<2x8x1000xf32>
        -> tensor<2x8x1000x64xbf16>, tensor<2x2x1000x64xbf16>, tensor<2x2x1000x64xbf16>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$query,
    AnyRankedTensor:$key,
    AnyRankedTensor:$value,
    AnyRankedTensor:$output,
    AnyRankedTensor:$grad_output,
    AnyRankedTensor:$lse,
    UnitAttr:$causal,
    OptionalAttr<F32Attr>:$scale,
    UnitAttr:$deterministic,
    OptionalAttr<Flash_ScheduleAttr>:$schedule
  );
  let results = (outs AnyRankedTensor:$grad_query, AnyRankedTensor:$grad_key,
                 AnyRankedTensor:$grad_value);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $output `,` $grad_output `,` $lse attr-dict
    `:` type($query) `,` type($key) `,` type($value) `,` type($output) `,`
    type($grad_output) `,` type($lse) `->` type($grad_query) `,`
    type($grad_key) `,` type($grad_value)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The scale applied to Q·Kᵀ: the attribute, or 1/sqrt(D).
    float getEffectiveScale();
    /// Query heads per key/value head (Hq / Hkv).
    int64_t getGroupSize();
  }];
}

//===----------------------------------------------------------------------===//
// L1: tile ops
//===----------------------------------------------------------------------===//

def Flash_LoadTileOp : Flash_Op<"load_tile", [Pure]> {
  let summary = "Reads rows [row, row + R) of one head as an R×D tile (or R values)";
  let description = [{
    Reads `source[batch, head, row + i, :]` for i in [0, R) into an R×D tile,
    or, from a B×H×N source of row statistics (LSE, the backward's D),
    `source[batch, head, row + i]` into R values. Rows past the end of the
    sequence (row + i ≥ N) read as zero, so the last tile of a sequence
    whose length is not a multiple of R is well defined (the ragged tail).
    On a GPU this is a predicated copy into shared memory.

    ```mlir
    %kt = flash.load_tile %k[%b, %h, %row] : tensor<2x2x1000x64xf32> -> tensor<64x64xf32>
    %lt = flash.load_tile %lse[%b, %h, %row] : tensor<2x8x1000xf32> -> tensor<64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source, Index:$batch, Index:$head, Index:$row);
  let results = (outs AnyRankedTensor:$tile);
  let assemblyFormat = [{
    $source `[` $batch `,` $head `,` $row `]` attr-dict `:` type($source) `->` type($tile)
  }];
  let hasVerifier = 1;
}

def Flash_QKOp : Flash_Op<"qk", [Pure]> {
  let summary = "Score tile S = scale · Q_tile · K_tileᵀ in f32";
  let description = [{
    `query` is Br×D, `key` is Bc×D, the result Br×Bc f32. Products of f16/bf16
    operands accumulate in f32. The backward also takes dP = dO·Vᵀ with it
    (`scale` = 1, dO as `query`, V as `key`).

    ```mlir
    %s = flash.qk %qt, %kt {scale = 0.125 : f32} : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$query, AnyRankedTensor:$key, F32Attr:$scale);
  let results = (outs AnyRankedTensor:$scores);
  let assemblyFormat = [{
    $query `,` $key attr-dict `:` type($query) `,` type($key) `->` type($scores)
  }];
  let hasVerifier = 1;
}

def Flash_MaskOp : Flash_Op<"mask", [Pure, AttrSizedOperandSegments,
                                    AllTypesMatch<["scores", "result"]>]> {
  let summary = "Sets masked scores of a tile to -inf";
  let description = [{
    For the Br×Bc score tile whose first query row is `q_start` and first key
    is `kv_start`, sets S[i][j] = −inf where the key is past the end of the
    sequence (`kv_start + j ≥ kv_len`) or, when a causal offset is present,
    where it lies above the bottom-right-aligned diagonal
    (`kv_start + j > row(i) + causal_offset`, with causal_offset = Nk − Nq).
    `flash-tile` emits it only for tiles that cross the diagonal or the end of
    the sequence.

    - `kv_len` and `causal_offset` are attributes when the sizes are static,
      or index operands (`kv_len(%n)`, `causal_offset(%c)`) when they are
      run-time values (`flash.paged_attention`: the length of the sequence
      and length − Nq). Exactly one form of `kv_len` is present, at most one
      of `causal_offset`.
    - `rows_per_head` (split-KV: the query rows of several q-heads packed in
      one tile, Nq rows per head): row(i) = (q_start + i) mod rows_per_head,
      the query index of tile row i; otherwise row(i) = q_start + i.

    ```mlir
    %sm = flash.mask %s[%q0, %k0] {kv_len = 1000 : i64, causal_offset = 0 : i64} : tensor<64x64xf32>
    %sp = flash.mask %s[%q0, %k0] kv_len(%len) causal_offset(%off) {rows_per_head = 2 : i64}
        : tensor<64x64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$scores, Index:$q_start, Index:$kv_start,
                   Optional<Index>:$dynamic_kv_len,
                   Optional<Index>:$dynamic_causal_offset,
                   OptionalAttr<I64Attr>:$kv_len, OptionalAttr<I64Attr>:$causal_offset,
                   OptionalAttr<I64Attr>:$rows_per_head);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $scores `[` $q_start `,` $kv_start `]`
    (`kv_len` `(` $dynamic_kv_len^ `)`)?
    (`causal_offset` `(` $dynamic_causal_offset^ `)`)?
    attr-dict `:` type($scores)
  }];
  let hasVerifier = 1;
  let builders = [
    // The static form: kv_len and the optional causal offset as attributes.
    OpBuilder<(ins "::mlir::Value":$scores, "::mlir::Value":$q_start,
                   "::mlir::Value":$kv_start, "::mlir::IntegerAttr":$kv_len,
                   "::mlir::IntegerAttr":$causal_offset), [{
      build($_builder, $_state, scores.getType(), scores, q_start, kv_start,
            /*dynamic_kv_len=*/::mlir::Value(),
            /*dynamic_causal_offset=*/::mlir::Value(), kv_len, causal_offset,
            /*rows_per_head=*/::mlir::IntegerAttr());
    }]>
  ];
}

def Flash_OnlineSoftmaxOp : Flash_Op<"online_softmax", [Pure]> {
  let summary = "One step of the online softmax over a score tile";
  let description = [{
    Given the running row max `m` and running row sum `l` of the tiles seen so
    far and the next score tile S (Br×Bc), computes

    ```
    m_new = max(m, rowmax(S))
    p     = exp(S - m_new)                (0 where S = -inf)
    alpha = exp(m - m_new)                (rescales what was accumulated)
    l_new = alpha · l + rowsum(p)
    ```

    A row whose scores so far are all −inf keeps m = −inf, l = 0 and yields
    p = 0, alpha = 0: it never produces NaN.

    ```mlir
    %p, %m1, %l1, %alpha = flash.online_softmax %s, %m0, %l0
        : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>
        -> tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$scores, AnyRankedTensor:$running_max,
                   AnyRankedTensor:$running_sum);
  let results = (outs AnyRankedTensor:$probs, AnyRankedTensor:$new_max,
                 AnyRankedTensor:$new_sum, AnyRankedTensor:$rescale);
  let assemblyFormat = [{
    $scores `,` $running_max `,` $running_sum attr-dict `:` type($scores) `,`
    type($running_max) `,` type($running_sum) `->` type($probs) `,` type($new_max) `,`
    type($new_sum) `,` type($rescale)
  }];
  let hasVerifier = 1;
}

def Flash_AccumulatePVOp : Flash_Op<"accumulate_pv", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "acc_new = rescale · acc + P · V_tile";
  let description = [{
    Rescales the f32 accumulator (Br×Dv) row by row and adds P (Br×Bc) times
    the value tile (Bc×Dv). P is rounded to the value element type before the
    product (as the tensor cores take it); the sum is in f32.

    ```mlir
    %acc1 = flash.accumulate_pv %acc0, %alpha, %p, %vt
        : tensor<64x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64x64xf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$acc, AnyRankedTensor:$rescale,
                   AnyRankedTensor:$probs, AnyRankedTensor:$value);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $acc `,` $rescale `,` $probs `,` $value attr-dict `:` type($acc) `,`
    type($rescale) `,` type($probs) `,` type($value)
  }];
  let hasVerifier = 1;
}

def Flash_FinalizeOp : Flash_Op<"finalize", [Pure]> {
  let summary = "Output tile acc / l and log-sum-exp m + log(l)";
  let description = [{
    Ends the K/V loop: `output = acc / l` converted to the output element
    type, and `lse = m + log(l)`. A row with l = 0 (it saw no key) gives
    output 0 and lse −inf.

    ```mlir
    %o, %lse = flash.finalize %acc, %m, %l
        : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<64x64xf16>, tensor<64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$acc, AnyRankedTensor:$running_max,
                   AnyRankedTensor:$running_sum);
  let results = (outs AnyRankedTensor:$output, AnyRankedTensor:$lse);
  let assemblyFormat = [{
    $acc `,` $running_max `,` $running_sum attr-dict `:` type($acc) `,`
    type($running_max) `,` type($running_sum) `->` type($output) `,` type($lse)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// L1: tile ops of the backward
//===----------------------------------------------------------------------===//

def Flash_RowDotOp : Flash_Op<"row_dot", [Pure]> {
  let summary = "r_i = Σ_d lhs[i, d] · rhs[i, d] in f32 (the backward's D = rowsum(dO ∘ O))";
  let description = [{
    The dot product of each row of two tiles of one type (R×Dv), accumulated
    in f32: the backward's preprocess computes Dᵢ = rowsum(dOᵢ ∘ Oᵢ) with it.
    Rows past the end of the sequence were read as zeros and give 0.

    ```mlir
    %d = flash.row_dot %dot, %ot : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Flash_RecomputeProbsOp : Flash_Op<"recompute_probs",
    [Pure, AllTypesMatch<["scores", "probs"]>]> {
  let summary = "P = exp(S − LSE): the forward's probabilities, recomputed from LSE";
  let description = [{
    For a Br×Bc score tile S (f32, masked as the forward masks it) and the
    forward's log-sum-exp of its rows,

    ```
    P[i][j] = exp(S[i][j] − lse[i])      (0 where lse[i] = −inf)
    ```

    which is the forward's softmax without a second pass over the keys. A row
    that saw no key in the forward (lse = −inf, all its scores −inf) gives
    P = 0, never exp(−inf − (−inf)) = NaN.

    ```mlir
    %p = flash.recompute_probs %s, %lse : tensor<64x128xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$scores, AnyRankedTensor:$lse);
  let results = (outs AnyRankedTensor:$probs);
  let assemblyFormat = [{
    $scores `,` $lse attr-dict `:` type($scores) `,` type($lse)
  }];
  let hasVerifier = 1;
}

def Flash_ScoreGradOp : Flash_Op<"score_grad",
    [Pure, AllTypesMatch<["probs", "grad_probs", "grad_scores"]>]> {
  let summary = "dS = P ∘ (dP − D): the gradient of the scores through the softmax";
  let description = [{
    For a Br×Bc tile of probabilities P and of their gradient dP = dO·Vᵀ
    (both f32), and the rows' Dᵢ = rowsum(dOᵢ ∘ Oᵢ),

    ```
    dS[i][j] = P[i][j] · (dP[i][j] − D[i])
    ```

    (the softmax's Jacobian applied to dP; the scale is applied to dQ and dK
    at the end). Masked entries have P = 0 and give dS = 0.

    ```mlir
    %ds = flash.score_grad %p, %dp, %d : tensor<64x128xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$probs, AnyRankedTensor:$grad_probs,
                   AnyRankedTensor:$delta);
  let results = (outs AnyRankedTensor:$grad_scores);
  let assemblyFormat = [{
    $probs `,` $grad_probs `,` $delta attr-dict `:` type($probs) `,` type($delta)
  }];
  let hasVerifier = 1;
}

def Flash_AccumulateProductOp : Flash_Op<"accumulate_product",
    [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "acc_new = acc + op(A)·B, op(A) = A or Aᵀ, in f32";
  let description = [{
    Adds the product of an f32 tile A (P or dS) and a tile B of the
    operands' element type to an f32 accumulator. A is rounded to B's
    element type first (as the tensor cores take it, the way
    `flash.accumulate_pv` rounds P); the sum is in f32.

    - `transpose_lhs`: acc (C×N) += Aᵀ·B with A R×C and B R×N. The backward's
      dV += Pᵀ·dO and dK += dSᵀ·Q, summed over the rows of a Q tile.
    - otherwise: acc (R×N) += A·B with A R×C and B C×N. The backward's
      dQ += dS·K.

    ```mlir
    %dv1 = flash.accumulate_product %dv0, %p, %dot {transpose_lhs}
        : tensor<128x64xf32>, tensor<64x128xf32>, tensor<64x64xbf16>
    %dq1 = flash.accumulate_product %dq0, %ds, %kt
        : tensor<64x64xf32>, tensor<64x128xf32>, tensor<128x64xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$acc, AnyRankedTensor:$lhs,
                   AnyRankedTensor:$rhs, UnitAttr:$transpose_lhs);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $acc `,` $lhs `,` $rhs attr-dict `:` type($acc) `,` type($lhs) `,` type($rhs)
  }];
  let hasVerifier = 1;
}

def Flash_FinalizeGradOp : Flash_Op<"finalize_grad", [Pure]> {
  let summary = "Gradient tile scale · acc, converted to the element type";
  let description = [{
    Ends the accumulation of a gradient tile: `result = T(scale · acc)`. The
    backward applies the softmax scale to dQ and dK here (scale = 1 for dV).

    ```mlir
    %dk = flash.finalize_grad %acc {scale = 0.125 : f32} : tensor<128x64xf32> -> tensor<128x64xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$acc, F32Attr:$scale);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $acc attr-dict `:` type($acc) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Paged attention and split-KV (Flash-Decoding): the L0 op over a paged K/V
// cache, and the L1 ops of the split-KV form (paged loads, the merge).
//===----------------------------------------------------------------------===//

def Flash_PagedAttentionOp : Flash_Op<"paged_attention", [Pure]> {
  let summary = "Attention of a few query rows over a paged K/V cache";
  let description = [{
    Attention as `flash.attention` computes it, for query rows against K/V
    kept in pages that a block table lists per sequence (the layout of
    serving engines: vLLM, flash_attn_with_kvcache):

    - `query`: B×Hq×Nq×D (Nq small: 1 for decoding, a few for speculative
      decoding); `key_cache`: P×S×Hkv×D and `value_cache`: P×S×Hkv×Dv, P
      pages of S slots; `block_table`: B×M i32, the pages of each sequence;
      `seq_lens`: B i32, its length; `output`: B×Hq×Nq×Dv. Q, the caches and
      the output share one element type: f32, f16 or bf16.
    - Key t of sequence b (0 ≤ t < seq_lens[b]) is
      `key_cache[block_table[b][t floordiv S], t mod S, kvh, :]` (and the
      same slot of `value_cache`), kvh = h floordiv (Hq / Hkv) for q-head h
      (GQA/MQA when Hkv divides Hq).
    - With s_t = scale · q_i · k_t over the visible keys t of row i:
      `o_i = Σ_t exp(s_t − lse_i) · v_t`, `lse_i = log Σ_t exp(s_t)`.
      Without `causal` row i sees t < seq_lens[b]; with `causal` it sees
      t ≤ i + seq_lens[b] − Nq (the queries are the last Nq positions of the
      sequence, the diagonal aligned bottom-right as in `flash.attention`).
      A row that sees no key (seq_lens[b] = 0, say) is 0 and its LSE −inf,
      never NaN.
    - Slots past a sequence's length, pages it does not own and block-table
      entries past its ceil(seq_lens[b] / S) pages may hold anything (NaN
      included): they never change the result. Those entries are never used
      as page indices, and masked-out values are selected away, never
      multiplied by 0.
    - Caller errors: seq_lens[b] > M·S, or a used block-table entry outside
      [0, P). The CPU lowerings (reference and tiled) clamp the length to
      [0, M·S] and the page index to [0, P − 1], so that nothing is read out
      of bounds; other lowerings may differ (the result is unspecified).
    - `scale` defaults to 1/sqrt(D); an optional second result `lse`
      (B×Hq×Nq, f32) is the log-sum-exp of each row (for merging with other
      attention, e.g. a shared prefix); `schedule` is set by
      `flash-select-schedule` (always a split-KV schedule, `max_splits` ≥ 1).

    Example:

    ```mlir
    %o = flash.paged_attention %q, %kc, %vc, %bt, %lens {causal, scale = 0.125 : f32}
        : tensor<4x32x1x128xbf16>, tensor<1024x16x8x128xbf16>, tensor<1024x16x8x128xbf16>,
          tensor<4x256xi32>, tensor<4xi32> -> tensor<4x32x1x128xbf16>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$query,
    AnyRankedTensor:$key_cache,
    AnyRankedTensor:$value_cache,
    AnyRankedTensor:$block_table,
    AnyRankedTensor:$seq_lens,
    UnitAttr:$causal,
    OptionalAttr<F32Attr>:$scale,
    OptionalAttr<Flash_ScheduleAttr>:$schedule
  );
  let results = (outs AnyRankedTensor:$output, Optional<AnyRankedTensor>:$lse);
  let assemblyFormat = [{
    $query `,` $key_cache `,` $value_cache `,` $block_table `,` $seq_lens attr-dict
    `:` type($query) `,` type($key_cache) `,` type($value_cache) `,`
    type($block_table) `,` type($seq_lens) `->` type($output) (`,` type($lse)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The scale applied to Q·Kᵀ: the attribute, or 1/sqrt(D).
    float getEffectiveScale();
    /// Query heads per key/value head (Hq / Hkv).
    int64_t getGroupSize();
  }];
}

def Flash_LoadPagedTileOp : Flash_Op<"load_paged_tile", [Pure]> {
  let summary = "Reads keys [start, start + R) of one sequence through its block table";
  let description = [{
    Row j of the R×D tile is key t = `key_start` + j of sequence `batch`,
    head `head`, read through the block table (`block_table`: B×M i32) from
    `cache` (P×S×H×D):
    `cache[block_table[batch][t floordiv S], t mod S, head, :]` when
    0 ≤ t < min(`length`, M·S), else 0. Table entries of rows that are not
    valid are never read as page indices (rows past the length are selected
    to 0, never loaded through the table), so a table's unused tail may hold
    anything; a used entry outside [0, P) is clamped into it. On a GPU this
    is a gather of R rows (cp.async per row, or TMA where the page holds
    whole tiles).

    ```mlir
    %kt = flash.load_paged_tile %kc, %bt[%b, %h, %k0], %len
        : tensor<64x16x2x64xf16>, tensor<2x8xi32> -> tensor<32x64xf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$cache, AnyRankedTensor:$block_table,
                   Index:$batch, Index:$head, Index:$key_start, Index:$length);
  let results = (outs AnyRankedTensor:$tile);
  let assemblyFormat = [{
    $cache `,` $block_table `[` $batch `,` $head `,` $key_start `]` `,` $length
    attr-dict `:` type($cache) `,` type($block_table) `->` type($tile)
  }];
  let hasVerifier = 1;
}

def Flash_MergeSplitsOp : Flash_Op<"merge_splits", [Pure]> {
  let summary = "Merges the partial (O, LSE) of K/V splits by their log-sum-exp";
  let description = [{
    The last step of split-KV attention: `partial_out` (Smax×R×Dv, f32)
    and `partial_lse` (Smax×R, f32) hold, for each split s of the keys, the
    rows' attention over that split alone (o_s normalised, lse_s its
    log-sum-exp, −inf for a split a row sees nothing of). Only the first
    `num_splits` splits are used; the rest are ignored (selected away, never
    multiplied). Per row:

    ```
    m   = max_s lse_s
    w_s = exp(lse_s − m)                (0 where lse_s = −inf)
    o   = Σ_s w_s · o_s / Σ_s w_s        (0 where every lse_s = −inf)
    lse = m + log Σ_s w_s                (−inf where every lse_s = −inf)
    ```

    which is exact: it is attention over the union of the splits. `o` is
    converted to the output element type.

    ```mlir
    %o, %lse = flash.merge_splits %po, %plse, %n
        : tensor<132x4x128xf32>, tensor<132x4xf32> -> tensor<4x128xbf16>, tensor<4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$partial_out, AnyRankedTensor:$partial_lse,
                   Index:$num_splits);
  let results = (outs AnyRankedTensor:$output, AnyRankedTensor:$lse);
  let assemblyFormat = [{
    $partial_out `,` $partial_lse `,` $num_splits attr-dict `:` type($partial_out) `,`
    type($partial_lse) `->` type($output) `,` type($lse)
  }];
  let hasVerifier = 1;
}

#endif // FLASH_OPS_TD
