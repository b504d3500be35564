//===- VisibleKV.h - which K/V tiles a block of query rows sees -*- C++ -*-===//
//
// The one model of which (Q tile, K/V tile) pairs attention visits, written
// once over an arithmetic domain so that every user computes it with the same
// formula: flash-tile builds it from index ops (its loop bounds), the GPU
// kernels from i32 ops on run-time sizes (KernelBuilder's buildKVRange, per Q
// tile and per consumer warpgroup), and the IO model and schedule objective
// from plain integers (Schedule.cpp). A new mask (sliding windows, say) is
// added here once and reaches tiling, kernels and the IO report together.
// Two questions are asked of it: the forward's, which K/V tiles a Q tile sees
// (visibleKVTiles), and the backward's, its transpose, which Q tiles see a
// K/V tile (visibleQTiles). flash-test-visible-ranges checks both against
// brute force and against each other, exhaustively over small sizes.
//
// For rows [qStart, qStart + rows) of Nq query rows against Nk keys, with
// causal attention aligned bottom-right (row i sees keys j <= i + Nk - Nq):
//   rowsEnd     = min(qStart + rows, Nq)                  one past the last row
//   kvEnd       = clamp(rowsEnd + (Nk - Nq), 0, Nk)       keys the last row sees
//                 (Nk without causal)
//   numTiles    = ceil(kvEnd / Bc)                        tiles visited
//   numUnmasked = min(max(qStart + Nk - Nq + 1, 0) / Bc,  tiles every row sees
//                     Nk / Bc, numTiles)                  whole, in-sequence
// Tiles [0, numUnmasked) need no mask; [numUnmasked, numTiles) cross the
// diagonal or the end of the sequence; tiles past numTiles are not visited.
//
// For the K/V tile of keys [kvStart, kvStart + Bc) (the transpose):
//   numTiles      = ceil(Nq / Br)                         Q tiles in all
//   first         = min(max(kvStart - (Nk - Nq), 0) / Br,  the Q tile of the
//                       numTiles)                         first row that sees
//                                                         key kvStart (0
//                                                         without causal)
//   firstUnmasked = clamp(ceil(max(kvStart + Bc - 1 - (Nk - Nq), 0) / Br),
//                         first, numTiles)                the first Q tile whose
//                                                         first row sees the
//                                                         whole K/V tile (0
//                                                         without causal),
//                   or numTiles when the K/V tile crosses the end of the
//                   sequence (kvStart + Bc > Nk)
// Q tiles [first, firstUnmasked) need a mask, [firstUnmasked, numTiles) do
// not; tiles before `first` are not visited. Visibility grows with the row,
// so the visited Q tiles of a K/V tile are always a suffix. Q tile t visits
// K/V tile j in the forward exactly when t >= first(j), and without a mask
// exactly when t >= firstUnmasked(j).
//
// Run-time lengths (flash.paged_attention's seq_lens) are domain values like
// any other. Split-KV packs the Nq queries of several q-heads into one tile
// (row r is query r mod Nq): its rows see the range of all Nq queries,
// visibleKVTiles(qStart = 0, seqQ = Nq, seqKV = length, rows = Nq), which is
// exact when the tile holds a row of query 0 and one of query Nq − 1, and a
// superset otherwise (the mask is exact per row). splitKVTiles cuts that
// range into the parts of one split (include/flash/Target/SplitKV.h chooses
// how many):
//   first       = min(split · tilesPerSplit, numTiles)
//   end         = min(first + tilesPerSplit, numTiles)
//   unmaskedEnd = max(min(numUnmasked, end), first)
// Tiles [first, unmaskedEnd) need no mask, [unmaskedEnd, end) do.
//
// A domain provides: Value, constant(int64_t), add, sub, min, max (signed)
// and floorDiv (of non-negative values); visibleQTiles and splitKVTiles
// also need mul. The order of the calls below is the order of the ops the
// kernels emit; keep it when changing the formula.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_TRANSFORMS_VISIBLEKV_H
#define FLASH_DIALECT_FLASH_TRANSFORMS_VISIBLEKV_H

#include "flash/Target/IntegerDomain.h"

#include <cstdint>

