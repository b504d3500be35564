//===- Warpgroups.cpp - sm_90a warpgroup roles and named barriers ---------===//
//
// setmaxnreg, named barriers, and the ping-pong protocol between consumer
// warpgroups built on them (Warpgroups.h).
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/SM90/Warpgroups.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::sm90;

SmallVector<NamedAttribute>
sm90::describeWarpgroups(Builder &b, const KernelConfig &c) {
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  return {b.getNamedAttr("consumer_warpgroups", i64(c.sm90.consumers)),
          b.getNamedAttr("producer_registers", i64(c.sm90.producerRegisters)),
          b.getNamedAttr("consumer_registers", i64(c.sm90.consumerRegisters))};
}

void sm90::buildRoles(KernelMath &km, Value tid, function_ref<void()> producer,
                      function_ref<void()> consumers) {
  OpBuilder &b = km.b;
  Value isProducer =
      km.cmp(arith::CmpIPredicate::eq, km.shru(tid, km.i32(7)), km.i32(0));
  auto roles = scf::IfOp::create(b, km.loc, isProducer, true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(roles.thenBlock()->getTerminator());
  producer();
  b.setInsertionPoint(roles.elseBlock()->getTerminator());
  consumers();
}

void sm90::setRegisterBudget(KernelMath &km, int64_t registers,
                             bool increase) {
  NVVM::SetMaxRegisterOp::create(km.b, km.loc, registers,
                                 increase
                                     ? NVVM::SetMaxRegisterAction::increase
                                     : NVVM::SetMaxRegisterAction::decrease);
}

void sm90::namedBarrierSync(KernelMath &km, Value index, int64_t firstId,
                            int64_t threads) {
  NVVM::BarrierOp::create(km.b, km.loc, TypeRange{},
                          km.add(index, km.i32(firstId)), km.i32(threads),
                          NVVM::BarrierReductionAttr(), Value());
}

void sm90::namedBarrierArrive(KernelMath &km, Value index, int64_t firstId,
                              int64_t threads) {
  NVVM::BarrierArriveOp::create(km.b, km.loc, km.add(index, km.i32(firstId)),
                                km.i32(threads));
}

void PingPong::start(KernelMath &km) const {
  if (!enabled)
    return;
  OpBuilder &b = km.b;
  auto last = scf::IfOp::create(
      b, km.loc,
      km.cmp(arith::CmpIPredicate::eq, consumer, km.i32(consumers - 1)),
      false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(last.thenBlock()->getTerminator());
  NVVM::BarrierArriveOp::create(b, km.loc, km.i32(1), km.i32(256));
}

void PingPong::beginTurn(KernelMath &km) const {
  if (!enabled)
    return;
  namedBarrierSync(km, consumer, /*firstId=*/1, /*threads=*/256);
}

void PingPong::endTurn(KernelMath &km) const {
  if (!enabled)
    return;
  Value next = arith::RemUIOp::create(km.b, km.loc,
                                      km.add(consumer, km.i32(1)),
                                      km.i32(consumers));
  namedBarrierArrive(km, next, /*firstId=*/1, /*threads=*/256);
}
