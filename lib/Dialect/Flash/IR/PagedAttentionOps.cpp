//===- PagedAttentionOps.cpp - verifiers of the paged / split-KV ops ------===//
//
// flash.paged_attention (L0) and the L1 ops of the split-KV form:
// flash.load_paged_tile and flash.merge_splits. As for flash.attention,
// every malformed combination gets a diagnostic naming the operand and the
// expectation; dynamic dimensions are accepted and compared only where both
// sides are static (the passes refuse them with "not supported yet").
//
//===----------------------------------------------------------------------===//

#include "VerifierUtils.h"
#include "flash/Dialect/Flash/IR/Flash.h"

#include <cmath>

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::detail;

//===----------------------------------------------------------------------===//
// PagedAttentionOp
//===----------------------------------------------------------------------===//

float PagedAttentionOp::getEffectiveScale() {
  if (auto scale = getScaleAttr())
    return scale.getValueAsDouble();
  int64_t headDim = getQuery().getType().getShape()[3];
  return 1.0f / std::sqrt(static_cast<float>(headDim));
}

int64_t PagedAttentionOp::getGroupSize() {
  return getQuery().getType().getShape()[1] /
         getKeyCache().getType().getShape()[2];
}

LogicalResult PagedAttentionOp::verify() {
  auto qType = getQuery().getType();
  auto kType = getKeyCache().getType();
  auto vType = getValueCache().getType();
  auto tableType = getBlockTable().getType();
  auto lensType = getSeqLens().getType();
  auto oType = getOutput().getType();

  struct Named {
    StringRef name;
    RankedTensorType type;
    int64_t rank;
    StringRef layout;
  };
  for (const Named &t : {Named{"query", qType, 4, "B×Hq×Nq×D"},
                         Named{"key_cache", kType, 4, "P×S×Hkv×D"},
                         Named{"value_cache", vType, 4, "P×S×Hkv×Dv"},
                         Named{"block_table", tableType, 2, "B×M"},
                         Named{"seq_lens", lensType, 1, "B"},
                         Named{"output", oType, 4, "B×Hq×Nq×Dv"}}) {
    if (t.type.getRank() != t.rank)
      return emitOpError() << t.name << " must be a rank-" << t.rank
                           << " tensor (" << t.layout << "), got rank "
                           << t.type.getRank();
  }

  Type elementType = qType.getElementType();
  if (!isSupportedElementType(elementType))
    return emitOpError() << "query element type must be f32, f16 or bf16, got "
                         << elementType;
  for (const Named &t : {Named{"key_cache", kType, 0, ""},
                         Named{"value_cache", vType, 0, ""},
                         Named{"output", oType, 0, ""}}) {
    if (t.type.getElementType() != elementType)
      return emitOpError() << t.name << " element type "
                           << t.type.getElementType()
                           << " must match query element type " << elementType;
  }
  for (const Named &t : {Named{"block_table", tableType, 0, ""},
                         Named{"seq_lens", lensType, 0, ""}}) {
    if (!t.type.getElementType().isSignlessInteger(32))
      return emitOpError() << t.name << " element type must be i32, got "
                           << t.type.getElementType();
  }

  ArrayRef<int64_t> q = qType.getShape(), k = kType.getShape(),
                    v = vType.getShape(), table = tableType.getShape(),
                    lens = lensType.getShape(), o = oType.getShape();

  // Sizes the semantics divide by, index with or take a square root of.
  if (!ShapedType::isDynamic(k[0]) && k[0] < 1)
    return emitOpError() << "key_cache must have at least one page, got 0";
  if (!ShapedType::isDynamic(k[1]) && k[1] < 1)
    return emitOpError() << "key_cache page size S must be positive, got 0";
  if (!ShapedType::isDynamic(k[2]) && k[2] < 1)
    return emitOpError() << "key_cache must have at least one head, got 0";
  if (!ShapedType::isDynamic(q[3]) && q[3] < 1)
    return emitOpError() << "query head dimension D must be positive, got 0";
  if (!ShapedType::isDynamic(v[3]) && v[3] < 1)
    return emitOpError() << "value_cache head dimension Dv must be positive, "
                            "got 0";

  for (int i = 0; i < 3; ++i) {
    if (dimsConflict(v[i], k[i]))
      return emitOpError() << "value_cache shape " << formatShape(v)
                           << " must have the pages, slots and heads of "
                              "key_cache "
                           << formatShape(k) << " (P×S×Hkv×Dv)";
  }
  if (dimsConflict(k[3], q[3]))
    return emitOpError() << "key_cache head dimension " << k[3]
                         << " must match query head dimension " << q[3];
  if (!ShapedType::isDynamic(q[1]) && !ShapedType::isDynamic(k[2]) &&
      q[1] % k[2] != 0)
    return emitOpError() << "query heads " << q[1]
                         << " must be a multiple of key/value heads " << k[2]
                         << " (grouped-query attention)";
  if (dimsConflict(table[0], q[0]))
    return emitOpError() << "block_table batch size " << table[0]
                         << " must match query batch size " << q[0];
  if (dimsConflict(lens[0], q[0]))
    return emitOpError() << "seq_lens size " << lens[0]
                         << " must match query batch size " << q[0];

  SmallVector<int64_t> expected = {q[0], q[1], q[2], v[3]};
  for (int i = 0; i < 4; ++i) {
    if (dimsConflict(o[i], expected[i]))
      return emitOpError() << "output shape " << formatShape(o)
                           << " must be B×Hq×Nq×Dv = "
                           << formatShape(expected);
  }

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
  if (ScheduleAttr schedule = getScheduleAttr(); schedule &&
                                                 !schedule.isSplitKV())
    return emitOpError() << "schedule must be a split-KV schedule "
                            "(max_splits >= 1): paged attention is always "
                            "computed in parts that are merged";
  return success();
}

