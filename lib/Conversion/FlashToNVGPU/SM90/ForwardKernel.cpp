//===- ForwardKernel.cpp - the sm_90a forward attention kernel ------------===//
//
// A FlashAttention-3 style forward kernel for sm_90a, composed of the
// Hopper building blocks of this folder (SharedLayout, Barriers, TMA, WGMMA,
// TileScheduler, Warpgroups, Epilogue):
// - one thread block per Q tile of Br = 64·C rows of one (batch, q-head), or
//   a persistent grid whose blocks draw tiles from a counter
//   (TileScheduler): warpgroup 0 is the producer, warpgroups 1..C the
//   consumers (64 rows each); setmaxnreg moves registers from the producer
//   to the consumers;
// - the producer's first thread loads Q once and K/V tiles into `stages`
//   shared-memory slots with TMA, completing on "full" mbarriers
//   (expect_tx); consumers release a slot on its "empty" mbarrier. Tensor
//   maps are rank 3, (D, N, B·H), so a box that runs past the end of a
//   head's sequence is zero-filled by the TMA unit: ragged tails cost
//   nothing;
// - S = Q·Kᵀ on wgmma SS m64nBc k16; O += P·V on wgmma RS with P in
//   registers (the accumulator layout of S packed to 16-bit pairs is
//   wgmma's A-fragment layout);
// - FA3's intra-warpgroup pipelining: the GEMM of tile j+1 is issued before
//   the softmax of tile j, which then runs while the tensor cores work; and
//   ping-pong: the consumers take turns issuing GEMMs (named barriers);
// - the mask, online softmax and epilogue math are KernelBuilder.cpp's, the
//   same code as sm_80. O leaves through shared memory (over the consumer's
//   own Q rows, or in a slot of the K/V ring when a persistent block has one
//   Q buffer) and TMA stores.
// What is this kernel's own is the protocol: which barrier guards what, the
// K/V ring position carried across tiles, the tile pipeline of a
// persistent consumer, per-warpgroup K/V ranges. The op order here decides
// the PTX: keep it when changing the structure.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"
#include "flash/Conversion/FlashToNVGPU/SM90/Barriers.h"
#include "flash/Conversion/FlashToNVGPU/SM90/Epilogue.h"
#include "flash/Conversion/FlashToNVGPU/SM90/SharedLayout.h"
#include "flash/Conversion/FlashToNVGPU/SM90/TMA.h"
#include "flash/Conversion/FlashToNVGPU/SM90/TileScheduler.h"
#include "flash/Conversion/FlashToNVGPU/SM90/WGMMA.h"
#include "flash/Conversion/FlashToNVGPU/SM90/Warpgroups.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::sm90;

namespace {

/// What a role knows of the tile it works on (set by decodeTile and
/// beginConsumerTile). The pipelined consumer keeps two of them alive: the
/// tile whose O it stores and the next one.
struct TileState {
  TileCoords at;
  KVRange range;
  // warpgroupRanges: the tile counts of consumers 0..C-2's own rows (the
  // last one's are the block's). `own`: the K/V range the calling consumer
  // visits, the block's but (warpgroupRanges) for its own tile count.
  SmallVector<Value> groupTiles;
  KVRange own;
  // consumer side
  Value qBuffer, descQ, rowBase;
  Value outputStage; // outputInRing: the K/V slot this tile's O is staged in
};

/// The online-softmax state after a tile's K/V loops.
struct Finished {
  Fragment acc;
  SmallVector<Value> max, sum;
};

class ForwardKernel {
public:
  ForwardKernel(OpBuilder &b, Location loc, const KernelConfig &config)
      : b(b), loc(loc), km{b, loc}, config(config), layout(config),
        et(config.elementType), D(config.headDim), Br(config.blockQ),
        Bc(config.blockKV), S(config.stages), C(config.sm90.consumers) {}

  void build(LLVM::LLVMFuncOp func);

private:
  // --- the tile protocol --------------------------------------------------
  /// Consumers of a persistent grid: waits for the Q buffer of the block's
  /// tile number `iteration` (armed after the producer publishes the tile
  /// index, or the end marker) and reads the index.
  Value readTileIndex(Value iteration);
  /// Sets tile.at, tile.range (and the warpgroup tile counts) for `tile`.
  void decodeTile(Value tileNumber);
  /// Producer: waits until the Q buffer of tile number `iteration` is free;
  /// returns the buffer.
  Value acquireQBuffer(Value iteration);
  /// warpgroupRanges: how many of consumers 0..C-2 skip K/V tile j, the
  /// ones whose tile count (in `tiles`) is at most j.
  Value skippersOf(Value j, ArrayRef<Value> tiles);
  /// How many K/V tiles rows [firstRow, firstRow + 64) see, at least one
  /// when the block has any (so that every warpgroup runs the prologue).
  Value rowsTileCount(Value firstRow);
  /// The ring position just after the K/V tiles of a tile that started at
  /// `kvCount`: with outputInRing, the slot its O is staged in.
  Value outputSlot(Value kvCount) {
    return km.add(kvCount, tile.range.numTiles);
  }
  /// The ring position the next tile starts at: past the K/V tiles, and past
  /// the O slot with outputInRing.
  Value ringAfterTile(Value kvCount) {
    Value next = outputSlot(kvCount);
    return config.sm90.outputInRing ? km.add(next, km.i32(1)) : next;
  }

  // --- roles ----------------------------------------------------------------
  void buildProducer();
  void buildConsumer();
  /// Consumers of persistent grids with two Q buffers (or one, with O in the
  /// K/V ring) issue the next tile's first Q·Kᵀ before they store this
  /// tile's O, so that the two overlap.
  void buildPipelinedConsumer();

