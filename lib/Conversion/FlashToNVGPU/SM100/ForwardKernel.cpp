//===- ForwardKernel.cpp - the sm_100a forward attention kernel -----------===//
//
// The forward kernel for Blackwell (sm_100a), in its first, simplest form:
// one Q tile of 128 rows per block, three roles in six warps.
// - Warp 4 (its first thread) loads Q once and K/V tiles into `stages`
//   shared-memory slots with TMA, completing on "full" mbarriers
//   (expect_tx), as the sm_90a producer does (SM90/TMA, SM90/Barriers: the
//   same helpers, tensor maps and swizzled tile layout).
// - Warp 5 owns tensor memory (allocates it at entry, frees it at exit) and
//   its first thread issues the MMAs: S = Q·Kᵀ (tcgen05.mma SS, M = 128,
//   N = Bc, into TMEM) and O += P·V (tcgen05.mma TS: P from TMEM, V from
//   shared memory, N = D, into TMEM). tcgen05.commit signals each on an
//   mbarrier: S ready (sFull), O updated (oDone), and the K and V slots
//   released (kEmpty, vEmpty) once the MMAs that read them completed.
// - Warps 0-3 (the softmax warpgroup) each own 32 rows; thread t holds row
//   t of the tile (tcgen05.ld .32x32b, AccumulatorLayout::RowPerThread).
//   Per K/V tile: load S, release it (sFree), mask and run the online
//   softmax of KernelBuilder.cpp (the same code as sm_80 and sm_90a, on the
//   row-per-thread layout: no shuffles; one column of P in
//   config.exp2Split.period by KernelMath::exp2Polynomial on the FMA units,
//   the others by ex2.approx on the MUFU), then, once the previous P·V has
//   completed (oDone), rescale O in TMEM where the row max moved past the
//   lazy threshold (FA4's conditional rescale: a warp vote skips the
//   TMEM round trip when no row of the warp needs it), store P as packed
//   16-bit pairs into TMEM and hand it over (pFull). After the last P·V the
//   epilogue (shared) writes O = acc / l and the LSE from the rows.
// The MMA thread issues S_{j+1} as soon as the softmax has read S_j, so the
// next Q·Kᵀ overlaps this tile's softmax.
//
// TMEM columns (lane = row of the Q tile): O [0, D) | S [D, D + Bc) |
// P [D + Bc, D + 3·Bc/2), allocated as the next power of two.
//
// Not yet here (FA4's fuller structure): two Q tiles per block in
// ping-pong, a correction warpgroup apart from the softmax, O leaving
// through TMA stores.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"
#include "flash/Conversion/FlashToNVGPU/SM100/TCGen05.h"
#include "flash/Conversion/FlashToNVGPU/SM90/Barriers.h"
#include "flash/Conversion/FlashToNVGPU/SM90/SharedLayout.h"
#include "flash/Conversion/FlashToNVGPU/SM90/TMA.h"
#include "flash/Conversion/FlashToNVGPU/SM90/TileScheduler.h"
#include "flash/Conversion/FlashToNVGPU/SM90/WGMMA.h"

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

constexpr int64_t kSoftmaxThreads = 128;
constexpr int64_t kProducerWarp = 4;
constexpr int64_t kMmaWarp = 5;
/// Columns of O moved per tcgen05.ld/st in the rescale and the epilogue.
constexpr int64_t kOutputChunk = 64;

