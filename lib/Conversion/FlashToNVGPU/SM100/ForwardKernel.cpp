//===- ForwardKernel.cpp - the sm_100a forward attention kernel -----------===//
//
// The forward kernel for Blackwell (sm_100a): one or two Q tiles of 128
// rows per block (block_q 128 or 256, the schedule's choice: two where
// their O and S fit tensor memory, 2·(D + Bc) columns), three roles.
// - The TMA warp (its first thread) loads the block's Q once and K/V tiles
//   into `stages` shared-memory slots, completing on "full" mbarriers
//   (expect_tx), as the sm_90a producer does (SM90/TMA, SM90/Barriers: the
//   same helpers, tensor maps and swizzled tile layout). The K/V stream is
//   the block's last tile's range (causal: it sees the most keys).
// - The MMA warp owns tensor memory (allocates it at entry, frees it at
//   exit) and its first thread issues the MMAs: S_i = Q_i·Kᵀ (tcgen05.mma
//   SS, M = 128, N = Bc, into TMEM) and O_i += P_i·V (tcgen05.mma TS: P
//   from TMEM, V from shared memory, N = D, into TMEM). tcgen05.commit
//   signals each on an mbarrier: S_i ready (sFull[i]), O_i updated
//   (oDone[i]), and the K and V slots released (kEmpty, vEmpty) once the
//   MMAs that read them completed (the last tile's S and P·V).
// - A softmax warpgroup per tile: warp w reaches TMEM lanes 32·(w mod 4),
//   thread t holds row t of its tile (tcgen05.ld .32x32b,
//   AccumulatorLayout::RowPerThread). Per K/V tile: load S, mask and run
//   the online softmax of KernelBuilder.cpp (the same code as sm_80 and
//   sm_90a, on the row-per-thread layout: no shuffles; one column of P in
//   config.exp2Split.period by KernelMath::exp2Polynomial on the FMA units,
//   the others by ex2.approx on the MUFU). With one tile it also rescales
//   O: once the previous P·V has completed (oDone), O in TMEM is rescaled
//   where the row max moved past the lazy threshold (FA4's conditional
//   rescale: a warp vote skips the TMEM round trip when no row of the warp
//   needs it), P is stored as packed 16-bit pairs into TMEM and handed over
//   (pFull). With two tiles a correction warpgroup does the rescale (below).
// - The epilogue (shared: buildEpilogue, and sm_90a's TMA-store helpers of
//   Epilogue.h with the row-per-thread layout) writes O = acc / l from the
//   rows of TMEM as 16-bit pairs into 128B-swizzled boxes over the tile's
//   rows of Q in shared memory, and one thread stores them with TMA (the
//   plan's O map, boxes of 64 columns × 128 rows); the LSE goes straight to
//   global memory.
//
// One tile (six warps: softmax 0-3, TMA 4, MMA 5). TMEM columns (lane =
// row): O [0, D) | S [D, D + Bc) | P [D + Bc, D + 3·Bc/2), allocated as the
// next power of two. P has columns of its own so that the MMA thread can
// issue S_{j+1} as soon as the softmax has read S_j (sFree): the next
// Q·Kᵀ overlaps this tile's softmax. The softmax warpgroup rescales O and
// writes the epilogue itself (a correction warpgroup would take 12 warps:
// setmaxnreg acts on whole warpgroups).
//
// Two tiles in ping-pong (sixteen warps: softmax 0-3 and 4-7, correction
// 8-11, TMA 12, MMA 13, warps 14 and 15 idle; setmaxnreg 184 for the
// softmax warpgroups, 88 for the correction, 56 for the fourth: 2·128·184
// + 128·88 + 128·56 = 128·512, the launch share; every role re-reads the
// shared base, the TMEM address and the tile after it: reloadEntryValues). TMEM columns: O_0 | S_0
// | O_1 | S_1 (2·(D + Bc)), P_i over the first Bc/2 columns of S_i once the
// softmax has loaded S_i into registers. The MMA issue order: S_0(0),
// S_1(0); then per K/V tile j: P_0(j)·V_j, S_0(j+1), P_1(j)·V_j, S_1(j+1):
// one tile's softmax runs under the other tile's MMAs. No "S free"
// barrier: S_i(j+1) is issued after P_i(j)·V_j, which reads P_i(j) from
// S_i's columns, and one thread's tcgen05.mma execute in order (to check
// on hardware). Causal: tile 0's range ends no later than tile 1's; the
// K/V stream runs tile 1's, tile 0 issues nothing past its own, K is
// released after S_1(j) and V after P_1(j)·V_j.
// The softmax of tile i only turns S into P: it writes α_i(j) (j ≥ 1) to
// shared memory (two buffers, j & 1) and, with its last tile, the row's
// (m, l), and arrives on alphaFull[i]. The correction warpgroup (thread t
// holds row t of both tiles) waits alphaFull[i] and oDone[i] (P_i(j−1)·V
// completed), rescales O_i under the warp vote, and arrives on oReady[i],
// which the MMA thread waits before P_i(j)·V_j; after the loop it writes
// both tiles' O (the epilogue above).
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"
#include "flash/Conversion/FlashToNVGPU/KernelForm.h"
#include "flash/Conversion/FlashToNVGPU/SM100/TCGen05.h"
#include "flash/Conversion/FlashToNVGPU/SM90/Barriers.h"
#include "flash/Conversion/FlashToNVGPU/SM90/Epilogue.h"
#include "flash/Conversion/FlashToNVGPU/SM90/SharedLayout.h"
#include "flash/Conversion/FlashToNVGPU/SM90/TMA.h"
#include "flash/Conversion/FlashToNVGPU/SM90/TileScheduler.h"
#include "flash/Conversion/FlashToNVGPU/SM90/Warpgroups.h"
#include "flash/Conversion/FlashToNVGPU/SM90/WGMMA.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cmath>
#include <functional>
#include <limits>

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::sm90;

