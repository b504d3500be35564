//===- AsyncCopy.h - sm_80 cp.async tile copies ----------------*- C++ -*-===//
//
// Tiles of rows × D 16-bit elements copied from global to shared memory by
// every thread of a block with 16-byte cp.async (8 elements per copy,
// bypassing L1), in passes of threads / (D / 8) rows. In shared memory,
// 16-byte chunk c of row r is stored at chunk c ^ (r & 7), so that ldmatrix
// reads of 8 rows hit 8 different bank groups. Rows at or past the valid
// count copy zero bytes from an in-bounds address (cp.async zero-fills).
// Completion is per commit group (commitCopies / waitCopies).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_FLASHTONVGPU_SM80_ASYNCCOPY_H
#define FLASH_CONVERSION_FLASHTONVGPU_SM80_ASYNCCOPY_H

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"

namespace mlir {
namespace flash {
namespace sm80 {

/// A thread's part of every tile copy: its source chunk and the swizzled
/// destination chunk of each phase (when a pass covers fewer than 8 rows,
/// row & 7 of a pass's rows repeats every 8 / rowsPerPass passes).
struct TileCopier {
  Value tid;
  int64_t headDim = 0, threads = 0;
  SmallVector<Value> dst; ///< element offset in shared memory, per phase
  Value src;              ///< element offset in global memory

  /// Copies `rows` rows starting at global row `row0` of the head at element
  /// offset `globalBase` (index) of `global` (rows >= `validRows` read as
  /// zeros) into `shared` at element offset `sharedOffset` (i32). With
  /// `fullTileFastPath`, a tile that lies wholly inside the sequence is
  /// copied without per-row predicates (scf.if around both forms).
  /// `rowStride` (i32): global rows are that many elements apart (a strided
  /// view; the runtime keeps a strided tensor's span below 2^31 elements);
  /// null: D apart (contiguous rows).
  void copy(KernelMath &km, Value global, Value globalBase, Value row0,
            Value validRows, Value shared, Value sharedOffset, int64_t rows,
            bool fullTileFastPath = false, Value rowStride = Value()) const;
};

/// The per-thread offsets of the copies of a block of `threads` threads.
TileCopier makeTileCopier(KernelMath &km, Value tid, int64_t headDim,
                          int64_t threads);

/// Closes the copies issued since the last group (nvgpu token).
Value commitCopies(KernelMath &km);
/// Waits until at most `pending` groups are in flight.
void waitCopies(KernelMath &km, Value firstGroup, int64_t pending);

} // namespace sm80
} // namespace flash
} // namespace mlir

#endif // FLASH_CONVERSION_FLASHTONVGPU_SM80_ASYNCCOPY_H
