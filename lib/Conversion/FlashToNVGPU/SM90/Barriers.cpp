//===- Barriers.cpp - sm_90a mbarrier rings -------------------------------===//
//
// The ring arithmetic (stream position -> slot, use, phase parity) and the
// mbarrier operations, on explicit barrier addresses, for the TMA/wgmma
// hand-over of Barriers.h.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/SM90/Barriers.h"
#include "flash/Conversion/FlashToNVGPU/SM90/SharedLayout.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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

void sm90::semaphoreWaitAtLeast(KernelMath &km, Value counter, Value target) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  Value address = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), counter);
  auto loop = scf::WhileOp::create(b, loc, TypeRange{}, ValueRange{});
  {
    OpBuilder::InsertionGuard guard(b);
    b.createBlock(&loop.getBefore());
    Value seen = inlinePtx(km, b.getI32Type(), ValueRange{address},
                           "ld.acquire.gpu.global.u32 $0, [$1];", "=r,l,~{memory}");
    Value waiting = km.cmp(arith::CmpIPredicate::slt, seen, target);
    scf::ConditionOp::create(b, loc, waiting, ValueRange{});
    Block *after = b.createBlock(&loop.getAfter());
    b.setInsertionPointToEnd(after);
    scf::YieldOp::create(b, loc, ValueRange{});
  }
}

void sm90::semaphoreRelease(KernelMath &km, Value counter) {
  Value address =
      LLVM::PtrToIntOp::create(km.b, km.loc, km.b.getI64Type(), counter);
  inlinePtx(km, Type(), ValueRange{address, km.i32(1)},
            "red.release.gpu.global.add.u32 [$0], $1;", "l,r,~{memory}");
}

void sm90::fenceGpu(KernelMath &km) {
  inlinePtx(km, Type(), ValueRange{}, "fence.acq_rel.gpu;", "~{memory}");
}

Value sm90::clusterAddress(KernelMath &km, Value shared, Value rank) {
  return inlinePtx(km, km.b.getI32Type(), ValueRange{shared, rank},
                   "mapa.shared::cluster.u32 $0, $1, $2;", "=r,r,r");
}

SmallVector<Value> sm90::loadClusterF32s(KernelMath &km, Value address,
                                         int64_t count) {
  assert((count == 1 || count == 2 || count == 4) && "a vector load");
  OpBuilder &b = km.b;
  Type f32 = b.getF32Type();
  std::string text = count == 1 ? "ld.shared::cluster.f32 $0, [$1];"
                     : count == 2
                         ? "ld.shared::cluster.v2.f32 {$0, $1}, [$2];"
                         : "ld.shared::cluster.v4.f32 {$0, $1, $2, $3}, [$4];";
  std::string constraints;
  for (int64_t i = 0; i < count; ++i)
    constraints += "=f,";
  constraints += "r,~{memory}";
  if (count == 1)
    return {inlinePtx(km, f32, ValueRange{address}, text, constraints)};
  Type type = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                               SmallVector<Type>(count, f32));
  Value loaded = inlinePtx(km, type, ValueRange{address}, text, constraints);
  SmallVector<Value> values;
  for (int64_t i = 0; i < count; ++i)
    values.push_back(LLVM::ExtractValueOp::create(b, km.loc, loaded, i));
  return values;
}

void sm90::storeClusterF32x2(KernelMath &km, Value address, Value x,
                             Value y) {
  inlinePtx(km, Type(), ValueRange{address, x, y},
            "st.shared::cluster.v2.f32 [$0], {$1, $2};", "r,f,f,~{memory}");
}

void sm90::mbarrierArriveCluster(KernelMath &km, Value address) {
  inlinePtx(km, Type(), ValueRange{address},
            "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [$0];",
            "r,~{memory}");
}

void sm90::mbarrierWaitCluster(KernelMath &km, Value barrier, Value parity) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  auto loop = scf::WhileOp::create(b, loc, TypeRange{}, ValueRange{});
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&loop.getBefore());
  Value done = inlinePtx(
      km, b.getI32Type(), ValueRange{barrier, parity},
      "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.acquire.cluster."
      "shared::cta.b64 p, [$1], $2;\n\tselp.u32 $0, 1, 0, p;\n\t}",
      "=r,r,r,~{memory}");
  Value waiting = km.cmp(arith::CmpIPredicate::eq, done, km.i32(0));
  scf::ConditionOp::create(b, loc, waiting, ValueRange{});
  Block *after = b.createBlock(&loop.getAfter());
  b.setInsertionPointToEnd(after);
  scf::YieldOp::create(b, loc, ValueRange{});
}

void sm90::clusterSync(KernelMath &km) {
  inlinePtx(km, Type(), ValueRange{},
            "barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;",
            "~{memory}");
}
