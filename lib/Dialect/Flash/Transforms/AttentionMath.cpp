//===- AttentionMath.cpp - attention steps as linalg ops ------------------===//
//
// Each builder emits one linalg.generic whose body is the formula in its
// comment. Shapes are static (callers reject dynamic ones first).
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/Transforms/AttentionMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mlir::flash;

namespace {
using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// Iteration dimensions d0..d(n-1) as affine expressions.
SmallVector<AffineExpr> dims(MLIRContext *ctx, unsigned n) {
  SmallVector<AffineExpr> exprs;
  for (unsigned i = 0; i < n; ++i)
    exprs.push_back(getAffineDimExpr(i, ctx));
  return exprs;
}

/// The map from `numLoops` dims to the listed ones.
AffineMap pick(MLIRContext *ctx, unsigned numLoops, ArrayRef<AffineExpr> e) {
  return AffineMap::get(numLoops, 0, e, ctx);
}

/// One linalg.generic with a single result; `body` returns the yielded value
/// from (inputs..., output) block arguments.
Value generic(OpBuilder &b, Location loc, ValueRange inputs, Value init,
              ArrayRef<AffineMap> maps,
              ArrayRef<utils::IteratorType> iterators, BodyFn body) {
  auto op = linalg::GenericOp::create(
      b, loc, init.getType(), inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, args));
      });
  return op.getResult(0);
}

Value emptyLike(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                Type elementType) {
  return tensor::EmptyOp::create(b, loc, shape, elementType);
}

Value toF32(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isF32())
    return v;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
}

Value f32Const(OpBuilder &b, Location loc, double value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

SmallVector<utils::IteratorType> parallel(unsigned n) {
  return SmallVector<utils::IteratorType>(n, utils::IteratorType::parallel);
}

/// Elementwise op over the loops of `shape` with per-operand maps.
Value elementwise(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  Type resultElement, ValueRange inputs,
                  ArrayRef<AffineMap> inputMaps, BodyFn body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(AffineMap::getMultiDimIdentityMap(shape.size(), ctx));
  Value init = emptyLike(b, loc, shape, resultElement);
  return generic(b, loc, inputs, init, maps, parallel(shape.size()), body);
}

/// Map from the loops of a rank-n "rows×cols" space to its rows (drop last).
AffineMap rowsOf(MLIRContext *ctx, unsigned n) {
  auto d = dims(ctx, n);
  return pick(ctx, n, ArrayRef<AffineExpr>(d).drop_back());
}
} // namespace

Value mlir::flash::buildFilled(OpBuilder &b, Location loc,
                               ArrayRef<int64_t> shape, Type elementType,
                               double value) {
  Value empty = emptyLike(b, loc, shape, elementType);
  Value scalar = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(elementType, value));
  return linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
}

Value mlir::flash::buildScaledQK(OpBuilder &b, Location loc, Value q, Value k,
                                 float scale) {
  MLIRContext *ctx = b.getContext();
  auto qType = tensorType(q), kType = tensorType(k);
  unsigned rank = qType.getRank(); // batch..., rows, D
  // Loops: batch..., i, j, d.
  unsigned numLoops = rank + 1;
  auto d = dims(ctx, numLoops);
  ArrayRef<AffineExpr> batch = ArrayRef<AffineExpr>(d).take_front(rank - 2);
  AffineExpr i = d[rank - 2], j = d[rank - 1], f = d[rank];
  auto with = [&](std::initializer_list<AffineExpr> tail) {
    SmallVector<AffineExpr> e(batch);
    e.append(tail);
    return pick(ctx, numLoops, e);
  };
  SmallVector<int64_t> sShape(qType.getShape().drop_back());
  sShape.push_back(kType.getShape()[rank - 2]);
  Value zero = buildFilled(b, loc, sShape, b.getF32Type(), 0.0);
  SmallVector<utils::IteratorType> iters = parallel(rank);
  iters.push_back(utils::IteratorType::reduction);
  // S = Σ_d q·k, then S *= scale (scaling the sum, as the tensor cores do).
  Value dot = generic(b, loc, {q, k}, zero,
                      {with({i, f}), with({j, f}), with({i, j})}, iters,
                      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                        Value prod = arith::MulFOp::create(
                            nb, l, toF32(nb, l, a[0]), toF32(nb, l, a[1]));
                        return arith::AddFOp::create(nb, l, a[2], prod);
                      });
  auto identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  return elementwise(b, loc, sShape, b.getF32Type(), {dot}, {identity},
                     [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                       return arith::MulFOp::create(nb, l, a[0],
                                                    f32Const(nb, l, scale));
                     });
}

