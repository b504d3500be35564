//===- TileScheduler.cpp - sm_90a Q-tile order and persistent grid --------===//
//
// The order of Q tiles (by head, or grouped across heads so that the last
// wave holds the shortest causal tiles), their decoding into coordinates,
// and the two loops of a persistent grid: the producer's, which draws tile
// numbers from a global counter, and the consumers', which read the numbers
// the producer publishes (TileScheduler.h).
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/SM90/TileScheduler.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::sm90;

Value TileScheduler::total(KernelMath &km) const {
  return km.mul(km.mul(numQTiles, queryHeads), batchSize);
}

TileScheduler sm90::makeTileScheduler(KernelMath &km, Value numQTiles,
                                      Value queryHeads, Value kvHeads,
                                      Value batchSize, int64_t blockQ,
                                      bool causal, int64_t tileGroupBytes,
                                      int64_t kvRowBytes,
                                      int64_t minGroupedQTiles, Value seqKV) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  TileScheduler s;
  s.numQTiles = numQTiles;
  s.queryHeads = queryHeads;
  s.kvHeads = kvHeads;
  s.batchSize = batchSize;
  s.blockQ = blockQ;
  s.longestFirst = causal;
  if (!causal || tileGroupBytes == 0)
    return s;
  s.heads = km.mul(batchSize, queryHeads);
  // Grouped: heads in groups of G whose K/V fit in tileGroupBytes; within
  // a group every head's longest Q tile goes first, then every head's next
  // longest, so that the last wave holds the shortest tiles of the last
  // group instead of a few heads' tiles of every length. Each K/V is read
  // from DRAM once, by the head's longest tile, and from L2 by the others.
  // That first pass reads Br flop per byte, below the machine's balance,
  // and its share of the work is about 2/(numQTiles + 1): a head with fewer
  // than minGroupedQTiles Q tiles keeps G = 1, the order by head, where its
  // tiles share each K/V load as they run side by side. (Grouping all heads
  // into one group balanced the grid but streamed each K/V from DRAM once
  // per Q tile: slower, as was grouping at N <= 1024, docs/benchmarks.md.)
  Value fits = km.divu(km.i32(tileGroupBytes / kvRowBytes),
                       arith::MaxUIOp::create(b, loc, seqKV, km.i32(1)));
  Value group = arith::MinUIOp::create(
      b, loc, arith::MaxUIOp::create(b, loc, fits, km.i32(1)), s.heads);
  s.tileGroup = arith::SelectOp::create(
      b, loc,
      km.cmp(arith::CmpIPredicate::uge, numQTiles, km.i32(minGroupedQTiles)),
      group, km.i32(1));
  return s;
}

TileCoords TileScheduler::decode(KernelMath &km, Value tile) const {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  // Head by head: tile = (batch·Hq + head)·numQTiles + q, so consecutive
  // tiles share a head's K/V in L2. Causal Q tiles further down the
  // sequence visit more K/V tiles: they go first (q reversed) so that short
  // ones fill the last wave.
  Value q, headIndex; // batch·Hq + head
  if (tileGroup) {
    // Grouped (makeTileScheduler): the group's first head, then the tile's
    // place in the group, q-major.
    Value groupTiles = km.mul(tileGroup, numQTiles);
    Value firstHead = km.mul(km.divu(tile, groupTiles), tileGroup);
    Value inGroup = arith::RemUIOp::create(b, loc, tile, groupTiles);
    // Only the last group may have fewer heads.
    Value width = arith::MinUIOp::create(b, loc, tileGroup,
                                         km.sub(heads, firstHead));
    q = km.divu(inGroup, width);
    headIndex =
        km.add(firstHead, arith::RemUIOp::create(b, loc, inGroup, width));
  } else {
    q = arith::RemUIOp::create(b, loc, tile, numQTiles);
    headIndex = km.divu(tile, numQTiles);
  }
  if (longestFirst)
    q = km.sub(km.sub(numQTiles, km.i32(1)), q);
  Value batch = km.divu(headIndex, queryHeads);
  Value qHead = arith::RemUIOp::create(b, loc, headIndex, queryHeads);
  Value kvHead = km.divu(qHead, km.divu(queryHeads, kvHeads));
  TileCoords coords;
  coords.headQ = headIndex; // TMA coordinate 2
  coords.headKV = km.add(km.mul(batch, kvHeads), kvHead);
  coords.batch = batch;
  coords.qHead = qHead;
  coords.kvHead = kvHead;
  coords.qStart = km.mul(q, km.i32(blockQ));
  return coords;
}

