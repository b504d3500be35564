//===- DecodeMerge.h - The decode kernels' merge of parts ------*- C++ -*-===//
//
// The merge of a sequence's parts by their log-sum-exp, as the fused merge
// of the split kernels (SM80/DecodeKernel.cpp, sm_80 and sm_90a) runs it: a
// warp per output row, one or (more than kSplitKVMergeDirect parts) two
// levels of groups; and as sm_90a's separate merge kernel runs it: a block
// per output row and 32 columns, its threads' sums combined through shared
// memory; and as sm_90a's pair merge runs it: two parts through a
// cluster's distributed shared memory. Declared here so that the CPU harness
// flash-test-decode-merge (test/lib/TestDecodeMerge.cpp; form=fused,
// form=kernel, form=pair) builds the same code;
// python/tests/test_decode_merge.py runs it against a float64 merge.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_FLASHTONVGPU_SM80_DECODEMERGE_H
#define FLASH_CONVERSION_FLASHTONVGPU_SM80_DECODEMERGE_H

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"

#include <functional>
#include <utility>

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

/// The pair merge (sm_90a's fused split kernels where a row tile has two
/// parts, their blocks one cluster; SplitKernelBuilder::build in
/// SM80/DecodeKernel.cpp): each block has left its part's partials (f32 O
/// normalised, row r of the tile at words r·Dv.., and the LSE, −inf for a
/// row that saw no key of the part) in its shared memory, and block `rank`
/// (0 or 1) merges the tile's rows 2·warp + rank + 2·kSplitKVWarps·k below
/// rowsInTile (each row once over the cluster's warps):
///   m = max(LSE_0, LSE_1),  O = (w_0·O_0 + w_1·O_1) / (w_0 + w_1),
///   w_s = exp(LSE_s − m),  LSE = m + ln(w_0 + w_1)
/// (O = 0 and LSE = −inf where neither part saw a key), written to output
/// row tileFlatRow0 + row by writeOutputRow (lane `lane`'s Dv/32 columns,
/// lane 0 the LSE). Where the partials come from is the caller's: the
/// kernel reads both blocks' shared memory through the cluster, the CPU
/// harness flash-test-decode-merge (form=pair) reads buffers.
struct PairPartials {
  /// Block `source`'s Dv/32 words of O from word `word` (row·Dv + column).
  std::function<SmallVector<Value>(int64_t source, Value word)> o;
  /// Block `source`'s LSE of the tile's row `row`.
  std::function<Value(int64_t source, Value row)> lse;
};
void buildPairMergeRows(KernelMath &km, const KernelConfig &config,
                        const OutputRows &out, Value warp, Value rank,
                        Value lane, Value rowsInTile, Value tileFlatRow0,
                        const PairPartials &partials);

/// How a row tile's `numSplits` parts merge: in two levels when there are
/// more than kSplitKVMergeDirect, in balanced groups of groupSize
/// consecutive parts (⌈n / ⌈n / kSplitKVMergeGroup⌉⌉ each, the last
/// non-empty; one group of all parts otherwise), numGroups of them.
struct MergeGroups {
  Value twoLevel, groupSize, numGroups;
};
MergeGroups buildMergeGroups(KernelMath &km, Value numSplits);

/// The separate merge kernel (sm_90a, calls of at most
/// kSplitKVSeparateMergeMaxWorkUnits work units; buildMergeKernel in
/// SM80/DecodeKernel.cpp): a block of kSplitKVMergeThreads threads per
/// output row and kSplitKVMergeSlice columns of it. Thread `tid` sums the
/// parts group, group + groups, ... (groups = threads·4 / slice) of its 4
/// columns, quad·4 to quad·4 + 3 of the slice; the first group's threads
/// combine the groups' sums. Declared here so that the CPU harness
/// flash-test-decode-merge (form=kernel) builds the same code.
struct MergeKernelThread {
  Value group, quad;
};
MergeKernelThread mergeKernelThread(KernelMath &km, Value tid);
/// The thread's first column of O: slice·kSplitKVMergeSlice + quad·4.
Value mergeKernelColumn(KernelMath &km, Value slice, Value quad);
/// Thread (group, quad)'s sums of row `rowIndex` (an index; parts of a row
/// allRows apart, an index) at `column`, over its parts below numSplits
/// (>= 2), in batches of 8 with a running maximum as buildMergeRow does:
/// the words it leaves for the combine, {max LSE, Σ w, Σ w·O (4 columns)},
/// with w = exp(LSE − max).
SmallVector<Value> buildMergeKernelSums(KernelMath &km,
                                        const KernelConfig &config,
                                        const OutputRows &out, Value group,
                                        Value column, Value rowIndex,
                                        Value allRows, Value numSplits);
