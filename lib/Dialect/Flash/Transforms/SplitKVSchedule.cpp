//===- SplitKVSchedule.cpp - the split-KV schedule and its IO model -------===//
//
// Flash-Decoding: with few query rows, one block per (batch, q-head) leaves
// most SMs idle and reads each kv-head's K/V once per q-head of its group.
// The split-KV form packs the group's query rows into one Q tile (each K/V
// byte is read once per kv-head) and cuts the keys into parts computed by
// separate blocks and merged by their log-sum-exp. This file decides which
// flash.attention ops take that form, the tiles (those of the split-KV
// kernels, splitKVTileShape) and the workspace capacity (max_splits) from the
// target model, and counts its bytes for the IO report. How many parts a call
// uses is splitKVCount (Target/SplitKV.h).
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/Flash.h"
#include "flash/Dialect/Flash/Transforms/Schedule.h"
#include "flash/Dialect/Flash/Transforms/VisibleKV.h"
#include "flash/Target/SplitKV.h"

using namespace mlir;
using namespace mlir::flash;

FailureOr<PagedAttentionShape>
mlir::flash::getPagedAttentionShape(PagedAttentionOp op) {
  auto q = op.getQuery().getType(), k = op.getKeyCache().getType(),
       v = op.getValueCache().getType(), table = op.getBlockTable().getType();
  SmallVector<std::pair<StringRef, Type>> types = {
      {"query", q},
      {"key_cache", k},
      {"value_cache", v},
      {"block_table", table},
      {"seq_lens", op.getSeqLens().getType()},
      {"output", op.getOutput().getType()}};
  if (op.getLse())
    types.push_back({"lse", op.getLse().getType()});
  for (auto [name, type] : types) {
    if (!cast<RankedTensorType>(type).hasStaticShape())
      return op.emitOpError() << "not supported yet: dynamic dimensions ("
                              << name << " is " << type << ")";
  }
  for (auto [name, type] : types) {
    auto shaped = cast<RankedTensorType>(type);
    if (llvm::any_of(shaped.getShape(),
                     [](int64_t d) { return d > int64_t(INT32_MAX); }))
      return op.emitOpError()
             << "not supported yet: a dimension above 2^31 - 1 (" << name
             << " is " << type << ")";
    if (shaped.getNumElements() > (int64_t(1) << 48))
      return op.emitOpError() << "not supported yet: more than 2^48 elements ("
                              << name << " is " << type << ")";
  }
  PagedAttentionShape shape{};
  shape.batch = q.getShape()[0];
  shape.queryHeads = q.getShape()[1];
  shape.seqQ = q.getShape()[2];
  shape.headDim = q.getShape()[3];
  shape.numPages = k.getShape()[0];
  shape.pageSize = k.getShape()[1];
  shape.kvHeads = k.getShape()[2];
  shape.valueDim = v.getShape()[3];
  shape.pagesPerSequence = table.getShape()[1];
  shape.seqKV = shape.pagesPerSequence * shape.pageSize;
  if (shape.seqKV > int64_t(INT32_MAX))
    return op.emitOpError() << "not supported yet: a block table addressing "
                               "more than 2^31 - 1 keys per sequence ("
                            << shape.pagesPerSequence << " pages of "
                            << shape.pageSize << ")";
  shape.elementBytes = q.getElementType().getIntOrFloatBitWidth() / 8;
  shape.causal = op.getCausal();
  shape.hasLse = static_cast<bool>(op.getLse());
  return shape;
}

/// The Q tiles a target's kernels run with, smallest first, each with the
/// warps it takes (WarpMma: 16 rows per warp, so a tile of fewer rows than
/// its warps own is skipped).
static SmallVector<int64_t> validQTiles(const TargetModel &target) {
  SmallVector<int64_t> tiles;
  for (int64_t blockQ : scheduleCandidates(target).blockQs) {
    int64_t warps = warpsForQTile(target, blockQ);
    if (target.mmaKind == MmaKind::WarpMma && blockQ % (16 * warps) != 0)
      continue;
    tiles.push_back(blockQ);
  }
  llvm::sort(tiles);
  return tiles;
}

int64_t mlir::flash::splitKVRowLimit(const TargetModel &target) {
  SmallVector<int64_t> tiles = validQTiles(target);
  return tiles.empty() ? 0 : tiles.front();
}

