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

/// B×Hq×N[×W] -> B×Hkv×G×N[×W], G = Hq / Hkv (q-head h = kvHead·G + g).
static Value splitQueryHeads(RewriterBase &rewriter, Location loc, Value t,
                             int64_t kvHeads) {
  auto type = cast<RankedTensorType>(t.getType());
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<int64_t> split = {shape[0], kvHeads, shape[1] / kvHeads};
  llvm::append_range(split, shape.drop_front(2));
  SmallVector<ReassociationIndices> reassociation = {{0}, {1, 2}, {3}};
  if (shape.size() == 4)
    reassociation.push_back({4});
  return tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get(split, type.getElementType()), t,
      reassociation);
}

/// B×Hkv×N×W -> B×Hkv×G×N×W: K or V broadcast over the G query heads that
/// share them.
static Value broadcastOverGroup(RewriterBase &rewriter, Location loc, Value kv,
                                int64_t group) {
  auto type = cast<RankedTensorType>(kv.getType());
  ArrayRef<int64_t> shape = type.getShape();
  Value init = tensor::EmptyOp::create(
      rewriter, loc,
      ArrayRef<int64_t>{shape[0], shape[1], group, shape[2], shape[3]},
      type.getElementType());
  return linalg::BroadcastOp::create(rewriter, loc, kv, init,
                                     ArrayRef<int64_t>{2})
      .getResult()[0];
}

/// The rest of the definition from the masked scores S (B×Hkv×G×Nq×Nk, f32)
/// and V broadcast over the group (B×Hkv×G×Nk×Dv): m = rowmax(S);
/// P = exp(S − m); l = rowsum(P); O = (P·V) / l (B×Hq×Nq×Dv); LSE =
/// m + log(l) (B×Hq×Nq) when `lseType` is set.
static SmallVector<Value> buildSoftmaxPV(RewriterBase &rewriter, Location loc,
                                         Value scores, Value v5,
                                         RankedTensorType outType,
                                         Type lseType) {
  Type f32 = rewriter.getF32Type();
  auto scoreShape = cast<RankedTensorType>(scores.getType()).getShape();
  SmallVector<ReassociationIndices> splitHeads = {{0}, {1, 2}, {3}, {4}};
  SmallVector<int64_t> rowShape(scoreShape.drop_back());
  int64_t valueDim = cast<RankedTensorType>(v5.getType()).getShape()[4];

  // Softmax numerator and denominator, shifted by the row max.
  Value rowMax = buildRowMax(
      rewriter, loc, scores,
      buildFilled(rewriter, loc, rowShape, f32,
                  -std::numeric_limits<double>::infinity()));
  Value probs = buildExpShifted(rewriter, loc, scores,
                                buildSafeMax(rewriter, loc, rowMax));
  Value rowSum = buildRowSum(rewriter, loc, probs,
                             buildFilled(rewriter, loc, rowShape, f32, 0.0));

  // O = (P · V) / l, in f32 until the final conversion.
  SmallVector<int64_t> accShape(rowShape);
  accShape.push_back(valueDim);
  Value acc = buildAccumulatePV(rewriter, loc, probs, v5,
                                buildFilled(rewriter, loc, accShape, f32, 0.0),
                                /*roundProbsTo=*/Type());
  Value out5 =
      buildNormalize(rewriter, loc, acc, rowSum, outType.getElementType());
  Value out = tensor::CollapseShapeOp::create(rewriter, loc, outType, out5,
                                              splitHeads);

  SmallVector<Value> results = {out};
  if (lseType) {
    Value lse4 = buildLogSumExp(rewriter, loc, rowMax, rowSum);
    SmallVector<ReassociationIndices> mergeHeads = {{0}, {1, 2}, {3}};
    results.push_back(tensor::CollapseShapeOp::create(
        rewriter, loc, cast<RankedTensorType>(lseType), lse4, mergeHeads));
  }
  return results;
}

