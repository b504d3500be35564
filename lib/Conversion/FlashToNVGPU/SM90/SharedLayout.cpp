//===- SharedLayout.cpp - sm_90a shared memory: base, arena, layout -------===//
//
// The aligned base of the shared-memory window (at entry, and re-read
// opaquely inside a role), and the forward kernel's carving of it, whose
// byte count the lowering records in the bundle (sm90SharedBytes) and whose
// K/V slots decide whether O can be staged in the ring
// (sm90OutputFitsInRing).
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/SM90/SharedLayout.h"
#include "flash/Conversion/FlashToNVGPU/SM90/TMA.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::sm90;

Type sm90::sharedPointerType(MLIRContext *ctx) {
  return LLVM::LLVMPointerType::get(ctx, 3);
}

Value SharedBase::at(KernelMath &km, Value byteOffset) const {
  return LLVM::GEPOp::create(km.b, km.loc,
                             sharedPointerType(km.b.getContext()),
                             km.b.getI8Type(), ptr, ValueRange{byteOffset});
}

SharedBase sm90::alignSharedBase(KernelMath &km, LLVM::GlobalOp window) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  // Rounded up to 1024 bytes (the 128B-swizzle atom: 8 rows of 128 bytes).
  Value raw = LLVM::AddressOfOp::create(b, loc, window);
  Value address = arith::TruncIOp::create(
      b, loc, b.getI32Type(),
      LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), raw));
  Value pad = km.andi(km.sub(km.i32(0), address), km.i32(1023));
  SharedBase base;
  base.ptr = LLVM::GEPOp::create(b, loc, sharedPointerType(b.getContext()),
                                 b.getI8Type(), raw, ValueRange{pad});
  base.addr32 = km.add(address, pad);
  return base;
}

SharedBase sm90::reloadSharedBase(KernelMath &km) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  // An opaque read of the symbol's shared-window address, so that LLVM
  // cannot reuse the value computed before.
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, b.getI32Type(), ValueRange{},
      b.getStringAttr("mov.u32 $0, flash_smem;"), b.getStringAttr("=r"),
      /*has_side_effects=*/b.getUnitAttr(), UnitAttr(),
      LLVM::TailCallKindAttr::get(b.getContext(), LLVM::TailCallKind::None),
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      ArrayAttr());
  Value address = asmOp.getResult(0);
  Value pad = km.andi(km.sub(km.i32(0), address), km.i32(1023));
  SharedBase base;
  base.addr32 = km.add(address, pad);
  base.ptr = LLVM::IntToPtrOp::create(b, loc, sharedPointerType(b.getContext()),
                                      base.addr32);
  return base;
}

SharedLayout::SharedLayout(const KernelConfig &c) {
  int64_t e = c.elementType.getIntOrFloatBitWidth() / 8;
  qBytes = c.blockQ * c.headDim * e;
  kvBytes = c.blockKV * c.headDim * e;
  // Whole 1024-byte-aligned boxes of O in a K (or V) tile.
  boxesPerHalf = kvBytes % 1024 == 0 ? kvBytes / kOutputBoxBytes : 0;
  SharedArena arena;
  offQ = arena.carve(c.sm90.qBuffers * qBytes);
  offK = arena.carve(c.stages * kvBytes);
  offV = arena.carve(c.stages * kvBytes);
  // Q full: one arrival (the producer's expect_tx) + Q's bytes. K/V full:
  // the same per K or V tile. K/V empty: every consumer thread after its
  // wgmma has read the slot. Q empty: see ForwardKernel.cpp's init.
  qFull = arena.carveRing(c.sm90.qBuffers);
  kFull = arena.carveRing(c.stages);
  vFull = arena.carveRing(c.stages);
  kEmpty = arena.carveRing(c.stages);
  vEmpty = arena.carveRing(c.stages);
  qEmpty = arena.carveRing(c.sm90.qBuffers);
  offTile = arena.carve(8); // persistent: the tile index per Q buffer
  total = arena.used + 1024; // + slack to align the base
}

Value SharedLayout::qBufferOffset(KernelMath &km, Value buffer) const {
  return km.add(km.i32(offQ), km.mul(buffer, km.i32(qBytes)));
}

Value SharedLayout::kvSlotOffset(KernelMath &km, int64_t base,
                                 Value stage) const {
  return km.add(km.i32(base), km.mul(stage, km.i32(kvBytes)));
}

Value SharedLayout::tileSlot(KernelMath &km, const SharedBase &smem,
                             Value buffer) const {
  return smem.at(km, km.add(km.i32(offTile), km.mul(buffer, km.i32(4))));
}

int64_t mlir::flash::sm90SharedBytes(const KernelConfig &config) {
  return SharedLayout(config).total;
}

bool mlir::flash::sm90OutputFitsInRing(const KernelConfig &config) {
  int64_t boxes = config.sm90.consumers * (config.headDim / kAtomColumns);
  return boxes <= 2 * SharedLayout(config).boxesPerHalf;
}
