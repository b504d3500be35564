//===- Decompose.cpp - L1 tile ops into linalg for the CPU ----------------===//
//
// Expands each L1 tile op into tile-sized linalg.generic ops built by
// AttentionMath (the builders the reference lowering uses too), so that the
// tiled algorithm itself, not the reference, runs in --flash-cpu-pipeline
// (the forward's tile ops and the backward's).
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/Flash.h"
#include "flash/Dialect/Flash/Transforms/AttentionMath.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

namespace mlir {
namespace flash {
#define GEN_PASS_DEF_FLASHDECOMPOSE
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"
} // namespace flash
} // namespace mlir

using namespace mlir;
using namespace mlir::flash;

/// rows [row, row + R) of source[b, h]; rows past N are zero (tensor.pad).
/// A B×H×N source (row statistics) gives R values the same way.
static Value decomposeLoadTile(OpBuilder &b, LoadTileOp op) {
  Location loc = op.getLoc();
  auto srcType = op.getSource().getType();
  auto tileType = op.getTile().getType();
  bool rowStatistics = srcType.getRank() == 3;
  int64_t seqLen = srcType.getShape()[2];
  int64_t rows = tileType.getShape()[0];
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  Value start = arith::MinSIOp::create(b, loc, op.getRow(), c(seqLen));
  Value remaining = arith::SubIOp::create(b, loc, c(seqLen), start);
  Value valid = arith::MinSIOp::create(b, loc, remaining, c(rows));
  OpFoldResult one = b.getIndexAttr(1), zero = b.getIndexAttr(0);
  SmallVector<OpFoldResult> offsets = {op.getBatch(), op.getHead(), start};
  SmallVector<OpFoldResult> sizes = {one, one, valid};
  SmallVector<OpFoldResult> strides = {one, one, one};
  SmallVector<int64_t> sliceShape = {ShapedType::kDynamic};
  if (!rowStatistics) {
    int64_t width = tileType.getShape()[1];
    offsets.push_back(zero);
    sizes.push_back(b.getIndexAttr(width));
    strides.push_back(one);
    sliceShape.push_back(width);
  }
  Value slice = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get(sliceShape, tileType.getElementType()),
      op.getSource(), offsets, sizes, strides);
  Value padValue = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(tileType.getElementType(), 0.0));
  return tensor::createPadHighOp(tileType, slice, padValue, /*nofold=*/false,
                                 loc, b);
}