/// Where the tiles, the mbarriers and the TMEM address live in shared
/// memory (byte offsets from the 1024-byte-aligned base):
///   Q[Br][D] | K[stages][Bc][D] | V[stages][Bc][D] |
///   mbarriers: Q full, K full[stages], V full[stages], K empty[stages],
///              V empty[stages], S full, S free, P full, O done |
///   the TMEM address tcgen05.alloc writes.
struct Layout {
  int64_t qBytes, kvBytes, offQ, offK, offV, offTmemSlot, total;
  MBarrierRing qFull, kFull, vFull, kEmpty, vEmpty, sFull, sFree, pFull,
      oDone;
  explicit Layout(const KernelConfig &c) {
    int64_t e = c.elementType.getIntOrFloatBitWidth() / 8;
    qBytes = c.blockQ * c.headDim * e;
    kvBytes = c.blockKV * c.headDim * e;
    SharedArena arena;
    offQ = arena.carve(qBytes);
    offK = arena.carve(c.stages * kvBytes);
    offV = arena.carve(c.stages * kvBytes);
    qFull = arena.carveRing(1);
    kFull = arena.carveRing(c.stages);
    vFull = arena.carveRing(c.stages);
    kEmpty = arena.carveRing(c.stages);
    vEmpty = arena.carveRing(c.stages);
    sFull = arena.carveRing(1);
    sFree = arena.carveRing(1);
    pFull = arena.carveRing(1);
    oDone = arena.carveRing(1);
    offTmemSlot = arena.carve(8);
    total = arena.used + 1024; // + slack to align the base
  }
  Value kvSlotOffset(KernelMath &km, int64_t base, Value stage) const {
    return km.add(km.i32(base), km.mul(stage, km.i32(kvBytes)));
  }
};

/// The TMEM columns of the tile's matrices (lane = row).
struct TmemColumns {
  int64_t output, scores, probs, allocated;
  explicit TmemColumns(const KernelConfig &c)
      : output(0), scores(c.headDim), probs(c.headDim + c.blockKV),
        allocated(sm100::allocationColumns(c.headDim + c.blockKV +
                                           c.blockKV / 2)) {}
};

class ForwardKernel {
public:
  ForwardKernel(OpBuilder &b, Location loc, const KernelConfig &config)
      : b(b), loc(loc), km{b, loc}, config(config), layout(config),
        tmem(config), et(config.elementType), D(config.headDim),
        Br(config.blockQ), Bc(config.blockKV), S(config.stages) {}

  void build(LLVM::LLVMFuncOp func);

private:
  void buildProducer();
  void buildMmaIssuer();
  void buildSoftmax();
  /// S = Q·K_jᵀ into TMEM for the tile at ring position j; commits sFull
  /// and the K slot's release.
  void issueScores(Value j);
  /// The softmax loop over K/V tiles [lb, ub): carries (m, l).
  SmallVector<Value> softmaxLoop(Value lb, Value ub, ValueRange state,
                                 bool masked);
  /// O (TMEM) *= α per row, skipped by a warp none of whose rows moved.
  void rescaleOutput(Value alpha);
  /// Barrier `ring`'s single slot at parity use & 1.
  void waitUse(const MBarrierRing &ring, Value use) {
    ring.waitComplete(km, smem, {km.i32(0), use});
  }
  Value barrier(const MBarrierRing &ring) {
    return ring.address(km, smem, km.i32(0));
  }
  Value column(int64_t c) { return km.add(tmemBase, km.i32(c)); }

  OpBuilder &b;
  Location loc;
  KernelMath km;
  const KernelConfig &config;
  Layout layout;
  TmemColumns tmem;
  Type et;
  int64_t D, Br, Bc, S;

  Value tid, warp, seqQ, seqKV, scale, scaleLog2e;
  Value tensorMapQ, tensorMapK, tensorMapV, outPtr, lsePtr;
  SharedBase smem;
  Value tmemBase; ///< i32 TMEM address of the allocation (lane 0, column 0)
  TileCoords at;
  KVRange range;
  // Softmax warps.
  LaneCoords coords;
  Value rowBase, laneBase;
};
} // namespace

void ForwardKernel::issueScores(Value j) {
  auto [stage, use] = layout.kFull.slotOf(km, j);
  layout.kFull.waitComplete(km, smem, {stage, use});
  sm100::fenceAfterSync(km);
  // Both operands K-major (TMA's 64-column boxes, 128-byte swizzle): Q's
  // column blocks of Br rows, K's of Bc rows.
  WgmmaOperand q{sm100::sharedDescriptor(km, smem, km.i32(layout.offQ), 16),
                 /*mnMajor=*/false, /*blockRows=*/Br};
  WgmmaOperand k{sm100::sharedDescriptor(
                     km, smem, layout.kvSlotOffset(km, layout.offK, stage), 16),
                 /*mnMajor=*/false, /*blockRows=*/Bc};
  Value no = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  sm100::mma(km, et, column(tmem.scores), &q, Value(), k, /*n=*/Bc, /*k=*/D,
             no);
  // The slot's release first, so that it has landed by the time anyone
  // waits for the S that follows.
  sm100::commit(km, layout.kEmpty.address(km, smem, stage));
  sm100::commit(km, barrier(layout.sFull));
}

