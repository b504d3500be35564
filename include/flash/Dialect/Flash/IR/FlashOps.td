//===- FlashOps.td - flash dialect ops ----------------------*- tablegen -*-===//
//
// L0: flash.attention. L1: the tile ops that flash-tile emits inside the
// parallel (batch, q-head, Q tile) loop and the sequential K/V loop.
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

//===----------------------------------------------------------------------===//
// L1: tile ops
//===----------------------------------------------------------------------===//

def Flash_LoadTileOp : Flash_Op<"load_tile", [Pure]> {
  let summary = "Reads rows [row, row + R) of one head as an R×D tile";
  let description = [{
    Reads `source[batch, head, row + i, :]` for i in [0, R) into an R×D tile.
    Rows past the end of the sequence (row + i ≥ N) read as zero, so the last
    tile of a sequence whose length is not a multiple of R is well defined
    (the ragged tail). On a GPU this is a predicated copy into shared memory.

    ```mlir
    %kt = flash.load_tile %k[%b, %h, %row] : tensor<2x2x1000x64xf32> -> tensor<64x64xf32>
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
    operands accumulate in f32.

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

def Flash_MaskOp : Flash_Op<"mask", [Pure, AllTypesMatch<["scores", "result"]>]> {
  let summary = "Sets masked scores of a tile to -inf";
  let description = [{
    For the Br×Bc score tile whose first query row is `q_start` and first key
    is `kv_start`, sets S[i][j] = −inf where the key is past the end of the
    sequence (`kv_start + j ≥ kv_len`) or, when `causal_offset` is present,
    where it lies above the bottom-right-aligned diagonal
    (`kv_start + j > q_start + i + causal_offset`, with causal_offset = Nk − Nq).
    `flash-tile` emits it only for tiles that cross the diagonal or the end of
    the sequence.

    ```mlir
    %sm = flash.mask %s[%q0, %k0] {kv_len = 1000 : i64, causal_offset = 0 : i64} : tensor<64x64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$scores, Index:$q_start, Index:$kv_start,
                   I64Attr:$kv_len, OptionalAttr<I64Attr>:$causal_offset);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $scores `[` $q_start `,` $kv_start `]` attr-dict `:` type($scores)
  }];
  let hasVerifier = 1;
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

#endif // FLASH_OPS_TD
