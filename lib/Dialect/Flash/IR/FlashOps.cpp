//===- FlashOps.cpp - flash dialect ops -----------------------------------===//
//
// Verifiers of the flash ops. flash.attention's verifier is the contract of
// the dialect: every malformed combination gets a diagnostic that names the
// operand and what was expected. Dynamic dimensions are accepted here (they
// are valid IR) and compared only where both sides are static; the passes
// that need static shapes reject them with "not supported yet".
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/Flash.h"
#include "VerifierUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"

#include <cmath>

using namespace mlir;
using namespace mlir::flash;

#define GET_OP_CLASSES
#include "flash/Dialect/Flash/IR/FlashOps.cpp.inc"

using namespace mlir::flash::detail;

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

float AttentionOp::getEffectiveScale() {
  if (auto scale = getScaleAttr())
    return scale.getValueAsDouble();
  int64_t headDim = getQuery().getType().getShape()[3];
  return 1.0f / std::sqrt(static_cast<float>(headDim));
}

int64_t AttentionOp::getGroupSize() {
  return getQuery().getType().getShape()[1] / getKey().getType().getShape()[1];
}

namespace {
/// A named operand or result and the layout its four dimensions have.
struct NamedTensor {
  StringRef name;
  RankedTensorType type;
  StringRef layout;
};

/// Every tensor must have as many dimensions as its layout names.
LogicalResult verifyRanks(Operation *op, ArrayRef<NamedTensor> tensors,
                          int64_t rank) {
  for (const NamedTensor &t : tensors)
    if (t.type.getRank() != rank)
      return op->emitOpError() << t.name << " must be a rank-" << rank
                               << " tensor (" << t.layout << "), got rank "
                               << t.type.getRank();
  return success();
}

/// Q, K and V (rank 4): one float element type, the sizes the semantics
/// divide by or take a root of, and the dimensions they share. The checks
/// and messages of flash.attention, shared by its backward.
LogicalResult verifyQueryKeyValue(Operation *op, RankedTensorType qType,
                                  RankedTensorType kType,
                                  RankedTensorType vType) {
  Type elementType = qType.getElementType();
  if (!isSupportedElementType(elementType))
    return op->emitOpError()
           << "query element type must be f32, f16 or bf16, got "
           << elementType;
  for (const NamedTensor &t :
       {NamedTensor{"key", kType, ""}, NamedTensor{"value", vType, ""}}) {
    if (t.type.getElementType() != elementType)
      return op->emitOpError()
             << t.name << " element type " << t.type.getElementType()
             << " must match query element type " << elementType;
  }
  return success();
}

LogicalResult verifyQueryKeyValueShapes(Operation *op, ArrayRef<int64_t> q,
                                        ArrayRef<int64_t> k,
                                        ArrayRef<int64_t> v) {
  // Sizes that the semantics divide by or take a square root of.
  if (!ShapedType::isDynamic(k[1]) && k[1] < 1)
    return op->emitOpError() << "key must have at least one head, got 0";
  if (!ShapedType::isDynamic(q[3]) && q[3] < 1)
    return op->emitOpError()
           << "query head dimension D must be positive, got 0";
  if (!ShapedType::isDynamic(v[3]) && v[3] < 1)
    return op->emitOpError()
           << "value head dimension Dv must be positive, got 0";

  if (dimsConflict(k[0], q[0]))
    return op->emitOpError() << "key batch size " << k[0]
                             << " must match query batch size " << q[0];
  if (dimsConflict(v[0], q[0]))
    return op->emitOpError() << "value batch size " << v[0]
                             << " must match query batch size " << q[0];
  if (dimsConflict(v[1], k[1]))
    return op->emitOpError()
           << "value heads " << v[1] << " must match key heads " << k[1];
  if (!ShapedType::isDynamic(q[1]) && !ShapedType::isDynamic(k[1]) &&
      q[1] % k[1] != 0)
    return op->emitOpError() << "query heads " << q[1]
                             << " must be a multiple of key/value heads "
                             << k[1] << " (grouped-query attention)";
  if (dimsConflict(k[3], q[3]))
    return op->emitOpError() << "key head dimension " << k[3]
                             << " must match query head dimension " << q[3];
  if (dimsConflict(v[2], k[2]))
    return op->emitOpError() << "value sequence length " << v[2]
                             << " must match key sequence length " << k[2];
  return success();
}

/// `shape` must be `expected` (where both are known); `layout` names it.
LogicalResult verifyShapeIs(Operation *op, StringRef name,
                            ArrayRef<int64_t> shape,
                            ArrayRef<int64_t> expected, StringRef layout) {
  for (auto [got, want] : llvm::zip_equal(shape, expected))
    if (dimsConflict(got, want))
      return op->emitOpError() << name << " shape " << formatShape(shape)
                               << " must be " << layout << " = "
                               << formatShape(expected);
  return success();
}

/// LSE: B×Hq×Nq in f32.
LogicalResult verifyLse(Operation *op, RankedTensorType lseType,
                        ArrayRef<int64_t> expectedLse) {
  if (!lseType.getElementType().isF32())
    return op->emitOpError() << "lse element type must be f32, got "
                             << lseType.getElementType();
  if (lseType.getRank() != 3)
    return op->emitOpError() << "lse must be a rank-3 tensor (B×Hq×Nq = "
                             << formatShape(expectedLse) << "), got rank "
                             << lseType.getRank();
  return verifyShapeIs(op, "lse", lseType.getShape(), expectedLse,
                       "B×Hq×Nq");
}

LogicalResult verifyScale(Operation *op, FloatAttr scale) {
  if (!scale)
    return success();
  double s = scale.getValueAsDouble();
  if (std::isnan(s))
    return op->emitOpError() << "scale must be finite and non-zero, got nan";
  if (std::isinf(s))
    return op->emitOpError() << "scale must be finite and non-zero, got "
                             << (s > 0 ? "inf" : "-inf");
  if (s == 0.0)
    return op->emitOpError() << "scale must be finite and non-zero, got 0";
  return success();
}
} // namespace