  // --- consumer pieces ------------------------------------------------------
  /// S = Q·K_sᵀ for this consumer's 64 rows (uncommitted).
  Fragment scoresOf(Value stage);
  /// acc + P·V_s (uncommitted).
  Fragment accumulate(const Fragment &acc, ArrayRef<Value> probWords,
                      Value stage);
  /// rescale=lazy-late: the loops carry each tile's α to just before the
  /// next P·V (after the next Q·Kᵀ is issued), where a warp skips it if it
  /// can; the others apply it after the P·V they follow.
  bool lateRescale() const {
    return config.rescale == KernelConfig::Rescale::LazyLate;
  }
  /// Sets rowBase, qBuffer and descQ for the block's tile number
  /// `tileIteration` (after decodeTile) and waits for its Q.
  void beginConsumerTile(Value tileIteration);
  /// The online-softmax state after K/V tile 0: (m, l) of the thread's two
  /// rows and P as packed 16-bit pairs.
  SmallVector<Type> prologueTypes();
  SmallVector<Value> emptyPrologue();
  SmallVector<Value> packProbs(const SoftmaxStep &step);
  /// Issues S_0 = Q·K_0ᵀ (ring position kvCount) in a ping-pong turn.
  Fragment issueFirstScores(Value kvCount);
  /// Waits for S_0, releases K_0, masks, softmax: the prologue state.
  SmallVector<Value> finishFirstScores(Fragment scores, Value kvCount);
  /// Both halves under scf.if(cond); the empty state otherwise.
  SmallVector<Value> buildPrologue(Value kvCount, Value cond);
  /// The K/V loops after the prologue and the last P·V.
  Finished buildMainLoop(ArrayRef<Value> prologue, Value kvCount);
  /// O = acc / l as packed pairs (and the LSE, stored to global memory).
  SmallVector<OutputWord> normalizeOutput(Finished done);
  /// O through shared memory and TMA stores; releases the Q buffer, or with
  /// outputInRing the K/V slot at ring position `slot` (kvCount + tiles).
  void storeOutput(ArrayRef<OutputWord> words, Value slot);
  /// The three steps of storeOutput: O into this warpgroup's boxes
  /// (outputBox); the proxy fence, the warpgroup barrier and the leader's
  /// TMA stores; and the leader's wait for the stores to have read the
  /// boxes, which releases the Q buffer (or the K/V slot). The pipelined
  /// consumer runs the next tile's first softmax between the last two, so
  /// that no warp of the warpgroup waits for the TMA unit's read there.
  void stageOutput(ArrayRef<OutputWord> words, Value slot);
  void publishOutput();
  void releaseOutput();
  /// Byte offset of this consumer warpgroup's box of O for column block
  /// `block`: over its own 64 rows of the Q buffer, or (outputInRing) box
  /// consumer·D/64 + block of the slot's K half, then its V half.
  Value outputBox(int64_t block);

  OpBuilder &b;
  Location loc;
  KernelMath km;
  const KernelConfig &config;
  SharedLayout layout;
  Type et;
  int64_t D, Br, Bc, S, C;

  // Kernel-wide values.
  Value tid, seqQ, seqKV, scale, scaleLog2e;
  Value queryHeads, kvHeads, batchSize, numQTiles;
  Value tensorMapQ, tensorMapK, tensorMapV, tensorMapO, lsePtr, counterPtr;
  SharedBase smem;
  TileScheduler scheduler;
  // Consumer-wide values.
  Value consumer, warpInGroup;
  LaneCoords coords;
  PingPong pingPong;
  // The tile being worked on.
  TileState tile;
};
} // namespace

Value ForwardKernel::readTileIndex(Value iteration) {
  auto [buffer, use] = layout.qFull.slotOf(km, iteration);
  layout.qFull.waitComplete(km, smem, {buffer, use});
  return readPublishedTile(km, layout.tileSlot(km, smem, buffer));
}

Fragment ForwardKernel::scoresOf(Value stage) {
  Value kTile = layout.kvSlotOffset(km, layout.offK, stage);
  Value descK0 = wgmmaDescriptor(km, smem, kTile, /*leadingBytes=*/16);
  // Both operands K-major: Q's column blocks of Br rows, K's of Bc.
  return wgmmaSS(km, et, tile.descQ, /*aBlockRows=*/Br, descK0,
                 /*bBlockRows=*/Bc, /*n=*/Bc, /*k=*/D);
}

Fragment ForwardKernel::accumulate(const Fragment &acc,
                                   ArrayRef<Value> probWords, Value stage) {
  Value vTile = layout.kvSlotOffset(km, layout.offV, stage);
  // V is the transposed (MN-major) B operand: the leading byte offset steps
  // to the next 64-column block, the stride offset to the next 8 keys.
  Value descV0 =
      wgmmaDescriptor(km, smem, vTile, /*leadingBytes=*/Bc * kSwizzleBytes);
  return wgmmaRS(km, et, acc, probWords, descV0, /*n=*/D, /*k=*/Bc);
}

Value ForwardKernel::skippersOf(Value j, ArrayRef<Value> tiles) {
  Value count = km.i32(0);
  for (Value t : tiles)
    count = km.add(count, arith::ExtUIOp::create(
                              b, loc, b.getI32Type(),
                              km.cmp(arith::CmpIPredicate::sge, j, t)));
  return count;
}

