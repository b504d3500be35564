//===- LowerToReference.cpp - flash.attention as naive linalg ------------===//
//
// The oracle lowering: attention exactly as defined, on whole tensors.
// Q is viewed as B×Hkv×G×Nq×D (G = Hq/Hkv) and K, V are broadcast over G, so
// that every step is a batched linalg.generic from AttentionMath:
//   S = scale·Q·Kᵀ; S = mask(S); m = rowmax(S); P = exp(S − m);
//   l = rowsum(P); O = (P·V) / l; LSE = m + log(l).
// flash.attention_backward the same way, with the same builders:
//   S = mask(scale·Q·Kᵀ); P = exp(S − LSE); D = rowsum(dO ∘ O);
//   dV = Σ_g Pᵀ·dO; dP = dO·Vᵀ; dS = P ∘ (dP − D);
//   dQ = scale·dS·K; dK = scale·Σ_g dSᵀ·Q
// (Σ_g: the group's query heads, reduced into their kv-head). It
// materialises the Nq×Nk scores on purpose: it is the semantics that the
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

static LogicalResult lowerToReference(RewriterBase &rewriter,
                                      AttentionBackwardOp op) {
  FailureOr<AttentionShape> shapeOr = getAttentionShape(op);
  if (failed(shapeOr))
    return failure();
  const AttentionShape &s = *shapeOr;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Type elementType = op.getQuery().getType().getElementType();
  Type f32 = rewriter.getF32Type();
  int64_t group = s.queryHeads / s.kvHeads;
  float scale = op.getEffectiveScale();

  // Q, O, dO, LSE: B×Hq×... -> B×Hkv×G×... (q-head h = kvHead·G + g).
  SmallVector<ReassociationIndices> splitHeads = {{0}, {1, 2}, {3}, {4}};
  SmallVector<ReassociationIndices> splitRowHeads = {{0}, {1, 2}, {3}};
  auto split = [&](Value t, ArrayRef<int64_t> shape5, Type element,
                   ArrayRef<ReassociationIndices> reassociation) -> Value {
    return tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(shape5, element), t,
        reassociation);
  };
  Value q5 = split(op.getQuery(),
                   {s.batch, s.kvHeads, group, s.seqQ, s.headDim},
                   elementType, splitHeads);
  Value o5 = split(op.getOutput(),
                   {s.batch, s.kvHeads, group, s.seqQ, s.valueDim},
                   elementType, splitHeads);
  Value do5 = split(op.getGradOutput(),
                    {s.batch, s.kvHeads, group, s.seqQ, s.valueDim},
                    elementType, splitHeads);
  Value lse4 = split(op.getLse(), {s.batch, s.kvHeads, group, s.seqQ}, f32,
                     splitRowHeads);

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

  // S = scale · Q · Kᵀ, masked as the forward masks it; P from LSE.
  Value scores = buildScaledQK(rewriter, loc, q5, k5, scale);
  if (s.causal) {
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    scores = buildMask(rewriter, loc, scores, zero, zero, s.seqKV,
                       s.seqKV - s.seqQ);
  }
  Value probs = buildProbsFromLse(rewriter, loc, scores, lse4);

  // D = rowsum(dO ∘ O); dP = dO · Vᵀ; dS = P ∘ (dP − D).
  Value delta = buildRowDot(rewriter, loc, do5, o5);
  Value gradProbs = buildScaledQK(rewriter, loc, do5, v5, /*scale=*/1.0f);
  Value gradScores = buildScoreGrad(rewriter, loc, probs, gradProbs, delta);

  // dV = Σ_g Pᵀ·dO and dK = Σ_g dSᵀ·Q into B×Hkv×Nk×...; dQ = dS·K per
  // q-head. Nothing is rounded here (the tiled form rounds P and dS to T).
  auto zeros = [&](ArrayRef<int64_t> shape) {
    return buildFilled(rewriter, loc, shape, f32, 0.0);
  };
  Value gradValue = buildAccumulateTransposed(
      rewriter, loc, probs, do5,
      zeros({s.batch, s.kvHeads, s.seqKV, s.valueDim}), Type());
  Value gradKey = buildAccumulateTransposed(
      rewriter, loc, gradScores, q5,
      zeros({s.batch, s.kvHeads, s.seqKV, s.headDim}), Type());
  Value gradQuery5 = buildAccumulatePV(
      rewriter, loc, gradScores, k5,
      zeros({s.batch, s.kvHeads, group, s.seqQ, s.headDim}), Type());

  Value dq = tensor::CollapseShapeOp::create(
      rewriter, loc, op.getGradQuery().getType(),
      buildScaleConvert(rewriter, loc, gradQuery5, scale, elementType),
      splitHeads);
  Value dk = buildScaleConvert(rewriter, loc, gradKey, scale, elementType);
  Value dv = buildScaleConvert(rewriter, loc, gradValue, 1.0f, elementType);
  rewriter.replaceOp(op, ValueRange{dq, dk, dv});
  return success();
}

namespace {
struct FlashLowerToReferencePass
    : flash::impl::FlashLowerToReferenceBase<FlashLowerToReferencePass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<AttentionOp, AttentionBackwardOp>(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops) {
      LogicalResult lowered =
          isa<AttentionOp>(op)
              ? lowerToReference(rewriter, cast<AttentionOp>(op))
              : lowerToReference(rewriter, cast<AttentionBackwardOp>(op));
      if (failed(lowered))
        return signalPassFailure();
    }
  }
};
} // namespace