static LogicalResult decompose(RewriterBase &rewriter, Operation *op) {
  rewriter.setInsertionPoint(op);
  Location loc = op->getLoc();
  if (auto load = dyn_cast<LoadTileOp>(op)) {
    if (!load.getSource().getType().hasStaticShape())
      return load.emitOpError()
             << "not supported yet: dynamic dimensions in the source";
    rewriter.replaceOp(op, decomposeLoadTile(rewriter, load));
    return success();
  }
  if (auto qk = dyn_cast<QKOp>(op)) {
    rewriter.replaceOp(op, buildScaledQK(rewriter, loc, qk.getQuery(),
                                         qk.getKey(),
                                         qk.getScale().convertToFloat()));
    return success();
  }
  if (auto mask = dyn_cast<MaskOp>(op)) {
    std::optional<int64_t> rowsPerHead;
    if (IntegerAttr rows = mask.getRowsPerHeadAttr())
      rowsPerHead = rows.getInt();
    if (!mask.getDynamicKvLen() && !mask.getDynamicCausalOffset() &&
        !rowsPerHead) {
      // Read the attributes as signed: the causal offset Nk − Nq can be < 0.
      std::optional<int64_t> causalOffset;
      if (IntegerAttr offset = mask.getCausalOffsetAttr())
        causalOffset = offset.getInt();
      rewriter.replaceOp(op, buildMask(rewriter, loc, mask.getScores(),
                                       mask.getQStart(), mask.getKvStart(),
                                       mask.getKvLenAttr().getInt(),
                                       causalOffset));
      return success();
    }
    // Run-time bounds or packed rows: the bounds as index values.
    auto c = [&](int64_t v) {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    Value kvLen = mask.getDynamicKvLen();
    if (!kvLen)
      kvLen = c(mask.getKvLenAttr().getInt());
    Value causalOffset = mask.getDynamicCausalOffset();
    if (IntegerAttr offset = mask.getCausalOffsetAttr())
      causalOffset = c(offset.getInt());
    rewriter.replaceOp(op, buildMask(rewriter, loc, mask.getScores(),
                                     mask.getQStart(), mask.getKvStart(),
                                     kvLen, causalOffset, rowsPerHead));
    return success();
  }
  if (auto load = dyn_cast<LoadPagedTileOp>(op)) {
    if (!load.getCache().getType().hasStaticShape() ||
        !load.getBlockTable().getType().hasStaticShape())
      return load.emitOpError()
             << "not supported yet: dynamic dimensions in the cache or the "
                "block table";
    rewriter.replaceOp(
        op, buildPagedTile(rewriter, loc, load.getTile().getType(),
                           load.getCache(), load.getBlockTable(),
                           load.getBatch(), load.getHead(),
                           load.getKeyStart(), load.getLength()));
    return success();
  }
  if (auto merge = dyn_cast<MergeSplitsOp>(op)) {
    // Per row: m = max_s lse_s over the used splits; w_s = exp(lse_s − m)
    // (0 for an empty or unused split; the shift is 0 where m = −inf);
    // O = Σ_s w_s·o_s / Σ_s w_s; LSE = m + log Σ_s w_s.
    Type f32 = rewriter.getF32Type();
    auto rowShape = merge.getLse().getType().getShape();
    auto outShape = merge.getOutput().getType().getShape();
    Value splitLse = buildSplitLogSumExps(rewriter, loc, merge.getPartialLse(),
                                          merge.getNumSplits());
    Value rowMax = buildRowMax(
        rewriter, loc, splitLse,
        buildFilled(rewriter, loc, rowShape, f32,
                    -std::numeric_limits<double>::infinity()));
    Value weights = buildExpShifted(rewriter, loc, splitLse,
                                    buildSafeMax(rewriter, loc, rowMax));
    Value weightSum =
        buildRowSum(rewriter, loc, weights,
                    buildFilled(rewriter, loc, rowShape, f32, 0.0));
    Value acc = buildWeightedPartials(
        rewriter, loc, weights, merge.getPartialOut(),
        buildFilled(rewriter, loc, outShape, f32, 0.0));
    Value out = buildNormalize(rewriter, loc, acc, weightSum,
                               merge.getOutput().getType().getElementType());
    Value lse = buildLogSumExp(rewriter, loc, rowMax, weightSum);
    rewriter.replaceOp(op, ValueRange{out, lse});
    return success();
  }
  if (auto softmax = dyn_cast<OnlineSoftmaxOp>(op)) {
    // m' = max(m, rowmax S); P = exp(S − m'); α = exp(m − m');
    // l' = α·l + rowsum P. The shift is 0 for rows with m' = −inf.
    Value newMax = buildRowMax(rewriter, loc, softmax.getScores(),
                               softmax.getRunningMax());
    Value shift = buildSafeMax(rewriter, loc, newMax);
    Value probs = buildExpShifted(rewriter, loc, softmax.getScores(), shift);
    Value rescale =
        buildExpDiff(rewriter, loc, softmax.getRunningMax(), shift);
    Value newSum = buildRowSum(
        rewriter, loc, probs,
        buildRowProduct(rewriter, loc, rescale, softmax.getRunningSum()));
    rewriter.replaceOp(op, ValueRange{probs, newMax, newSum, rescale});
    return success();
  }
  if (auto pv = dyn_cast<AccumulatePVOp>(op)) {
    // acc' = α·acc + round(P)·V.
    Value scaled = buildRowScale(rewriter, loc, pv.getAcc(), pv.getRescale());
    Type valueElement = pv.getValue().getType().getElementType();
    rewriter.replaceOp(op, buildAccumulatePV(rewriter, loc, pv.getProbs(),
                                             pv.getValue(), scaled,
                                             valueElement));
    return success();
  }
  if (auto rowDot = dyn_cast<RowDotOp>(op)) {
    // D_i = Σ_d dO_id · O_id.
    rewriter.replaceOp(
        op, buildRowDot(rewriter, loc, rowDot.getLhs(), rowDot.getRhs()));
    return success();
  }
  if (auto recompute = dyn_cast<RecomputeProbsOp>(op)) {
    // P = exp(S − LSE), 0 where LSE = −inf.
    rewriter.replaceOp(op, buildProbsFromLse(rewriter, loc,
                                             recompute.getScores(),
                                             recompute.getLse()));
    return success();
  }
  if (auto scoreGrad = dyn_cast<ScoreGradOp>(op)) {
    // dS = P ∘ (dP − D).
    rewriter.replaceOp(op, buildScoreGrad(rewriter, loc, scoreGrad.getProbs(),
                                          scoreGrad.getGradProbs(),
                                          scoreGrad.getDelta()));
    return success();
  }
  if (auto product = dyn_cast<AccumulateProductOp>(op)) {
    // acc' = acc + round(A)ᵀ·B or acc + round(A)·B, A rounded to B's type.
    Type rhsElement = product.getRhs().getType().getElementType();
    Value result =
        product.getTransposeLhs()
            ? buildAccumulateTransposed(rewriter, loc, product.getLhs(),
                                        product.getRhs(), product.getAcc(),
                                        rhsElement)
            : buildAccumulatePV(rewriter, loc, product.getLhs(),
                                product.getRhs(), product.getAcc(),
                                rhsElement);
    rewriter.replaceOp(op, result);
    return success();
  }
  if (auto fin = dyn_cast<FinalizeGradOp>(op)) {
    // T(scale · acc).
    rewriter.replaceOp(
        op, buildScaleConvert(rewriter, loc, fin.getAcc(),
                              fin.getScale().convertToFloat(),
                              fin.getResult().getType().getElementType()));
    return success();
  }
  if (auto fin = dyn_cast<FinalizeOp>(op)) {
    Type outElement = fin.getOutput().getType().getElementType();
    Value out = buildNormalize(rewriter, loc, fin.getAcc(),
                               fin.getRunningSum(), outElement);
    Value lse = buildLogSumExp(rewriter, loc, fin.getRunningMax(),
                               fin.getRunningSum());
    rewriter.replaceOp(op, ValueRange{out, lse});
    return success();
  }
  return success();
}

namespace {
struct FlashDecomposePass
    : flash::impl::FlashDecomposeBase<FlashDecomposePass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    bool sawAttention = false;
    getOperation()->walk([&](Operation *op) {
      if (isa<AttentionOp, AttentionBackwardOp, PagedAttentionOp>(op))
        sawAttention = true;
      if (isa<LoadTileOp, QKOp, MaskOp, OnlineSoftmaxOp, AccumulatePVOp,
              FinalizeOp, RowDotOp, RecomputeProbsOp, ScoreGradOp,
              AccumulateProductOp, FinalizeGradOp, LoadPagedTileOp,
              MergeSplitsOp>(op))
        ops.push_back(op);
    });
    if (sawAttention) {
      getOperation()->walk([](Operation *op) {
        if (isa<AttentionOp, AttentionBackwardOp, PagedAttentionOp>(op))
          op->emitOpError()
              << "must be tiled (flash-tile) before flash-decompose";
      });
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops)
      if (failed(decompose(rewriter, op)))
        return signalPassFailure();
  }
};
} // namespace
