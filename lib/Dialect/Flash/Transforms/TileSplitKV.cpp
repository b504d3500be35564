//===- TileSplitKV.cpp - the split-KV form of flash-tile (L0 -> L1) -------===//
//
// Flash-Decoding, target independent. With few query rows the work is
// reading K/V: the rows of the q-heads that share a kv-head are packed into
// one Q tile (row r is q-head h0 + r / Nq, query r mod Nq), so that each K/V
// byte is read once per kv-head, and the keys of each sequence are cut into
// parts computed in parallel and merged by their log-sum-exp:
//
//   split stage: forall (b, g, t, s) in B × Hkv × ceil(G·Nq/Br) × max_splits
//     Q packed: B×Hq×Nq×D viewed as B×Hkv×(G·Nq)×D     // in the loop body
//     len = Nk, or clamp(seq_lens[b], 0, M·S)          // paged: run time
//     the visible range of the Nq queries' rows (VisibleKV.h)
//     splits, tilesPerSplit = splitKVCount(its tiles,   // Target/SplitKV.h,
//                                 B·Hkv·ceil(G·Nq/Br), SMs, max_splits) // as the GPU
//     tiles [first, end) of split s of that range
//     Q_t = packed rows [t·Br, t·Br + Br) of kv-head g
//     online softmax over the split's K/V tiles (paged: read through the
//     block table, flash.load_paged_tile), masked by the length and the
//     per-row causal diagonal (flash.mask rows_per_head = Nq)
//     partial O (f32, normalised) and LSE of rows t·Br.. -> workspace[b, g, s]
//   merge stage: forall (b, g) in B × Hkv
//     O, LSE of kv-head g's rows = flash.merge_splits over the first
//     `splits` partials (splitKVCount again, from the same length; an empty
//     sequence has 0 splits: O = 0, LSE = -inf), unpacked into q-heads
//     [g·G, g·G + G) of the B×Hq×Nq×Dv (and B×Hq×Nq) results
//
// The packing and unpacking live in the loop bodies, so that the tiled
// function is the split loop and the merge loop over the op's operands, and
// the op's results are the merge loop's: the form flash-lower-to-nvgpu
// builds the split-KV kernels from (it reads the descriptor, not the
// bodies), and the one --flash-cpu-pipeline decomposes and runs. The tiles
// are the GPU kernels' (splitKVTileShape, Target/SplitKV.h), so both cut a
// sequence into the same parts.
//
// A split s >= splits has no tiles and writes (0, -inf); the merge never
// reads it. The split stage's scf.forall carries the #flash.kernel
// descriptor (kind split_kv or paged) and flash.stage = "split"; the merge's
// carries flash.stage = "merge" and reads the split stage's results. The
// workspace shapes are [B, Hkv, max_splits, G·Nq, Dv] (partial O, f32) and
// [B, Hkv, max_splits, G·Nq] (partial LSE, f32).
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/Transforms/TileSplitKV.h"
#include "flash/Dialect/Flash/IR/Flash.h"
#include "flash/Dialect/Flash/Transforms/AttentionMath.h"
#include "flash/Dialect/Flash/Transforms/IndexDomain.h"
#include "flash/Dialect/Flash/Transforms/Schedule.h"
#include "flash/Dialect/Flash/Transforms/SoftmaxLoop.h"
#include "flash/Dialect/Flash/Transforms/VisibleKV.h"
#include "flash/Target/SplitKV.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::flash;

namespace {
/// What a split-KV attention computes and where its K/V come from.
struct SplitKVProblem {
  Operation *op;
  AttentionShape shape; ///< seqKV: Nk, or M·S for a paged op
  Type elementType;
  Value query;
  Value key, value;  ///< B×Hkv×Nk×D tensors, or the P×S×Hkv×D caches
  Value blockTable;  ///< paged only
  Value seqLens;     ///< paged only
  int64_t pageSize;  ///< 0: contiguous
  float scale;
  ScheduleAttr schedule;
  int64_t numSMs;
  int64_t sharedMemPerSM; ///< the target's, for the blocks an SM
  RankedTensorType outType;
  RankedTensorType lseType; ///< null without LSE

