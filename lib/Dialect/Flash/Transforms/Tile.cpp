//===- Tile.cpp - flash.attention into the FlashAttention loops (L0 -> L1) ===//
//
// The algorithm of the FlashAttention paper, target independent:
//
//   forall (b, h, t) in B × Hq × ceil(Nq/Br):          // one Q tile each
//     Q_t = rows [t·Br, t·Br + Br) of Q[b, h]          // zero past Nq
//     m = -inf, l = 0, acc = 0                          // O(Br) state
//     for each K/V tile j the Q tile can see:
//       S = scale · Q_t · K_jᵀ; mask S if the tile crosses the diagonal or
//       the end of the sequence;
//       m' = max(m, rowmax S); P = exp(S − m'); α = exp(m − m');
//       l = α·l + rowsum P; acc = α·acc + P·V_j; m = m'
//     O_t = acc / l; LSE_t = m + log l                  // valid rows only
//
// The K/V loop is split in two: tiles that no row of the Q tile needs
// masked (fully below the diagonal and inside the sequence) run without
// flash.mask; the rest (the diagonal band and the ragged tail) run with it.
// Tiles wholly above the diagonal are never visited. GQA reads kv-head
// h / (Hq/Hkv) directly.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/Flash.h"
#include "flash/Dialect/Flash/Transforms/AttentionMath.h"
#include "flash/Dialect/Flash/Transforms/IndexDomain.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"
#include "flash/Dialect/Flash/Transforms/Schedule.h"
#include "flash/Dialect/Flash/Transforms/TileSplitKV.h"
#include "flash/Dialect/Flash/Transforms/VisibleKV.h"

#include "mlir/IR/PatternMatch.h"

#include <limits>

namespace mlir {
namespace flash {
#define GEN_PASS_DEF_FLASHTILE
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"
} // namespace flash
} // namespace mlir

using namespace mlir;
using namespace mlir::flash;

