//===- WGMMA.h - sm_90a warpgroup MMA (SS and RS forms) --------*- C++ -*-===//
//
// wgmma.mma_async on one warpgroup: D (m64 × n, f32) = A (m64 × k) · B (k ×
// n) [+ D], issued asynchronously. Each warp of the m64 accumulator holds
// the rows of an mma.sync m16n8 C fragment per 8 columns (KernelBuilder.h's
// layout), so the softmax code of every arch applies to it. The SS form
// reads A and B from shared memory through matrix descriptors (the nvvm
// op); the RS form takes A from registers, which nvvm.wgmma.mma_async cannot
// express, so it is inline PTX with the accumulators tied to the results.
// Protocol: fence (wgmmaFence) before the first wgmma that reads registers
// written since, commit (wgmmaCommit) the issued group, and wait
// (wgmmaWait(n): at most n groups pending) before reading D or reusing A's
// registers or the shared tiles. All 128 threads of the warpgroup run all
// of these.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_FLASHTONVGPU_SM90_WGMMA_H
#define FLASH_CONVERSION_FLASHTONVGPU_SM90_WGMMA_H

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"

namespace mlir {
namespace flash {
namespace sm90 {

struct SharedBase;

/// A shared-memory matrix descriptor for a 128B-swizzled tile at
/// `byteOffset` of the aligned base: start address >> 4 (bits 0-13),
/// leading byte offset >> 4 (16-29), stride byte offset 1024 >> 4 (32-45:
/// 8 rows of 128 bytes), 128B swizzle (bits 62-63 = 1).
Value wgmmaDescriptor(KernelMath &km, const SharedBase &smem, Value byteOffset,
                      int64_t leadingBytes);
/// The descriptor `bytes` further (bytes a multiple of 16).
Value advanceDescriptor(KernelMath &km, Value descriptor, int64_t bytes);

void wgmmaFence(KernelMath &km);              ///< wgmma.fence
void wgmmaCommit(KernelMath &km);             ///< wgmma.commit_group
void wgmmaWait(KernelMath &km, int64_t pending); ///< wgmma.wait_group

/// An operand of an SS wgmma in shared memory (128B-swizzled boxes of 64
/// 16-bit columns, TMA.h's tile layout): its descriptor at k = 0 of the
/// warpgroup's rows (or columns) and how k advances through it.
///   K-major (the reduction dimension along the 128-byte rows): k-slice kk
///     of 16 is column block kk / 4 (blocks of `blockRows` rows) and 32
///     bytes further per slice within it; an A of 64 rows or a B of n rows.
///   MN-major (transposed: k runs down the rows, M or N along them): k-slice
///     kk is 16 rows (16·128 bytes) further; the descriptor's leading byte
///     offset steps to the next 64-column block of M or N.
struct WgmmaOperand {
  Value descriptor;
  bool mnMajor = false;
  int64_t blockRows = 0; ///< K-major: rows per 64-column block
  /// Byte offset of k-slice kk from the descriptor's start.
  int64_t sliceOffset(int64_t kk) const;
};

/// SS: D = A · B (A 64 × k, B k × n, either K-major or MN-major; see
/// WgmmaOperand), k/16 wgmma m64nNk16 of `elementType` (f16 or bf16), f32
/// accumulate, the first with scale-d = 0 (D starts undefined). Issued, not
/// committed.
Fragment wgmmaSS(KernelMath &km, Type elementType, const WgmmaOperand &a,
                 const WgmmaOperand &b, int64_t n, int64_t k);

/// SS: D = A · Bᵀ with A (64 × k) and B (n × k) both K-major in shared
/// memory as 64-column blocks of 128B-swizzled rows (TMA.h), A's blocks of
/// `aBlockRows` rows (this warpgroup's 64 rows start at descA), B's of
/// `bBlockRows`. k/16 wgmma m64nNk16 of `elementType` (f16 or bf16), f32
/// accumulate, the first with scale-d = 0 (D starts undefined: zeroing it
/// would add moves that serialise the wgmmas). Issued, not committed.
Fragment wgmmaSS(KernelMath &km, Type elementType, Value descA,
                 int64_t aBlockRows, Value descB, int64_t bBlockRows,
                 int64_t n, int64_t k);

/// RS: acc += A · B with A (64 × k) in registers, as the packed 16-bit
/// pairs of an m64 accumulator layout (4 words per k16 slice: the C
/// fragments of column tiles 2kk and 2kk+1, each two halves), and B (k × n)
/// MN-major (transposed) in shared memory, 128B-swizzled, 16 rows of k
/// per slice (descB advanced 16·128 bytes per slice). k/16 wgmma m64nNk16
/// through inline PTX with `acc` tied to the results; returns the new
/// accumulator. Issued, not committed.
Fragment wgmmaRS(KernelMath &km, Type elementType, Fragment acc,
                 ArrayRef<Value> aWords, Value descB, int64_t n, int64_t k);

/// Keeps `values` (i32) alive until here through an empty inline asm that
/// uses them, so that LLVM does not reuse the registers of an RS wgmma's A
/// while the wgmma may still read them (place it after the wgmmaWait).
void keepAlive(KernelMath &km, ArrayRef<Value> values);

} // namespace sm90
} // namespace flash
} // namespace mlir

#endif // FLASH_CONVERSION_FLASHTONVGPU_SM90_WGMMA_H