  int64_t group() const { return shape.queryHeads / shape.kvHeads; }
  int64_t rows() const { return packedQueryRows(shape); }
  bool paged() const { return pageSize != 0; }
};

/// The values one iteration of the split stage works with.
struct SplitTile {
  Value batch, kvHead, qStart, qTile, length;
};

/// The length of sequence `batch` in keys: Nk, or seq_lens[batch] clamped
/// to [0, M·S] (a longer length is the caller's error).
Value sequenceLength(OpBuilder &b, Location loc, const SplitKVProblem &p,
                     Value batch) {
  if (!p.paged())
    return arith::ConstantIndexOp::create(b, loc, p.shape.seqKV);
  return buildSequenceLength(b, loc, p.seqLens, batch, p.shape.seqKV);
}

/// The K/V tiles the packed rows of a sequence of `length` keys visit (the
/// range of all Nq queries, VisibleKV.h) and the parts they are cut into:
/// splitKVCount of Target/SplitKV.h, the rule the GPU decode kernels
/// evaluate on device, with workUnits = B·Hkv·(Q tiles).
struct SequenceSplit {
  VisibleKVTiles<Value> visible;
  SplitKVCount<Value> parts;
};
SequenceSplit splitsOf(IndexDomain &d, const SplitKVProblem &p, Value length) {
  const int64_t blockQ = p.schedule.getBlockQ();
  const int64_t numQTiles = (p.rows() + blockQ - 1) / blockQ;
  VisibleKVTiles<Value> visible =
      visibleKVTiles(d, d.constant(0), d.constant(p.shape.seqQ), length,
                     p.shape.seqQ, p.schedule.getBlockKv(), p.shape.causal);
  Value workUnits =
      splitKVWorkUnits(d, d.constant(p.shape.batch),
                       d.constant(p.shape.kvHeads), d.constant(numQTiles));
  SplitKVCount<Value> parts =
      splitKVCount(d, visible.numTiles, workUnits, d.constant(p.numSMs),
                   p.schedule.getMaxSplits(),
                   splitKVKernelBlocksPerSM(
                       blockQ, p.shape.headDim, p.shape.valueDim,
                       p.shape.elementBytes, p.schedule.getStages(),
                       p.sharedMemPerSM));
  return {visible, parts};
}

/// One step of the K/V loop: S, optional mask, online softmax, P·V.
SoftmaxState buildStep(OpBuilder &b, Location loc, const SplitKVProblem &p,
                       const SplitTile &t, Value kvTileIndex,
                       const SoftmaxState &state, bool masked) {
  const AttentionShape &s = p.shape;
  const int64_t blockQ = p.schedule.getBlockQ(),
                blockKV = p.schedule.getBlockKv();
  Type f32 = b.getF32Type();
  Value kvStart = arith::MulIOp::create(
      b, loc, kvTileIndex, arith::ConstantIndexOp::create(b, loc, blockKV));
  auto load = [&](Value source, int64_t width) -> Value {
    auto tileType = RankedTensorType::get({blockKV, width}, p.elementType);
    if (p.paged())
      return LoadPagedTileOp::create(b, loc, tileType, source, p.blockTable,
                                     t.batch, t.kvHead, kvStart, t.length);
    return LoadTileOp::create(b, loc, tileType, source, t.batch, t.kvHead,
                              kvStart);
  };
  Value kTile = load(p.key, s.headDim);
  Value vTile = load(p.value, s.valueDim);
  auto scoreType = RankedTensorType::get({blockQ, blockKV}, f32);
  Value scores = QKOp::create(b, loc, scoreType, t.qTile, kTile,
                              b.getF32FloatAttr(p.scale));
  if (masked) {
    // Keys past the length, and (causal) keys above row i's diagonal
    // t > (i mod Nq) + len - Nq: the rows of several q-heads are packed.
    IntegerAttr rowsPerHead = b.getI64IntegerAttr(s.seqQ);
    if (p.paged()) {
      Value causalOffset;
      if (s.causal)
        causalOffset = arith::SubIOp::create(
            b, loc, t.length, arith::ConstantIndexOp::create(b, loc, s.seqQ));
      scores = MaskOp::create(b, loc, scoreType, scores, t.qStart, kvStart,
                              t.length, causalOffset, IntegerAttr(),
                              IntegerAttr(), rowsPerHead);
    } else {
      IntegerAttr causalOffset;
      if (s.causal)
        causalOffset = b.getI64IntegerAttr(s.seqKV - s.seqQ);
      scores = MaskOp::create(b, loc, scoreType, scores, t.qStart, kvStart,
                              Value(), Value(),
                              b.getI64IntegerAttr(s.seqKV), causalOffset,
                              rowsPerHead);
    }
  }
  return buildSoftmaxUpdate(b, loc, scores, vTile, state);
}

/// scf.for over K/V tiles [lb, ub) carrying the softmax state.
SoftmaxState buildLoop(OpBuilder &b, Location loc, const SplitKVProblem &p,
                       const SplitTile &t, Value lb, Value ub,
                       const SoftmaxState &init, bool masked) {
  return buildSoftmaxLoop(
      b, loc, lb, ub, init,
      [&](OpBuilder &nb, Location nloc, Value iv, const SoftmaxState &state) {
        return buildStep(nb, nloc, p, t, iv, state, masked);
      });
}

/// B×Hq×N×W -> B×Hkv×(G·N)×W: the rows of a kv-head's q-heads, packed.
Value packRows(OpBuilder &b, Location loc, Value t, int64_t kvHeads) {
  auto type = cast<RankedTensorType>(t.getType());
  ArrayRef<int64_t> s = type.getShape();
  int64_t group = s[1] / kvHeads;
  SmallVector<int64_t> split = {s[0], kvHeads, group};
  split.append(s.begin() + 2, s.end());
  // B, Hq, N, W.. -> B, Hkv, G, N, W.. -> B, Hkv, G·N, W..
  SmallVector<ReassociationIndices> splitHeads = {{0}, {1, 2}};
  SmallVector<ReassociationIndices> mergeRows = {{0}, {1}, {2, 3}};
  for (int64_t i = 2; i < type.getRank(); ++i)
    splitHeads.push_back({i + 1});
  for (int64_t i = 4; i <= type.getRank(); ++i)
    mergeRows.push_back({i});
  Value expanded = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(split, type.getElementType()), t,
      splitHeads);
  SmallVector<int64_t> packed = {s[0], kvHeads, group * s[2]};
  packed.append(s.begin() + 3, s.end());
  return tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get(packed, type.getElementType()), expanded,
      mergeRows);
}