Value ForwardKernel::rowsTileCount(Value firstRow) {
  Value tiles =
      buildKVRange(km, firstRow, seqQ, seqKV, 64, Bc, config.causal).numTiles;
  Value blockHasTiles =
      km.cmp(arith::CmpIPredicate::sgt, tile.range.numTiles, km.i32(0));
  return km.select(blockHasTiles, km.maxsi(tiles, km.i32(1)), km.i32(0));
}

void ForwardKernel::decodeTile(Value tileNumber) {
  tile.at = scheduler.decode(km, tileNumber);
  // Producer and consumers compute the same K/V range.
  tile.range = buildKVRange(km, tile.at.qStart, seqQ, seqKV, Br, Bc,
                            config.causal);
  tile.own = tile.range;
  tile.groupTiles.clear();
  if (config.sm90.warpgroupRanges)
    for (int64_t c = 0; c + 1 < C; ++c)
      tile.groupTiles.push_back(
          rowsTileCount(km.add(tile.at.qStart, km.i32(64 * c))));
}

Value ForwardKernel::acquireQBuffer(Value iteration) {
  // The buffer is free once every consumer warpgroup's TMA store of the O
  // it staged there for the tile that used it before has read it (use n-1
  // arrived on emptyQ with parity (n-1) & 1: releasedParity's value,
  // written as it always was here).
  auto [buffer, use] = layout.qFull.slotOf(km, iteration);
  auto reused = scf::IfOp::create(
      b, loc, km.cmp(arith::CmpIPredicate::sgt, use, km.i32(0)), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(reused.thenBlock()->getTerminator());
  mbarrierWait(km, layout.qEmpty.address(km, smem, buffer),
               km.andi(km.sub(use, km.i32(1)), km.i32(1)));
  return buffer;
}

void ForwardKernel::buildProducer() {
  using P = arith::CmpIPredicate;
  setRegisterBudget(km, config.sm90.producerRegisters, /*increase=*/false);
  auto firstThread =
      scf::IfOp::create(b, loc, km.cmp(P::eq, tid, km.i32(0)), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(firstThread.thenBlock()->getTerminator());
  auto body = [&](Value tileNumber, Value iteration, Value kvCount) -> Value {
    // With one Q buffer, each tile reads the shared-memory base afresh: LLVM
    // otherwise hoists Q's TMA destination addresses out of the tile loop,
    // and the producer's 24 registers spill (D=256: 8 bytes).
    SharedBase outer = smem;
    if (config.sm90.persistent && config.sm90.qBuffers == 1)
      smem = reloadSharedBase(km);
    decodeTile(tileNumber);
    Value buffer = acquireQBuffer(iteration);
    if (config.sm90.persistent) // the consumers read it after waiting on qFull
      publishTile(km, layout.tileSlot(km, smem, buffer), tileNumber);
    // Q full: the producer's one arrival with Q's bytes.
    Value barQ = layout.qFull.address(km, smem, buffer);
    mbarrierExpectTx(km, barQ, layout.qBytes);
    tmaLoadTile(km, smem, TmaBox{tensorMapQ, Br, D}, barQ,
                layout.qBufferOffset(km, buffer), tile.at.qStart,
                tile.at.mapQ(config.sm90.batchMaps));

    auto loop =
        scf::ForOp::create(b, loc, km.i32(0), tile.range.numTiles, km.i32(1));
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value j = loop.getInductionVar();
    Value ring = km.add(kvCount, j); // position in the ring of stages
    auto [stage, use] = layout.kFull.slotOf(km, ring);
    Value reused = km.cmp(P::sge, ring, km.i32(S));
    // The consumers released use n-1 of this slot with parity (n-1) & 1.
    Value previousParity = releasedParity(km, use);
    Value kvStart = km.mul(j, km.i32(Bc));
    // Release the tile for the warpgroups whose rows see none of it (j >=
    // their tile count), 128 arrivals each: the slot's previous use is
    // released (refillKVSlot's wait), so these arrivals count towards this
    // use.
    auto releaseForSkippers = [&, stage = stage](const RingHalf &half) {
      Value skipping = skippersOf(j, tile.groupTiles);
      auto ifSkipped = scf::IfOp::create(
          b, loc, km.cmp(P::sgt, skipping, km.i32(0)), false);
      OpBuilder::InsertionGuard innermost(b);
      b.setInsertionPoint(ifSkipped.thenBlock()->getTerminator());
      mbarrierArriveCount(km, half.empty.address(km, smem, stage),
                          km.mul(skipping, km.i32(128)));
    };
    refillKVSlot(km, smem,
                 {RingHalf{layout.kEmpty, layout.kFull, tensorMapK, layout.offK},
                  RingHalf{layout.vEmpty, layout.vFull, tensorMapV,
                           layout.offV}},
                 Bc, D, layout.kvBytes, stage, reused, previousParity, kvStart,
                 tile.at.mapKV(config.sm90.batchMaps),
                 config.sm90.warpgroupRanges
                     ? function_ref<void(const RingHalf &)>(releaseForSkippers)
                     : function_ref<void(const RingHalf &)>());
    b.setInsertionPointAfter(loop);
    if (config.sm90.outputInRing) {
      // The slot after the tile's K/V tiles holds its O: once the consumers
      // have released the slot's previous use, arrive on its full barriers
      // with no bytes (fullV too, so that the slot's phases stay in step).
      Value slot = outputSlot(kvCount);
      auto [stage, use] = layout.kFull.slotOf(km, slot);
      auto ifReused = scf::IfOp::create(b, loc, km.cmp(P::sge, slot, km.i32(S)),
                                        false);
      {
        OpBuilder::InsertionGuard innermost(b);
        b.setInsertionPoint(ifReused.thenBlock()->getTerminator());
        Value previousParity = releasedParity(km, use);
        mbarrierWait(km, layout.kEmpty.address(km, smem, stage),
                     previousParity);
        mbarrierWait(km, layout.vEmpty.address(km, smem, stage),
                     previousParity);
      }
      layout.kFull.arrive(km, smem, stage);
      layout.vFull.arrive(km, smem, stage);
    }
    smem = outer;
    return ringAfterTile(kvCount);
  };
  if (!config.sm90.persistent) {
    // One tile per block, straight-line: no loop around the K/V loops, so
    // the kernel is the same as before persistence existed (a one-trip
    // scf.for around them measured 608 against 659 and 631 TFLOP/s at D=128
    // N=8k: inside the run-to-run spread, docs/benchmarks.md).
    Value tileNumber = blockTile(km, scheduler);
    body(tileNumber, km.i32(0), km.i32(0));
    return;
  }
  // Persistent: the producer publishes each tile index in shared memory
  // before it arms the Q barrier; the consumers read it after waiting on
  // that barrier; an index >= total ends both loops.
  Value total = scheduler.total(km);
  Value iterations = drawTiles(km, total, counterPtr, body);
  // Tell the consumers there is no next tile: an index past the end,
  // published like a tile's.
  Value buffer = acquireQBuffer(iterations);
  publishTile(km, layout.tileSlot(km, smem, buffer), total);
  layout.qFull.arrive(km, smem, buffer);
}

void ForwardKernel::buildConsumer() {
  setRegisterBudget(km, config.sm90.consumerRegisters, /*increase=*/true);
  Value warpgroup = km.shru(tid, km.i32(7));
  consumer = km.sub(warpgroup, km.i32(1));
  Value localTid = km.andi(tid, km.i32(127));
  warpInGroup = km.shru(localTid, km.i32(5));
  Value lane = km.andi(tid, km.i32(31));
  coords = {km.shru(lane, km.i32(2)), km.andi(lane, km.i32(3))};
  pingPong = PingPong{config.sm90.pingPong, consumer, C};
  pingPong.start(km);
  if (config.sm90.pipelinesTiles()) {
    // After setmaxnreg: ptxas spills values that are live across it when
    // registers are tight (the pipelined consumer at D=128 did, 4 bytes).
    smem = reloadSharedBase(km);
    buildPipelinedConsumer();
    return;
  }
  auto body = [&](Value tileNumber, Value iteration, Value kvCount) -> Value {
    decodeTile(tileNumber);
    beginConsumerTile(iteration);
    SmallVector<Value> state = buildPrologue(
        kvCount, km.cmp(arith::CmpIPredicate::sgt, tile.range.numTiles,
                        km.i32(0)));
    storeOutput(normalizeOutput(buildMainLoop(state, kvCount)),
                outputSlot(kvCount));
    return ringAfterTile(kvCount);
  };
  if (!config.sm90.persistent) {
    Value tileNumber = blockTile(km, scheduler);
    body(tileNumber, km.i32(0), km.i32(0));
    return;
  }
  Value total = scheduler.total(km);
  consumeTiles(
      km, total, [&](Value iteration) { return readTileIndex(iteration); },
      body);
}

void ForwardKernel::beginConsumerTile(Value tileIteration) {
  // First row (in the sequence) of this warp's 16 rows.
  tile.rowBase =
      km.add(tile.at.qStart, km.add(km.mul(consumer, km.i32(64)),
                                    km.mul(warpInGroup, km.i32(16))));
  // warpgroupRanges: this warpgroup's tile count. Its numUnmasked stays the
  // block's (a later warpgroup's own is larger): one more live value in the
  // K/V loops spilled at D = 256 (128x80: 44 bytes).
  if (config.sm90.warpgroupRanges)
    tile.own.numTiles =
        rowsTileCount(km.add(tile.at.qStart, km.mul(consumer, km.i32(64))));
  auto [buffer, use] = layout.qFull.slotOf(km, tileIteration);
  tile.qBuffer = buffer;
  // (In a persistent grid the tile loop has already waited on this phase to
  // read the tile index; the second wait returns at once.)
  layout.qFull.waitComplete(km, smem, {tile.qBuffer, use});
  // This consumer's 64 rows of Q within each column block.
  tile.descQ = wgmmaDescriptor(
      km, smem,
      km.add(layout.qBufferOffset(km, tile.qBuffer),
             km.mul(consumer, km.i32(64 * kSwizzleBytes))),
      /*leadingBytes=*/16);
}

SmallVector<Value> ForwardKernel::packProbs(const SoftmaxStep &step) {
  SmallVector<Value> words;
  Type i32 = b.getI32Type();
  // A fragment of k-slice kk = C fragments of column tiles 2kk, 2kk+1.
  for (int64_t kk = 0; kk < Bc / 16; ++kk)
    for (int64_t nt : {2 * kk, 2 * kk + 1})
      for (int64_t half = 0; half < 2; ++half) {
        Value pair = step.probs[nt * 2 + half];
        Value word = vector::BitCastOp::create(
            b, loc, VectorType::get({1}, i32), pair);
        words.push_back(
            vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0}));
      }
  return words;
}

