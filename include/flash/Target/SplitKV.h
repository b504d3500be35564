//===- SplitKV.h - how many parts a split-KV call cuts K/V into -*- C++ -*-===//
//
// Flash-Decoding cuts each sequence's keys into parts ("splits") computed by
// different blocks and merged by their log-sum-exp. How many parts a call
// uses is chosen per call from the real length, the work the grid already
// has (batch × kv-heads blocks) and the SM count, within the workspace's
// fixed capacity `maxSplits`. This file is that choice, written once:
// flash-tile builds it from index ops on run-time lengths (the split loop
// and the merge), the IO report evaluates it on integers, the C++ runtime
// calls the integer form to size grids, and GPU kernels can instantiate it
// on their own i32 values (device-side, from seq_lens; no host sync). It has
// no MLIR dependency and uses only integer add, mul, min, max and division
// of non-negative values.
//
// For a sequence of `numKeys` keys in K/V tiles of `blockKV` keys:
//   tiles         = ceil(numKeys / blockKV)
//   blocks        = max(batch · kvHeads, 1)          blocks without splitting
//   wave          = ceil(numSMs / blocks)            splits that fill the SMs
//   wanted        = clamp(min(wave, tiles), 1, maxSplits)
//   tilesPerSplit = max(ceil(tiles / wanted), 1)
//   splits        = max(ceil(tiles / tilesPerSplit), 1)   no empty split
//   keysPerSplit  = tilesPerSplit · blockKV
// Split s (0 ≤ s < splits) takes the tiles [s·tilesPerSplit,
// min((s + 1)·tilesPerSplit, tiles)); every split has at least one tile
// (except the one split of an empty sequence), 1 ≤ splits ≤ maxSplits, and
// splits = 1 whenever maxSplits = 1 or the batch alone fills the SMs.
//
// A domain provides: Value, constant(int64_t), add, mul, min, max (signed)
// and floorDiv (of non-negative values).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_TARGET_SPLITKV_H
#define FLASH_TARGET_SPLITKV_H

#include <algorithm>
#include <cstdint>

namespace mlir {
namespace flash {

template <typename V>
struct SplitKVChoice {
  V splits;        ///< parts the sequence's keys are cut into (>= 1)
  V tilesPerSplit; ///< K/V tiles per part (>= 1), the last part may be short
  V keysPerSplit;  ///< tilesPerSplit · blockKV
};

template <typename Domain>
SplitKVChoice<typename Domain::Value>
chooseSplitKV(Domain &d, typename Domain::Value batch,
              typename Domain::Value kvHeads, typename Domain::Value numKeys,
              int64_t blockKV, typename Domain::Value numSMs,
              int64_t maxSplits) {
  using V = typename Domain::Value;
  V one = d.constant(1);
  auto ceilDiv = [&](V x, V y) {
    return d.floorDiv(d.add(x, d.add(y, d.constant(-1))), y);
  };
  V bc = d.constant(blockKV);
  V tiles = d.floorDiv(d.add(numKeys, d.constant(blockKV - 1)), bc);
  V blocks = d.max(d.mul(batch, kvHeads), one);
  V wave = ceilDiv(numSMs, blocks);
  V wanted =
      d.max(d.min(d.min(wave, tiles), d.constant(maxSplits)), one);
  V tilesPerSplit = d.max(ceilDiv(tiles, wanted), one);
  V splits = d.max(ceilDiv(tiles, tilesPerSplit), one);
  return {splits, tilesPerSplit, d.mul(tilesPerSplit, bc)};
}

/// The domain of plain 64-bit integers (the runtime, the IO report).
struct SplitKVIntegerDomain {
  using Value = int64_t;
  Value constant(int64_t v) { return v; }
  Value add(Value x, Value y) { return x + y; }
  Value mul(Value x, Value y) { return x * y; }
  Value min(Value x, Value y) { return std::min(x, y); }
  Value max(Value x, Value y) { return std::max(x, y); }
  Value floorDiv(Value x, Value y) { return x / y; }
};

/// chooseSplitKV on integers: batch, kvHeads, numKeys >= 0, blockKV >= 1,
/// numSMs >= 1, maxSplits >= 1.
inline SplitKVChoice<int64_t> chooseSplitKV(int64_t batch, int64_t kvHeads,
                                            int64_t numKeys, int64_t blockKV,
                                            int64_t numSMs,
                                            int64_t maxSplits) {
  SplitKVIntegerDomain d;
  return chooseSplitKV(d, batch, kvHeads, numKeys, blockKV, numSMs,
                       maxSplits);
}

} // namespace flash
} // namespace mlir

#endif // FLASH_TARGET_SPLITKV_H