/// The merged rows of kv-head g, (G·Nq)×W.. (or G·Nq), as the 1×G×Nq×W..
/// block of q-heads [g·G, g·G + G) of a B×Hq×Nq×W.. result (the inverse of
/// packRows for one kv-head).
Value unpackRows(OpBuilder &b, Location loc, Value rows, int64_t group,
                 int64_t seqQ) {
  auto type = cast<RankedTensorType>(rows.getType());
  SmallVector<int64_t> shape = {1, group, seqQ};
  SmallVector<ReassociationIndices> splitRows = {{0, 1, 2}};
  for (int64_t i = 1; i < type.getRank(); ++i) {
    shape.push_back(type.getShape()[i]);
    splitRows.push_back({i + 2});
  }
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), rows,
      splitRows);
}

LogicalResult tile(RewriterBase &rewriter, const SplitKVProblem &p,
                   KernelAttr descriptor) {
  const AttentionShape &s = p.shape;
  Operation *op = p.op;
  Location loc = op->getLoc();
  const int64_t blockQ = p.schedule.getBlockQ(),
                maxSplits = p.schedule.getMaxSplits();
  const int64_t rows = p.rows(), numQTiles = (rows + blockQ - 1) / blockQ;
  Type f32 = rewriter.getF32Type();
  rewriter.setInsertionPoint(op);
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  OpFoldResult one = rewriter.getIndexAttr(1), zero = rewriter.getIndexAttr(0);
  auto index = [&](int64_t v) -> OpFoldResult {
    return rewriter.getIndexAttr(v);
  };

  // The split stage: partial O and LSE of every (b, kv-head, split) into
  // the workspace.
  SmallVector<Value> workspaces = {
      tensor::EmptyOp::create(
          rewriter, loc,
          ArrayRef<int64_t>{s.batch, s.kvHeads, maxSplits, rows, s.valueDim},
          f32),
      tensor::EmptyOp::create(
          rewriter, loc,
          ArrayRef<int64_t>{s.batch, s.kvHeads, maxSplits, rows}, f32)};
  auto splitStage = scf::ForallOp::create(
      rewriter, loc,
      SmallVector<OpFoldResult>{index(s.batch), index(s.kvHeads),
                                index(numQTiles), index(maxSplits)},
      workspaces, /*mapping=*/std::nullopt);
  splitStage->setAttr(kKernelDescriptorAttrName, descriptor);
  splitStage->setAttr(kStageAttrName, rewriter.getStringAttr(kSplitStage));
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(splitStage.getTerminator());
    ValueRange ivs = splitStage.getInductionVars();
    Value batch = ivs[0], kvHead = ivs[1], qTileIndex = ivs[2],
          split = ivs[3];
    Value qStart = arith::MulIOp::create(rewriter, loc, qTileIndex, c(blockQ));
    // Q's rows packed by kv-head (a view: B×Hq×Nq×D as B×Hkv×(G·Nq)×D).
    Value packedQuery = packRows(rewriter, loc, p.query, s.kvHeads);
    Value qTile = LoadTileOp::create(
        rewriter, loc, RankedTensorType::get({blockQ, s.headDim}, p.elementType),
        packedQuery, batch, kvHead, qStart);
    Value length = sequenceLength(rewriter, loc, p, batch);

    // This split's K/V tiles: the range all Nq queries see (VisibleKV.h),
    // cut into the parts splitKVCount asks for.
    IndexDomain domain{rewriter, loc};
    SequenceSplit seq = splitsOf(domain, p, length);
    SplitKVTiles<Value> range = splitKVTiles(domain, seq.visible, split,
                                             seq.parts.tilesPerSplit);

    SplitTile t{batch, kvHead, qStart, qTile, length};
    SoftmaxState init =
        buildInitialSoftmaxState(rewriter, loc, blockQ, s.valueDim);
    SoftmaxState afterUnmasked =
        buildLoop(rewriter, loc, p, t, range.first, range.unmaskedEnd, init,
                  /*masked=*/false);
    SoftmaxState final = buildLoop(rewriter, loc, p, t, range.unmaskedEnd,
                                   range.end, afterUnmasked, /*masked=*/true);
    // Partial O stays in f32 (normalised by this split's l) for the merge.
    auto finalize = FinalizeOp::create(
        rewriter, loc, RankedTensorType::get({blockQ, s.valueDim}, f32),
        RankedTensorType::get({blockQ}, f32), final.acc, final.runningMax,
        final.runningSum);

    Value validRows = arith::MinSIOp::create(
        rewriter, loc, c(blockQ),
        arith::SubIOp::create(rewriter, loc, c(rows), qStart));
    Value outRows = tensor::ExtractSliceOp::create(
        rewriter, loc,
        RankedTensorType::get({ShapedType::kDynamic, s.valueDim}, f32),
        finalize.getOutput(), ArrayRef<OpFoldResult>{zero, zero},
        ArrayRef<OpFoldResult>{validRows, index(s.valueDim)},
        ArrayRef<OpFoldResult>{one, one});
    Value lseRows = tensor::ExtractSliceOp::create(
        rewriter, loc, RankedTensorType::get({ShapedType::kDynamic}, f32),
        finalize.getLse(), ArrayRef<OpFoldResult>{zero},
        ArrayRef<OpFoldResult>{validRows}, ArrayRef<OpFoldResult>{one});
    ValueRange shared = splitStage.getRegionIterArgs();
    rewriter.setInsertionPointToStart(splitStage.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(
        rewriter, loc, outRows, shared[0],
        ArrayRef<OpFoldResult>{batch, kvHead, split, qStart, zero},
        ArrayRef<OpFoldResult>{one, one, one, validRows, index(s.valueDim)},
        ArrayRef<OpFoldResult>{one, one, one, one, one});
    tensor::ParallelInsertSliceOp::create(
        rewriter, loc, lseRows, shared[1],
        ArrayRef<OpFoldResult>{batch, kvHead, split, qStart},
        ArrayRef<OpFoldResult>{one, one, one, validRows},
        ArrayRef<OpFoldResult>{one, one, one, one});
  }

  // The merge stage: O and LSE of every (b, kv-head) from its partials,
  // written into the rows of the kv-head's q-heads of the B×Hq×Nq(×Dv)
  // results.
  SmallVector<Value> outputs = {tensor::EmptyOp::create(
      rewriter, loc, p.outType.getShape(), p.elementType)};
  if (p.lseType)
    outputs.push_back(
        tensor::EmptyOp::create(rewriter, loc, p.lseType.getShape(), f32));
  auto mergeStage = scf::ForallOp::create(
      rewriter, loc,
      SmallVector<OpFoldResult>{index(s.batch), index(s.kvHeads)}, outputs,
      /*mapping=*/std::nullopt);
  mergeStage->setAttr(kStageAttrName, rewriter.getStringAttr(kMergeStage));
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(mergeStage.getTerminator());
    ValueRange ivs = mergeStage.getInductionVars();
    Value batch = ivs[0], kvHead = ivs[1];
    Value length = sequenceLength(rewriter, loc, p, batch);
    IndexDomain domain{rewriter, loc};
    SequenceSplit seq = splitsOf(domain, p, length);
    Value partialOut = tensor::ExtractSliceOp::create(
        rewriter, loc,
        RankedTensorType::get({maxSplits, rows, s.valueDim}, f32),
        splitStage.getResult(0),
        ArrayRef<OpFoldResult>{batch, kvHead, zero, zero, zero},
        ArrayRef<OpFoldResult>{one, one, index(maxSplits), index(rows),
                               index(s.valueDim)},
        ArrayRef<OpFoldResult>{one, one, one, one, one});
    Value partialLse = tensor::ExtractSliceOp::create(
        rewriter, loc, RankedTensorType::get({maxSplits, rows}, f32),
        splitStage.getResult(1),
        ArrayRef<OpFoldResult>{batch, kvHead, zero, zero},
        ArrayRef<OpFoldResult>{one, one, index(maxSplits), index(rows)},
        ArrayRef<OpFoldResult>{one, one, one, one});
    auto merge = MergeSplitsOp::create(
        rewriter, loc, RankedTensorType::get({rows, s.valueDim}, p.elementType),
        RankedTensorType::get({rows}, f32), partialOut, partialLse,
        seq.parts.numSplits);
    // Packed row r of kv-head g is q-head g·G + r / Nq, query r mod Nq.
    Value out = unpackRows(rewriter, loc, merge.getOutput(), p.group(), s.seqQ);
    Value lse = p.lseType ? unpackRows(rewriter, loc, merge.getLse(),
                                       p.group(), s.seqQ)
                          : Value();
    Value firstHead = arith::MulIOp::create(rewriter, loc, kvHead, c(p.group()));
    ValueRange shared = mergeStage.getRegionIterArgs();
    rewriter.setInsertionPointToStart(mergeStage.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(
        rewriter, loc, out, shared[0],
        ArrayRef<OpFoldResult>{batch, firstHead, zero, zero},
        ArrayRef<OpFoldResult>{one, index(p.group()), index(s.seqQ),
                               index(s.valueDim)},
        ArrayRef<OpFoldResult>{one, one, one, one});
    if (lse)
      tensor::ParallelInsertSliceOp::create(
          rewriter, loc, lse, shared[1],
          ArrayRef<OpFoldResult>{batch, firstHead, zero},
          ArrayRef<OpFoldResult>{one, index(p.group()), index(s.seqQ)},
          ArrayRef<OpFoldResult>{one, one, one});
  }

  rewriter.replaceOp(op, mergeStage.getResults());
  return success();
}