/// Where thread (group, quad) leaves word `word` of its sums in the
/// block's exchange (f32, kSplitKVMergeSharedBytes).
Value mergeKernelSlot(KernelMath &km, int64_t word, Value group, Value quad);
/// Where the combine writes: O as 16-bit pairs (flat i32) and the LSE (flat
/// f32), each made where the combine first needs it.
struct MergeKernelOutputs {
  function_ref<Value()> o, lse;
};
/// A first-group thread's combine of every group's words of its quad: O's
/// 4 columns at `column` of row `rowIndex` (normalised, rounded to the
/// element type) and, from the thread with slice + quad = 0 when
/// config.writesLse, the row's LSE (−inf, and O = 0, where no part saw a
/// key).
void buildMergeKernelCombine(KernelMath &km, const KernelConfig &config,
                             const MergeKernelOutputs &outputs,
                             Value exchange, Value slice, Value quad,
                             Value column, Value rowIndex);

/// The split kernels' combine of their warps (SplitKernelBuilder::build in
/// SM80/DecodeKernel.cpp): each of the block's kSplitKVWarps warps ends its
/// K/V loop with the online-softmax state of the row tile over its own keys
/// (per thread row the maximum m_w, raw scores, the same on a quad's lanes;
/// the thread's part of the sum l_w; the accumulator acc_w). The block's
/// state is, per row, the common maximum M = max_w m_w and
///   l = Σ_w f_w·l_w,  acc = Σ_w f_w·acc_w,  f_w = 2^(m_w·c − M·c)
/// (c = scale·log2 e; f_w = 0 for a warp whose row saw no key, m_w = −inf;
/// M·c taken as 0 where no warp did). The warps leave their words in shared
/// memory (storeWarpCombineWords, then the block's barrier) and either all
/// four combine a quarter of the columns each (combineWarpSlices) or, where
/// four warps' words do not fit in the K/V ring, warp 0 combines everything
/// (combineIntoFirstWarp). Declared here so that the CPU harness
/// flash-test-decode-combine (test/lib/TestDecodeCombine.cpp) builds the
/// same code.
///
/// Words a warp leaves (per lane: its rows' m, then l, then the
/// accumulator's registers), 32 lanes each.
int64_t warpCombineWordsPerWarp(int64_t mTiles, int64_t headDim);
/// Whether the four warps' words fit in `ringBytes` (then every warp
/// combines a slice of the columns).
bool warpCombineInParallel(int64_t mTiles, int64_t headDim, int64_t ringBytes);
/// Lane `lane` of warp `warp` leaves `state` in `exchange` (f32): word i at
/// (w·words/32 + i)·32 + lane, every warp when `parallel`, else warps 1 to
/// 3 at w − 1 (warp 0 keeps its own in registers).
void storeWarpCombineWords(KernelMath &km, Value exchange, Value warp,
                           Value lane, const OnlineSoftmaxState &state,
                           int64_t mTiles, int64_t headDim, bool parallel);
/// A row tile's combined state: the common maxima M (raw scores, −inf
/// where no warp saw a key), the thread's part of each row's sum, and the
/// accumulator (all columns, or one warp's slice).
struct CombinedWarps {
  SmallVector<Value> common, runningSum;
  Fragment acc;
};
/// Warp `warp`'s combine of column tiles [warp·n, (warp + 1)·n) (n = the
/// accumulator's column tiles / kSplitKVWarps) from every warp's words.
CombinedWarps combineWarpSlices(KernelMath &km, Value exchange, Value warp,
                                Value lane, int64_t mTiles, int64_t headDim,
                                Value scaleLog2e);
/// Warp 0's combine of its own state `own` with warps 1 to 3's words.
CombinedWarps combineIntoFirstWarp(KernelMath &km, Value exchange, Value lane,
                                   const OnlineSoftmaxState &own,
                                   int64_t mTiles, int64_t headDim,
                                   Value scaleLog2e);