void ForwardKernel::buildMmaIssuer() {
  using P = arith::CmpIPredicate;
  Value n = range.numTiles;
  auto hasTiles = scf::IfOp::create(b, loc, km.cmp(P::sgt, n, km.i32(0)),
                                    false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(hasTiles.thenBlock()->getTerminator());
  waitUse(layout.qFull, km.i32(0));
  issueScores(km.i32(0));
  auto loop = scf::ForOp::create(b, loc, km.i32(0), n, km.i32(1));
  b.setInsertionPoint(loop.getBody()->getTerminator());
  Value j = loop.getInductionVar();
  Value next = km.add(j, km.i32(1));
  // S_{j+1} once the softmax has read S_j (its TMEM columns are reused).
  auto ifNext = scf::IfOp::create(b, loc, km.cmp(P::slt, next, n), false);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(ifNext.thenBlock()->getTerminator());
    waitUse(layout.sFree, j);
    issueScores(next);
  }
  // O += P_j·V_j once the softmax has written P_j (and rescaled O).
  waitUse(layout.pFull, j);
  auto [stage, use] = layout.vFull.slotOf(km, j);
  layout.vFull.waitComplete(km, smem, {stage, use});
  sm100::fenceAfterSync(km);
  // V is the MN-major B operand: the leading byte offset steps to the next
  // 64-column block of D, the stride offset to the next 8 keys.
  WgmmaOperand v{sm100::sharedDescriptor(
                     km, smem, layout.kvSlotOffset(km, layout.offV, stage),
                     /*leadingBytes=*/Bc * kSwizzleBytes),
                 /*mnMajor=*/true, /*blockRows=*/0};
  sm100::mma(km, et, column(tmem.output), /*aShared=*/nullptr,
             column(tmem.probs), v, /*n=*/D, /*k=*/Bc,
             km.cmp(P::sgt, j, km.i32(0)));
  sm100::commit(km, layout.vEmpty.address(km, smem, stage));
  sm100::commit(km, barrier(layout.oDone));
  b.setInsertionPointAfter(loop);
  // Every MMA (and so every commit's arrival) completes before this thread
  // reaches the block's final barrier.
  waitUse(layout.oDone, km.sub(n, km.i32(1)));
}

