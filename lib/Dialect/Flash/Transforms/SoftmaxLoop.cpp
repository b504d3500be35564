//===- SoftmaxLoop.cpp - the K/V loop of the tiled forms ------------------===//

#include "flash/Dialect/Flash/Transforms/SoftmaxLoop.h"
#include "flash/Dialect/Flash/IR/Flash.h"
#include "flash/Dialect/Flash/Transforms/AttentionMath.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include <limits>

using namespace mlir;
using namespace mlir::flash;

SoftmaxState flash::buildInitialSoftmaxState(OpBuilder &b, Location loc,
                                             int64_t rows, int64_t valueDim) {
  Type f32 = b.getF32Type();
  // m, l, acc, in the order the two tilings built them before they shared
  // this (ops appear in the tiled IR in the order they are created).
  Value runningMax = buildFilled(b, loc, {rows}, f32,
                                 -std::numeric_limits<double>::infinity());
  Value runningSum = buildFilled(b, loc, {rows}, f32, 0.0);
  Value acc = buildFilled(b, loc, {rows, valueDim}, f32, 0.0);
  return {runningMax, runningSum, acc};
}

SoftmaxState flash::buildSoftmaxUpdate(OpBuilder &b, Location loc,
                                       Value scores, Value vTile,
                                       const SoftmaxState &state) {
  auto scoreType = cast<RankedTensorType>(scores.getType());
  auto rowType = RankedTensorType::get({scoreType.getDimSize(0)},
                                       scoreType.getElementType());
  auto softmax = OnlineSoftmaxOp::create(b, loc, scoreType, rowType, rowType,
                                         rowType, scores, state.runningMax,
                                         state.runningSum);
  Value acc = AccumulatePVOp::create(b, loc, state.acc, softmax.getRescale(),
                                     softmax.getProbs(), vTile);
  return {softmax.getNewMax(), softmax.getNewSum(), acc};
}

SoftmaxState flash::buildSoftmaxLoop(OpBuilder &b, Location loc, Value lb,
                                     Value ub, const SoftmaxState &init,
                                     SoftmaxStepBuilder step) {
  auto loop = scf::ForOp::create(
      b, loc, lb, ub, arith::ConstantIndexOp::create(b, loc, 1),
      ValueRange{init.runningMax, init.runningSum, init.acc},
      [&](OpBuilder &nb, Location nloc, Value iv, ValueRange args) {
        SoftmaxState next = step(nb, nloc, iv, {args[0], args[1], args[2]});
        scf::YieldOp::create(
            nb, nloc, ValueRange{next.runningMax, next.runningSum, next.acc});
      });
  return {loop.getResult(0), loop.getResult(1), loop.getResult(2)};
}