Value mlir::flash::buildMask(OpBuilder &b, Location loc, Value scores,
                             Value qStart, Value kvStart,
                             const MaskBounds &bounds) {
  MLIRContext *ctx = b.getContext();
  auto sType = tensorType(scores);
  unsigned rank = sType.getRank();
  auto identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  return elementwise(
      b, loc, sType.getShape(), b.getF32Type(), {scores}, {identity},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value i = linalg::IndexOp::create(nb, l, rank - 2);
        Value j = linalg::IndexOp::create(nb, l, rank - 1);
        Value key = arith::AddIOp::create(nb, l, kvStart, j);
        Value len = bounds.kvLen(nb, l);
        // Past the end of the sequence (a ragged tail tile).
        Value masked = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge,
                                             key, len);
        if (bounds.causalOffset) {
          // Above the bottom-right aligned diagonal: key > row + (Nk - Nq),
          // row the query of tile row i (its index among a q-head's Nq
          // queries when the rows of several heads are packed).
          Value row = arith::AddIOp::create(nb, l, qStart, i);
          if (bounds.rowsPerHead)
            row = arith::RemSIOp::create(
                nb, l, row,
                arith::ConstantIndexOp::create(nb, l, *bounds.rowsPerHead));
          Value diag =
              arith::AddIOp::create(nb, l, row, bounds.causalOffset(nb, l));
          Value above = arith::CmpIOp::create(
              nb, l, arith::CmpIPredicate::sgt, key, diag);
          masked = arith::OrIOp::create(nb, l, masked, above);
        }
        Value ninf = f32Const(nb, l, -std::numeric_limits<double>::infinity());
        return arith::SelectOp::create(nb, l, masked, ninf, a[0]);
      });
}

Value mlir::flash::buildMask(OpBuilder &b, Location loc, Value scores,
                             Value qStart, Value kvStart, int64_t kvLen,
                             std::optional<int64_t> causalOffset) {
  auto constantLen = [&](OpBuilder &nb, Location l) -> Value {
    return arith::ConstantIndexOp::create(nb, l, kvLen);
  };
  auto constantOffset = [&](OpBuilder &nb, Location l) -> Value {
    return arith::ConstantIndexOp::create(nb, l, *causalOffset);
  };
  MaskBounds bounds{constantLen, nullptr, std::nullopt};
  if (causalOffset)
    bounds.causalOffset = constantOffset;
  return buildMask(b, loc, scores, qStart, kvStart, bounds);
}

Value mlir::flash::buildMask(OpBuilder &b, Location loc, Value scores,
                             Value qStart, Value kvStart, Value kvLen,
                             Value causalOffset,
                             std::optional<int64_t> rowsPerHead) {
  auto len = [&](OpBuilder &, Location) { return kvLen; };
  auto offset = [&](OpBuilder &, Location) { return causalOffset; };
  MaskBounds bounds{len, nullptr, rowsPerHead};
  if (causalOffset)
    bounds.causalOffset = offset;
  return buildMask(b, loc, scores, qStart, kvStart, bounds);
}