namespace mlir {
namespace flash {

template <typename V>
struct VisibleKVTiles {
  V numTiles;    ///< K/V tiles the rows visit
  V numUnmasked; ///< of which the first ones need no mask
  V kvEnd;       ///< keys the last row sees (the K/V rows read)
};

template <typename Domain>
VisibleKVTiles<typename Domain::Value>
visibleKVTiles(Domain &d, typename Domain::Value qStart,
               typename Domain::Value seqQ, typename Domain::Value seqKV,
               int64_t rows, int64_t blockKV, bool causal) {
  using V = typename Domain::Value;
  V bc = d.constant(blockKV);
  V fullTilesInSeq = d.floorDiv(seqKV, bc);
  if (!causal) {
    V numTiles = d.floorDiv(d.add(seqKV, d.constant(blockKV - 1)), bc);
    return {numTiles, fullTilesInSeq, seqKV};
  }
  V causalOffset = d.sub(seqKV, seqQ);
  V rowsEnd = d.min(d.add(qStart, d.constant(rows)), seqQ);
  V kvEnd =
      d.min(d.max(d.add(rowsEnd, causalOffset), d.constant(0)), seqKV);
  V numTiles = d.floorDiv(d.add(kvEnd, d.constant(blockKV - 1)), bc);
  V firstRowKeys =
      d.max(d.add(d.add(qStart, causalOffset), d.constant(1)), d.constant(0));
  V numUnmasked =
      d.min(d.min(d.floorDiv(firstRowKeys, bc), fullTilesInSeq), numTiles);
  return {numTiles, numUnmasked, kvEnd};
}

template <typename V>
struct VisibleQTiles {
  V first;         ///< the first Q tile that sees the K/V tile
  V firstUnmasked; ///< Q tiles from here on see all of it: no mask
  V numTiles;      ///< one past the last Q tile (all Q tiles of the head)
};

template <typename Domain>
VisibleQTiles<typename Domain::Value>
visibleQTiles(Domain &d, typename Domain::Value kvStart,
              typename Domain::Value seqQ, typename Domain::Value seqKV,
              int64_t blockQ, int64_t blockKV, bool causal) {
  using V = typename Domain::Value;
  V br = d.constant(blockQ);
  V numTiles = d.floorDiv(d.add(seqQ, d.constant(blockQ - 1)), br);
  // 1 when the K/V tile crosses the end of the sequence (keys past Nk read
  // as zeros and must be masked in every Q tile), else 0.
  V pastEnd =
      d.max(d.sub(d.add(kvStart, d.constant(blockKV)), seqKV), d.constant(0));
  V crossesEnd = d.min(pastEnd, d.constant(1));
  V raggedUnmasked = d.mul(crossesEnd, numTiles);
  if (!causal)
    return {d.constant(0), raggedUnmasked, numTiles};
  // Row i sees key k when k <= i + (Nk - Nq).
  V causalOffset = d.sub(seqKV, seqQ);
  V firstRow = d.max(d.sub(kvStart, causalOffset), d.constant(0));
  V first = d.min(d.floorDiv(firstRow, br), numTiles);
  V lastKey = d.add(kvStart, d.constant(blockKV - 1));
  V wholeTileRow = d.max(d.sub(lastKey, causalOffset), d.constant(0));
  V causalUnmasked =
      d.floorDiv(d.add(wholeTileRow, d.constant(blockQ - 1)), br);
  V firstUnmasked =
      d.min(d.max(d.max(causalUnmasked, raggedUnmasked), first), numTiles);
  return {first, firstUnmasked, numTiles};
}

/// The K/V tiles of part `split` of a split-KV sequence whose rows visit
/// `visible` (the split's rows, as above), `tilesPerSplit` tiles a part.
template <typename V>
struct SplitKVTiles {
  V first;       ///< the split's first K/V tile
  V unmaskedEnd; ///< end of its tiles that need no mask
  V end;         ///< one past its last tile (first when it has none)
};

template <typename Domain>
SplitKVTiles<typename Domain::Value>
splitKVTiles(Domain &d, const VisibleKVTiles<typename Domain::Value> &visible,
             typename Domain::Value split,
             typename Domain::Value tilesPerSplit) {
  using V = typename Domain::Value;
  V first = d.min(d.mul(split, tilesPerSplit), visible.numTiles);
  V end = d.min(d.add(first, tilesPerSplit), visible.numTiles);
  V unmaskedEnd = d.max(d.min(visible.numUnmasked, end), first);
  return {first, unmaskedEnd, end};
}

/// visibleKVTiles on integers.
inline VisibleKVTiles<int64_t> visibleKVTiles(int64_t qStart, int64_t seqQ,
                                              int64_t seqKV, int64_t rows,
                                              int64_t blockKV, bool causal) {
  IntegerDomain d;
  return visibleKVTiles(d, qStart, seqQ, seqKV, rows, blockKV, causal);
}

/// visibleQTiles on integers.
inline VisibleQTiles<int64_t> visibleQTiles(int64_t kvStart, int64_t seqQ,
                                            int64_t seqKV, int64_t blockQ,
                                            int64_t blockKV, bool causal) {
  IntegerDomain d;
  return visibleQTiles(d, kvStart, seqQ, seqKV, blockQ, blockKV, causal);
}

} // namespace flash
} // namespace mlir

#endif // FLASH_DIALECT_FLASH_TRANSFORMS_VISIBLEKV_H
