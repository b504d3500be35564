//===- AttentionMath.h - attention steps as linalg ops ----------*- C++ -*-===//
//
// The arithmetic of attention written once as linalg.generic builders over
// ranked tensors with any number of leading batch dimensions: the last two
// dimensions are (query row, key column) for scores and (row, feature) for
// Q/K/V/O tiles; row statistics (max, sum, LSE, D) drop the last dimension.
// The reference lowering calls them on whole heads, flash-decompose on tiles,
// for the forward and the backward alike.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_TRANSFORMS_ATTENTIONMATH_H
#define FLASH_DIALECT_FLASH_TRANSFORMS_ATTENTIONMATH_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"

#include <optional>

namespace mlir {
namespace flash {

/// A tensor of `shape` filled with `value`.
Value buildFilled(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  Type elementType, double value);

/// S[.., i, j] = scale · Σ_d Q[.., i, d] · K[.., j, d], accumulated in f32.
Value buildScaledQK(OpBuilder &b, Location loc, Value q, Value k, float scale);

/// S[.., i, j] = -inf where kvStart + j >= kvLen, or (with a causal offset)
/// where kvStart + j > qStart + i + causalOffset.
Value buildMask(OpBuilder &b, Location loc, Value scores, Value qStart,
                Value kvStart, int64_t kvLen,
                std::optional<int64_t> causalOffset);

/// The bounds of a mask, built inside the mask's linalg.generic body (so that
/// they may depend on the element's batch index, e.g. a sequence's length):
/// `kvLen` and, when causal, `causalOffset` (index values); `rowsPerHead`
/// when the rows of several q-heads are packed in one tile (split-KV): the
/// query of row i is then (qStart + i) mod rowsPerHead.
struct MaskBounds {
  function_ref<Value(OpBuilder &, Location)> kvLen;
  function_ref<Value(OpBuilder &, Location)> causalOffset; ///< null: none
  std::optional<int64_t> rowsPerHead;
};

/// S[.., i, j] = -inf where kvStart + j >= kvLen, or (with a causal offset)
/// where kvStart + j > row(i) + causalOffset, row(i) the query of row i.
Value buildMask(OpBuilder &b, Location loc, Value scores, Value qStart,
                Value kvStart, const MaskBounds &bounds);

/// buildMask with run-time bounds (index values defined outside the tile;
/// a null causalOffset is not causal).
Value buildMask(OpBuilder &b, Location loc, Value scores, Value qStart,
                Value kvStart, Value kvLen, Value causalOffset,
                std::optional<int64_t> rowsPerHead);

/// m[.., i] = max(init[.., i], max_j S[.., i, j]).
Value buildRowMax(OpBuilder &b, Location loc, Value scores, Value init);

/// The max used to shift exponents: 0 where m = -inf, so that a row that
/// has seen no key gives exp(-inf - 0) = 0 instead of NaN.
Value buildSafeMax(OpBuilder &b, Location loc, Value rowMax);

/// P[.., i, j] = exp(S[.., i, j] - shift[.., i]).
Value buildExpShifted(OpBuilder &b, Location loc, Value scores, Value shift);

/// r[.., i] = exp(a[.., i] - c[.., i]).
Value buildExpDiff(OpBuilder &b, Location loc, Value a, Value c);

/// r[.., i] = init[.., i] + Σ_j P[.., i, j].
Value buildRowSum(OpBuilder &b, Location loc, Value probs, Value init);

/// r[.., i] = x[.., i] · y[.., i].
Value buildRowProduct(OpBuilder &b, Location loc, Value x, Value y);

/// r[.., i, d] = acc[.., i, d] · factor[.., i].
Value buildRowScale(OpBuilder &b, Location loc, Value acc, Value factor);

/// r[.., i, d] = acc[.., i, d] + Σ_j P[.., i, j] · V[.., j, d] in f32, with P
/// first rounded to `roundProbsTo` when it is set (the MMA operand type).
Value buildAccumulatePV(OpBuilder &b, Location loc, Value probs, Value value,
                        Value acc, Type roundProbsTo);

/// O[.., i, d] = l[.., i] == 0 ? 0 : acc[.., i, d] / l[.., i], converted to
/// `outElementType`.
Value buildNormalize(OpBuilder &b, Location loc, Value acc, Value rowSum,
                     Type outElementType);

/// lse[.., i] = l[.., i] == 0 ? -inf : m[.., i] + log(l[.., i]).
Value buildLogSumExp(OpBuilder &b, Location loc, Value rowMax, Value rowSum);

//===----------------------------------------------------------------------===//
// The backward
//===----------------------------------------------------------------------===//

/// r[.., i] = Σ_d x[.., i, d] · y[.., i, d] in f32 (D = rowsum(dO ∘ O)).
Value buildRowDot(OpBuilder &b, Location loc, Value x, Value y);

/// P[.., i, j] = lse[.., i] == -inf ? 0 : exp(S[.., i, j] - lse[.., i]):
/// the forward's probabilities from its log-sum-exp, never NaN for a row
/// that saw no key.
Value buildProbsFromLse(OpBuilder &b, Location loc, Value scores, Value lse);

/// dS[.., i, j] = P[.., i, j] · (dP[.., i, j] - delta[.., i]).
Value buildScoreGrad(OpBuilder &b, Location loc, Value probs, Value gradProbs,
                     Value delta);

/// r[.., j, d] = acc[.., j, d] + Σ_{e.., i} A[.., e.., i, j] · B[.., e.., i, d]
/// in f32, with A first rounded to `roundLhsTo` when it is set: acc += Aᵀ·B,
/// summed also over the dimensions e.. that A and B have between acc's
/// leading ones and the last two (the reference's GQA group, so that a
/// kv-head's dK and dV add up its query heads).
Value buildAccumulateTransposed(OpBuilder &b, Location loc, Value lhs,
                                Value rhs, Value acc, Type roundLhsTo);

/// r = T(scale · acc), T = `outElementType` (a gradient's last step).
Value buildScaleConvert(OpBuilder &b, Location loc, Value acc, float scale,
                        Type outElementType);

//===----------------------------------------------------------------------===//
// Paged K/V and split-KV
//===----------------------------------------------------------------------===//

/// The length of sequence `batch` as the CPU lowerings use it:
/// clamp(seqLens[batch], 0, capacity) as an index (capacity = M·S, the keys
/// its block table can address; a longer length is the caller's error).
Value buildSequenceLength(OpBuilder &b, Location loc, Value seqLens,
                          Value batch, int64_t capacity);

/// Element `feature` of key `key` of sequence `batch`, head `head`, read
/// through the block table (B×M i32) from `cache` (P×S×H×D): the slot
/// key mod S of page blockTable[batch][key floordiv S] (clamped into
/// [0, P)) when 0 <= key < min(length, M·S), else 0. For an invalid key the
/// table is not read as a page index (page 0, slot 0 is read and selected
/// away), so unused table entries may hold anything.
Value buildPagedElement(OpBuilder &b, Location loc, Value cache,
                        Value blockTable, Value batch, Value head, Value key,
                        Value feature, Value length);

/// The K (or V) of every sequence gathered from the pages, B×H×(M·S)×D:
/// key t of sequence b as buildPagedElement reads it with the length
/// clamp(seqLens[b], 0, M·S), 0 past it. (The reference lowering.)
Value buildPagedGather(OpBuilder &b, Location loc, Value cache,
                       Value blockTable, Value seqLens);

/// The R×D tile of keys [keyStart, keyStart + R) of one sequence and head,
/// as buildPagedElement reads them. (flash.load_paged_tile.)
Value buildPagedTile(OpBuilder &b, Location loc, RankedTensorType tileType,
                     Value cache, Value blockTable, Value batch, Value head,
                     Value keyStart, Value length);

/// S[b, .., i, t] = -inf where key t is past sequence b's length
/// len_b = clamp(seqLens[b], 0, capacity) or, when causal, above the
/// diagonal t > i + len_b - numQueries. (The reference's paged mask.)
Value buildSequenceMask(OpBuilder &b, Location loc, Value scores,
                        Value seqLens, int64_t capacity, int64_t numQueries,
                        bool causal);

/// The split log-sum-exps transposed to rows × splits for the merge:
/// r[i, s] = s < numSplits ? partialLse[s, i] : -inf.
Value buildSplitLogSumExps(OpBuilder &b, Location loc, Value partialLse,
                           Value numSplits);

/// r[i, d] = init[i, d] + Σ_s (w[i, s] == 0 ? 0 : w[i, s] · parts[s, i, d]):
/// the partial outputs weighted by their split's weight; a split of weight 0
/// (empty, or not used) is selected away, never multiplied.
Value buildWeightedPartials(OpBuilder &b, Location loc, Value weights,
                            Value parts, Value init);

} // namespace flash
} // namespace mlir

#endif // FLASH_DIALECT_FLASH_TRANSFORMS_ATTENTIONMATH_H