/// r[.., i] = combine over j of (init[.., i], x[.., i, j]).
static Value rowReduce(OpBuilder &b, Location loc, Value x, Value init,
                       BodyFn combine) {
  MLIRContext *ctx = b.getContext();
  unsigned rank = tensorType(x).getRank();
  SmallVector<utils::IteratorType> iters = parallel(rank - 1);
  iters.push_back(utils::IteratorType::reduction);
  return generic(b, loc, {x}, init,
                 {AffineMap::getMultiDimIdentityMap(rank, ctx),
                  rowsOf(ctx, rank)},
                 iters, combine);
}

Value mlir::flash::buildRowMax(OpBuilder &b, Location loc, Value scores,
                               Value init) {
  return rowReduce(b, loc, scores, init,
                   [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                     return arith::MaximumFOp::create(nb, l, a[0], a[1]);
                   });
}

Value mlir::flash::buildSafeMax(OpBuilder &b, Location loc, Value rowMax) {
  MLIRContext *ctx = b.getContext();
  auto type = tensorType(rowMax);
  auto identity = AffineMap::getMultiDimIdentityMap(type.getRank(), ctx);
  return elementwise(
      b, loc, type.getShape(), b.getF32Type(), {rowMax}, {identity},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value ninf = f32Const(nb, l, -std::numeric_limits<double>::infinity());
        Value isEmpty = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                              a[0], ninf);
        return arith::SelectOp::create(nb, l, isEmpty, f32Const(nb, l, 0.0),
                                       a[0]);
      });
}

Value mlir::flash::buildExpShifted(OpBuilder &b, Location loc, Value scores,
                                   Value shift) {
  MLIRContext *ctx = b.getContext();
  auto type = tensorType(scores);
  unsigned rank = type.getRank();
  return elementwise(b, loc, type.getShape(), b.getF32Type(), {scores, shift},
                     {AffineMap::getMultiDimIdentityMap(rank, ctx),
                      rowsOf(ctx, rank)},
                     [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                       Value diff = arith::SubFOp::create(nb, l, a[0], a[1]);
                       return math::ExpOp::create(nb, l, diff);
                     });
}

/// r = f(x, y) elementwise on two tensors of one shape.
static Value binary(OpBuilder &b, Location loc, Value x, Value y, BodyFn f) {
  auto type = tensorType(x);
  auto identity =
      AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
  return elementwise(b, loc, type.getShape(), b.getF32Type(), {x, y},
                     {identity, identity}, f);
}

Value mlir::flash::buildExpDiff(OpBuilder &b, Location loc, Value x, Value y) {
  return binary(b, loc, x, y,
                [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                  Value diff = arith::SubFOp::create(nb, l, a[0], a[1]);
                  return math::ExpOp::create(nb, l, diff);
                });
}

Value mlir::flash::buildRowSum(OpBuilder &b, Location loc, Value probs,
                               Value init) {
  return rowReduce(b, loc, probs, init,
                   [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                     return arith::AddFOp::create(nb, l, a[1], a[0]);
                   });
}

Value mlir::flash::buildRowProduct(OpBuilder &b, Location loc, Value x,
                                   Value y) {
  return binary(b, loc, x, y,
                [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                  return arith::MulFOp::create(nb, l, a[0], a[1]);
                });
}

Value mlir::flash::buildRowScale(OpBuilder &b, Location loc, Value acc,
                                 Value factor) {
  MLIRContext *ctx = b.getContext();
  auto type = tensorType(acc);
  unsigned rank = type.getRank();
  return elementwise(b, loc, type.getShape(), b.getF32Type(), {acc, factor},
                     {AffineMap::getMultiDimIdentityMap(rank, ctx),
                      rowsOf(ctx, rank)},
                     [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                       return arith::MulFOp::create(nb, l, a[0], a[1]);
                     });
}