SmallVector<Type> ForwardKernel::prologueTypes() {
  SmallVector<Type> types(4, b.getF32Type());
  types.append(Bc / 16 * 4, b.getI32Type()); // P as packed 16-bit pairs
  return types;
}

SmallVector<Value> ForwardKernel::emptyPrologue() {
  Value negInf = km.f32(-std::numeric_limits<double>::infinity());
  Value zero = km.f32(0.0);
  SmallVector<Value> empty = {negInf, negInf, zero, zero};
  empty.append(Bc / 16 * 4, km.i32(0));
  return empty;
}

Fragment ForwardKernel::issueFirstScores(Value kvCount) {
  auto [stage0, use0] = layout.kFull.slotOf(km, kvCount);
  pingPong.beginTurn(km);
  layout.kFull.waitComplete(km, smem, {stage0, use0});
  wgmmaFence(km);
  Fragment scores = scoresOf(stage0);
  wgmmaCommit(km);
  pingPong.endTurn(km);
  return scores;
}

SmallVector<Value> ForwardKernel::finishFirstScores(Fragment scores,
                                                    Value kvCount) {
  // Tile 0 may be a ragged or diagonal tile. With branchFirstTileMask it is
  // masked only then (no tile is unmasked): at short sequences tile 0 is a
  // large share of the tiles, and the mask costs a compare and a select per
  // score. The branch covers the first softmax too, so that only the
  // prologue state (m, l, P) merges (a branch over the scores alone measured
  // 2-8% slower at long sequences).
  auto [stage0, use0] = layout.kFull.slotOf(km, kvCount);
  wgmmaWait(km, 0);
  // K empty: every consumer thread arrives once its S wgmma has read K.
  layout.kEmpty.arrive(km, smem, stage0);
  auto firstStep = [&](bool masked) {
    Fragment s = scores;
    if (masked)
      buildFragmentMask(km, s, coords, km.i32(0), seqQ, seqKV, tile.rowBase,
                        config.causal);
    SmallVector<Value> empty = emptyPrologue();
    SoftmaxStep step =
        buildOnlineSoftmax(km, s, {empty[0], empty[1]}, {empty[2], empty[3]},
                           scaleLog2e, et, config.lazyThreshold());
    SmallVector<Value> state(step.newMax);
    state.append(step.newSum.begin(), step.newSum.end());
    llvm::append_range(state, packProbs(step));
    return state;
  };
  if (!config.sm90.branchFirstTileMask)
    return firstStep(/*masked=*/true);
  auto ifMasked = scf::IfOp::create(
      b, loc, prologueTypes(),
      km.cmp(arith::CmpIPredicate::sle, tile.own.numUnmasked, km.i32(0)),
      true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifMasked.thenBlock());
  scf::YieldOp::create(b, loc, firstStep(/*masked=*/true));
  b.setInsertionPointToStart(ifMasked.elseBlock());
  scf::YieldOp::create(b, loc, firstStep(/*masked=*/false));
  return SmallVector<Value>(ifMasked.getResults());
}

