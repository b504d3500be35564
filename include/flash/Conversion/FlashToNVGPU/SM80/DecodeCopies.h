//===- DecodeCopies.h - K/V tile copies of the decode kernels ---*- C++ -*-===//
//
// How a split-KV kernel's threads (SM80/DecodeKernel.cpp, sm_80 and sm_90a)
// copy a 64-key K/V tile into a stage of the shared-memory ring: thread tid
// copies the 16-byte chunk tid % (D/8) of rows copyRow + p·rowsPerPass()
// (p < passes()) of K and of V, into the stage's row at the chunk swizzled
// as TileCopier places it (chunk c of row r at c ^ (r & 7)). The source is
// the key's own row: ((b·Hkv + h)·Nk + key)·D in a contiguous cache, the
// cache row page·S + slot (DecodePageRows) times Hkv·D plus h·D in a paged
// one. Keys at or past the length are zero-filled from an in-bounds row;
// a tile wholly inside the length is copied without the zero-fill operand
// (contiguous: from one base and constant offsets; paged: `plain`).
//
// The kernels emit each copy as nvgpu.device_async_copy (cp.async; on
// sm_90a the same copy under an L2 policy, inline PTX); the test
// pass flash-test-decode-copies (test/lib/TestDecodeCopies.cpp) gives
// DecodeTileCopies a scalar copy instead and runs it on the CPU for every
// thread of a block, so that python/tests/test_decode_copies.py checks each
// stage element against the cache (and the zero-fill), on caches whose words
// hold their own indices and random block tables.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_FLASHTONVGPU_SM80_DECODECOPIES_H
#define FLASH_CONVERSION_FLASHTONVGPU_SM80_DECODECOPIES_H

#include "flash/Conversion/FlashToNVGPU/SM80/AsyncCopy.h"
#include "flash/Conversion/FlashToNVGPU/SM80/DecodePages.h"

#include <functional>

namespace mlir {
namespace flash {
namespace sm80 {

/// The page arithmetic and the K/V tile copies of a split kernel. Set the
/// inputs (DecodePageRows' and globalK/V, sharedK/V), call the set* steps
/// where the kernel emits them, then issueTile for each tile.
class DecodeTileCopies : public DecodePageRows {
public:
  DecodeTileCopies(OpBuilder &b, Location loc, int64_t headDim,
                   int64_t threads, int64_t constantPageSize,
                   bool groupedStart, bool paged, int64_t tableWindow);

  /// Contiguous: kvHeadBase = (batch·Hkv + kvHead)·Nk, the first row of the
  /// block's (sequence, kv-head) in the cache (index).
  void setContiguousBase(Value batch, Value numKVHeads, Value kvHead,
                         Value seqKV);
  /// Thread `tid`'s copy offsets: the TileCopier's swizzled destinations,
  /// its chunk, copyRow and, paged, Hkv·D and h·D + 8·chunk.
  void setCopyOffsets(Value tid, Value numKVHeads, Value kvHead);
  /// Issues the copies of K/V tile `tile` into stage `stage` (`rows`: the
  /// paged cache rows of this thread's keys, cacheRowsOf or groupedRowsOf;
  /// rows at or past the length zero-filled; `plain`: a paged tile wholly
  /// inside the length, copied without the zero-fill operand).
  void issueTile(Value tile, Value stage, ArrayRef<Value> rows,
                 bool plain = false);

  /// One 16-byte copy: 8 elements from global[source] to shared[dest]
  /// (`elements`: how many to read, the rest zero-filled; null: all 8).
  using CopyEmitter = std::function<void(Value shared, Value dest,
                                         Value global, Value source,
                                         Value elements)>;
  /// Null: nvgpu.device_async_copy, bypassing L1. The kernels give the
  /// copy under an L2 policy where decodeKVEvictFirstBytes is not 0, the
  /// CPU harness a scalar copy.
  CopyEmitter emitCopy;

  const bool paged;
  // Inputs: the flat K and V caches (global) and the K and V rings (shared).
  Value globalK, globalV, sharedK, sharedV;
  // Set by the steps.
  Value kvHeadBase;
  TileCopier copier;
  Value copyChunk;
  /// Paged: Hkv·D and h·D + chunk·8 (index), a cache row's element stride
  /// and this thread's offset in it.
  Value pagedRowStride, pagedHeadChunk;
};

} // namespace sm80
} // namespace flash
} // namespace mlir

#endif // FLASH_CONVERSION_FLASHTONVGPU_SM80_DECODECOPIES_H