Value mlir::flash::buildAccumulatePV(OpBuilder &b, Location loc, Value probs,
                                     Value value, Value acc,
                                     Type roundProbsTo) {
  MLIRContext *ctx = b.getContext();
  unsigned rank = tensorType(acc).getRank(); // batch..., i, d
  // Loops: batch..., i, d, j.
  unsigned numLoops = rank + 1;
  auto d = dims(ctx, numLoops);
  ArrayRef<AffineExpr> batch = ArrayRef<AffineExpr>(d).take_front(rank - 2);
  AffineExpr i = d[rank - 2], f = d[rank - 1], j = d[rank];
  auto with = [&](std::initializer_list<AffineExpr> tail) {
    SmallVector<AffineExpr> e(batch);
    e.append(tail);
    return pick(ctx, numLoops, e);
  };
  SmallVector<utils::IteratorType> iters = parallel(rank);
  iters.push_back(utils::IteratorType::reduction);
  return generic(
      b, loc, {probs, value}, acc, {with({i, j}), with({j, f}), with({i, f})},
      iters, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value p = a[0];
        if (roundProbsTo && !roundProbsTo.isF32()) {
          p = arith::TruncFOp::create(nb, l, roundProbsTo, p);
          p = arith::ExtFOp::create(nb, l, nb.getF32Type(), p);
        }
        Value prod = arith::MulFOp::create(nb, l, p, toF32(nb, l, a[1]));
        return arith::AddFOp::create(nb, l, a[2], prod);
      });
}

Value mlir::flash::buildNormalize(OpBuilder &b, Location loc, Value acc,
                                  Value rowSum, Type outElementType) {
  MLIRContext *ctx = b.getContext();
  auto type = tensorType(acc);
  unsigned rank = type.getRank();
  return elementwise(
      b, loc, type.getShape(), outElementType, {acc, rowSum},
      {AffineMap::getMultiDimIdentityMap(rank, ctx), rowsOf(ctx, rank)},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value zero = f32Const(nb, l, 0.0);
        Value empty = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                            a[1], zero);
        Value quotient = arith::DivFOp::create(nb, l, a[0], a[1]);
        Value out = arith::SelectOp::create(nb, l, empty, zero, quotient);
        if (!outElementType.isF32())
          out = arith::TruncFOp::create(nb, l, outElementType, out);
        return out;
      });
}

Value mlir::flash::buildLogSumExp(OpBuilder &b, Location loc, Value rowMax,
                                  Value rowSum) {
  return binary(
      b, loc, rowMax, rowSum,
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value zero = f32Const(nb, l, 0.0);
        Value empty = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                            a[1], zero);
        Value lse = arith::AddFOp::create(nb, l, a[0],
                                          math::LogOp::create(nb, l, a[1]));
        Value ninf = f32Const(nb, l, -std::numeric_limits<double>::infinity());
        return arith::SelectOp::create(nb, l, empty, ninf, lse);
      });
}

//===----------------------------------------------------------------------===//
// The backward
//===----------------------------------------------------------------------===//

Value mlir::flash::buildRowDot(OpBuilder &b, Location loc, Value x, Value y) {
  MLIRContext *ctx = b.getContext();
  auto type = tensorType(x);
  unsigned rank = type.getRank();
  Value zero = buildFilled(b, loc, type.getShape().drop_back(), b.getF32Type(),
                           0.0);
  auto identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<utils::IteratorType> iters = parallel(rank - 1);
  iters.push_back(utils::IteratorType::reduction);
  // D_i = Σ_d dO_id · O_id, each product of widened operands.
  return generic(b, loc, {x, y}, zero, {identity, identity, rowsOf(ctx, rank)},
                 iters, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                   Value prod = arith::MulFOp::create(
                       nb, l, toF32(nb, l, a[0]), toF32(nb, l, a[1]));
                   return arith::AddFOp::create(nb, l, a[2], prod);
                 });
}

