//===- Barriers.cpp - sm_90a mbarrier rings -------------------------------===//
//
// The ring arithmetic (stream position -> slot, use, phase parity) and the
// mbarrier operations, on explicit barrier addresses, for the TMA/wgmma
// hand-over of Barriers.h.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/SM90/Barriers.h"
#include "flash/Conversion/FlashToNVGPU/SM90/SharedLayout.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::sm90;

RingSlot MBarrierRing::slotOf(KernelMath &km, Value position) const {
  if (slots == 1)
    return {km.i32(0), position};
  if ((slots & (slots - 1)) == 0)
    return {km.andi(position, km.i32(slots - 1)),
            km.shru(position, km.i32(llvm::Log2_64(slots)))};
  return {arith::RemUIOp::create(km.b, km.loc, position, km.i32(slots)),
          km.divu(position, km.i32(slots))};
}

Value MBarrierRing::address(KernelMath &km, const SharedBase &smem,
                            Value slot) const {
  Value byteOffset = km.i32(offset);
  byteOffset = km.add(byteOffset, km.mul(slot, km.i32(8)));
  return smem.at(km, byteOffset);
}

void MBarrierRing::waitComplete(KernelMath &km, const SharedBase &smem,
                                RingSlot at) const {
  // The parity first, then the address: the order the kernels have always
  // emitted these in.
  Value parity = phaseParity(km, at.use);
  mbarrierWait(km, address(km, smem, at.slot), parity);
}

void MBarrierRing::arrive(KernelMath &km, const SharedBase &smem,
                          Value slot) const {
  mbarrierArrive(km, address(km, smem, slot));
}

Value sm90::phaseParity(KernelMath &km, Value use) {
  return km.andi(use, km.i32(1));
}

Value sm90::releasedParity(KernelMath &km, Value use) {
  return km.andi(km.add(use, km.i32(1)), km.i32(1));
}

void sm90::mbarrierInit(KernelMath &km, Value barrier, Value count) {
  NVVM::MBarrierInitOp::create(km.b, km.loc, barrier, count, Value());
}

void sm90::mbarrierWait(KernelMath &km, Value barrier, Value parity) {
  NVVM::MBarrierTryWaitParityOp::create(km.b, km.loc, barrier, parity,
                                        km.i32(1000000));
}

void sm90::mbarrierArrive(KernelMath &km, Value barrier) {
  NVVM::MBarrierArriveOp::create(km.b, km.loc, km.b.getI64Type(), barrier,
                                 Value(), NVVM::MemScopeKind::CTA, false);
}

void sm90::mbarrierArriveCount(KernelMath &km, Value barrier, Value count) {
  NVVM::MBarrierArriveOp::create(km.b, km.loc, km.b.getI64Type(), barrier,
                                 count, NVVM::MemScopeKind::CTA, false);
}

void sm90::mbarrierExpectTx(KernelMath &km, Value barrier, int64_t bytes) {
  NVVM::MBarrierArriveExpectTxOp::create(km.b, km.loc, Type(), barrier,
                                         km.i32(bytes),
                                         NVVM::MemScopeKind::CTA, false,
                                         Value());
}