/// Sizes the split-KV loops cannot take (an empty batch or query).
LogicalResult checkTileable(Operation *op, const AttentionShape &s,
                            ScheduleAttr schedule, int64_t &numSMs,
                            int64_t &sharedMemPerSM) {
  if (s.batch < 1 || s.seqQ < 1)
    return op->emitOpError()
           << "not supported yet: split-KV of an empty batch or query (B = "
           << s.batch << ", Nq = " << s.seqQ << ")";
  const TargetModel *target = lookupTargetModel(schedule.getArch());
  if (!target)
    return op->emitOpError() << "unknown arch '" << schedule.getArch()
                             << "' in the schedule";
  numSMs = target->numSMs;
  sharedMemPerSM = target->sharedMemPerSM;
  return success();
}
} // namespace

LogicalResult mlir::flash::tileSplitKV(RewriterBase &rewriter,
                                       AttentionOp op) {
  FailureOr<AttentionShape> shape = getAttentionShape(op);
  if (failed(shape))
    return failure();
  ScheduleAttr schedule = op.getScheduleAttr();
  SplitKVProblem p{};
  if (failed(checkTileable(op, *shape, schedule, p.numSMs, p.sharedMemPerSM)))
    return failure();
  p.op = op;
  p.shape = *shape;
  p.elementType = op.getQuery().getType().getElementType();
  p.query = op.getQuery();
  p.key = op.getKey();
  p.value = op.getValue();
  p.pageSize = 0;
  p.scale = op.getEffectiveScale();
  p.schedule = schedule;
  p.outType = op.getOutput().getType();
  if (op.getLse())
    p.lseType = cast<RankedTensorType>(op.getLse().getType());
  return tile(rewriter, p,
              getSplitKVKernelDescriptor(op, *shape, schedule, 0, p.scale));
}

