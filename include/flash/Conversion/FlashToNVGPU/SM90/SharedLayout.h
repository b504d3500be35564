//===- SharedLayout.h - sm_90a shared memory: base, layout -----*- C++ -*-===//
//
// Where an sm_90a kernel's tiles and mbarriers live in its dynamic shared
// memory. Every kernel of a module addresses one window, the external
// `flash_smem` symbol; TMA's 128-byte swizzle needs its tiles 1024-byte
// aligned, so a kernel rounds the window's address up once (SharedBase) and
// asks for 1024 bytes of slack. Offsets are carved in order from that base
// (SharedArena); SharedLayout is the forward kernel's carving, which the
// lowering also asks for its byte count (sm90SharedBytes). A backward or
// decode kernel carves its own layout with the same arena and base.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_FLASHTONVGPU_SM90_SHAREDLAYOUT_H
#define FLASH_CONVERSION_FLASHTONVGPU_SM90_SHAREDLAYOUT_H

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"
#include "flash/Conversion/FlashToNVGPU/SM90/Barriers.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir {
namespace flash {
namespace sm90 {

/// The 1024-byte-aligned base of the shared-memory window, as a pointer in
/// address space 3 (for loads, stores and TMA) and as its 32-bit address
/// (for wgmma matrix descriptors).
struct SharedBase {
  Value ptr;
  Value addr32;
  /// The kernel runs in clusters of more than one block: on sm_90 the
  /// window's addresses then carry the block's rank in the cluster above
  /// bit 24 (ptxas: %cluster_ctarank << 24), which wgmma descriptors must
  /// not take (wgmmaDescriptor keeps bits 4-17).
  bool rankBits = false;
  /// base + byteOffset (an i8 GEP).
  Value at(KernelMath &km, Value byteOffset) const;
};

/// !llvm.ptr<3>.
Type sharedPointerType(MLIRContext *ctx);

/// At kernel entry: the address of `window` rounded up to 1024 bytes.
SharedBase alignSharedBase(KernelMath &km, LLVM::GlobalOp window);

/// The same base read afresh through an opaque inline asm (`mov.u32 $0,
/// flash_smem`), so that LLVM cannot reuse the value computed at entry: in a
/// role after setmaxnreg, ptxas spills values live across it when registers
/// are tight, and a producer loop would otherwise hoist TMA addresses.
SharedBase reloadSharedBase(KernelMath &km);

/// Byte ranges carved out of the window in order, from offset 0 of the
/// aligned base (no padding between them: each size keeps the alignment
/// its users need).
struct SharedArena {
  int64_t used = 0;
  int64_t carve(int64_t bytes) {
    int64_t at = used;
    used += bytes;
    return at;
  }
  /// An mbarrier per slot, 8 bytes each.
  MBarrierRing carveRing(int64_t slots) { return {carve(8 * slots), slots}; }
};

/// The forward kernel's layout (byte offsets from the aligned base):
///   Q[qBuffers][Br][D] | K[stages][Bc][D] | V[stages][Bc][D] |
///   mbarriers: Q full[qBuffers], K full[stages], V full[stages],
///              K empty[stages], V empty[stages], Q empty[qBuffers] |
///   the published tile index per Q buffer (persistent grid)
/// Each tile is stored as D/64 column blocks of rows × 128 bytes (one TMA box
/// each, 128B-swizzled). O is staged as boxes of 64 rows × 128 bytes, either
/// over Q or, with `outputInRing`, in the K and V halves of one K/V slot.
struct SharedLayout {
  int64_t qBytes, kvBytes, boxesPerHalf, offQ, offK, offV, offTile, total;
  MBarrierRing qFull, kFull, vFull, kEmpty, vEmpty, qEmpty;
  explicit SharedLayout(const KernelConfig &config);
  /// Byte offset of Q buffer `buffer`.
  Value qBufferOffset(KernelMath &km, Value buffer) const;
  /// Byte offset of K/V slot `stage` of the tiles at `base` (offK or offV).
  Value kvSlotOffset(KernelMath &km, int64_t base, Value stage) const;
  /// The shared i32 the persistent producer publishes tile indices in, one
  /// per Q buffer.
  Value tileSlot(KernelMath &km, const SharedBase &smem, Value buffer) const;
};

} // namespace sm90
} // namespace flash
} // namespace mlir

#endif // FLASH_CONVERSION_FLASHTONVGPU_SM90_SHAREDLAYOUT_H