void ForwardKernel::buildProducer() {
  using P = arith::CmpIPredicate;
  // A Q tile that sees no key (causal, Nq > Nk) loads nothing: no load may
  // be in flight when the block exits.
  auto hasTiles = scf::IfOp::create(
      b, loc, km.cmp(P::sgt, range.numTiles, km.i32(0)), false);
  OpBuilder::InsertionGuard outer(b);
  b.setInsertionPoint(hasTiles.thenBlock()->getTerminator());
  // Q full: the producer's one arrival with Q's bytes.
  Value barQ = barrier(layout.qFull);
  mbarrierExpectTx(km, barQ, layout.qBytes);
  tmaLoadTile(km, smem, TmaBox{tensorMapQ, Br, D}, barQ, km.i32(layout.offQ),
              at.qStart, at.headQ);
  auto loop = scf::ForOp::create(b, loc, km.i32(0), range.numTiles, km.i32(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  Value j = loop.getInductionVar();
  auto [stage, use] = layout.kFull.slotOf(km, j);
  Value reused = km.cmp(P::sge, j, km.i32(S));
  // The MMA thread's commit released use n-1 of this slot, parity (n-1) & 1.
  Value previousParity = releasedParity(km, use);
  Value kvStart = km.mul(j, km.i32(Bc));
  refillKVSlot(km, smem,
               {RingHalf{layout.kEmpty, layout.kFull, tensorMapK, layout.offK},
                RingHalf{layout.vEmpty, layout.vFull, tensorMapV, layout.offV}},
               Bc, D, layout.kvBytes, stage, reused, previousParity, kvStart,
               at.headKV);
}

void ForwardKernel::rescaleOutput(Value alpha) {
  // A warp-uniform branch (tcgen05.ld/st are warp-collective): with lazy
  // rescaling most tiles leave every row's max, so α = 1 for all rows.
  Value moved = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE,
                                      alpha, km.f32(1.0));
  auto ifMoved = scf::IfOp::create(b, loc, km.warpAny(moved), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifMoved.thenBlock()->getTerminator());
  for (int64_t c0 = 0; c0 < D; c0 += kOutputChunk) {
    Value addr =
        sm100::address(km, tmemBase, laneBase, km.i32(tmem.output + c0));
    Fragment chunk(AccumulatorLayout::rowPerThread(1, kOutputChunk), Value());
    chunk.regs = sm100::loadRow(km, addr, kOutputChunk);
    sm100::waitLoads(km);
    buildRescale(km, chunk, {alpha});
    SmallVector<Value> words;
    for (Value x : chunk.regs)
      words.push_back(arith::BitcastOp::create(b, loc, b.getI32Type(), x));
    sm100::storeRow(km, addr, words);
  }
}

SmallVector<Value> ForwardKernel::softmaxLoop(Value lb, Value ub,
                                              ValueRange state, bool masked) {
  using P = arith::CmpIPredicate;
  auto loop = scf::ForOp::create(b, loc, lb, ub, km.i32(1), state);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value j = loop.getInductionVar();
  SmallVector<Value> runningMax = {loop.getRegionIterArgs()[0]};
  SmallVector<Value> runningSum = {loop.getRegionIterArgs()[1]};
  // S_j: load this thread's row, then hand the columns back to the MMA
  // thread (S_{j+1} may overwrite them).
  waitUse(layout.sFull, j);
  sm100::fenceAfterSync(km);
  Fragment scores(AccumulatorLayout::rowPerThread(1, Bc), Value());
  scores.regs.clear();
  for (int64_t c0 = 0; c0 < Bc; c0 += sm100::kMaxColumnsPerAccess) {
    int64_t columns = std::min(Bc - c0, sm100::kMaxColumnsPerAccess);
    llvm::append_range(
        scores.regs,
        sm100::loadRow(km,
                       sm100::address(km, tmemBase, laneBase,
                                      km.i32(tmem.scores + c0)),
                       columns));
  }
  sm100::waitLoads(km);
  sm100::fenceBeforeSync(km);
  layout.sFree.arrive(km, smem, km.i32(0));
  if (masked)
    buildFragmentMask(km, scores, coords, km.mul(j, km.i32(Bc)), seqQ, seqKV,
                      rowBase, config.causal);
  SoftmaxStep step =
      buildOnlineSoftmax(km, scores, runningMax, runningSum, scaleLog2e, et,
                         config.lazyThreshold(), config.exp2Split);
  SmallVector<Value> words;
  for (Value pair : step.probs)
    words.push_back(km.pairWord(pair));
  // O and P are free once P_{j-1}·V_{j-1} has completed: rescale O by this
  // tile's α (tile 0 has no O yet: its P·V overwrites), then P_j.
  auto ifPrevious =
      scf::IfOp::create(b, loc, km.cmp(P::sgt, j, km.i32(0)), false);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(ifPrevious.thenBlock()->getTerminator());
    waitUse(layout.oDone, km.sub(j, km.i32(1)));
    sm100::fenceAfterSync(km);
    rescaleOutput(step.rescale[0]);
  }
  sm100::storeRow(km,
                  sm100::address(km, tmemBase, laneBase, km.i32(tmem.probs)),
                  words);
  sm100::waitStores(km);
  sm100::fenceBeforeSync(km);
  layout.pFull.arrive(km, smem, km.i32(0));
  scf::YieldOp::create(b, loc, ValueRange{step.newMax[0], step.newSum[0]});
  return SmallVector<Value>(loop.getResults());
}