//===----------------------------------------------------------------------===//
// L1: LoadPagedTileOp, MergeSplitsOp
//===----------------------------------------------------------------------===//

LogicalResult LoadPagedTileOp::verify() {
  auto cacheType = getCache().getType();
  auto tableType = getBlockTable().getType();
  auto tileType = getTile().getType();
  if (cacheType.getRank() != 4)
    return emitOpError() << "cache must be a rank-4 tensor (P×S×H×D), got "
                            "rank "
                         << cacheType.getRank();
  if (tableType.getRank() != 2 ||
      !tableType.getElementType().isSignlessInteger(32))
    return emitOpError() << "block_table must be a rank-2 tensor of i32 "
                            "(B×M), got "
                         << tableType;
  if (failed(verifyStaticRank(*this, "tile", tileType, 2)))
    return failure();
  if (tileType.getElementType() != cacheType.getElementType())
    return emitOpError() << "tile element type " << tileType.getElementType()
                         << " must match cache element type "
                         << cacheType.getElementType();
  if (dimsConflict(tileType.getShape()[1], cacheType.getShape()[3]))
    return emitOpError() << "tile width " << tileType.getShape()[1]
                         << " must match the cache head dimension "
                         << cacheType.getShape()[3];
  return success();
}

LogicalResult MergeSplitsOp::verify() {
  auto partsType = getPartialOut().getType();
  auto partLseType = getPartialLse().getType();
  auto oType = getOutput().getType();
  if (failed(verifyStaticRank(*this, "partial_out", partsType, 3)) ||
      failed(verifyF32(*this, "partial_out", partsType)) ||
      failed(verifyStaticRank(*this, "partial_lse", partLseType, 2)) ||
      failed(verifyF32(*this, "partial_lse", partLseType)) ||
      failed(verifyStaticRank(*this, "output", oType, 2)))
    return failure();
  ArrayRef<int64_t> parts = partsType.getShape();
  if (partLseType.getShape() != parts.drop_back())
    return emitOpError() << "partial_lse shape "
                         << formatShape(partLseType.getShape())
                         << " must be splits×rows = "
                         << formatShape(parts.drop_back());
  if (parts[0] < 1)
    return emitOpError() << "partial_out must hold at least one split, got 0";
  if (oType.getShape() != parts.drop_front())
    return emitOpError() << "output shape " << formatShape(oType.getShape())
                         << " must be rows×Dv = "
                         << formatShape(parts.drop_front());
  if (!isSupportedElementType(oType.getElementType()))
    return emitOpError() << "output element type must be f32, f16 or bf16, "
                            "got "
                         << oType.getElementType();
  return verifyRowVector(*this, "lse", getLse().getType(), parts[1]);
}