bool mlir::flash::takesSplitKVForm(const TargetModel &target,
                                   const AttentionShape &shape) {
  int64_t rows = packedQueryRows(shape);
  return rows >= 1 && rows <= splitKVRowLimit(target);
}

std::optional<SplitKVScheduleChoice>
mlir::flash::chooseSplitKVSchedule(const TargetModel &target,
                                   const AttentionShape &shape) {
  // The split-KV kernels' tiles (Target/SplitKV.h): the CPU form cuts K/V
  // into the same tiles, row tiles and parts as the GPU kernels.
  SplitKVTileShape t =
      splitKVTileShape(packedQueryRows(shape), shape.headDim, shape.valueDim,
                       shape.elementBytes, target.sharedMemPerSM);
  if (t.sharedBytes > target.sharedMemPerBlock)
    return std::nullopt;
  return SplitKVScheduleChoice{{t.blockQ, t.blockKV, t.stages, t.warps},
                               target.numSMs};
}

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

SplitKVIOModel mlir::flash::computeSplitKVIOModel(const AttentionShape &shape,
                                                  const ScheduleChoice &tiles,
                                                  int64_t maxSplits,
                                                  int64_t numSMs,
                                                  int64_t sharedMemPerSM,
                                                  int64_t pageSize) {
  SplitKVIOModel m{};
  const int64_t e = shape.elementBytes;
  const int64_t rows = packedQueryRows(shape);
  const int64_t groups = shape.batch * shape.kvHeads;
  m.qTiles = ceilDiv(rows, tiles.blockQ);
  // The keys the packed rows see (all Nq queries: the last one sees the
  // whole sequence), read once per (kv-head, Q tile) over all splits, cut
  // into the parts the kernels and flash-tile cut them into (SplitKV.h).
  VisibleKVTiles<int64_t> visible = visibleKVTiles(
      0, shape.seqQ, shape.seqKV, shape.seqQ, tiles.blockKV, shape.causal);
  // An empty batch or query has no block and no split (splitKVCount needs
  // at least one work unit).
  IntegerDomain d;
  int64_t workUnits = splitKVWorkUnits(d, shape.batch, shape.kvHeads, m.qTiles);
  SplitKVCount<int64_t> split =
      workUnits ? splitKVCount(visible.numTiles, workUnits, numSMs, maxSplits,
                               splitKVKernelBlocksPerSM(
                                   tiles.blockQ, shape.headDim, shape.valueDim,
                                   shape.elementBytes, tiles.stages,
                                   sharedMemPerSM))
                : SplitKVCount<int64_t>{0, 1};
  m.splits = split.numSplits;
  m.tilesPerSplit = split.tilesPerSplit;
  m.splitBlocks = groups * m.qTiles * m.splits;
  m.bytesQ = shape.batch * shape.queryHeads * shape.seqQ * shape.headDim * e *
             m.splits;
  m.bytesKV = groups * m.qTiles * visible.kvEnd *
              (shape.headDim + shape.valueDim) * e;
  // Paged: each (kv-head, Q tile) reads the table entries of its keys; every
  // block of both stages reads its sequence's length.
  if (pageSize)
    m.bytesTable = groups * m.qTiles * ceilDiv(visible.kvEnd, pageSize) * 4 +
                   (m.splitBlocks + groups) * 4;
  m.bytesO = shape.batch * shape.queryHeads * shape.seqQ * shape.valueDim * e;
  m.bytesLse = shape.hasLse ? shape.batch * shape.queryHeads * shape.seqQ * 4
                            : 0;
  // Partial O (f32) and LSE of every split: written once, read once.
  m.bytesPartials = 2 * groups * m.splits * rows * (shape.valueDim + 1) * 4;
  m.bytes = m.bytesQ + m.bytesKV + m.bytesTable + m.bytesO + m.bytesLse +
            m.bytesPartials;
  m.forwardBytesKV = shape.batch * shape.queryHeads * visible.kvEnd *
                     (shape.headDim + shape.valueDim) * e;
  m.usefulFlops = computeIOModel(shape, tiles).usefulFlops;
  m.sharedBytes =
      sharedMemoryBytes(shape, tiles.blockQ, tiles.blockKV, tiles.stages);
  return m;
}