void ForwardKernel::buildSoftmax() {
  using P = arith::CmpIPredicate;
  Value lane = km.andi(tid, km.i32(31));
  coords = {lane, Value()};
  // Warp w reaches TMEM lanes 32w..32w+31: rows 32w.. of the tile.
  laneBase = km.mul(warp, km.i32(32));
  rowBase = km.add(at.qStart, laneBase);
  Value negInf = km.f32(-std::numeric_limits<double>::infinity());
  SmallVector<Value> state = {negInf, km.f32(0.0)};
  state = softmaxLoop(km.i32(0), range.numUnmasked, state, /*masked=*/false);
  state = softmaxLoop(km.maxsi(range.numUnmasked, km.i32(0)), range.numTiles,
                      state, /*masked=*/true);
  Value hasTiles = km.cmp(P::sgt, range.numTiles, km.i32(0));
  auto ifTiles = scf::IfOp::create(b, loc, hasTiles, false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifTiles.thenBlock()->getTerminator());
    waitUse(layout.oDone, km.sub(range.numTiles, km.i32(1)));
    sm100::fenceAfterSync(km);
  }
  // Epilogue (shared with sm_80 and sm_90a): O = acc / l straight from the
  // rows to global memory, a chunk of columns at a time; the LSE once. A
  // tile without K/V has no O in TMEM: its rows are 0 (l = 0).
  Value headIndex = km.toIndex(at.headQ);
  Value lseBase = arith::MulIOp::create(b, loc, headIndex, km.toIndex(seqQ));
  Value outBase = arith::MulIOp::create(b, loc, lseBase, km.index(D));
  Value outMemref = buildFlatGlobalMemref(km, outPtr, b.getI32Type());
  Value lseMemref = config.writesLse
                        ? buildFlatGlobalMemref(km, lsePtr, b.getF32Type())
                        : Value();
  Value zero = km.f32(0.0);
  for (int64_t c0 = 0; c0 < D; c0 += kOutputChunk) {
    Fragment chunk(AccumulatorLayout::rowPerThread(1, kOutputChunk), Value());
    chunk.regs = sm100::loadRow(
        km, sm100::address(km, tmemBase, laneBase, km.i32(tmem.output + c0)),
        kOutputChunk);
    sm100::waitLoads(km);
    for (Value &x : chunk.regs)
      x = km.select(hasTiles, x, zero);
    buildEpilogue(km, config, chunk, state[0], state[1], coords, rowBase, seqQ,
                  scale, outMemref,
                  arith::AddIOp::create(b, loc, outBase, km.index(c0)),
                  c0 == 0 ? lseMemref : Value(), lseBase);
  }
}