LogicalResult AttentionOp::verify() {
  auto qType = getQuery().getType();
  auto kType = getKey().getType();
  auto vType = getValue().getType();
  auto oType = getOutput().getType();

  // Ranks first: every later check indexes the four dimensions.
  if (failed(verifyRanks(*this,
                         {{"query", qType, "B×Hq×Nq×D"},
                          {"key", kType, "B×Hkv×Nk×D"},
                          {"value", vType, "B×Hkv×Nk×Dv"},
                          {"output", oType, "B×Hq×Nq×Dv"}},
                         4)))
    return failure();

  // Element types: one float type for Q, K, V and the output.
  if (failed(verifyQueryKeyValue(*this, qType, kType, vType)))
    return failure();
  Type elementType = qType.getElementType();
  if (oType.getElementType() != elementType)
    return emitOpError() << "output element type " << oType.getElementType()
                         << " must match query element type " << elementType;

  ArrayRef<int64_t> q = qType.getShape(), k = kType.getShape(),
                    v = vType.getShape();
  if (failed(verifyQueryKeyValueShapes(*this, q, k, v)))
    return failure();

  // Output: B×Hq×Nq×Dv.
  if (failed(verifyShapeIs(*this, "output", oType.getShape(),
                           {q[0], q[1], q[2], v[3]}, "B×Hq×Nq×Dv")))
    return failure();

  if (Value lse = getLse())
    if (failed(verifyLse(*this, cast<RankedTensorType>(lse.getType()),
                         {q[0], q[1], q[2]})))
      return failure();

  return verifyScale(*this, getScaleAttr());
}

//===----------------------------------------------------------------------===//
// AttentionBackwardOp
//===----------------------------------------------------------------------===//

float AttentionBackwardOp::getEffectiveScale() {
  if (auto scale = getScaleAttr())
    return scale.getValueAsDouble();
  int64_t headDim = getQuery().getType().getShape()[3];
  return 1.0f / std::sqrt(static_cast<float>(headDim));
}

int64_t AttentionBackwardOp::getGroupSize() {
  return getQuery().getType().getShape()[1] / getKey().getType().getShape()[1];
}

