//===- LowerToReference.cpp - flash.attention as naive linalg ------------===//
//
// The oracle lowering: attention exactly as defined, on whole tensors.
// Q is viewed as B×Hkv×G×Nq×D (G = Hq/Hkv) and K, V are broadcast over G, so
// that every step is a batched linalg.generic from AttentionMath:
//   S = scale·Q·Kᵀ; S = mask(S); m = rowmax(S); P = exp(S − m);
//   l = rowsum(P); O = (P·V) / l; LSE = m + log(l).
// It materialises the Nq×Nk scores on purpose: it is the semantics that the
// tiled lowering is compared against, not a way to run fast.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/Flash.h"
#include "flash/Dialect/Flash/Transforms/AttentionMath.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"
#include "flash/Dialect/Flash/Transforms/Schedule.h"

#include "mlir/IR/PatternMatch.h"

#include <limits>

namespace mlir {
namespace flash {
#define GEN_PASS_DEF_FLASHLOWERTOREFERENCE
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"
} // namespace flash
} // namespace mlir

using namespace mlir;
using namespace mlir::flash;

static LogicalResult lowerToReference(RewriterBase &rewriter, AttentionOp op) {
  FailureOr<AttentionShape> shapeOr = getAttentionShape(op);
  if (failed(shapeOr))
    return failure();
  const AttentionShape &s = *shapeOr;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Type elementType = op.getQuery().getType().getElementType();
  Type f32 = rewriter.getF32Type();
  int64_t group = s.queryHeads / s.kvHeads;

  // Q: B×Hq×Nq×D -> B×Hkv×G×Nq×D (q-head h = kvHead·G + g).
  SmallVector<ReassociationIndices> splitHeads = {{0}, {1, 2}, {3}, {4}};
  auto q5Type = RankedTensorType::get(
      {s.batch, s.kvHeads, group, s.seqQ, s.headDim}, elementType);
  Value q5 = tensor::ExpandShapeOp::create(rewriter, loc, q5Type,
                                           op.getQuery(), splitHeads);

  // K, V: broadcast over the G query heads that share them.
  auto broadcastGroup = [&](Value kv, int64_t width) -> Value {
    Value init = tensor::EmptyOp::create(
        rewriter, loc,
        ArrayRef<int64_t>{s.batch, s.kvHeads, group, s.seqKV, width},
        elementType);
    return linalg::BroadcastOp::create(rewriter, loc, kv, init,
                                       ArrayRef<int64_t>{2})
        .getResult()[0];
  };
  Value k5 = broadcastGroup(op.getKey(), s.headDim);
  Value v5 = broadcastGroup(op.getValue(), s.valueDim);

  // S = scale · Q · Kᵀ, masked above the bottom-right aligned diagonal.
  Value scores = buildScaledQK(rewriter, loc, q5, k5, op.getEffectiveScale());
  if (s.causal) {
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    scores = buildMask(rewriter, loc, scores, zero, zero, s.seqKV,
                       s.seqKV - s.seqQ);
  }

  // Softmax numerator and denominator, shifted by the row max.
  SmallVector<int64_t> rowShape = {s.batch, s.kvHeads, group, s.seqQ};
  Value rowMax = buildRowMax(
      rewriter, loc, scores,
      buildFilled(rewriter, loc, rowShape, f32,
                  -std::numeric_limits<double>::infinity()));
  Value probs = buildExpShifted(rewriter, loc, scores,
                                buildSafeMax(rewriter, loc, rowMax));
  Value rowSum = buildRowSum(rewriter, loc, probs,
                             buildFilled(rewriter, loc, rowShape, f32, 0.0));

  // O = (P · V) / l, in f32 until the final conversion.
  Value acc = buildAccumulatePV(
      rewriter, loc, probs, v5,
      buildFilled(rewriter, loc,
                  {s.batch, s.kvHeads, group, s.seqQ, s.valueDim}, f32, 0.0),
      /*roundProbsTo=*/Type());
  Value out5 = buildNormalize(rewriter, loc, acc, rowSum, elementType);
  Value out = tensor::CollapseShapeOp::create(
      rewriter, loc, op.getOutput().getType(), out5, splitHeads);

  SmallVector<Value> results = {out};
  if (op.getLse()) {
    Value lse4 = buildLogSumExp(rewriter, loc, rowMax, rowSum);
    SmallVector<ReassociationIndices> mergeHeads = {{0}, {1, 2}, {3}};
    results.push_back(tensor::CollapseShapeOp::create(
        rewriter, loc, op.getLse().getType(), lse4, mergeHeads));
  }
  rewriter.replaceOp(op, results);
  return success();
}

namespace {
struct FlashLowerToReferencePass
    : flash::impl::FlashLowerToReferenceBase<FlashLowerToReferencePass> {
  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    getOperation()->walk([&](AttentionOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (AttentionOp op : ops)
      if (failed(lowerToReference(rewriter, op)))
        return signalPassFailure();
  }
};
} // namespace
