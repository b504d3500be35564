//===- TCGen05.h - sm_100a tensor memory and tcgen05.mma -------*- C++ -*-===//
//
// Blackwell's fifth-generation tensor cores: one thread issues
// tcgen05.mma m128nNk16, whose accumulator D lives in tensor memory (TMEM:
// 128 lanes × 512 columns of 32 bits per SM, allocated by a warp in powers
// of two of at least 32 columns). A is a shared-memory matrix (descriptor)
// or a TMEM region (16-bit A packed two per 32-bit column, lane = row); B
// is a shared-memory matrix. Completion is signalled by tcgen05.commit on
// an mbarrier (one arrival once every tcgen05 operation the thread issued
// before it has completed). Threads move TMEM to and from registers with
// tcgen05.ld/st (.32x32b: thread t of warp w of a warpgroup reaches lane
// 32·(w mod 4) + t, a column per register), so that after a load each
// thread holds one row: KernelBuilder.h's AccumulatorLayout::RowPerThread.
// The shared operands use the TMA tile layout of SM90/TMA.h (64-column
// boxes, 128-byte swizzle); the shared-memory descriptor is wgmma's with
// the tcgen05 version bits (bits 46-48 = 0b001).
//
// Everything here is an MLIR 22 NVVM op (tcgen05.alloc, dealloc,
// relinquish_alloc_permit, mma, commit, ld, st, wait, fence): none needed
// inline PTX.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_FLASHTONVGPU_SM100_TCGEN05_H
#define FLASH_CONVERSION_FLASHTONVGPU_SM100_TCGEN05_H

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"
#include "flash/Conversion/FlashToNVGPU/SM90/WGMMA.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <cstdint>

namespace mlir {
namespace flash {
namespace sm90 {
struct SharedBase;
} // namespace sm90

namespace sm100 {

constexpr int64_t kTensorMemoryLanes = 128;
constexpr int64_t kTensorMemoryColumns = 512;
/// Columns one tcgen05.ld/st .32x32b moves per call at most (x128).
constexpr int64_t kMaxColumnsPerAccess = 128;

/// The columns a warp allocates for `needed`: the next power of two, at
/// least 32 (tcgen05.alloc's rule).
int64_t allocationColumns(int64_t needed);

/// tcgen05.alloc of `columns` (a power of two, 32..512) by the calling
/// warp (all 32 threads), the TMEM address written to `slot` (shared);
/// then tcgen05.relinquish_alloc_permit (the block allocates once).
void allocate(KernelMath &km, Value slot, int64_t columns);
/// tcgen05.dealloc by the warp that allocated, after every use.
void deallocate(KernelMath &km, Value base, int64_t columns);

/// The TMEM address (!llvm.ptr<6>) of lane `lane` (i32), column `column`
/// (i32) of the allocation at `base` (i32, as read from the slot):
/// base + (lane << 16) + column.
Value address(KernelMath &km, Value base, Value lane, Value column);

/// tcgen05.ld .32x32b of `columns` consecutive columns (≤ 128) from
/// `addr` (lane = the warp's first lane): each thread's row, as f32.
/// Issued; wait with waitLoads before using the values.
SmallVector<Value> loadRow(KernelMath &km, Value addr, int64_t columns);
/// tcgen05.st .32x32b of `words` (i32, ≤ 128) to consecutive columns.
void storeRow(KernelMath &km, Value addr, ArrayRef<Value> words);
void waitLoads(KernelMath &km);  ///< tcgen05.wait::ld
void waitStores(KernelMath &km); ///< tcgen05.wait::st

/// tcgen05.fence::before_thread_sync: this thread's tcgen05 operations
/// before a barrier/mbarrier arrival are ordered before it.
void fenceBeforeSync(KernelMath &km);
/// tcgen05.fence::after_thread_sync: after a barrier/mbarrier wait.
void fenceAfterSync(KernelMath &km);

/// tcgen05.commit: `barrier` (shared mbarrier) gets one arrival once all
/// tcgen05 operations this thread issued so far have completed.
void commit(KernelMath &km, Value barrier);

/// The shared-memory matrix descriptor of a 128B-swizzled operand at
/// `byteOffset` of the aligned base: sm90::wgmmaDescriptor's fields plus
/// the tcgen05 descriptor version (bit 46).
Value sharedDescriptor(KernelMath &km, const sm90::SharedBase &smem,
                       Value byteOffset, int64_t leadingBytes);

/// The 32-bit instruction descriptor of kind::f16 with an f32 accumulator:
/// A and B of `elementType` (f16: 0, bf16: 1 at bits 7-9 and 10-12), A or B
/// MN-major (bits 15, 16), N >> 3 (bits 17-22), M >> 4 (bits 24-28).
uint32_t instructionDescriptor(Type elementType, int64_t m, int64_t n,
                               bool aMnMajor, bool bMnMajor);

/// D (TMEM address `d`, i32, M = 128 × n f32) = A · B [+ D]: k/16 tcgen05.mma
/// of `elementType` from the calling thread, the first accumulating when
/// `accumulate` (i1) holds, the others always. A is a shared operand (SS)
/// or, without one, the TMEM region at the i32 address `aTmem` whose
/// columns kk·8 .. kk·8 + 7 hold k-slice kk (TS). Issued, not committed.
void mma(KernelMath &km, Type elementType, Value d,
         const sm90::WgmmaOperand *aShared, Value aTmem,
         const sm90::WgmmaOperand &bShared, int64_t n, int64_t k,
         Value accumulate);

/// The static check of a kernel's tensor memory (run by the lowering on
/// every sm_100a kernel it emits): every tcgen05.alloc asks for a power of
/// two of 32..512 columns, the columns of all of them times the blocks
/// resident on an SM fit `columnsPerSM`, and each has a tcgen05.dealloc of
/// the same count in the same block after it, with no return between them
/// and no op between them that can leave the block early (the kernel's
/// every path passes through both). Errors are located at the alloc.
LogicalResult checkTensorMemory(Operation *kernel, int64_t columnsPerSM,
                                int64_t blocksPerSM);

} // namespace sm100
} // namespace flash
} // namespace mlir

#endif // FLASH_CONVERSION_FLASHTONVGPU_SM100_TCGEN05_H