SmallVector<Value> ForwardKernel::buildPrologue(Value kvCount, Value cond) {
  auto prologue = scf::IfOp::create(b, loc, prologueTypes(), cond, true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(prologue.thenBlock());
  scf::YieldOp::create(
      b, loc, finishFirstScores(issueFirstScores(kvCount), kvCount));
  b.setInsertionPointToStart(prologue.elseBlock());
  scf::YieldOp::create(b, loc, emptyPrologue());
  return SmallVector<Value>(prologue.getResults());
}

Finished ForwardKernel::buildMainLoop(ArrayRef<Value> prologue,
                                      Value kvCount) {
  using P = arith::CmpIPredicate;
  Type f32 = b.getF32Type();
  Value zero = km.f32(0.0);
  Value hasTiles = km.cmp(P::sgt, tile.own.numTiles, km.i32(0));

  // Steady state: issue S_j, then P_{j-1}·V_{j-1}; wait for S_j only and run
  // its softmax while the P·V wgmma is in flight; then rescale.
  auto buildLoop = [&](Value lb, Value ub, ValueRange inits, bool masked) {
    auto loop = scf::ForOp::create(b, loc, lb, ub, km.i32(1), inits);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value j = loop.getInductionVar();
    ValueRange args = loop.getRegionIterArgs();
    SmallVector<Value> runningMax(args.slice(0, 2)),
        runningSum(args.slice(2, 2));
    Fragment acc(1, D / 8, Value());
    acc.regs.assign(args.begin() + 4, args.begin() + 4 + D / 2);
    SmallVector<Value> probs(args.begin() + 4 + D / 2,
                             args.begin() + (args.size() - 2));
    SmallVector<Value> pending(args.begin() + (args.size() - 2), args.end());
    Value ring = km.add(kvCount, j); // position in the ring of stages
    auto [stage, use] = layout.kFull.slotOf(km, ring);
    auto [prevStage, prevUse] =
        layout.kFull.slotOf(km, km.sub(ring, km.i32(1)));
    pingPong.beginTurn(km);
    layout.kFull.waitComplete(km, smem, {stage, use});
    wgmmaFence(km);
    Fragment scores = scoresOf(stage);
    wgmmaCommit(km);
    layout.vFull.waitComplete(km, smem, {prevStage, prevUse});
    if (lateRescale())
      buildRescaleIfNeeded(km, acc, pending);
    wgmmaFence(km);
    acc = accumulate(acc, probs, prevStage);
    wgmmaCommit(km);
    pingPong.endTurn(km);
    wgmmaWait(km, 1); // S_j is ready; P_{j-1}·V_{j-1} may still run
    layout.kEmpty.arrive(km, smem, stage);
    if (masked)
      buildFragmentMask(km, scores, coords, km.mul(j, km.i32(Bc)), seqQ, seqKV,
                        tile.rowBase, config.causal);
    SoftmaxStep step = buildOnlineSoftmax(km, scores, runningMax, runningSum,
                                          scaleLog2e, et,
                                          config.lazyThreshold());
    SmallVector<Value> nextProbs = packProbs(step);
    wgmmaWait(km, 0);
    keepAlive(km, probs);
    // V empty: every consumer thread, once P_{j-1}·V_{j-1} has completed.
    layout.vEmpty.arrive(km, smem, prevStage);
    // Rescale acc by this tile's α now that P_{j-1}·V_{j-1} has landed, or
    // (lateRescale) carry α to just before the next P·V.
    if (config.rescale == KernelConfig::Rescale::Lazy)
      buildRescaleIfNeeded(km, acc, step.rescale);
    else if (config.rescale == KernelConfig::Rescale::Eager)
      buildRescale(km, acc, step.rescale);
    SmallVector<Value> yields(step.newMax);
    yields.append(step.newSum.begin(), step.newSum.end());
    yields.append(acc.regs.begin(), acc.regs.end());
    yields.append(nextProbs.begin(), nextProbs.end());
    if (lateRescale())
      yields.append(step.rescale.begin(), step.rescale.end());
    else
      yields.append(pending.begin(), pending.end());
    scf::YieldOp::create(b, loc, yields);
    return SmallVector<Value>(loop.getResults());
  };
  SmallVector<Value> state(prologue.take_front(4));
  state.append(D / 2, zero);
  llvm::append_range(state, prologue.drop_front(4));
  state.append(2, km.f32(1.0)); // α pending for the next P·V (lateRescale)
  Value one = km.i32(1);
  state = buildLoop(one, tile.own.numUnmasked, state, /*masked=*/false);
  state = buildLoop(km.maxsi(tile.own.numUnmasked, one), tile.own.numTiles,
                    state, /*masked=*/true);
  // Every Q·Kᵀ of the tile has completed: with O staged in the K/V ring, Q
  // is free for the next tile's load (one arrival per consumer thread).
  if (config.sm90.outputInRing)
    layout.qEmpty.arrive(km, smem, tile.qBuffer);

  // Drain: the last P·V.
  Finished out;
  out.max.assign(state.begin(), state.begin() + 2);
  out.sum.assign(state.begin() + 2, state.begin() + 4);
  Fragment acc(1, D / 8, Value());
  acc.regs.assign(state.begin() + 4, state.begin() + 4 + D / 2);
  SmallVector<Value> lastProbs(state.begin() + 4 + D / 2, state.end() - 2);
  SmallVector<Value> lastPending(state.end() - 2, state.end());
  auto drain = scf::IfOp::create(b, loc, SmallVector<Type>(D / 2, f32),
                                 hasTiles, true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(drain.thenBlock());
    auto [stage, use] = layout.kFull.slotOf(
        km, km.sub(km.add(kvCount, tile.own.numTiles), one));
    pingPong.beginTurn(km);
    layout.vFull.waitComplete(km, smem, {stage, use});
    Fragment drained = acc;
    if (lateRescale())
      buildRescaleIfNeeded(km, drained, lastPending);
    wgmmaFence(km);
    drained = accumulate(drained, lastProbs, stage);
    wgmmaCommit(km);
    pingPong.endTurn(km);
    if (config.sm90.warpgroupRanges && config.sm90.pingPong) {
      // The turns of the block's tiles this warpgroup's rows do not see,
      // taken with no GEMMs while its last P·V runs, so that every
      // warpgroup takes as many turns as the last one: the order of turns
      // is unchanged. (The producer releases their K/V for it.)
      auto idle = scf::ForOp::create(b, loc, tile.own.numTiles,
                                     tile.range.numTiles, one);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPoint(idle.getBody()->getTerminator());
      pingPong.beginTurn(km);
      pingPong.endTurn(km);
    }
    wgmmaWait(km, 0);
    layout.vEmpty.arrive(km, smem, stage);
    scf::YieldOp::create(b, loc, drained.regs);
    b.setInsertionPointToStart(drain.elseBlock());
    scf::YieldOp::create(b, loc, acc.regs);
  }
  acc.regs.assign(drain.getResults().begin(), drain.getResults().end());
  out.acc = acc;
  return out;
}

SmallVector<OutputWord> ForwardKernel::normalizeOutput(Finished done) {
  // Epilogue math (shared with sm_80): O = acc / l as packed 16-bit pairs,
  // and the LSE, which goes straight to global memory.
  Value headIndex = km.toIndex(tile.at.headQ);
  Value lseBase = arith::MulIOp::create(b, loc, headIndex, km.toIndex(seqQ));
  Value lseMemref = config.writesLse
                        ? buildFlatGlobalMemref(km, lsePtr, b.getF32Type())
                        : Value();
  SmallVector<OutputWord> words;
  auto keepWord = [&](Value row, int64_t nt, Value word) {
    words.push_back({row, nt, word});
  };
  buildEpilogue(km, config, done.acc, done.max, done.sum, coords, tile.rowBase,
                seqQ, scale, Value(), Value(), lseMemref, lseBase, keepWord);
  return words;
}

void ForwardKernel::storeOutput(ArrayRef<OutputWord> words, Value slot) {
  stageOutput(words, slot);
  publishOutput();
  releaseOutput();
}

Value ForwardKernel::outputBox(int64_t block) {
  if (!config.sm90.outputInRing)
    return km.add(layout.qBufferOffset(km, tile.qBuffer),
                  km.add(km.i32(block * Br * kSwizzleBytes),
                         km.mul(consumer, km.i32(kOutputBoxBytes))));
  Value box = km.add(km.mul(consumer, km.i32(D / kAtomColumns)),
                     km.i32(block));
  Value slotBytes = km.mul(tile.outputStage, km.i32(layout.kvBytes));
  Value inK = km.add(km.add(km.i32(layout.offK), slotBytes),
                     km.mul(box, km.i32(kOutputBoxBytes)));
  Value inV = km.add(km.add(km.i32(layout.offV), slotBytes),
                     km.mul(km.sub(box, km.i32(layout.boxesPerHalf)),
                            km.i32(kOutputBoxBytes)));
  return arith::SelectOp::create(
      b, loc,
      km.cmp(arith::CmpIPredicate::ult, box, km.i32(layout.boxesPerHalf)),
      inK, inV);
}

void ForwardKernel::stageOutput(ArrayRef<OutputWord> words, Value slot) {
  // O goes through shared memory and a TMA store: this consumer writes its
  // 64 rows of O in boxes of 64 rows × 128 bytes (outputBox), in the layout
  // TMA loads Q with; publishOutput then stores them. Over its own rows of
  // the Q buffer, no other warpgroup reads them and its Q·Kᵀ wgmmas have
  // all completed. In the K/V ring, the slot is free once the producer has
  // arrived on its full barrier (after the consumers released its last use).
  if (config.sm90.outputInRing) {
    auto [stage, use] = layout.kFull.slotOf(km, slot);
    tile.outputStage = stage;
    layout.kFull.waitComplete(km, smem, {stage, use});
  }
  SmallVector<Value> boxes;
  for (int64_t block = 0; block < D / kAtomColumns; ++block)
    boxes.push_back(outputBox(block));
  writeSwizzledOutput(km, smem, words, boxes, tile.at.qStart, consumer,
                      coords.quadLane);
}

void ForwardKernel::publishOutput() {
  // One thread stores the staged rows with one TMA box per 64 columns (rows
  // past Nq are clipped by the tensor map); releaseOutput hands the buffer
  // back. The warpgroup's barrier is id 1 + C + consumer (1..C are
  // ping-pong's).
  storeOutputTma(km, smem, tensorMapO, D, tid, consumer,
                 /*firstBarrierId=*/1 + C, tile.at.qStart,
                 tile.at.mapQ(config.sm90.batchMaps),
                 [&](int64_t block) { return outputBox(block); });
}

void ForwardKernel::releaseOutput() {
  waitOutputRead(km, tid, [&] {
    if (config.sm90.outputInRing) {
      // The slot's empty barriers count every consumer thread: the leader
      // arrives for its warpgroup's 128.
      for (const MBarrierRing &empty : {layout.kEmpty, layout.vEmpty})
        mbarrierArriveCount(km, empty.address(km, smem, tile.outputStage),
                            km.i32(128));
    } else {
      // One arrival per consumer warpgroup (emptyQ counts C).
      layout.qEmpty.arrive(km, smem, tile.qBuffer);
    }
  });
}

void ForwardKernel::buildPipelinedConsumer() {
  // Consumers of a persistent grid with two Q buffers run the tiles as one
  // pipeline: after a tile's last P·V they read the next tile's index, issue
  // its first Q·Kᵀ (its Q is in the other buffer), and write this tile's O
  // while that wgmma runs; then they finish the next tile's first softmax.
  // The tile index, the iteration, the K/V count and the first softmax state
  // are carried by the loop. The order of GEMM issues, and so of ping-pong
  // turns, is the same as tile by tile.
  using P = arith::CmpIPredicate;
  Type i32 = b.getI32Type();
  Value total = scheduler.total(km);
  auto startsWork = [&](Value tileNumber) {
    return arith::AndIOp::create(
        b, loc, km.cmp(P::ult, tileNumber, total),
        km.cmp(P::sgt, tile.range.numTiles, km.i32(0)));
  };

  Value zero32 = km.i32(0);
  Value first = readTileIndex(zero32);
  decodeTile(first);
  beginConsumerTile(zero32);
  SmallVector<Value> inits = {first, zero32, zero32};
  llvm::append_range(inits, buildPrologue(zero32, startsWork(first)));
  SmallVector<Type> types = {i32, i32, i32};
  llvm::append_range(types, prologueTypes());

  auto loop = scf::WhileOp::create(b, loc, types, inits);
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Location> locs(types.size(), loc);
  Block *before = b.createBlock(&loop.getBefore(), {}, types, locs);
  scf::ConditionOp::create(b, loc,
                           km.cmp(P::ult, before->getArgument(0), total),
                           before->getArguments());
  Block *after = b.createBlock(&loop.getAfter(), {}, types, locs);
  Value tileNumber = after->getArgument(0),
        iteration = after->getArgument(1), kvCount = after->getArgument(2);
  decodeTile(tileNumber);
  beginConsumerTile(iteration);
  SmallVector<Value> prologue(after->getArguments().drop_front(3));
  Finished done = buildMainLoop(prologue, kvCount);
  Value slot = outputSlot(kvCount);
  Value nextKV = ringAfterTile(kvCount);
  // O is normalised and staged in shared memory first: S_0 of the next tile
  // needs the accumulator's registers while in flight. The copy of O to
  // global memory then overlaps it.
  stageOutput(normalizeOutput(done), slot);
  // publishOutput and releaseOutput of this tile run after the next one
  // has been decoded: they read the saved state.
  TileState current = tile;

  Value nextIteration = km.add(iteration, km.i32(1));
  Value next = readTileIndex(nextIteration);
  decodeTile(next);
  beginConsumerTile(nextIteration);
  TileState upcoming = tile;
  auto overlap = scf::IfOp::create(b, loc, prologueTypes(),
                                   startsWork(next), true);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(overlap.thenBlock());
    Fragment scores = issueFirstScores(nextKV);
    tile = current;
    publishOutput();
    if (!config.sm90.deferStoreWait)
      releaseOutput();
    tile = upcoming;
    SmallVector<Value> state = finishFirstScores(scores, nextKV);
    if (config.sm90.deferStoreWait) {
      tile = current;
      releaseOutput();
      tile = upcoming;
    }
    scf::YieldOp::create(b, loc, state);
    b.setInsertionPointToStart(overlap.elseBlock());
    tile = current;
    publishOutput();
    releaseOutput();
    tile = upcoming;
    scf::YieldOp::create(b, loc, emptyPrologue());
  }
  SmallVector<Value> yields = {next, nextIteration, nextKV};
  llvm::append_range(yields, overlap.getResults());
  scf::YieldOp::create(b, loc, yields);
}