/// Where a split kernel's block writes its combined state (writeSplitResult).
/// The values are the kernel's (i32 unless named); the callbacks make what
/// the kernel makes where it first needs it (and a CPU harness replaces).
struct SplitResultPlace {
  /// This block's part; the op's batch, q-heads and query rows (a part's
  /// partials are B·Hq·Nq rows apart).
  Value part, batch, queryHeads, seqQ;
  /// The row tile's first row among the group's G·Nq rows, and their count.
  Value tileRow0, groupRows;
  /// index: the group's first row of the B·Hq·Nq output rows, and its first
  /// element of O (groupBase·D).
  Value groupBase, qBase;
  /// f32: the softmax scale.
  Value scale;
  LaneCoords coords;
  /// i1, uniform: whether the row tile has one part.
  std::function<Value()> onePart;
  /// O (flat i32: 16-bit pairs) and the LSE (flat f32; null without one).
  std::function<std::pair<Value, Value>()> outputs;
  /// The partials' O and LSE (flat f32).
  std::function<std::pair<Value, Value>()> partials;
  /// Optional (sm_90a's fused split kernels): i1, uniform over the grid:
  /// whether the partials go to `sharedPartials` instead (this block's
  /// shared memory, the row tile's row r at row r, for a cluster's merge).
  std::function<Value()> inShared;
  std::function<std::pair<Value, Value>()> sharedPartials;
};
/// What a split kernel's block writes from the combined state of its rows
/// (`acc`: every column, or with `columnShift` (index) the slice that many
/// columns in; `common` the rows' maxima, `runningSum` the thread's part of
/// their sums), for rows below groupRows:
///   one part: O = acc / l in the element type (buildEpilogue) and
///     LSE = M·scale + ln l, −inf (and O = 0) where l = 0;
///   several parts: the part's f32 O = acc / l (0 where l = 0) at partial
///     row part·B·Hq·Nq + groupBase + row and its LSE likewise (or, where
///     place.inShared() holds, at row `row` − tileRow0 of sharedPartials).
/// `lseWriter` (i1, or null: every thread that calls it) says which warp
/// writes the LSE (quad lane 0). Declared here so that the CPU harness
/// flash-test-decode-result (test/lib/TestDecodeResult.cpp) builds the same
/// code, in host-lanes mode.
void writeSplitResult(KernelMath &km, const KernelConfig &config,
                      Fragment &acc, ArrayRef<Value> common,
                      ArrayRef<Value> runningSum, Value columnShift,
                      Value lseWriter, const SplitResultPlace &place);

/// Which block of a row tile merges its parts in the split kernels' fused
/// merge (SplitKernelBuilder::build): each block of part `part` < numSplits
/// (>= 2), its partials written, counts itself done on its counter, and the
/// block that counts last merges. One level (numSplits <= kSplitKVMergeDirect):
/// the unit's counter counts the parts and the last merges every part into
/// the output rows. Two levels (buildMergeGroups): counter 1 + g counts the
/// parts of group g and the last of them merges the group into its first
/// part's slot, then counts the group on the unit's counter, whose last
/// merges the groups into the output rows. Each merging block resets the
/// counter it finished, so that the counters are zero again for the next
/// launch (every replay of a captured graph). A unit's counters are
/// 2·⌈gridParts / kSplitKVMergeGroup⌉ words from unit·stride. What the kernel
/// supplies (and a CPU harness replaces): the counters and the count (an
/// atomic add by one thread, its result broadcast through shared memory),
/// the barrier, and the merges. Declared here so that the CPU harness
/// flash-test-decode-counts (test/lib/TestDecodeCounts.cpp) builds the same
/// code. (std::function: the callbacks are lambdas made where the struct is.)
struct FusedMergeCounting {
  /// The grid's x (the most parts a row tile can have), i32.
  std::function<Value()> gridParts;
  /// The row tile's work unit (b·Hkv·row tiles + head tile), i32.
  std::function<Value()> unitIndex;
  /// The counter at word `index` (i32) of the counters.
  std::function<Value(Value index)> counterAt;
  /// Called once the counters are known, before the first count.
  std::function<void()> ready;
  /// Whether this block is the last of `expected` to count on `counter`
  /// (i1, the same in every thread of the block).
  std::function<Value(Value counter, Value expected)> lastToCount;
  /// Sets `counter` back to 0.
  std::function<void(Value counter)> reset;
  /// The block's barrier.
  std::function<void()> barrier;
  /// Every part into the output rows (one level).
  std::function<void()> mergeAll;
  /// Parts [first, first + count) into the slot of part `first`.
  std::function<void(Value first, Value count)> mergeGroup;
  /// The groups' results (parts 0, groupSize, ..., numGroups of them) into
  /// the output rows.
  std::function<void(Value numGroups, Value groupSize)> mergeGroups;
};
void buildFusedMergeCounts(KernelMath &km, Value numSplits, Value part,
                           const FusedMergeCounting &counting);

} // namespace sm80
} // namespace flash
} // namespace mlir

#endif // FLASH_CONVERSION_FLASHTONVGPU_SM80_DECODEMERGE_H