namespace {

constexpr int64_t kSoftmaxThreads = 128;
/// Rows of one Q tile: tcgen05.mma's M, one TMEM lane per row.
constexpr int64_t kTileRows = 128;
/// Columns of O moved per tcgen05.ld/st in the rescale and the epilogue
/// (the correction warpgroup's, at 88 registers: kCorrectionChunk).
constexpr int64_t kOutputChunk = 64;
constexpr int64_t kCorrectionChunk = 32;

/// Where the tiles, the mbarriers and the TMEM address live in shared
/// memory (byte offsets from the 1024-byte-aligned base):
///   Q[Br][D] | K[stages][Bc][D] | V[stages][Bc][D] |
///   mbarriers: Q full, K full[stages], V full[stages], K empty[stages],
///              V empty[stages], S full[T], S free (one tile only),
///              P full[T], O done[T], and with two tiles α full[T],
///              O ready[T] |
///   with two tiles: α[T][2][128] f32 | (m, l)[T][2][128] f32 |
///   the TMEM address tcgen05.alloc writes.
/// O leaves through Q's space: tile i's O is staged over Q_i's rows (the
/// same 128B-swizzled boxes of 64 columns) once its MMAs have completed.
/// (T = tiles; Q's TMA boxes of Br rows: tile i's rows start 128·i rows
/// into each 64-column block.)
struct Layout {
  int64_t qBytes, kvBytes, offQ, offK, offV, offAlpha = 0, offStats = 0,
      offTmemSlot, total;
  MBarrierRing qFull, kFull, vFull, kEmpty, vEmpty, sFull, sFree, pFull,
      oDone, alphaFull, oReady;
  explicit Layout(const KernelConfig &c) {
    int64_t tiles = c.blockQ / kTileRows;
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
    sFull = arena.carveRing(tiles);
    if (tiles == 1)
      sFree = arena.carveRing(1);
    pFull = arena.carveRing(tiles);
    oDone = arena.carveRing(tiles);
    if (tiles > 1) {
      // The correction warpgroup's hand-over: α_i(j) per row in two
      // buffers (j & 1), the final (m, l) per row, per tile.
      alphaFull = arena.carveRing(tiles);
      oReady = arena.carveRing(tiles);
      offAlpha = arena.carve(tiles * 2 * kTileRows * 4);
      offStats = arena.carve(tiles * 2 * kTileRows * 4);
    }
    offTmemSlot = arena.carve(8);
    total = arena.used + 1024; // + slack to align the base
  }
  Value kvSlotOffset(KernelMath &km, int64_t base, Value stage) const {
    return km.add(km.i32(base), km.mul(stage, km.i32(kvBytes)));
  }
};

/// The TMEM columns of the tiles' matrices (lane = row): tile i's O, S
/// and P start at output + i·stride, scores + i·stride, probs + i·stride.
struct TmemColumns {
  int64_t output, scores, probs, stride, allocated;
  explicit TmemColumns(const KernelConfig &c)
      : output(0), scores(c.headDim),
        probs(c.blockQ > kTileRows ? c.headDim : c.headDim + c.blockKV),
        stride(c.headDim + c.blockKV),
        allocated(c.blockQ > kTileRows
                      ? sm100::allocationColumns((c.blockQ / kTileRows) *
                                                 stride)
                      : sm100::allocationColumns(c.headDim + c.blockKV +
                                                 c.blockKV / 2)) {}
};

class ForwardKernel {
public:
  ForwardKernel(OpBuilder &b, Location loc, const KernelConfig &config)
      : b(b), loc(loc), km{b, loc}, config(config), roles(sm100Roles(config)),
        layout(config), tmem(config), et(config.elementType),
        D(config.headDim), Br(config.blockQ), Bc(config.blockKV),
        S(config.stages), T(roles.qTiles) {}