void ForwardKernel::build(LLVM::LLVMFuncOp func) {
  using P = arith::CmpIPredicate;
  Block *entry = func.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  tensorMapQ = entry->getArgument(0);
  tensorMapK = entry->getArgument(1);
  tensorMapV = entry->getArgument(2);
  tensorMapO = entry->getArgument(3);
  lsePtr = entry->getArgument(4);
  batchSize = entry->getArgument(5);
  queryHeads = entry->getArgument(6);
  kvHeads = entry->getArgument(7);
  seqQ = entry->getArgument(8);
  seqKV = entry->getArgument(9);
  scale = entry->getArgument(10);
  if (config.sm90.persistent)
    counterPtr = entry->getArgument(11);
  scaleLog2e = arith::MulFOp::create(b, loc, scale, km.f32(M_LOG2E));

  tid = arith::IndexCastUIOp::create(
      b, loc, b.getI32Type(),
      gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  numQTiles = km.divu(km.add(seqQ, km.i32(Br - 1)), km.i32(Br));
  // K and V rows of a head, for the grouped order's L2 budget.
  int64_t kvRowBytes = (config.headDim + config.headDim) *
                       (config.elementType.getIntOrFloatBitWidth() / 8);
  scheduler = makeTileScheduler(km, numQTiles, queryHeads, kvHeads, batchSize,
                                Br, config.causal, config.sm90.tileGroupBytes,
                                kvRowBytes, SM90Config::kMinGroupedQTiles,
                                seqKV);

  auto window = SymbolTable::lookupNearestSymbolFrom<LLVM::GlobalOp>(
      func, b.getStringAttr("flash_smem"));
  smem = alignSharedBase(km, window);

  // Thread 0 initialises the mbarriers; then the whole block synchronises.
  auto init = scf::IfOp::create(b, loc, km.cmp(P::eq, tid, km.i32(0)), false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(init.thenBlock()->getTerminator());
    for (int64_t buffer = 0; buffer < config.sm90.qBuffers; ++buffer) {
      // Q full: the producer's expect_tx is the one arrival.
      mbarrierInit(km, layout.qFull.address(km, smem, km.i32(buffer)),
                   km.i32(1));
      // Q empty: one arrival per consumer warpgroup, after its TMA store of
      // O has read the buffer; with O in the K/V ring, one per consumer
      // thread after its last Q·Kᵀ.
      mbarrierInit(km, layout.qEmpty.address(km, smem, km.i32(buffer)),
                   km.i32(config.sm90.outputInRing ? 128 * C : C));
    }
    for (int64_t s = 0; s < S; ++s) {
      Value stage = km.i32(s);
      // Full: the producer's expect_tx (or, for the O slot, its plain
      // arrival). Empty: every consumer thread (128·C), or the warpgroup
      // leader's and the producer's counted arrivals for as many.
      mbarrierInit(km, layout.kFull.address(km, smem, stage), km.i32(1));
      mbarrierInit(km, layout.vFull.address(km, smem, stage), km.i32(1));
      mbarrierInit(km, layout.kEmpty.address(km, smem, stage),
                   km.i32(128 * C));
      mbarrierInit(km, layout.vEmpty.address(km, smem, stage),
                   km.i32(128 * C));
    }
    NVVM::FenceMbarrierInitOp::create(b, loc);
  }
  gpu::BarrierOp::create(b, loc);

  // Warpgroup 0 produces, warpgroups 1..C consume.
  buildRoles(km, tid, [&] { buildProducer(); }, [&] { buildConsumer(); });
  LLVM::ReturnOp::create(b, loc, ValueRange{});
}

LogicalResult mlir::flash::buildSM90Kernel(OpBuilder &b, Location loc,
                                           const KernelConfig &config) {
  auto global = LLVM::LLVMPointerType::get(b.getContext(), 1);
  Type i32 = b.getI32Type();
  // (tmQ, tmK, tmV, tmO;) LSE, B, Hq, Hkv, Nq, Nk, scale [, the tile counter
  // of a persistent grid: a zeroed i32]
  SmallVector<Type> params = {global, i32, i32, i32, i32, i32, b.getF32Type()};
  if (config.sm90.persistent)
    params.push_back(global);
  LLVM::LLVMFuncOp func = declareTensorMapKernel(
      b, loc, config.name, /*numTensorMaps=*/4, params,
      128 * (config.sm90.consumers + 1), config.blocksPerSM);
  OpBuilder::InsertionGuard guard(b);
  ForwardKernel(b, loc, config).build(func);
  return success();
}
