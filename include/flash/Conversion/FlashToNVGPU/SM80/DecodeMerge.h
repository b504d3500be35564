//===- DecodeMerge.h - The decode kernels' merge of parts ------*- C++ -*-===//
//
// The merge of a sequence's parts by their log-sum-exp, as the fused merge
// of the split kernels (SM80/DecodeKernel.cpp, sm_80 and sm_90a) runs it: a
// warp per output row, one or (more than kSplitKVMergeDirect parts) two
// levels of groups. Declared here so that the CPU harness
// flash-test-decode-merge (test/lib/TestDecodeMerge.cpp) builds the same
// code; python/tests/test_decode_merge.py runs it against a float64 merge.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_FLASHTONVGPU_SM80_DECODEMERGE_H
#define FLASH_CONVERSION_FLASHTONVGPU_SM80_DECODEMERGE_H

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"

namespace mlir {
namespace flash {
namespace sm80 {

/// Where output rows and the partials live.
struct OutputRows {
  Value o, lse;                     ///< flat i32 (pairs) and f32 memrefs; lse may be null
  Value partialO, partialLse;       ///< raw pointers (f32), read past L1
};

/// Where a merge writes its result: the output row (O in the element type,
/// LSE), or (the first level of a two-level merge) the partial slot of
/// part `toPart`, normalised O and LSE in f32 like a split's partial.
struct MergeTarget {
  Value toPart; ///< null: the output row
};

/// The parts first, first + stride, ..., first + (count − 1)·stride
/// (count >= 1) of row `flatRow` merged by one warp, in one pass with a
/// running maximum (as the online softmax):
///   m = max_s LSE_s,  O = Σ_s w_s·O_s / Σ_s w_s,  w_s = exp(LSE_s − m),
///   LSE = m + ln Σ_s w_s
/// each batch of decodeMergeBatch(Dv) parts loaded together (LSEs and O
/// rows), the sums so far rescaled by exp(m_old − m_new) when a batch
/// raises the maximum: one round trip to memory a batch, none for a
/// separate maximum. A part whose rows saw no key has LSE_s = −inf and
/// weight 0 (its O_s is 0, never NaN); if no part saw a key, O = 0 and
/// LSE = −inf. Parts past `count` in the last batch are not read (weight
/// 0). Part p of row r is partial row p·allRows + r. Lane `lane` takes
/// columns [lane·Dv/32, (lane + 1)·Dv/32); lane 0 writes the LSE.
void buildMergeRow(KernelMath &km, const KernelConfig &config,
                   const OutputRows &out, Value lane, Value flatRow,
                   Value first, Value count, Value stride, Value allRows,
                   MergeTarget target);

/// How a row tile's `numSplits` parts merge: in two levels when there are
/// more than kSplitKVMergeDirect, in balanced groups of groupSize
/// consecutive parts (⌈n / ⌈n / kSplitKVMergeGroup⌉⌉ each, the last
/// non-empty; one group of all parts otherwise), numGroups of them.
struct MergeGroups {
  Value twoLevel, groupSize, numGroups;
};
MergeGroups buildMergeGroups(KernelMath &km, Value numSplits);

} // namespace sm80
} // namespace flash
} // namespace mlir

#endif // FLASH_CONVERSION_FLASHTONVGPU_SM80_DECODEMERGE_H