LogicalResult AttentionBackwardOp::verify() {
  auto qType = getQuery().getType(), kType = getKey().getType(),
       vType = getValue().getType(), oType = getOutput().getType(),
       doType = getGradOutput().getType(), lseType = getLse().getType(),
       dqType = getGradQuery().getType(), dkType = getGradKey().getType(),
       dvType = getGradValue().getType();

  // Ranks first: every later check indexes the dimensions.
  if (failed(verifyRanks(*this,
                         {{"query", qType, "B×Hq×Nq×D"},
                          {"key", kType, "B×Hkv×Nk×D"},
                          {"value", vType, "B×Hkv×Nk×Dv"},
                          {"output", oType, "B×Hq×Nq×Dv"},
                          {"grad_output", doType, "B×Hq×Nq×Dv"},
                          {"grad_query", dqType, "B×Hq×Nq×D"},
                          {"grad_key", dkType, "B×Hkv×Nk×D"},
                          {"grad_value", dvType, "B×Hkv×Nk×Dv"}},
                         4)))
    return failure();

  // Element types: T for everything but LSE.
  if (failed(verifyQueryKeyValue(*this, qType, kType, vType)))
    return failure();
  Type elementType = qType.getElementType();
  for (const NamedTensor &t : {NamedTensor{"output", oType, ""},
                               NamedTensor{"grad_output", doType, ""},
                               NamedTensor{"grad_query", dqType, ""},
                               NamedTensor{"grad_key", dkType, ""},
                               NamedTensor{"grad_value", dvType, ""}}) {
    if (t.type.getElementType() != elementType)
      return emitOpError() << t.name << " element type "
                           << t.type.getElementType()
                           << " must match query element type " << elementType;
  }

  ArrayRef<int64_t> q = qType.getShape(), k = kType.getShape(),
                    v = vType.getShape();
  if (failed(verifyQueryKeyValueShapes(*this, q, k, v)))
    return failure();

  // O and dO are B×Hq×Nq×Dv; the gradients have the shapes of Q, K and V.
  SmallVector<int64_t> oShape = {q[0], q[1], q[2], v[3]};
  if (failed(verifyShapeIs(*this, "output", oType.getShape(), oShape,
                           "B×Hq×Nq×Dv")) ||
      failed(verifyShapeIs(*this, "grad_output", doType.getShape(), oShape,
                           "B×Hq×Nq×Dv")) ||
      failed(verifyShapeIs(*this, "grad_query", dqType.getShape(), q,
                           "the query's B×Hq×Nq×D")) ||
      failed(verifyShapeIs(*this, "grad_key", dkType.getShape(), k,
                           "the key's B×Hkv×Nk×D")) ||
      failed(verifyShapeIs(*this, "grad_value", dvType.getShape(), v,
                           "the value's B×Hkv×Nk×Dv")))
    return failure();

  if (failed(verifyLse(*this, lseType, {q[0], q[1], q[2]})))
    return failure();
  return verifyScale(*this, getScaleAttr());
}

//===----------------------------------------------------------------------===//
// L1 tile ops
//===----------------------------------------------------------------------===//


LogicalResult LoadTileOp::verify() {
  auto srcType = getSource().getType();
  auto tileType = getTile().getType();
  // B×H×N×D rows, or B×H×N row statistics (LSE, D).
  if (srcType.getRank() != 4 && srcType.getRank() != 3)
    return emitOpError() << "source must be a rank-4 (B×H×N×D) or rank-3 "
                            "(B×H×N) tensor, got rank "
                         << srcType.getRank();
  if (failed(verifyStaticRank(*this, "tile", tileType, srcType.getRank() - 2)))
    return failure();
  if (tileType.getElementType() != srcType.getElementType())
    return emitOpError() << "tile element type " << tileType.getElementType()
                         << " must match source element type "
                         << srcType.getElementType();
  if (srcType.getRank() == 4 &&
      dimsConflict(tileType.getShape()[1], srcType.getShape()[3]))
    return emitOpError() << "tile width " << tileType.getShape()[1]
                         << " must match the source head dimension "
                         << srcType.getShape()[3];
  return success();
}

