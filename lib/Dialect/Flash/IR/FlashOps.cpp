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

LogicalResult AttentionOp::verify() {
  auto qType = getQuery().getType();
  auto kType = getKey().getType();
  auto vType = getValue().getType();
  auto oType = getOutput().getType();

  // Ranks first: every later check indexes the four dimensions.
  struct Named {
    StringRef name;
    RankedTensorType type;
    StringRef layout;
  };
  for (const Named &t : {Named{"query", qType, "B×Hq×Nq×D"},
                         Named{"key", kType, "B×Hkv×Nk×D"},
                         Named{"value", vType, "B×Hkv×Nk×Dv"},
                         Named{"output", oType, "B×Hq×Nq×Dv"}}) {
    if (t.type.getRank() != 4)
      return emitOpError() << t.name << " must be a rank-4 tensor ("
                           << t.layout << "), got rank " << t.type.getRank();
  }

  // Element types: one float type for Q, K, V and the output.
  Type elementType = qType.getElementType();
  if (!isSupportedElementType(elementType))
    return emitOpError() << "query element type must be f32, f16 or bf16, got "
                         << elementType;
  for (const Named &t : {Named{"key", kType, ""}, Named{"value", vType, ""},
                         Named{"output", oType, ""}}) {
    if (t.type.getElementType() != elementType)
      return emitOpError() << t.name << " element type "
                           << t.type.getElementType()
                           << " must match query element type " << elementType;
  }

  ArrayRef<int64_t> q = qType.getShape(), k = kType.getShape(),
                    v = vType.getShape(), o = oType.getShape();

  // Sizes that the semantics divide by or take a square root of.
  if (!ShapedType::isDynamic(k[1]) && k[1] < 1)
    return emitOpError() << "key must have at least one head, got 0";
  if (!ShapedType::isDynamic(q[3]) && q[3] < 1)
    return emitOpError() << "query head dimension D must be positive, got 0";
  if (!ShapedType::isDynamic(v[3]) && v[3] < 1)
    return emitOpError() << "value head dimension Dv must be positive, got 0";

  if (dimsConflict(k[0], q[0]))
    return emitOpError() << "key batch size " << k[0]
                         << " must match query batch size " << q[0];
  if (dimsConflict(v[0], q[0]))
    return emitOpError() << "value batch size " << v[0]
                         << " must match query batch size " << q[0];
  if (dimsConflict(v[1], k[1]))
    return emitOpError() << "value heads " << v[1] << " must match key heads "
                         << k[1];
  if (!ShapedType::isDynamic(q[1]) && !ShapedType::isDynamic(k[1]) &&
      q[1] % k[1] != 0)
    return emitOpError() << "query heads " << q[1]
                         << " must be a multiple of key/value heads " << k[1]
                         << " (grouped-query attention)";
  if (dimsConflict(k[3], q[3]))
    return emitOpError() << "key head dimension " << k[3]
                         << " must match query head dimension " << q[3];
  if (dimsConflict(v[2], k[2]))
    return emitOpError() << "value sequence length " << v[2]
                         << " must match key sequence length " << k[2];

  // Output: B×Hq×Nq×Dv.
  SmallVector<int64_t> expected = {q[0], q[1], q[2], v[3]};
  for (int i = 0; i < 4; ++i) {
    if (dimsConflict(o[i], expected[i]))
      return emitOpError() << "output shape " << formatShape(o)
                           << " must be B×Hq×Nq×Dv = "
                           << formatShape(expected);
  }

  // LSE: B×Hq×Nq in f32.
  if (Value lse = getLse()) {
    auto lseType = cast<RankedTensorType>(lse.getType());
    if (!lseType.getElementType().isF32())
      return emitOpError() << "lse element type must be f32, got "
                           << lseType.getElementType();
    SmallVector<int64_t> expectedLse = {q[0], q[1], q[2]};
    if (lseType.getRank() != 3)
      return emitOpError() << "lse must be a rank-3 tensor (B×Hq×Nq = "
                           << formatShape(expectedLse) << "), got rank "
                           << lseType.getRank();
    for (int i = 0; i < 3; ++i)
      if (dimsConflict(lseType.getShape()[i], expectedLse[i]))
        return emitOpError() << "lse shape " << formatShape(lseType.getShape())
                             << " must be B×Hq×Nq = "
                             << formatShape(expectedLse);
  }

  if (auto scale = getScaleAttr()) {
    double s = scale.getValueAsDouble();
    if (std::isnan(s))
      return emitOpError() << "scale must be finite and non-zero, got nan";
    if (std::isinf(s))
      return emitOpError() << "scale must be finite and non-zero, got "
                           << (s > 0 ? "inf" : "-inf");
    if (s == 0.0)
      return emitOpError() << "scale must be finite and non-zero, got 0";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// L1 tile ops
//===----------------------------------------------------------------------===//


LogicalResult LoadTileOp::verify() {
  auto srcType = getSource().getType();
  auto tileType = getTile().getType();
  if (srcType.getRank() != 4)
    return emitOpError() << "source must be a rank-4 tensor (B×H×N×D), got rank "
                         << srcType.getRank();
  if (failed(verifyStaticRank(*this, "tile", tileType, 2)))
    return failure();
  if (tileType.getElementType() != srcType.getElementType())
    return emitOpError() << "tile element type " << tileType.getElementType()
                         << " must match source element type "
                         << srcType.getElementType();
  if (dimsConflict(tileType.getShape()[1], srcType.getShape()[3]))
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