namespace {
/// Index arithmetic on one builder and location.
struct IndexMath {
  OpBuilder &b;
  Location loc;
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value max(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivSIOp::create(b, loc, x, y); }
};

/// The online-softmax state carried by the K/V loop.
struct SoftmaxState {
  Value runningMax, runningSum, acc;
};

struct TileContext {
  mutable AttentionOp op;
  const AttentionShape &shape;
  int64_t blockQ, blockKV;
  Value batch, kvHead, qStart, qTile;
};

/// One step of the K/V loop: S, optional mask, online softmax, P·V.
SoftmaxState buildKVStep(OpBuilder &b, Location loc, const TileContext &ctx,
                         Value kvTileIndex, const SoftmaxState &state,
                         bool masked) {
  IndexMath im{b, loc};
  const AttentionShape &s = ctx.shape;
  Type elementType = ctx.op.getQuery().getType().getElementType();
  Type f32 = b.getF32Type();
  Value kvStart = im.mul(kvTileIndex, im.c(ctx.blockKV));
  auto kTile = LoadTileOp::create(
      b, loc, RankedTensorType::get({ctx.blockKV, s.headDim}, elementType),
      ctx.op.getKey(), ctx.batch, ctx.kvHead, kvStart);
  auto vTile = LoadTileOp::create(
      b, loc, RankedTensorType::get({ctx.blockKV, s.valueDim}, elementType),
      ctx.op.getValue(), ctx.batch, ctx.kvHead, kvStart);
  auto scoreType = RankedTensorType::get({ctx.blockQ, ctx.blockKV}, f32);
  Value scores = QKOp::create(b, loc, scoreType, ctx.qTile, kTile,
                              b.getF32FloatAttr(ctx.op.getEffectiveScale()));
  if (masked) {
    IntegerAttr causalOffset;
    if (s.causal)
      causalOffset = b.getI64IntegerAttr(s.seqKV - s.seqQ);
    scores = MaskOp::create(b, loc, scores, ctx.qStart, kvStart,
                            b.getI64IntegerAttr(s.seqKV), causalOffset);
  }
  auto rowType = RankedTensorType::get({ctx.blockQ}, f32);
  auto softmax = OnlineSoftmaxOp::create(b, loc, scoreType, rowType, rowType,
                                         rowType, scores, state.runningMax,
                                         state.runningSum);
  Value acc = AccumulatePVOp::create(b, loc, state.acc, softmax.getRescale(),
                                     softmax.getProbs(), vTile);
  return {softmax.getNewMax(), softmax.getNewSum(), acc};
}

/// scf.for over K/V tiles [lb, ub) carrying the softmax state.
SoftmaxState buildKVLoop(OpBuilder &b, Location loc, const TileContext &ctx,
                         Value lb, Value ub, const SoftmaxState &init,
                         bool masked) {
  IndexMath im{b, loc};
  auto loop = scf::ForOp::create(
      b, loc, lb, ub, im.c(1),
      ValueRange{init.runningMax, init.runningSum, init.acc},
      [&](OpBuilder &nb, Location nloc, Value iv, ValueRange args) {
        SoftmaxState next = buildKVStep(nb, nloc, ctx, iv,
                                        {args[0], args[1], args[2]}, masked);
        scf::YieldOp::create(
            nb, nloc, ValueRange{next.runningMax, next.runningSum, next.acc});
      });
  return {loop.getResult(0), loop.getResult(1), loop.getResult(2)};
}

LogicalResult tileAttention(RewriterBase &rewriter, AttentionOp op) {
  FailureOr<AttentionShape> shapeOr = getAttentionShape(op);
  if (failed(shapeOr))
    return failure();
  const AttentionShape &s = *shapeOr;
  ScheduleAttr schedule = op.getScheduleAttr();
  if (!schedule)
    return op.emitOpError()
           << "has no #flash.schedule; run flash-select-schedule first";
  const int64_t blockQ = schedule.getBlockQ(), blockKV = schedule.getBlockKv();
  Location loc = op.getLoc();
  Type elementType = op.getQuery().getType().getElementType();
  Type f32 = rewriter.getF32Type();
  rewriter.setInsertionPoint(op);

  // Outputs of the parallel loop: O and, when asked for, LSE.
  SmallVector<Value> outputs = {tensor::EmptyOp::create(
      rewriter, loc, op.getOutput().getType().getShape(), elementType)};
  if (op.getLse())
    outputs.push_back(tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{s.batch, s.queryHeads, s.seqQ}, f32));
  int64_t numQTiles = (s.seqQ + blockQ - 1) / blockQ;
  SmallVector<OpFoldResult> upperBounds = {rewriter.getIndexAttr(s.batch),
                                           rewriter.getIndexAttr(s.queryHeads),
                                           rewriter.getIndexAttr(numQTiles)};
  auto forall = scf::ForallOp::create(rewriter, loc, upperBounds, outputs,
                                      /*mapping=*/std::nullopt);
  // The typed contract with the GPU lowering: what this loop nest computes.
  forall->setAttr(kKernelDescriptorAttrName,
                  getForwardKernelDescriptor(op, s, schedule));

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(forall.getTerminator());
  IndexMath im{rewriter, loc};
  ValueRange ivs = forall.getInductionVars();
  Value batch = ivs[0], qHead = ivs[1], qTileIndex = ivs[2];
  Value qStart = im.mul(qTileIndex, im.c(blockQ));
  // GQA: the kv-head this q-head reads, without copying K or V.
  Value kvHead = im.div(qHead, im.c(s.queryHeads / s.kvHeads));
  Value qTile = LoadTileOp::create(
      rewriter, loc, RankedTensorType::get({blockQ, s.headDim}, elementType),
      op.getQuery(), batch, qHead, qStart);