LogicalResult QKOp::verify() {
  auto qType = getQuery().getType(), kType = getKey().getType(),
       sType = getScores().getType();
  if (failed(verifyStaticRank(*this, "query tile", qType, 2)) ||
      failed(verifyStaticRank(*this, "key tile", kType, 2)) ||
      failed(verifyStaticRank(*this, "score tile", sType, 2)) ||
      failed(verifyF32(*this, "score tile", sType)))
    return failure();
  if (qType.getElementType() != kType.getElementType())
    return emitOpError() << "query and key tiles must share an element type";
  if (qType.getShape()[1] != kType.getShape()[1])
    return emitOpError() << "query tile width " << qType.getShape()[1]
                         << " must match key tile width "
                         << kType.getShape()[1];
  if (sType.getShape()[0] != qType.getShape()[0] ||
      sType.getShape()[1] != kType.getShape()[0])
    return emitOpError() << "score tile must be " << qType.getShape()[0] << "x"
                         << kType.getShape()[0] << " (Br×Bc), got "
                         << formatShape(sType.getShape());
  return success();
}

LogicalResult MaskOp::verify() {
  if (failed(verifyStaticRank(*this, "score tile", getScores().getType(), 2)) ||
      failed(verifyF32(*this, "score tile", getScores().getType())))
    return failure();
  // kv_len: an attribute (static) or an operand (run-time), exactly one.
  if (static_cast<bool>(getKvLenAttr()) == static_cast<bool>(getDynamicKvLen()))
    return emitOpError() << "needs exactly one kv_len: an attribute or an "
                            "operand";
  if (getCausalOffsetAttr() && getDynamicCausalOffset())
    return emitOpError() << "needs at most one causal_offset: an attribute or "
                            "an operand";
  if (IntegerAttr kvLen = getKvLenAttr(); kvLen && kvLen.getInt() < 0)
    return emitOpError() << "kv_len must be non-negative, got "
                         << kvLen.getInt();
  if (IntegerAttr rows = getRowsPerHeadAttr(); rows && rows.getInt() < 1)
    return emitOpError() << "rows_per_head must be positive, got "
                         << rows.getInt();
  return success();
}

LogicalResult OnlineSoftmaxOp::verify() {
  auto sType = getScores().getType();
  if (failed(verifyStaticRank(*this, "score tile", sType, 2)) ||
      failed(verifyF32(*this, "score tile", sType)))
    return failure();
  int64_t rows = sType.getShape()[0];
  if (failed(verifyRowVector(*this, "running max", getRunningMax().getType(),
                             rows)) ||
      failed(verifyRowVector(*this, "running sum", getRunningSum().getType(),
                             rows)) ||
      failed(verifyRowVector(*this, "new max", getNewMax().getType(), rows)) ||
      failed(verifyRowVector(*this, "new sum", getNewSum().getType(), rows)) ||
      failed(verifyRowVector(*this, "rescale", getRescale().getType(), rows)))
    return failure();
  if (getProbs().getType() != sType)
    return emitOpError() << "probabilities must have the score tile's type "
                         << sType;
  return success();
}

LogicalResult AccumulatePVOp::verify() {
  auto accType = getAcc().getType(), pType = getProbs().getType(),
       vType = getValue().getType();
  if (failed(verifyStaticRank(*this, "accumulator", accType, 2)) ||
      failed(verifyF32(*this, "accumulator", accType)) ||
      failed(verifyStaticRank(*this, "probabilities", pType, 2)) ||
      failed(verifyF32(*this, "probabilities", pType)) ||
      failed(verifyStaticRank(*this, "value tile", vType, 2)))
    return failure();
  int64_t rows = accType.getShape()[0];
  if (failed(verifyRowVector(*this, "rescale", getRescale().getType(), rows)))
    return failure();
  if (pType.getShape()[0] != rows || pType.getShape()[1] != vType.getShape()[0] ||
      accType.getShape()[1] != vType.getShape()[1])
    return emitOpError() << "shapes do not compose: accumulator "
                         << formatShape(accType.getShape())
                         << " += probabilities "
                         << formatShape(pType.getShape()) << " · value "
                         << formatShape(vType.getShape());
  return success();
}

LogicalResult FinalizeOp::verify() {
  auto accType = getAcc().getType(), oType = getOutput().getType();
  if (failed(verifyStaticRank(*this, "accumulator", accType, 2)) ||
      failed(verifyF32(*this, "accumulator", accType)) ||
      failed(verifyStaticRank(*this, "output tile", oType, 2)))
    return failure();
  int64_t rows = accType.getShape()[0];
  if (failed(verifyRowVector(*this, "running max", getRunningMax().getType(),
                             rows)) ||
      failed(verifyRowVector(*this, "running sum", getRunningSum().getType(),
                             rows)) ||
      failed(verifyRowVector(*this, "lse", getLse().getType(), rows)))
    return failure();
  if (oType.getShape() != accType.getShape())
    return emitOpError() << "output tile shape " << formatShape(oType.getShape())
                         << " must match accumulator shape "
                         << formatShape(accType.getShape());
  if (!isSupportedElementType(oType.getElementType()))
    return emitOpError() << "output tile element type must be f32, f16 or bf16";
  return success();
}