Value mlir::flash::buildProbsFromLse(OpBuilder &b, Location loc, Value scores,
                                     Value lse) {
  MLIRContext *ctx = b.getContext();
  auto type = tensorType(scores);
  unsigned rank = type.getRank();
  return elementwise(
      b, loc, type.getShape(), b.getF32Type(), {scores, lse},
      {AffineMap::getMultiDimIdentityMap(rank, ctx), rowsOf(ctx, rank)},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        // A row that saw no key has lse = -inf and scores -inf: its P is 0,
        // not exp(-inf - (-inf)).
        Value ninf = f32Const(nb, l, -std::numeric_limits<double>::infinity());
        Value empty = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                            a[1], ninf);
        Value diff = arith::SubFOp::create(nb, l, a[0], a[1]);
        Value p = math::ExpOp::create(nb, l, diff);
        return arith::SelectOp::create(nb, l, empty, f32Const(nb, l, 0.0), p);
      });
}

Value mlir::flash::buildScoreGrad(OpBuilder &b, Location loc, Value probs,
                                  Value gradProbs, Value delta) {
  MLIRContext *ctx = b.getContext();
  auto type = tensorType(probs);
  unsigned rank = type.getRank();
  auto identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  return elementwise(b, loc, type.getShape(), b.getF32Type(),
                     {probs, gradProbs, delta},
                     {identity, identity, rowsOf(ctx, rank)},
                     [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                       Value centred = arith::SubFOp::create(nb, l, a[1], a[2]);
                       return arith::MulFOp::create(nb, l, a[0], centred);
                     });
}

Value mlir::flash::buildAccumulateTransposed(OpBuilder &b, Location loc,
                                             Value lhs, Value rhs, Value acc,
                                             Type roundLhsTo) {
  MLIRContext *ctx = b.getContext();
  unsigned accRank = tensorType(acc).getRank();  // batch..., j, d
  unsigned lhsRank = tensorType(lhs).getRank();  // batch..., e..., i, j
  unsigned numBatch = accRank - 2, numExtra = lhsRank - accRank;
  // Loops: batch..., j, d (parallel), then e..., i (reduction).
  unsigned numLoops = accRank + numExtra + 1;
  auto d = dims(ctx, numLoops);
  ArrayRef<AffineExpr> batch = ArrayRef<AffineExpr>(d).take_front(numBatch);
  AffineExpr j = d[numBatch], f = d[numBatch + 1];
  ArrayRef<AffineExpr> extra =
      ArrayRef<AffineExpr>(d).slice(numBatch + 2, numExtra);
  AffineExpr i = d[numLoops - 1];
  auto with = [&](ArrayRef<AffineExpr> middle,
                  std::initializer_list<AffineExpr> tail) {
    SmallVector<AffineExpr> e(batch);
    e.append(middle.begin(), middle.end());
    e.append(tail);
    return pick(ctx, numLoops, e);
  };
  SmallVector<utils::IteratorType> iters = parallel(accRank);
  iters.append(numExtra + 1, utils::IteratorType::reduction);
  return generic(
      b, loc, {lhs, rhs}, acc,
      {with(extra, {i, j}), with(extra, {i, f}), with({}, {j, f})}, iters,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value x = a[0];
        if (roundLhsTo && !roundLhsTo.isF32()) {
          x = arith::TruncFOp::create(nb, l, roundLhsTo, x);
          x = arith::ExtFOp::create(nb, l, nb.getF32Type(), x);
        }
        Value prod = arith::MulFOp::create(nb, l, x, toF32(nb, l, a[1]));
        return arith::AddFOp::create(nb, l, a[2], prod);
      });
}