LogicalResult mlir::flash::tileSplitKV(RewriterBase &rewriter,
                                       PagedAttentionOp op) {
  FailureOr<PagedAttentionShape> shape = getPagedAttentionShape(op);
  if (failed(shape))
    return failure();
  ScheduleAttr schedule = op.getScheduleAttr();
  if (!schedule)
    return op.emitOpError()
           << "has no #flash.schedule; run flash-select-schedule first";
  SplitKVProblem p{};
  if (failed(checkTileable(op, *shape, schedule, p.numSMs, p.sharedMemPerSM)))
    return failure();
  p.op = op;
  p.shape = *shape;
  p.elementType = op.getQuery().getType().getElementType();
  p.query = op.getQuery();
  p.key = op.getKeyCache();
  p.value = op.getValueCache();
  p.blockTable = op.getBlockTable();
  p.seqLens = op.getSeqLens();
  p.pageSize = shape->pageSize;
  p.scale = op.getEffectiveScale();
  p.schedule = schedule;
  p.outType = op.getOutput().getType();
  if (op.getLse())
    p.lseType = cast<RankedTensorType>(op.getLse().getType());
  return tile(rewriter, p,
              getSplitKVKernelDescriptor(op, *shape, schedule, p.pageSize,
                                         p.scale));
}