//===----------------------------------------------------------------------===//
// L1 tile ops of the backward
//===----------------------------------------------------------------------===//

LogicalResult RowDotOp::verify() {
  auto lhsType = getLhs().getType();
  if (failed(verifyStaticRank(*this, "lhs tile", lhsType, 2)))
    return failure();
  if (!isSupportedElementType(lhsType.getElementType()))
    return emitOpError() << "lhs tile element type must be f32, f16 or bf16, "
                            "got "
                         << lhsType.getElementType();
  if (getRhs().getType() != lhsType)
    return emitOpError() << "rhs tile must have the lhs tile's type "
                         << lhsType << ", got " << getRhs().getType();
  return verifyRowVector(*this, "result", getResult().getType(),
                         lhsType.getShape()[0]);
}

LogicalResult RecomputeProbsOp::verify() {
  auto sType = getScores().getType();
  if (failed(verifyStaticRank(*this, "score tile", sType, 2)) ||
      failed(verifyF32(*this, "score tile", sType)))
    return failure();
  return verifyRowVector(*this, "lse", getLse().getType(), sType.getShape()[0]);
}

LogicalResult ScoreGradOp::verify() {
  auto pType = getProbs().getType();
  if (failed(verifyStaticRank(*this, "probabilities", pType, 2)) ||
      failed(verifyF32(*this, "probabilities", pType)))
    return failure();
  return verifyRowVector(*this, "delta", getDelta().getType(),
                         pType.getShape()[0]);
}

LogicalResult AccumulateProductOp::verify() {
  auto accType = getAcc().getType(), lhsType = getLhs().getType(),
       rhsType = getRhs().getType();
  if (failed(verifyStaticRank(*this, "accumulator", accType, 2)) ||
      failed(verifyF32(*this, "accumulator", accType)) ||
      failed(verifyStaticRank(*this, "lhs tile", lhsType, 2)) ||
      failed(verifyF32(*this, "lhs tile", lhsType)) ||
      failed(verifyStaticRank(*this, "rhs tile", rhsType, 2)))
    return failure();
  if (!isSupportedElementType(rhsType.getElementType()))
    return emitOpError() << "rhs tile element type must be f32, f16 or bf16, "
                            "got "
                         << rhsType.getElementType();
  ArrayRef<int64_t> acc = accType.getShape(), a = lhsType.getShape(),
                    b = rhsType.getShape();
  // Aᵀ·B contracts the rows of both; A·B the columns of A with the rows of B.
  bool transpose = getTransposeLhs();
  int64_t rows = transpose ? a[1] : a[0];
  int64_t inner = transpose ? a[0] : a[1];
  if (inner != b[0] || acc[0] != rows || acc[1] != b[1])
    return emitOpError() << "shapes do not compose: accumulator "
                         << formatShape(acc) << " += lhs"
                         << (transpose ? "ᵀ " : " ") << formatShape(a)
                         << " · rhs " << formatShape(b);
  return success();
}

LogicalResult FinalizeGradOp::verify() {
  auto accType = getAcc().getType(), resultType = getResult().getType();
  if (failed(verifyStaticRank(*this, "accumulator", accType, 2)) ||
      failed(verifyF32(*this, "accumulator", accType)) ||
      failed(verifyStaticRank(*this, "result tile", resultType, 2)))
    return failure();
  if (resultType.getShape() != accType.getShape())
    return emitOpError() << "result tile shape "
                         << formatShape(resultType.getShape())
                         << " must match accumulator shape "
                         << formatShape(accType.getShape());
  if (!isSupportedElementType(resultType.getElementType()))
    return emitOpError()
           << "result tile element type must be f32, f16 or bf16, got "
           << resultType.getElementType();
  double scale = getScale().convertToDouble();
  if (!std::isfinite(scale))
    return emitOpError() << "scale must be finite";
  return success();
}