Value mlir::flash::buildScaleConvert(OpBuilder &b, Location loc, Value acc,
                                     float scale, Type outElementType) {
  MLIRContext *ctx = b.getContext();
  auto type = tensorType(acc);
  auto identity = AffineMap::getMultiDimIdentityMap(type.getRank(), ctx);
  return elementwise(b, loc, type.getShape(), outElementType, {acc},
                     {identity},
                     [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                       Value out = arith::MulFOp::create(
                           nb, l, a[0], f32Const(nb, l, scale));
                       if (!outElementType.isF32())
                         out = arith::TruncFOp::create(nb, l, outElementType,
                                                       out);
                       return out;
                     });
}

//===----------------------------------------------------------------------===//
// Paged K/V and split-KV
//===----------------------------------------------------------------------===//

Value mlir::flash::buildSequenceLength(OpBuilder &b, Location loc,
                                       Value seqLens, Value batch,
                                       int64_t capacity) {
  Value raw = tensor::ExtractOp::create(b, loc, seqLens, ValueRange{batch});
  Value len = arith::IndexCastOp::create(b, loc, b.getIndexType(), raw);
  len = arith::MaxSIOp::create(b, loc, len,
                               arith::ConstantIndexOp::create(b, loc, 0));
  return arith::MinSIOp::create(
      b, loc, len, arith::ConstantIndexOp::create(b, loc, capacity));
}

Value mlir::flash::buildPagedElement(OpBuilder &b, Location loc, Value cache,
                                     Value blockTable, Value batch, Value head,
                                     Value key, Value feature, Value length) {
  auto cacheType = tensorType(cache);
  Type elementType = cacheType.getElementType();
  int64_t numPages = cacheType.getShape()[0],
          pageSize = cacheType.getShape()[1];
  int64_t pagesPerSeq = tensorType(blockTable).getShape()[1];
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  Value zeroElement =
      arith::ConstantOp::create(b, loc, b.getFloatAttr(elementType, 0.0));
  // A table without columns addresses no key.
  if (pagesPerSeq == 0)
    return zeroElement;
  // Valid keys: 0 <= key < min(length, M·S).
  Value end = arith::MinSIOp::create(b, loc, length, c(pagesPerSeq * pageSize));
  Value valid = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, key, c(0)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, key, end));
  // An invalid key reads table column 0 and page 0 (in bounds) and is
  // selected away below: its own table entry is never used.
  Value safeKey = arith::SelectOp::create(b, loc, valid, key, c(0));
  Value column = arith::DivSIOp::create(b, loc, safeKey, c(pageSize));
  Value slot = arith::RemSIOp::create(b, loc, safeKey, c(pageSize));
  Value entry = tensor::ExtractOp::create(b, loc, blockTable,
                                          ValueRange{batch, column});
  Value page = arith::IndexCastOp::create(b, loc, b.getIndexType(), entry);
  // A used entry outside [0, P) is the caller's error: clamp it.
  page = arith::MinSIOp::create(
      b, loc, arith::MaxSIOp::create(b, loc, page, c(0)), c(numPages - 1));
  page = arith::SelectOp::create(b, loc, valid, page, c(0));
  Value element = tensor::ExtractOp::create(
      b, loc, cache, ValueRange{page, slot, head, feature});
  return arith::SelectOp::create(b, loc, valid, element, zeroElement);
}

Value mlir::flash::buildPagedGather(OpBuilder &b, Location loc, Value cache,
                                    Value blockTable, Value seqLens) {
  auto cacheType = tensorType(cache);
  int64_t pageSize = cacheType.getShape()[1];
  int64_t capacity = tensorType(blockTable).getShape()[1] * pageSize;
  SmallVector<int64_t> shape = {tensorType(blockTable).getShape()[0],
                                cacheType.getShape()[2], capacity,
                                cacheType.getShape()[3]};
  Value init = emptyLike(b, loc, shape, cacheType.getElementType());
  return generic(
      b, loc, ValueRange{}, init,
      {AffineMap::getMultiDimIdentityMap(4, b.getContext())}, parallel(4),
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        Value batch = linalg::IndexOp::create(nb, l, 0);
        Value head = linalg::IndexOp::create(nb, l, 1);
        Value key = linalg::IndexOp::create(nb, l, 2);
        Value feature = linalg::IndexOp::create(nb, l, 3);
        Value length = buildSequenceLength(nb, l, seqLens, batch, capacity);
        return buildPagedElement(nb, l, cache, blockTable, batch, head, key,
                                 feature, length);
      });
}