static Value asI32(KernelMath &km, Value index) {
  return arith::IndexCastUIOp::create(km.b, km.loc, km.b.getI32Type(), index);
}

Value sm90::blockTile(KernelMath &km, const TileScheduler &scheduler) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  Value x = asI32(km, gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value y = asI32(km, gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
  Value z = asI32(km, gpu::BlockIdOp::create(b, loc, gpu::Dimension::z));
  return km.add(
      km.mul(km.add(km.mul(z, scheduler.queryHeads), y), scheduler.numQTiles),
      x);
}

Value sm90::drawTiles(KernelMath &km, Value total, Value counter,
                      TileBody body) {
  // Tiles go out in order to whichever block frees up first, as the
  // hardware's block scheduler would hand out blocks, and the draw happens
  // after the body has issued the tile's loads, so that the next tile's
  // loads overlap this one's end.
  using P = arith::CmpIPredicate;
  OpBuilder &b = km.b;
  Location loc = km.loc;
  Type i32 = b.getI32Type();
  Value first = asI32(km, gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value blocks = asI32(km, gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
  // (tile, iteration, carry)
  auto loop = scf::WhileOp::create(b, loc, TypeRange{i32, i32, i32},
                                   ValueRange{first, km.i32(0), km.i32(0)});
  OpBuilder::InsertionGuard guard(b);
  Block *before = b.createBlock(&loop.getBefore(), {}, {i32, i32, i32},
                                {loc, loc, loc});
  scf::ConditionOp::create(b, loc,
                           km.cmp(P::ult, before->getArgument(0), total),
                           before->getArguments());
  Block *after = b.createBlock(&loop.getAfter(), {}, {i32, i32, i32},
                               {loc, loc, loc});
  Value tile = after->getArgument(0), iteration = after->getArgument(1);
  Value next = body(tile, iteration, after->getArgument(2));
  Value drawn = LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add,
                                          counter, km.i32(1),
                                          LLVM::AtomicOrdering::monotonic);
  auto last = scf::IfOp::create(
      b, loc, km.cmp(P::eq, drawn, km.sub(total, km.i32(1))), false);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(last.thenBlock()->getTerminator());
    LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::xchg, counter,
                              km.i32(0), LLVM::AtomicOrdering::monotonic);
  }
  scf::YieldOp::create(b, loc,
                       ValueRange{km.add(blocks, drawn),
                                  km.add(iteration, km.i32(1)), next});
  return loop.getResult(1);
}

void sm90::consumeTiles(KernelMath &km, Value total,
                        function_ref<Value(Value)> readTile, TileBody body) {
  using P = arith::CmpIPredicate;
  OpBuilder &b = km.b;
  Location loc = km.loc;
  Type i32 = b.getI32Type();
  // (iteration, carry) -> (tile, iteration, carry)
  auto loop = scf::WhileOp::create(b, loc, TypeRange{i32, i32, i32},
                                   ValueRange{km.i32(0), km.i32(0)});
  OpBuilder::InsertionGuard guard(b);
  Block *before =
      b.createBlock(&loop.getBefore(), {}, {i32, i32}, {loc, loc});
  Value iteration = before->getArgument(0);
  Value tile = readTile(iteration);
  scf::ConditionOp::create(b, loc, km.cmp(P::ult, tile, total),
                           ValueRange{tile, iteration,
                                      before->getArgument(1)});
  Block *after = b.createBlock(&loop.getAfter(), {}, {i32, i32, i32},
                               {loc, loc, loc});
  Value next = body(after->getArgument(0), after->getArgument(1),
                    after->getArgument(2));
  scf::YieldOp::create(
      b, loc, ValueRange{km.add(after->getArgument(1), km.i32(1)), next});
}

void sm90::publishTile(KernelMath &km, Value slot, Value tile) {
  LLVM::StoreOp::create(km.b, km.loc, tile, slot, /*alignment=*/4,
                        /*isVolatile=*/true);
}

Value sm90::readPublishedTile(KernelMath &km, Value slot) {
  return LLVM::LoadOp::create(km.b, km.loc, km.b.getI32Type(), slot,
                              /*alignment=*/4, /*isVolatile=*/true);
}
