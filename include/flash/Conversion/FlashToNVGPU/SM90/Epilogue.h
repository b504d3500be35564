//===- Epilogue.h - sm_90a TMA-store epilogue ------------------*- C++ -*-===//
//
// A consumer warpgroup's 64 rows of a 16-bit output leave through shared
// memory and TMA stores, in three steps that a kernel may pull apart (to
// overlap the last with the next tile's work): write the rows as 128B-
// swizzled boxes of 64 rows × 128 bytes (writeSwizzledOutput, every thread
// its own words); fence them for the async proxy, synchronise the
// warpgroup, and have its leader (thread 0 of the 128) store one TMA box
// per 64 columns (storeOutputTma); and the leader's wait for the stores to
// have read the boxes, after which the space may be reused
// (waitOutputRead, with the kernel's release of the space).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_FLASHTONVGPU_SM90_EPILOGUE_H
#define FLASH_CONVERSION_FLASHTONVGPU_SM90_EPILOGUE_H

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"
#include "flash/Conversion/FlashToNVGPU/SM90/TMA.h"

namespace mlir {
namespace flash {
namespace sm90 {

struct SharedBase;

/// One packed pair of the output: (row in the sequence, column tile nt of
/// the accumulator fragment, the 32-bit word).
struct OutputWord {
  Value row;
  int64_t columnTile;
  Value word;
};

/// Writes `words` of the warpgroup whose rows start at tileRow0 +
/// 64·warpgroup into the boxes at `boxes` (byte offsets, one per 64
/// columns): element (r, c) at row r, 16-byte chunk (c % 64) / 8 XOR
/// (r % 8), lane t's pair at 4·t within it.
void writeSwizzledOutput(KernelMath &km, const SharedBase &smem,
                         ArrayRef<OutputWord> words, ArrayRef<Value> boxes,
                         Value tileRow0, Value warpgroup, Value quadLane);
/// The same for the words of any accumulator layout, the box's rows starting
/// at `firstRow` (its rows: 64 for a wgmma warpgroup, 128 for a tcgen05
/// tile). An MmaQuad word (column tile nt) is lane quadLane's pair of the
/// 16-byte chunk nt; a RowPerThread word (the row's column pair cp, after
/// tcgen05.ld a thread holds a row) is pair cp % 4 of chunk cp / 4.
void writeSwizzledOutput(KernelMath &km, const SharedBase &smem,
                         const AccumulatorLayout &layout,
                         ArrayRef<OutputWord> words, ArrayRef<Value> boxes,
                         Value firstRow, Value quadLane);

/// Publishes the boxes: fence.proxy.async, named barrier warpgroup +
/// firstBarrierId for the warpgroup's 128 threads, then its leader (tid %
/// 128 = 0) stores rows tileRow0 + 64·warpgroup of `columns` columns at
/// `head` of `tensorMap` (box b from boxOffset(b)) and commits the group.
void storeOutputTma(KernelMath &km, const SharedBase &smem, Value tensorMap,
                    int64_t columns, Value tid, Value warpgroup,
                    int64_t firstBarrierId, Value tileRow0, TmaHead head,
                    function_ref<Value(int64_t)> boxOffset);
/// The same for a group of 128 threads on named barrier `barrierId` whose
/// box rows start at `rows()` (built in the leader's branch).
void storeOutputTma(KernelMath &km, const SharedBase &smem, Value tensorMap,
                    int64_t columns, Value tid, Value barrierIndex,
                    int64_t firstBarrierId, function_ref<Value()> rows,
                    TmaHead head, function_ref<Value(int64_t)> boxOffset);

/// The leader waits for its stores to have read shared memory, then runs
/// `release` (its arrival on the barrier that hands the space back).
void waitOutputRead(KernelMath &km, Value tid, function_ref<void()> release);

} // namespace sm90
} // namespace flash
} // namespace mlir

#endif // FLASH_CONVERSION_FLASHTONVGPU_SM90_EPILOGUE_H