static LogicalResult lowerToReference(RewriterBase &rewriter, AttentionOp op) {
  FailureOr<AttentionShape> shapeOr = getAttentionShape(op);
  if (failed(shapeOr))
    return failure();
  const AttentionShape &s = *shapeOr;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  int64_t group = s.queryHeads / s.kvHeads;

  Value q5 = splitQueryHeads(rewriter, loc, op.getQuery(), s.kvHeads);
  Value k5 = broadcastOverGroup(rewriter, loc, op.getKey(), group);
  Value v5 = broadcastOverGroup(rewriter, loc, op.getValue(), group);

  // S = scale · Q · Kᵀ, masked above the bottom-right aligned diagonal.
  Value scores = buildScaledQK(rewriter, loc, q5, k5, op.getEffectiveScale());
  if (s.causal) {
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    scores = buildMask(rewriter, loc, scores, zero, zero, s.seqKV,
                       s.seqKV - s.seqQ);
  }

  rewriter.replaceOp(op, buildSoftmaxPV(rewriter, loc, scores, v5,
                                        op.getOutput().getType(),
                                        op.getLse() ? op.getLse().getType()
                                                    : Type()));
  return success();
}

/// flash.paged_attention: the same definition on K and V gathered through
/// the block table at run time (B×Hkv×(M·S)×D, 0 past each sequence's
/// length), with the scores masked by each sequence's length and, when
/// causal, by its diagonal t > i + len − Nq.
static LogicalResult lowerToReference(RewriterBase &rewriter,
                                      PagedAttentionOp op) {
  FailureOr<PagedAttentionShape> shapeOr = getPagedAttentionShape(op);
  if (failed(shapeOr))
    return failure();
  const PagedAttentionShape &s = *shapeOr;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  int64_t group = s.queryHeads / s.kvHeads;

  Value q5 = splitQueryHeads(rewriter, loc, op.getQuery(), s.kvHeads);
  auto gatherAndBroadcast = [&](Value cache) -> Value {
    return broadcastOverGroup(rewriter, loc,
                              buildPagedGather(rewriter, loc, cache,
                                               op.getBlockTable(),
                                               op.getSeqLens()),
                              group);
  };
  Value k5 = gatherAndBroadcast(op.getKeyCache());
  Value v5 = gatherAndBroadcast(op.getValueCache());

  Value scores = buildScaledQK(rewriter, loc, q5, k5, op.getEffectiveScale());
  scores = buildSequenceMask(rewriter, loc, scores, op.getSeqLens(), s.seqKV,
                             s.seqQ, s.causal);
  rewriter.replaceOp(op, buildSoftmaxPV(rewriter, loc, scores, v5,
                                        op.getOutput().getType(),
                                        op.getLse() ? op.getLse().getType()
                                                    : Type()));
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

  // Q, O, dO, LSE: B×Hq×... -> B×Hkv×G×...; K, V over the group.
  Value q5 = splitQueryHeads(rewriter, loc, op.getQuery(), s.kvHeads);
  Value o5 = splitQueryHeads(rewriter, loc, op.getOutput(), s.kvHeads);
  Value do5 = splitQueryHeads(rewriter, loc, op.getGradOutput(), s.kvHeads);
  Value lse4 = splitQueryHeads(rewriter, loc, op.getLse(), s.kvHeads);
  Value k5 = broadcastOverGroup(rewriter, loc, op.getKey(), group);
  Value v5 = broadcastOverGroup(rewriter, loc, op.getValue(), group);

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

  SmallVector<ReassociationIndices> mergeHeads = {{0}, {1, 2}, {3}, {4}};
  Value dq = tensor::CollapseShapeOp::create(
      rewriter, loc, op.getGradQuery().getType(),
      buildScaleConvert(rewriter, loc, gradQuery5, scale, elementType),
      mergeHeads);
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
      if (isa<AttentionOp, AttentionBackwardOp, PagedAttentionOp>(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops) {
      LogicalResult lowered = failure();
      if (auto forward = dyn_cast<AttentionOp>(op))
        lowered = lowerToReference(rewriter, forward);
      else if (auto backward = dyn_cast<AttentionBackwardOp>(op))
        lowered = lowerToReference(rewriter, backward);
      else
        lowered = lowerToReference(rewriter, cast<PagedAttentionOp>(op));
      if (failed(lowered))
        return signalPassFailure();
    }
  }
};
} // namespace
