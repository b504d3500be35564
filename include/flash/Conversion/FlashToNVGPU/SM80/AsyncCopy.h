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

/// The L2 cache policy createpolicy.fractional.L2::evict_first.b64 gives
/// with fraction 1.0 (every access that carries it is evicted first), read
/// back on an H100 (docs/results/lead-2026-12-06-s53/cache-policy.py); a
/// constant, not createpolicy: ptxas 13.0 folds either way.
inline constexpr int64_t kL2EvictFirstPolicy = 0x12F0000000000000;
/// createpolicy.fractional.L2::evict_unchanged.b64 with fraction 1.0: the
/// accesses that carry it keep the priority an access without a policy has.
/// Not evict_normal's policy (0x16F0000000000000): with it, rows whose K/V
/// stay in the L2 from call to call ran up to 1.16x slower than without a
/// policy on an H100, with this one 0.976-1.021x (docs/results/
/// lead-2026-12-07-s54 run 1, lead-2026-12-07-s56 run 2).
Value l2EvictUnchangedPolicy(KernelMath &km);
/// One 16-byte cp.async.cg (bypassing L1) from `source` (!llvm.ptr<1>) to
/// `shared` (!llvm.ptr<3>) under the L2 cache policy `policy` (i64,
/// .L2::cache_hint): `bytes` (i32) of the 16 read and the rest zero-filled,
/// or (null) all 16. No NVVM op carries the policy operand, so it is inline
/// PTX; it joins the commit groups as nvgpu's copies do. The shared address
/// is a memory operand, so that it prints as nvgpu's copies' do (a register
/// and a constant offset): with it as a register operand, ptxas 13.0 made
/// most of these copies LDGSTS [R+UR0], desc[UR1] with UR1 never written, an
/// illegal instruction (docs/benchmarks.md, fifty-third session).
void copyWithL2Policy(KernelMath &km, Value shared, Value source, Value bytes,
                      Value policy);

/// Closes the copies issued since the last group (nvgpu token).
Value commitCopies(KernelMath &km);
/// Waits until at most `pending` groups are in flight.
void waitCopies(KernelMath &km, Value firstGroup, int64_t pending);

} // namespace sm80
} // namespace flash
} // namespace mlir

#endif // FLASH_CONVERSION_FLASHTONVGPU_SM80_ASYNCCOPY_H