Value mlir::flash::buildPagedTile(OpBuilder &b, Location loc,
                                  RankedTensorType tileType, Value cache,
                                  Value blockTable, Value batch, Value head,
                                  Value keyStart, Value length) {
  Value init =
      emptyLike(b, loc, tileType.getShape(), tileType.getElementType());
  return generic(
      b, loc, ValueRange{}, init,
      {AffineMap::getMultiDimIdentityMap(2, b.getContext())}, parallel(2),
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        Value row = linalg::IndexOp::create(nb, l, 0);
        Value feature = linalg::IndexOp::create(nb, l, 1);
        Value key = arith::AddIOp::create(nb, l, keyStart, row);
        return buildPagedElement(nb, l, cache, blockTable, batch, head, key,
                                 feature, length);
      });
}

Value mlir::flash::buildSequenceMask(OpBuilder &b, Location loc, Value scores,
                                     Value seqLens, int64_t capacity,
                                     int64_t numQueries, bool causal) {
  // The length of the element's sequence (batch index: loop 0).
  auto length = [&](OpBuilder &nb, Location l) -> Value {
    return buildSequenceLength(nb, l, seqLens,
                               linalg::IndexOp::create(nb, l, 0), capacity);
  };
  auto offset = [&](OpBuilder &nb, Location l) -> Value {
    return arith::SubIOp::create(nb, l, length(nb, l),
                                 arith::ConstantIndexOp::create(nb, l,
                                                                numQueries));
  };
  MaskBounds bounds{length, nullptr, std::nullopt};
  if (causal)
    bounds.causalOffset = offset;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return buildMask(b, loc, scores, zero, zero, bounds);
}

Value mlir::flash::buildSplitLogSumExps(OpBuilder &b, Location loc,
                                        Value partialLse, Value numSplits) {
  MLIRContext *ctx = b.getContext();
  ArrayRef<int64_t> parts = tensorType(partialLse).getShape(); // splits, rows
  AffineExpr i = getAffineDimExpr(0, ctx), s = getAffineDimExpr(1, ctx);
  return elementwise(
      b, loc, {parts[1], parts[0]}, b.getF32Type(), {partialLse},
      {pick(ctx, 2, {s, i})},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value split = linalg::IndexOp::create(nb, l, 1);
        Value used = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                           split, numSplits);
        Value ninf = f32Const(nb, l, -std::numeric_limits<double>::infinity());
        return arith::SelectOp::create(nb, l, used, a[0], ninf);
      });
}

Value mlir::flash::buildWeightedPartials(OpBuilder &b, Location loc,
                                         Value weights, Value parts,
                                         Value init) {
  MLIRContext *ctx = b.getContext();
  // Loops: i, d, s.
  AffineExpr i = getAffineDimExpr(0, ctx), f = getAffineDimExpr(1, ctx),
             s = getAffineDimExpr(2, ctx);
  SmallVector<utils::IteratorType> iters = parallel(2);
  iters.push_back(utils::IteratorType::reduction);
  return generic(
      b, loc, {weights, parts}, init,
      {pick(ctx, 3, {i, s}), pick(ctx, 3, {s, i, f}), pick(ctx, 3, {i, f})},
      iters, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value zero = f32Const(nb, l, 0.0);
        Value unused = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                             a[0], zero);
        Value term = arith::MulFOp::create(nb, l, a[0], a[1]);
        term = arith::SelectOp::create(nb, l, unused, zero, term);
        return arith::AddFOp::create(nb, l, a[2], term);
      });
}