  void build(LLVM::LLVMFuncOp func);

private:
  void buildProducer();
  void buildMmaIssuer();
  void buildSoftmax();
  /// The correction warpgroup (two tiles): rescales O_i by α_i(j) where the
  /// warp vote says so, then normalises and stores both tiles' O.
  void buildCorrection();
  /// O_i = acc / l from TMEM (0 where !hasTiles) as 16-bit pairs staged over
  /// Q_i's rows (swizzled boxes) and stored by TMA; the LSE straight to
  /// global memory. Called by 128 threads that hold rows (thread t row t of
  /// the tile), one group on named barrier 1.
  void storeOutputTile(int64_t tile, Value outputColumn, Value maxRow,
                       Value sumRow, Value hasTiles);
  /// S_i = Q_i·K_jᵀ into tile i's TMEM for the K/V tile at ring position
  /// j; commits the K slot's release where `releaseK` (the last MMA that
  /// reads it), then sFull[i].
  void issueScores(int64_t tile, Value j, bool releaseK);
  /// O_i += P_i(j)·V_j once the softmax of tile i has written P_i(j);
  /// commits the V slot's release where `releaseV`, then oDone[i].
  void issueOutput(int64_t tile, Value j, bool releaseV);
  /// The K/V tiles the rows [tileStart, tileStart + 128) visit.
  KVRange tileRange(Value tileStart) {
    return buildKVRange(km, tileStart, seqQ, seqKV, kTileRows, Bc,
                        config.causal);
  }
  Value tileStart(Value tile) {
    return T == 1 ? at.qStart
                  : km.add(at.qStart, km.mul(tile, km.i32(kTileRows)));
  }
  /// Each tile's number of K/V tiles (causal: grows with the rows, so the
  /// last tile's is the stream's).
  SmallVector<Value> tileCounts() {
    SmallVector<Value> n;
    for (int64_t i = 0; i < T; ++i)
      n.push_back(tileRange(tileStart(km.i32(i))).numTiles);
    return n;
  }
  /// `body` for tile i at K/V tile j: the last tile always, an earlier one
  /// only within its own (causal: shorter) range `counts[i]`.
  void underTileRange(ArrayRef<Value> counts, int64_t i, Value j,
                      function_ref<void()> body) {
    if (i == T - 1) {
      body();
      return;
    }
    auto inRange =
        scf::IfOp::create(
        b, loc, km.cmp(arith::CmpIPredicate::slt, j, counts[i]), false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(inRange.thenBlock()->getTerminator());
    body();
  }
  /// The softmax loop over K/V tiles [lb, ub): carries (m, l).
  SmallVector<Value> softmaxLoop(Value lb, Value ub, ValueRange state,
                                 bool masked);
  /// O (TMEM) *= α per row, skipped by a warp none of whose rows moved.
  void rescaleOutput(Value alpha, Value outputColumn);
  /// Barrier `ring`'s slot `slot` at parity use & 1.
  void waitUse(const MBarrierRing &ring, Value slot, Value use) {
    ring.waitComplete(km, smem, {slot, use});
  }
  void waitUse(const MBarrierRing &ring, Value use) {
    waitUse(ring, km.i32(0), use);
  }
  Value barrier(const MBarrierRing &ring, Value slot) {
    return ring.address(km, smem, slot);
  }
  Value barrier(const MBarrierRing &ring) { return barrier(ring, km.i32(0)); }
  Value column(int64_t c) { return km.add(tmemBase, km.i32(c)); }
  /// After a setmaxnreg.dec: the shared base and the TMEM address read
  /// afresh, so that they are not live across it (ptxas spilled entry
  /// values there at 88 registers).
  void reloadEntryValues() {
    smem = reloadSharedBase(km);
    tmemBase = LLVM::LoadOp::create(b, loc, b.getI32Type(),
                                    smem.at(km, km.i32(layout.offTmemSlot)));
    at = decodeTile();
  }
  /// The block's tile from the block index and the sizes.
  std::function<TileCoords()> decodeTile;
  int64_t outputChunk() const {
    return roles.hasCorrection() ? kCorrectionChunk : kOutputChunk;
  }
  /// Column `c` of tile `tile`'s matrices (c: tmem.output/scores/probs).
  Value column(int64_t c, int64_t tile) {
    return column(c + tile * tmem.stride);
  }
  /// The same for the softmax's tile (a value: the warpgroup's index).
  Value tileColumn(int64_t c) {
    return T == 1 ? km.i32(c)
                  : km.add(km.i32(c), km.mul(softmaxTile, km.i32(tmem.stride)));
  }

  OpBuilder &b;
  Location loc;
  KernelMath km;
  const KernelConfig &config;
  SM100Roles roles;
  Layout layout;
  TmemColumns tmem;
  Type et;
  int64_t D, Br, Bc, S, T;

  Value tid, warp, seqQ, seqKV, scale, scaleLog2e;
  Value tensorMapQ, tensorMapK, tensorMapV, tensorMapO, lsePtr;
  SharedBase smem;
  Value tmemBase; ///< i32 TMEM address of the allocation (lane 0, column 0)
  TileCoords at;
  KVRange range; ///< one tile: the block's range (every role's)
  // Softmax warps.
  Value softmaxTile; ///< the warpgroup's tile (i32)
  LaneCoords coords;
  Value rowBase, laneBase;
};
} // namespace

void ForwardKernel::issueScores(int64_t tile, Value j, bool releaseK) {
  auto [stage, use] = layout.kFull.slotOf(km, j);
  layout.kFull.waitComplete(km, smem, {stage, use});
  sm100::fenceAfterSync(km);
  // Both operands K-major (TMA's 64-column boxes, 128-byte swizzle): Q's
  // column blocks of Br rows (tile i's rows 128·i rows in), K's of Bc rows.
  WgmmaOperand q{sm100::sharedDescriptor(
                     km, smem,
                     km.i32(layout.offQ + tile * kTileRows * kSwizzleBytes),
                     16),
                 /*mnMajor=*/false, /*blockRows=*/Br};
  WgmmaOperand k{sm100::sharedDescriptor(
                     km, smem, layout.kvSlotOffset(km, layout.offK, stage), 16),
                 /*mnMajor=*/false, /*blockRows=*/Bc};
  Value no = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  sm100::mma(km, et, column(tmem.scores, tile), &q, Value(), k, /*n=*/Bc,
             /*k=*/D, no);
  // The slot's release first, so that it has landed by the time anyone
  // waits for the S that follows.
  if (releaseK)
    sm100::commit(km, layout.kEmpty.address(km, smem, stage));
  sm100::commit(km, barrier(layout.sFull, km.i32(tile)));
}

void ForwardKernel::issueOutput(int64_t tile, Value j, bool releaseV) {
  using P = arith::CmpIPredicate;
  waitUse(layout.pFull, km.i32(tile), j);
  if (roles.hasCorrection()) {
    // O_i rescaled by α_i(j) (or left: the vote) once P_i(j-1)·V_{j-1}
    // completed: O_i(j) may accumulate.
    auto ifRescaled =
        scf::IfOp::create(b, loc, km.cmp(P::sgt, j, km.i32(0)), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifRescaled.thenBlock()->getTerminator());
    waitUse(layout.oReady, km.i32(tile), km.sub(j, km.i32(1)));
  }
  auto [stage, use] = layout.vFull.slotOf(km, j);
  layout.vFull.waitComplete(km, smem, {stage, use});
  sm100::fenceAfterSync(km);
  // V is the MN-major B operand: the leading byte offset steps to the next
  // 64-column block of D, the stride offset to the next 8 keys.
  WgmmaOperand v{sm100::sharedDescriptor(
                     km, smem, layout.kvSlotOffset(km, layout.offV, stage),
                     /*leadingBytes=*/Bc * kSwizzleBytes),
                 /*mnMajor=*/true, /*blockRows=*/0};
  sm100::mma(km, et, column(tmem.output, tile), /*aShared=*/nullptr,
             column(tmem.probs, tile), v, /*n=*/D, /*k=*/Bc,
             km.cmp(P::sgt, j, km.i32(0)));
  if (releaseV)
    sm100::commit(km, layout.vEmpty.address(km, smem, stage));
  sm100::commit(km, barrier(layout.oDone, km.i32(tile)));
}

void ForwardKernel::buildMmaIssuer() {
  using P = arith::CmpIPredicate;
  // Tiles visited per Q tile; the last tile's range is the K/V stream (the
  // ranges grow with the rows: VisibleKV.h).
  SmallVector<Value> n =
      T == 1 ? SmallVector<Value>{range.numTiles} : tileCounts();
  Value stream = n.back();
  auto hasTiles = scf::IfOp::create(b, loc, km.cmp(P::sgt, stream, km.i32(0)),
                                    false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(hasTiles.thenBlock()->getTerminator());
  // Tile i < T − 1 issues only within its own range (causal: shorter).
  auto forTile = [&](int64_t i, Value j, function_ref<void()> body) {
    underTileRange(n, i, j, body);
  };
  waitUse(layout.qFull, km.i32(0));
  for (int64_t i = 0; i < T; ++i)
    forTile(i, km.i32(0), [&] { issueScores(i, km.i32(0), i == T - 1); });
  auto loop = scf::ForOp::create(b, loc, km.i32(0), stream, km.i32(1));
  b.setInsertionPoint(loop.getBody()->getTerminator());
  // The shared base read afresh per K/V tile: the descriptors and barrier
  // addresses are rebuilt in the loop rather than held across it (at 88
  // registers and below ptxas spilled the MMA thread's Q descriptors).
  SharedBase entrySmem = smem;
  smem = reloadSharedBase(km);
  Value j = loop.getInductionVar();
  Value next = km.add(j, km.i32(1));
  if (T == 1) {
    // S_{j+1} once the softmax has read S_j (its TMEM columns are reused),
    // then O += P_j·V_j once the softmax has written P_j (and rescaled O).
    auto ifNext =
        scf::IfOp::create(b, loc, km.cmp(P::slt, next, stream), false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPoint(ifNext.thenBlock()->getTerminator());
      waitUse(layout.sFree, j);
      issueScores(0, next, /*releaseK=*/true);
    }
    issueOutput(0, j, /*releaseV=*/true);
  } else {
    // Per tile: P_i(j)·V_j, then S_i(j+1) into the columns P_i(j) occupied
    // (one thread's MMAs execute in order: P_i(j) has been read).
    for (int64_t i = 0; i < T; ++i)
      forTile(i, j, [&] {
        issueOutput(i, j, /*releaseV=*/i == T - 1);
        auto ifNext =
            scf::IfOp::create(b, loc, km.cmp(P::slt, next, n[i]), false);
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPoint(ifNext.thenBlock()->getTerminator());
        issueScores(i, next, /*releaseK=*/i == T - 1);
      });
  }
  smem = entrySmem;
  b.setInsertionPointAfter(loop);
  // Every MMA (and so every commit's arrival) completes before this thread
  // reaches the block's final barrier: the last commit is the last tile's.
  waitUse(layout.oDone, km.i32(T - 1), km.sub(stream, km.i32(1)));
}

void ForwardKernel::buildProducer() {
  using P = arith::CmpIPredicate;
  Value numTiles =
      T == 1 ? range.numTiles
             : tileRange(tileStart(km.i32(T - 1))).numTiles;
  // A Q tile that sees no key (causal, Nq > Nk) loads nothing: no load may
  // be in flight when the block exits.
  auto hasTiles = scf::IfOp::create(
      b, loc, km.cmp(P::sgt, numTiles, km.i32(0)), false);
  OpBuilder::InsertionGuard outer(b);
  b.setInsertionPoint(hasTiles.thenBlock()->getTerminator());
  // Q full: the producer's one arrival with Q's bytes.
  Value barQ = barrier(layout.qFull);
  mbarrierExpectTx(km, barQ, layout.qBytes);
  tmaLoadTile(km, smem, TmaBox{tensorMapQ, Br, D}, barQ, km.i32(layout.offQ),
              at.qStart, at.headQ);
  auto loop = scf::ForOp::create(b, loc, km.i32(0), numTiles, km.i32(1));
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

void ForwardKernel::rescaleOutput(Value alpha, Value outputColumn) {
  // A warp-uniform branch (tcgen05.ld/st are warp-collective): with lazy
  // rescaling most tiles leave every row's max, so α = 1 for all rows.
  Value moved = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE,
                                      alpha, km.f32(1.0));
  auto ifMoved = scf::IfOp::create(b, loc, km.warpAny(moved), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifMoved.thenBlock()->getTerminator());
  for (int64_t c0 = 0; c0 < D; c0 += outputChunk()) {
    Value addr = sm100::address(km, tmemBase, laneBase,
                                km.add(outputColumn, km.i32(c0)));
    Fragment chunk(AccumulatorLayout::rowPerThread(1, outputChunk()), Value());
    chunk.regs = sm100::loadRow(km, addr, outputChunk());
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
  // S_j: load this thread's row; with one tile, hand the columns back to
  // the MMA thread (S_{j+1} may overwrite them). With two, P_j goes over
  // S_j's columns and S_{j+1} waits for P_j·V_j.
  waitUse(layout.sFull, softmaxTile, j);
  sm100::fenceAfterSync(km);
  Fragment scores(AccumulatorLayout::rowPerThread(1, Bc), Value());
  scores.regs.clear();
  // ptxas compiles a tcgen05.ld within the kernel's launch cap (65536 /
  // threads: 128 registers at 512 threads), whatever setmaxnreg allows
  // after it: an x128 load asks for about 146 (C7602), so with two tiles S
  // comes in loads of kOutputChunk columns.
  int64_t scoreChunk = T > 1 ? kOutputChunk : sm100::kMaxColumnsPerAccess;
  for (int64_t c0 = 0; c0 < Bc; c0 += scoreChunk) {
    int64_t columns = std::min(Bc - c0, scoreChunk);
    llvm::append_range(
        scores.regs,
        sm100::loadRow(km,
                       sm100::address(km, tmemBase, laneBase,
                                      tileColumn(tmem.scores + c0)),
                       columns));
  }
  sm100::waitLoads(km);
  if (T == 1) {
    sm100::fenceBeforeSync(km);
    layout.sFree.arrive(km, smem, km.i32(0));
  }
  if (masked)
    buildFragmentMask(km, scores, coords, km.mul(j, km.i32(Bc)), seqQ, seqKV,
                      rowBase, config.causal);
  SoftmaxStep step =
      buildOnlineSoftmax(km, scores, runningMax, runningSum, scaleLog2e, et,
                         config.lazyThreshold(), config.exp2Split);
  SmallVector<Value> words;
  for (Value pair : step.probs)
    words.push_back(km.pairWord(pair));
  // P_j's columns: with two tiles, S_j's, which P_{j-1}·V_{j-1} (issued
  // before S_j, in order) has finished reading: P_j goes out at once. With
  // one tile, P's own columns, free once P_{j-1}·V_{j-1} has completed.
  auto storeProbs = [&] {
    sm100::storeRow(
        km, sm100::address(km, tmemBase, laneBase, tileColumn(tmem.probs)),
        words);
  };
  if (roles.hasCorrection()) {
    // Two tiles: the correction warpgroup rescales O. α_i(j) (j ≥ 1) goes
    // to shared memory in buffer j & 1, and with the last tile's the row's
    // (m, l); one arrival on α full per phase: phase j − 1 for j ≥ 1, phase
    // 0 alone when the range has one tile. Two buffers suffice: α(j + 2) is
    // written after sFull_i(j + 2), which the MMA thread issued after O
    // ready_i(j + 1), which the correction gave after reading α(j + 1) and
    // so α(j).
    Value row = km.andi(tid, km.i32(kTileRows - 1));
    Value isLast = km.cmp(P::eq, j, km.sub(range.numTiles, km.i32(1)));
    Value rescaled = km.cmp(P::sge, j, km.i32(1));
    auto ifHandOver = scf::IfOp::create(
        b, loc, arith::OrIOp::create(b, loc, rescaled, isLast), false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPoint(ifHandOver.thenBlock()->getTerminator());
      Value alphaAt = km.add(
          km.i32(layout.offAlpha),
          km.mul(km.add(km.mul(softmaxTile, km.i32(2 * kTileRows)),
                        km.add(km.mul(km.andi(j, km.i32(1)),
                                      km.i32(kTileRows)),
                               row)),
                 km.i32(4)));
      km.ifLanes(rescaled, [&] {
        LLVM::StoreOp::create(b, loc, step.rescale[0], smem.at(km, alphaAt),
                              /*alignment=*/4);
      });
      km.ifLanes(isLast, [&] {
        Value statsAt = km.add(
            km.i32(layout.offStats),
            km.mul(km.add(km.mul(softmaxTile, km.i32(2 * kTileRows)), row),
                   km.i32(4)));
        LLVM::StoreOp::create(b, loc, step.newMax[0], smem.at(km, statsAt),
                              /*alignment=*/4);
        LLVM::StoreOp::create(b, loc, step.newSum[0],
                              smem.at(km, km.add(statsAt,
                                                 km.i32(kTileRows * 4))),
                              /*alignment=*/4);
      });
      layout.alphaFull.arrive(km, smem, softmaxTile);
    }
    storeProbs();
  } else {
    // One tile: O is free once P_{j-1}·V_{j-1} has completed: rescale it by
    // this tile's α (tile 0 has no O yet: its P·V overwrites), then P.
    auto ifPrevious =
        scf::IfOp::create(b, loc, km.cmp(P::sgt, j, km.i32(0)), false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPoint(ifPrevious.thenBlock()->getTerminator());
      waitUse(layout.oDone, softmaxTile, km.sub(j, km.i32(1)));
      sm100::fenceAfterSync(km);
      rescaleOutput(step.rescale[0], km.i32(tmem.output));
    }
    storeProbs();
  }
  sm100::waitStores(km);
  sm100::fenceBeforeSync(km);
  layout.pFull.arrive(km, smem, softmaxTile);
  scf::YieldOp::create(b, loc, ValueRange{step.newMax[0], step.newSum[0]});
  return SmallVector<Value>(loop.getResults());
}

void ForwardKernel::buildSoftmax() {
  using P = arith::CmpIPredicate;
  Value lane = km.andi(tid, km.i32(31));
  coords = {lane, Value()};
  // Warp w reaches TMEM lanes 32·(w mod 4)..+31: rows 32·(w mod 4).. of
  // its warpgroup's tile.
  if (T == 1) {
    softmaxTile = km.i32(0);
    laneBase = km.mul(warp, km.i32(32));
    rowBase = km.add(at.qStart, laneBase);
  } else {
    softmaxTile = km.shru(warp, km.i32(2));
    laneBase = km.mul(km.andi(warp, km.i32(3)), km.i32(32));
    rowBase = km.add(tileStart(softmaxTile), laneBase);
    range = tileRange(tileStart(softmaxTile));
  }
  Value negInf = km.f32(-std::numeric_limits<double>::infinity());
  SmallVector<Value> state = {negInf, km.f32(0.0)};
  state = softmaxLoop(km.i32(0), range.numUnmasked, state, /*masked=*/false);
  state = softmaxLoop(km.maxsi(range.numUnmasked, km.i32(0)), range.numTiles,
                      state, /*masked=*/true);
  if (roles.hasCorrection())
    return; // the correction warpgroup writes O
  Value hasTiles = km.cmp(P::sgt, range.numTiles, km.i32(0));
  auto ifTiles = scf::IfOp::create(b, loc, hasTiles, false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifTiles.thenBlock()->getTerminator());
    waitUse(layout.oDone, softmaxTile, km.sub(range.numTiles, km.i32(1)));
    sm100::fenceAfterSync(km);
  }
  storeOutputTile(0, km.i32(tmem.output), state[0], state[1], hasTiles);
  waitOutputRead(km, tid, [] {});
}

void ForwardKernel::storeOutputTile(int64_t tile, Value outputColumn,
                                    Value maxRow, Value sumRow,
                                    Value hasTiles) {
  // Epilogue math (shared with sm_80 and sm_90a: buildEpilogue): O = acc /
  // l as 16-bit pairs, a chunk of 64 columns at a time from TMEM; the LSE
  // once, straight to global memory. A tile without K/V has no O in TMEM:
  // its rows are 0 (l = 0). The pairs go to shared memory over Q_i's rows
  // (its 64-column boxes of 128B-swizzled rows, as TMA loaded Q: this
  // tile's MMAs have all completed, the last oDone said so) and leave by
  // TMA stores of the plan's O map (boxes of 64 columns × 128 rows; rows
  // past Nq are clipped by the map), as sm_90a's epilogue does (Epilogue.h,
  // here with the row-per-thread layout).
  Value headIndex = km.toIndex(at.headQ);
  Value lseBase = arith::MulIOp::create(b, loc, headIndex, km.toIndex(seqQ));
  Value lseMemref = config.writesLse
                        ? buildFlatGlobalMemref(km, lsePtr, b.getF32Type())
                        : Value();
  Value firstRow = tileStart(km.i32(tile));
  Value rowBaseOf = km.add(firstRow, laneBase);
  auto box = [&](int64_t block) {
    return km.i32(layout.offQ + block * Br * kSwizzleBytes +
                  tile * kTileRows * kSwizzleBytes);
  };
  Value zero = km.f32(0.0);
  for (int64_t c0 = 0; c0 < D; c0 += outputChunk()) {
    Fragment chunk(AccumulatorLayout::rowPerThread(1, outputChunk()), Value());
    chunk.regs = sm100::loadRow(
        km,
        sm100::address(km, tmemBase, laneBase,
                       km.add(outputColumn, km.i32(c0))),
        outputChunk());
    sm100::waitLoads(km);
    for (Value &x : chunk.regs)
      x = km.select(hasTiles, x, zero);
    SmallVector<OutputWord> words;
    buildEpilogue(km, config, chunk, maxRow, sumRow, coords, rowBaseOf, seqQ,
                  scale, Value(), Value(), c0 == 0 ? lseMemref : Value(),
                  lseBase, [&](Value row, int64_t cp, Value word) {
                    // The pair's place in the 64-column box.
                    words.push_back(
                        {row, cp + (c0 % kAtomColumns) / 2, word});
                  });
    writeSwizzledOutput(km, smem, chunk.layout, words,
                        {box(c0 / kAtomColumns)}, firstRow, Value());
  }
  storeOutputTma(km, smem, tensorMapO, D, tid, km.i32(0),
                 /*firstBarrierId=*/1, [&] { return firstRow; }, at.headQ,
                 box);
}

void ForwardKernel::buildCorrection() {
  using P = arith::CmpIPredicate;
  // Warp 8 + w reaches TMEM lanes 32·w: thread t of the warpgroup holds row
  // t of either tile, as the softmax thread t of that tile does.
  Value lane = km.andi(tid, km.i32(31));
  coords = {lane, Value()};
  laneBase = km.mul(km.andi(warp, km.i32(3)), km.i32(32));
  Value row = km.andi(tid, km.i32(kTileRows - 1));
  SmallVector<Value> n = tileCounts();
  Value stream = n.back();
  auto forTile = [&](int64_t i, Value j, function_ref<void()> body) {
    underTileRange(n, i, j, body);
  };
  // Per K/V tile j ≥ 1 and tile i: α_i(j) from the softmax, O_i free
  // (P_i(j−1)·V_{j−1} completed), the rescale where a row of the warp
  // moved, then O ready_i for P_i(j)·V_j.
  {
    auto loop = scf::ForOp::create(b, loc, km.i32(1), stream, km.i32(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    SharedBase entrySmem = smem;
    smem = reloadSharedBase(km);
    Value j = loop.getInductionVar();
    Value previous = km.sub(j, km.i32(1));
    for (int64_t i = 0; i < T; ++i)
      forTile(i, j, [&] {
        waitUse(layout.alphaFull, km.i32(i), previous);
        waitUse(layout.oDone, km.i32(i), previous);
        sm100::fenceAfterSync(km);
        Value alphaAt = km.add(
            km.i32(layout.offAlpha + i * 2 * kTileRows * 4),
            km.mul(km.add(km.mul(km.andi(j, km.i32(1)), km.i32(kTileRows)),
                          row),
                   km.i32(4)));
        Value alpha = LLVM::LoadOp::create(b, loc, b.getF32Type(),
                                           smem.at(km, alphaAt), 4);
        rescaleOutput(alpha, km.i32(tmem.output + i * tmem.stride));
        sm100::waitStores(km);
        sm100::fenceBeforeSync(km);
        layout.oReady.arrive(km, smem, km.i32(i));
      });
    smem = entrySmem;
  }
  // The epilogues, tile by tile (tile 0's after the loop: under causal
  // masking it ends a K/V tile before tile 1). Q's space takes O: Q's load,
  // if one was issued, has landed.
  auto ifLoaded = scf::IfOp::create(b, loc, km.cmp(P::sgt, stream, km.i32(0)),
                                    false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifLoaded.thenBlock()->getTerminator());
    waitUse(layout.qFull, km.i32(0));
  }
  Value negInf = km.f32(-std::numeric_limits<double>::infinity());
  for (int64_t i = 0; i < T; ++i) {
    Value hasTiles = km.cmp(P::sgt, n[i], km.i32(0));
    // (m, l) came with the last α phase (n − 2), waited in the loop, or
    // alone in phase 0 when the range has one tile; O_i is final after the
    // last oDone.
    auto ifTiles = scf::IfOp::create(b, loc, hasTiles, false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(ifTiles.thenBlock()->getTerminator());
      km.ifLanes(km.cmp(P::eq, n[i], km.i32(1)),
                 [&] { waitUse(layout.alphaFull, km.i32(i), km.i32(0)); });
      waitUse(layout.oDone, km.i32(i), km.sub(n[i], km.i32(1)));
      sm100::fenceAfterSync(km);
    }
    Value statsAt =
        km.add(km.i32(layout.offStats + i * 2 * kTileRows * 4),
               km.mul(row, km.i32(4)));
    Value m = LLVM::LoadOp::create(b, loc, b.getF32Type(),
                                   smem.at(km, statsAt), 4);
    Value l = LLVM::LoadOp::create(
        b, loc, b.getF32Type(),
        smem.at(km, km.add(statsAt, km.i32(kTileRows * 4))), 4);
    storeOutputTile(i, km.i32(tmem.output + i * tmem.stride),
                    km.select(hasTiles, m, negInf),
                    km.select(hasTiles, l, km.f32(0.0)), hasTiles);
  }
  // Shared memory stays until the stores have read it.
  waitOutputRead(km, tid, [] {});
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
  decodeTile = [this, queryHeads, kvHeads, batchSize] {
    Value numQTiles = km.divu(km.add(seqQ, km.i32(Br - 1)), km.i32(Br));
    TileScheduler scheduler = makeTileScheduler(
        km, numQTiles, queryHeads, kvHeads, batchSize, Br, config.causal,
        /*tileGroupBytes=*/0, /*kvRowBytes=*/0,
        SM90Config::kMinGroupedQTiles, seqKV);
    return scheduler.decode(km, blockTile(km, scheduler));
  };
  auto window = SymbolTable::lookupNearestSymbolFrom<LLVM::GlobalOp>(
      func, b.getStringAttr("flash_smem"));
  smem = alignSharedBase(km, window);

  // Thread 0 initialises the mbarriers. Arrivals per phase: the producer's
  // expect_tx (Q, K, V full); one tcgen05.commit of the MMA thread (K, V
  // empty, S full and O done per tile); every thread of a softmax
  // warpgroup (S free with one tile, P full per tile).
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
    for (int64_t i = 0; i < T; ++i)
      mbarrierInit(km, barrier(layout.sFull, km.i32(i)), one);
    for (int64_t i = 0; i < T; ++i)
      mbarrierInit(km, barrier(layout.oDone, km.i32(i)), one);
    if (T == 1)
      mbarrierInit(km, barrier(layout.sFree), km.i32(kSoftmaxThreads));
    for (int64_t i = 0; i < T; ++i)
      mbarrierInit(km, barrier(layout.pFull, km.i32(i)),
                   km.i32(kSoftmaxThreads));
    if (roles.hasCorrection()) {
      // α full: the tile's 128 softmax threads; O ready: the correction
      // warpgroup's 128.
      for (int64_t i = 0; i < T; ++i)
        mbarrierInit(km, barrier(layout.alphaFull, km.i32(i)),
                     km.i32(kSoftmaxThreads));
      for (int64_t i = 0; i < T; ++i)
        mbarrierInit(km, barrier(layout.oReady, km.i32(i)),
                     km.i32(kSoftmaxThreads));
    }
    NVVM::FenceMbarrierInitOp::create(b, loc);
  }
  // The MMA warp allocates the block's tensor memory (a warp-wide op) and
  // frees it at the end, after every warp is done with it: the same
  // condition guards both, and nothing returns in between (the static
  // check, sm100::checkTensorMemory, holds the lowering to that).
  Value slot = smem.at(km, km.i32(layout.offTmemSlot));
  Value isMmaWarp = km.cmp(P::eq, warp, km.i32(roles.mmaWarp));
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

  at = decodeTile();
  // One tile: every role's range; two: each role takes the ranges it
  // needs (after setmaxnreg).
  if (T == 1)
    range = buildKVRange(km, at.qStart, seqQ, seqKV, Br, Bc, config.causal);

  auto softmaxRole = scf::IfOp::create(
      b, loc, km.cmp(P::slt, tid, km.i32(kSoftmaxThreads * T)), true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(softmaxRole.thenBlock()->getTerminator());
    if (roles.softmaxRegisters)
      setRegisterBudget(km, roles.softmaxRegisters, /*increase=*/true);
    SharedBase entrySmem = smem;
    Value entryTmem = tmemBase;
    TileCoords entryTile = at;
    if (roles.hasCorrection())
      reloadEntryValues();
    buildSoftmax();
    smem = entrySmem;
    tmemBase = entryTmem;
    at = entryTile;
    b.setInsertionPoint(softmaxRole.elseBlock()->getTerminator());
    if (roles.hasCorrection()) {
      // Warps 8-11: the correction warpgroup; 12-15: TMA, MMA, two idle.
      auto correction = scf::IfOp::create(
          b, loc,
          km.cmp(P::slt, tid, km.i32(32 * (roles.correctionWarp + 4))), true);
      b.setInsertionPoint(correction.thenBlock()->getTerminator());
      setRegisterBudget(km, roles.correctionRegisters, /*increase=*/false);
      reloadEntryValues();
      buildCorrection();
      b.setInsertionPoint(correction.elseBlock()->getTerminator());
    }
    if (roles.otherRegisters)
      setRegisterBudget(km, roles.otherRegisters, /*increase=*/false);
    if (roles.hasCorrection())
      reloadEntryValues();
    auto producer = scf::IfOp::create(
        b, loc, km.cmp(P::eq, tid, km.i32(32 * roles.producerWarp)), false);
    b.setInsertionPoint(producer.thenBlock()->getTerminator());
    buildProducer();
    b.setInsertionPointAfter(producer);
    auto issuer = scf::IfOp::create(
        b, loc, km.cmp(P::eq, tid, km.i32(32 * roles.mmaWarp)), false);
    b.setInsertionPoint(issuer.thenBlock()->getTerminator());
    buildMmaIssuer();
    smem = entrySmem;
    tmemBase = entryTmem;
    at = entryTile;
  }
  sm100::fenceBeforeSync(km);
  gpu::BarrierOp::create(b, loc);
  auto dealloc = scf::IfOp::create(b, loc, isMmaWarp, false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(dealloc.thenBlock()->getTerminator());
    sm100::fenceAfterSync(km);
    // (With roles that reload it, the address read afresh: nothing holds it
    // across the roles.)
    sm100::deallocate(km,
                      roles.hasCorrection()
                          ? LLVM::LoadOp::create(b, loc, b.getI32Type(), slot)
                                .getResult()
                          : tmemBase,
                      tmem.allocated);
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
  // (tmQ, tmK, tmV, tmO;) LSE, B, Hq, Hkv, Nq, Nk, scale
  SmallVector<Type> params = {global, i32, i32, i32, i32, i32, b.getF32Type()};
  LLVM::LLVMFuncOp func = declareTensorMapKernel(
      b, loc, config.name, /*numTensorMaps=*/4, params, config.threads(),
      config.blocksPerSM);
  {
    OpBuilder::InsertionGuard guard(b);
    ForwardKernel(b, loc, config).build(func);
  }
  return sm100::checkTensorMemory(func, sm100::kTensorMemoryColumns,
                                  config.blocksPerSM);
}
