//===- TileScheduler.h - sm_90a Q-tile order, persistent grid --*- C++ -*-===//
//
// Which Q tile (of blockQ rows of one (batch, q-head)) a block computes, in
// which order tiles go out, and the persistent grid's dynamic scheduler.
// Tiles are numbered 0 .. numQTiles·Hq·B - 1 in the order the hardware (one
// tile per block) or the tile counter (persistent) hands them out; decode
// turns a number into TileCoords. The order is head by head (a head's K/V
// stays in L2), causal tiles longest first; or, for causal kernels with a
// tile-group byte budget, grouped: across a group of G heads, every head's
// longest tile first. Both roles of a block decode the same numbers and get
// the same coordinates.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_FLASHTONVGPU_SM90_TILESCHEDULER_H
#define FLASH_CONVERSION_FLASHTONVGPU_SM90_TILESCHEDULER_H

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"
#include "flash/Conversion/FlashToNVGPU/SM90/TMA.h"

namespace mlir {
namespace flash {
namespace sm90 {

/// Where a Q tile is: its first row, the Q/O head index batch·Hq + head
/// (coordinate 2 of the Q and O tensor maps, and the LSE row block) and the
/// K/V head index batch·Hkv + head / (Hq / Hkv) (GQA); also the batch entry
/// and the heads within it (qHead, kvHead), the coordinates of rank-4 maps.
struct TileCoords {
  Value qStart, headQ, headKV;
  Value batch, qHead, kvHead;
  /// The TMA head coordinates of Q and O, and of K and V: (headQ) or, with
  /// batch maps, (qHead, batch).
  TmaHead mapQ(bool batchMaps) const {
    return batchMaps ? TmaHead(qHead, batch) : TmaHead(headQ);
  }
  TmaHead mapKV(bool batchMaps) const {
    return batchMaps ? TmaHead(kvHead, batch) : TmaHead(headKV);
  }
};

struct TileScheduler {
  Value numQTiles, queryHeads, kvHeads, batchSize; ///< i32, run time
  int64_t blockQ = 0;
  /// Causal: within a head, the Q tile with the most K/V tiles goes first.
  bool longestFirst = false;
  /// Grouped order: B·Hq and the heads per group (null: head by head).
  Value heads, tileGroup;

  /// Q tiles of the launch: numQTiles·Hq·B.
  Value total(KernelMath &km) const;
  /// The coordinates of tile number `tile`.
  TileCoords decode(KernelMath &km, Value tile) const;
};

/// At kernel entry. With `tileGroupBytes` > 0 and `causal`, the grouped
/// order: G = min(max(tileGroupBytes / kvRowBytes / Nk, 1), B·Hq) heads per
/// group, 1 (head by head) below minGroupedQTiles Q tiles per head.
TileScheduler makeTileScheduler(KernelMath &km, Value numQTiles,
                                Value queryHeads, Value kvHeads,
                                Value batchSize, int64_t blockQ, bool causal,
                                int64_t tileGroupBytes, int64_t kvRowBytes,
                                int64_t minGroupedQTiles, Value seqKV);

/// One tile per block: ((blockIdx.z·Hq + blockIdx.y)·numQTiles + blockIdx.x).
Value blockTile(KernelMath &km, const TileScheduler &scheduler);

/// The body of a tile loop: (tile, the block's tile number, carried i32)
/// -> the carried value for the next tile.
using TileBody = function_ref<Value(Value tile, Value iteration, Value carry)>;

/// Persistent producer: block c starts with tile c and draws each next tile
/// from `counter` (gridDim.x + atomicAdd(counter, 1), after the body) until
/// a tile number ≥ `total`. Every block draws until it gets one past the
/// end, so the draws number exactly `total`, and the block whose draw
/// returns total - 1 resets the counter to 0 for the next launch. The carry
/// starts at 0. Returns the number of tiles the block ran.
Value drawTiles(KernelMath &km, Value total, Value counter, TileBody body);

/// Persistent consumer: tile number i of the block is `readTile(i)` (what
/// the producer published); the loop ends at a tile ≥ `total`. The carry
/// starts at 0.
void consumeTiles(KernelMath &km, Value total,
                  function_ref<Value(Value iteration)> readTile,
                  TileBody body);

/// The producer's tile index for the consumers: a volatile i32 store to
/// `slot` (shared), made visible by the mbarrier arrival that follows it.
void publishTile(KernelMath &km, Value slot, Value tile);
/// The consumers' volatile read of it, after waiting on that barrier.
Value readPublishedTile(KernelMath &km, Value slot);

} // namespace sm90
} // namespace flash
} // namespace mlir

#endif // FLASH_CONVERSION_FLASHTONVGPU_SM90_TILESCHEDULER_H