void ForwardKernel::build(LLVM::LLVMFuncOp func) {
  using P = arith::CmpIPredicate;
  Block *entry = func.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  tensorMapQ = entry->getArgument(0);
  tensorMapK = entry->getArgument(1);
  tensorMapV = entry->getArgument(2);
  outPtr = entry->getArgument(3);
  lsePtr = entry->getArgument(4);
  Value batchSize = entry->getArgument(5);
  Value queryHeads = entry->getArgument(6);
  Value kvHeads = entry->getArgument(7);
  seqQ = entry->getArgument(8);
  seqKV = entry->getArgument(9);
  scale = entry->getArgument(10);
  scaleLog2e = arith::MulFOp::create(b, loc, scale, km.f32(M_LOG2E));
  tid = arith::IndexCastUIOp::create(
      b, loc, b.getI32Type(),
      gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  warp = km.shru(tid, km.i32(5));
  Value numQTiles = km.divu(km.add(seqQ, km.i32(Br - 1)), km.i32(Br));
  TileScheduler scheduler = makeTileScheduler(
      km, numQTiles, queryHeads, kvHeads, batchSize, Br, config.causal,
      /*tileGroupBytes=*/0, /*kvRowBytes=*/0, SM90Config::kMinGroupedQTiles,
      seqKV);
  auto window = SymbolTable::lookupNearestSymbolFrom<LLVM::GlobalOp>(
      func, b.getStringAttr("flash_smem"));
  smem = alignSharedBase(km, window);

  // Thread 0 initialises the mbarriers. Arrivals per phase: the producer's
  // expect_tx (Q, K, V full); one tcgen05.commit of the MMA thread (K, V
  // empty, S full, O done); every softmax thread (S free, P full).
  auto init = scf::IfOp::create(b, loc, km.cmp(P::eq, tid, km.i32(0)), false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(init.thenBlock()->getTerminator());
    Value one = km.i32(1);
    mbarrierInit(km, barrier(layout.qFull), one);
    for (int64_t s = 0; s < S; ++s)
      for (const MBarrierRing &ring :
           {layout.kFull, layout.vFull, layout.kEmpty, layout.vEmpty})
        mbarrierInit(km, ring.address(km, smem, km.i32(s)), one);
    mbarrierInit(km, barrier(layout.sFull), one);
    mbarrierInit(km, barrier(layout.oDone), one);
    mbarrierInit(km, barrier(layout.sFree), km.i32(kSoftmaxThreads));
    mbarrierInit(km, barrier(layout.pFull), km.i32(kSoftmaxThreads));
    NVVM::FenceMbarrierInitOp::create(b, loc);
  }
  // The MMA warp allocates the block's tensor memory (a warp-wide op) and
  // frees it at the end, after every warp is done with it: the same
  // condition guards both, and nothing returns in between (the static
  // check, sm100::checkTensorMemory, holds the lowering to that).
  Value slot = smem.at(km, km.i32(layout.offTmemSlot));
  Value isMmaWarp = km.cmp(P::eq, warp, km.i32(kMmaWarp));
  auto alloc = scf::IfOp::create(b, loc, isMmaWarp, false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(alloc.thenBlock()->getTerminator());
    sm100::allocate(km, slot, tmem.allocated);
  }
  sm100::fenceBeforeSync(km);
  gpu::BarrierOp::create(b, loc);
  sm100::fenceAfterSync(km);
  tmemBase = LLVM::LoadOp::create(b, loc, b.getI32Type(), slot);

  at = scheduler.decode(km, blockTile(km, scheduler));
  range = buildKVRange(km, at.qStart, seqQ, seqKV, Br, Bc, config.causal);

  auto softmaxRole = scf::IfOp::create(
      b, loc, km.cmp(P::slt, tid, km.i32(kSoftmaxThreads)), true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(softmaxRole.thenBlock()->getTerminator());
    buildSoftmax();
    b.setInsertionPoint(softmaxRole.elseBlock()->getTerminator());
    auto producer = scf::IfOp::create(
        b, loc, km.cmp(P::eq, tid, km.i32(32 * kProducerWarp)), false);
    b.setInsertionPoint(producer.thenBlock()->getTerminator());
    buildProducer();
    b.setInsertionPointAfter(producer);
    auto issuer = scf::IfOp::create(
        b, loc, km.cmp(P::eq, tid, km.i32(32 * kMmaWarp)), false);
    b.setInsertionPoint(issuer.thenBlock()->getTerminator());
    buildMmaIssuer();
  }
  sm100::fenceBeforeSync(km);
  gpu::BarrierOp::create(b, loc);
  auto dealloc = scf::IfOp::create(b, loc, isMmaWarp, false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(dealloc.thenBlock()->getTerminator());
    sm100::fenceAfterSync(km);
    sm100::deallocate(km, tmemBase, tmem.allocated);
  }
  LLVM::ReturnOp::create(b, loc, ValueRange{});
}

int64_t mlir::flash::sm100SharedBytes(const KernelConfig &config) {
  return Layout(config).total;
}

int64_t mlir::flash::sm100TensorMemoryColumns(const KernelConfig &config) {
  return TmemColumns(config).allocated;
}

LogicalResult mlir::flash::buildSM100Kernel(OpBuilder &b, Location loc,
                                            const KernelConfig &config) {
  auto global = LLVM::LLVMPointerType::get(b.getContext(), 1);
  Type i32 = b.getI32Type();
  // (tmQ, tmK, tmV;) O, LSE, B, Hq, Hkv, Nq, Nk, scale
  SmallVector<Type> params = {global, global, i32, i32,
                              i32,    i32,    i32, b.getF32Type()};
  LLVM::LLVMFuncOp func = declareTensorMapKernel(
      b, loc, config.name, /*numTensorMaps=*/3, params, config.threads(),
      config.blocksPerSM);
  {
    OpBuilder::InsertionGuard guard(b);
    ForwardKernel(b, loc, config).build(func);
  }
  return sm100::checkTensorMemory(func, sm100::kTensorMemoryColumns,
                                  config.blocksPerSM);
}