  // Which K/V tiles this Q tile visits, and which of them need no mask:
  // the visible-range model of VisibleKV.h on index values.
  IndexDomain domain{rewriter, loc};
  VisibleKVTiles<Value> visible =
      visibleKVTiles(domain, qStart, im.c(s.seqQ), im.c(s.seqKV), blockQ,
                     blockKV, s.causal);
  Value numKV = visible.numTiles, numUnmasked = visible.numUnmasked;

  TileContext ctx{op, s, blockQ, blockKV, batch, kvHead, qStart, qTile};
  SoftmaxState init{
      buildFilled(rewriter, loc, {blockQ}, f32,
                  -std::numeric_limits<double>::infinity()),
      buildFilled(rewriter, loc, {blockQ}, f32, 0.0),
      buildFilled(rewriter, loc, {blockQ, s.valueDim}, f32, 0.0)};
  SoftmaxState afterUnmasked =
      buildKVLoop(rewriter, loc, ctx, im.c(0), numUnmasked, init,
                  /*masked=*/false);
  SoftmaxState final = buildKVLoop(rewriter, loc, ctx, numUnmasked, numKV,
                                   afterUnmasked, /*masked=*/true);

  auto finalize = FinalizeOp::create(
      rewriter, loc, RankedTensorType::get({blockQ, s.valueDim}, elementType),
      RankedTensorType::get({blockQ}, f32), final.acc, final.runningMax,
      final.runningSum);

  // Write back the rows of the tile that exist (the last tile may be short).
  Value validRows = im.min(im.c(blockQ), im.sub(im.c(s.seqQ), qStart));
  OpFoldResult one = rewriter.getIndexAttr(1), zero = rewriter.getIndexAttr(0);
  Value outRows = tensor::ExtractSliceOp::create(
      rewriter, loc,
      RankedTensorType::get({ShapedType::kDynamic, s.valueDim}, elementType),
      finalize.getOutput(), ArrayRef<OpFoldResult>{zero, zero},
      ArrayRef<OpFoldResult>{validRows, rewriter.getIndexAttr(s.valueDim)},
      ArrayRef<OpFoldResult>{one, one});
  Value lseRows;
  if (op.getLse())
    lseRows = tensor::ExtractSliceOp::create(
        rewriter, loc, RankedTensorType::get({ShapedType::kDynamic}, f32),
        finalize.getLse(), ArrayRef<OpFoldResult>{zero},
        ArrayRef<OpFoldResult>{validRows}, ArrayRef<OpFoldResult>{one});

  ValueRange sharedOuts = forall.getRegionIterArgs();
  rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(
      rewriter, loc, outRows, sharedOuts[0],
      ArrayRef<OpFoldResult>{batch, qHead, qStart, zero},
      ArrayRef<OpFoldResult>{one, one, validRows,
                             rewriter.getIndexAttr(s.valueDim)},
      ArrayRef<OpFoldResult>{one, one, one, one});
  if (op.getLse())
    tensor::ParallelInsertSliceOp::create(
        rewriter, loc, lseRows, sharedOuts[1],
        ArrayRef<OpFoldResult>{batch, qHead, qStart},
        ArrayRef<OpFoldResult>{one, one, validRows},
        ArrayRef<OpFoldResult>{one, one, one});

  rewriter.replaceOp(op, forall.getResults());
  return success();
}

struct FlashTilePass : flash::impl::FlashTileBase<FlashTilePass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<AttentionOp, PagedAttentionOp>(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops) {
      LogicalResult tiled = failure();
      if (auto paged = dyn_cast<PagedAttentionOp>(op)) {
        tiled = tileSplitKV(rewriter, paged);
      } else {
        auto attention = cast<AttentionOp>(op);
        ScheduleAttr schedule = attention.getScheduleAttr();
        // A split-KV schedule (few query rows): Flash-Decoding.
        tiled = schedule && schedule.isSplitKV()
                    ? tileSplitKV(rewriter, attention)
                    : tileAttention(rewriter, attention);
      }
      if (failed(tiled))
        return signalPassFailure();
    }
  }
};
} // namespace
