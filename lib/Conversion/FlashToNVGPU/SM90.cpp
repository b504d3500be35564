//===- SM90.cpp - the Hopper attention kernel (TMA, mbarrier, wgmma) ------===//
//
// A FlashAttention-3 style forward kernel for sm_90a, built op by op:
// - one thread block per Q tile of Br = 64·C rows of one (batch, q-head), or
//   a persistent grid whose blocks draw tiles from a counter (buildTileLoop):
//   warpgroup 0 is the producer, warpgroups 1..C the consumers (64 rows each);
//   setmaxnreg moves registers from the producer to the consumers;
// - the producer's first thread loads Q once and K/V tiles into `stages`
//   shared-memory slots with TMA (cp.async.bulk.tensor, 128-byte swizzle),
//   completing on "full" mbarriers (expect_tx); consumers release a slot on
//   its "empty" mbarrier. Tensor maps are rank 3, (D, N, B·H), so a box that
//   runs past the end of a head's sequence is zero-filled by the TMA unit:
//   ragged tails cost nothing;
// - S = Q·Kᵀ on wgmma m64nBc k16 with both operands in shared memory; O +=
//   P·V on wgmma with P in registers (the accumulator layout of S packed to
//   16-bit pairs is wgmma's A-fragment layout), issued through inline PTX
//   because nvvm.wgmma.mma_async takes A from shared memory only;
// - FA3's intra-warpgroup pipelining: the GEMM of tile j+1 is issued before
//   the softmax of tile j, which then runs while the tensor cores work; and
//   ping-pong: the consumers take turns issuing GEMMs (named barriers);
// - the mask, online softmax and epilogue math are KernelBuilder.cpp's, the
//   same code as sm_80: each warp of a wgmma m64nN accumulator holds an
//   mma.sync m16n8 C fragment per 8 columns. O leaves through shared memory
//   (over the consumer's own Q rows, or in a slot of the K/V ring when a
//   persistent block has one Q buffer) and a TMA store.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"

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

namespace {
constexpr int64_t kSwizzleBytes = 128; // one TMA box column / swizzle atom row
constexpr int64_t kAtomColumns = 64;   // 16-bit elements per 128 bytes
constexpr int64_t kOutputBoxBytes = 64 * kSwizzleBytes; // 64 rows of O

/// Shared-memory layout (byte offsets from a 1024-aligned base):
/// Q[qBuffers][Br][D] | K[stages][Bc][D] | V[stages][Bc][D] | mbarriers |
/// tile index per Q buffer, each tile stored as D/64 column blocks of
/// rows × 128 bytes (one TMA box each). O is staged as boxes of 64 rows × 128
/// bytes, either over Q or, with `outputInRing`, in the K and V halves of
/// one slot of the K/V ring (outputBox).
struct SharedLayout {
  int64_t qBytes, kvBytes, boxesPerHalf, offQ, offK, offV, offBarriers,
      numBarriers, offTile, total;
  explicit SharedLayout(const KernelConfig &c) {
    int64_t e = c.elementType.getIntOrFloatBitWidth() / 8;
    qBytes = c.blockQ * c.headDim * e;
    kvBytes = c.blockKV * c.headDim * e;
    // Whole 1024-byte-aligned boxes of O in a K (or V) tile.
    boxesPerHalf = kvBytes % 1024 == 0 ? kvBytes / kOutputBoxBytes : 0;
    offQ = 0;
    offK = c.qBuffers * qBytes;
    offV = offK + c.stages * kvBytes;
    offBarriers = offV + c.stages * kvBytes;
    // full and empty per Q buffer, full and empty K/V per stage
    numBarriers = 2 * c.qBuffers + 4 * c.stages;
    offTile = offBarriers + 8 * numBarriers; // persistent: tile per Q buffer
    total = offTile + 8 + 1024;              // + slack to align the base
  }
};

enum BarrierKind { kBarQ, kFullK, kFullV, kEmptyK, kEmptyV, kEmptyQ };

class SM90KernelBuilder {
public:
  SM90KernelBuilder(OpBuilder &b, Location loc, const KernelConfig &config)
      : b(b), loc(loc), km{b, loc}, config(config), layout(config),
        et(config.elementType), D(config.headDim), Br(config.blockQ),
        Bc(config.blockKV), S(config.stages), C(config.consumers) {}

  void build(LLVM::LLVMFuncOp func);

private:
  // --- shared memory and barriers --------------------------------------
  Type sharedPtrType() {
    return LLVM::LLVMPointerType::get(b.getContext(), 3);
  }
  Value sharedPtr(Value byteOffset) {
    return LLVM::GEPOp::create(b, loc, sharedPtrType(), b.getI8Type(),
                               sharedBase, ValueRange{byteOffset});
  }
  /// The mbarrier of `kind` for K/V stage or Q buffer `stage`.
  Value barrier(BarrierKind kind, Value stage = Value()) {
    int64_t qb = config.qBuffers;
    int64_t index = kind == kBarQ     ? 0
                    : kind == kEmptyQ ? qb + 4 * S
                                      : qb + (int64_t(kind) - 1) * S;
    Value offset = km.i32(layout.offBarriers + 8 * index);
    if (stage)
      offset = km.add(offset, km.mul(stage, km.i32(8)));
    return sharedPtr(offset);
  }
  void waitBarrier(Value bar, Value parity) {
    NVVM::MBarrierTryWaitParityOp::create(b, loc, bar, parity,
                                          km.i32(1000000));
  }
  void arriveBarrier(Value bar) {
    NVVM::MBarrierArriveOp::create(b, loc, b.getI64Type(), bar, Value(),
                                   NVVM::MemScopeKind::CTA, false);
  }
  void expectBytes(Value bar, int64_t bytes) {
    NVVM::MBarrierArriveExpectTxOp::create(b, loc, Type(), bar,
                                           km.i32(bytes),
                                           NVVM::MemScopeKind::CTA, false,
                                           Value());
  }
  /// (buffer, use count) of the Q of the block's tile number `iteration`.
  std::pair<Value, Value> qBufferOf(Value iteration) {
    if (config.qBuffers == 1)
      return {km.i32(0), iteration};
    return {km.andi(iteration, km.i32(1)), km.shru(iteration, km.i32(1))};
  }
  Value tileSlot(Value buffer) {
    return sharedPtr(km.add(km.i32(layout.offTile), km.mul(buffer, km.i32(4))));
  }
  /// Byte offset of Q buffer `buffer`.
  Value qBufferOffset(Value buffer) {
    return km.add(km.i32(layout.offQ), km.mul(buffer, km.i32(layout.qBytes)));
  }
  /// Q tiles of the launch: ceil(Nq / Br) · Hq · B.
  Value totalTiles() {
    return km.mul(km.mul(numQTiles, queryHeads), batchSize);
  }
  /// Consumers of a persistent grid: waits for the Q buffer of the block's
  /// tile number `iteration` (armed after the producer publishes the tile
  /// index, or the end marker) and reads the index.
  Value readTileIndex(Value iteration) {
    auto [buffer, use] = qBufferOf(iteration);
    waitBarrier(barrier(kBarQ, buffer), km.andi(use, km.i32(1)));
    return LLVM::LoadOp::create(b, loc, b.getI32Type(), tileSlot(buffer),
                                /*alignment=*/4, /*isVolatile=*/true);
  }
  /// (stage, use count) of K/V tile j in the ring of S slots.
  std::pair<Value, Value> stageOf(Value j) {
    if ((S & (S - 1)) == 0)
      return {km.andi(j, km.i32(S - 1)),
              km.shru(j, km.i32(llvm::Log2_64(S)))};
    return {arith::RemUIOp::create(b, loc, j, km.i32(S)),
            km.divu(j, km.i32(S))};
  }

  // --- TMA --------------------------------------------------------------
  /// Loads `rows` rows of the (D, N, B·H) tensor map at (row0, head) into
  /// the tile at `byteOffset`, one 64-column box per 128-byte block.
  void loadTile(Value tensorMap, Value bar, Value byteOffset, int64_t rows,
                Value row0, Value head) {
    auto clusterPtr = LLVM::LLVMPointerType::get(b.getContext(), 7);
    for (int64_t block = 0; block < D / kAtomColumns; ++block) {
      Value dst = LLVM::AddrSpaceCastOp::create(
          b, loc, clusterPtr,
          sharedPtr(km.add(byteOffset, km.i32(block * rows * kSwizzleBytes))));
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          b, loc, dst, tensorMap,
          ValueRange{km.i32(block * kAtomColumns), row0, head}, bar,
          ValueRange{}, Value(), Value(), NVVM::TMALoadMode::TILE,
          /*isCTAOnly=*/false, NVVM::CTAGroupKindAttr(), Value());
    }
  }

  // --- wgmma ------------------------------------------------------------
  /// A shared-memory matrix descriptor: start address >> 4 (bits 0-13),
  /// leading byte offset >> 4 (16-29), stride byte offset >> 4 (32-45), 128B
  /// swizzle (bits 62-63 = 1).
  Value descriptor(Value byteOffset, int64_t leadingBytes) {
    int64_t fields = (int64_t(1) << 62) | (int64_t(1024 >> 4) << 32) |
                     (int64_t(leadingBytes >> 4) << 16);
    Value address = km.shru(km.add(sharedBase32, byteOffset), km.i32(4));
    Value wide = arith::ExtUIOp::create(b, loc, b.getI64Type(), address);
    return arith::OrIOp::create(b, loc, wide, i64(fields));
  }
  Value advance(Value desc, int64_t bytes) {
    return bytes ? arith::AddIOp::create(b, loc, desc, i64(bytes >> 4)) : desc;
  }
  Value i64(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  }
  Type f32Struct(int64_t n) {
    SmallVector<Type> fields(n, b.getF32Type());
    return LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
  }
  void fence() { NVVM::WgmmaFenceAlignedOp::create(b, loc); }
  void commit() { NVVM::WgmmaGroupSyncAlignedOp::create(b, loc); }
  void waitGroups(int64_t pending) {
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, pending);
  }
  /// S = Q·K_sᵀ for this consumer's 64 rows: D/16 wgmma m64nBc k16, both
  /// operands K-major in shared memory. Uncommitted.
  Fragment scoresOf(Value stage);
  /// acc += P·V_s: Bc/16 wgmma m64nD k16 with A = P from registers and V
  /// MN-major in shared memory. Uncommitted.
  void accumulate(Fragment &acc, ArrayRef<Value> probWords, Value stage);
  /// Ping-pong: consumer c waits for its turn on named barrier 1 + c before
  /// issuing GEMMs, and hands the turn to consumer c + 1 (mod C) after them.
  /// No-ops without ping-pong.
  void beginTurn();
  void endTurn();
  /// warpgroupRanges: how many of consumers 0..C-2 skip K/V tile j, the
  /// ones whose tile count (in `tiles`) is at most j.
  Value skippersOf(Value j, ArrayRef<Value> tiles);
  /// How many K/V tiles rows [firstRow, firstRow + 64) see, at least one
  /// when the block has any (so that every warpgroup runs the prologue).
  Value rowsTileCount(Value firstRow);
  /// Keeps `values` alive until here (an empty asm that uses them), so that
  /// LLVM does not reuse P's registers while an async wgmma still reads them.
  void keepAlive(ArrayRef<Value> values);

  // --- roles ------------------------------------------------------------
  /// The tiles this block computes: one (grid = Q tiles × Hq × B), or, in a
  /// persistent grid of at most blocksPerSM blocks per SM, the tiles its
  /// producer draws from the tile counter (so that one tile's loads overlap
  /// the previous tile's end).
  /// `body(tile, tileIteration, kvCount)` returns the new K/V tile count;
  /// kvCount numbers the K/V tiles this block has streamed so far, which
  /// keeps the ring of stages and its mbarrier phases running across tiles.
  void buildTileLoop(bool isProducer,
                     function_ref<Value(Value, Value, Value)> body);
  /// Sets qStart, headQ, headKV and range for `tile`.
  void decodeTile(Value tile);
  /// At kernel entry, for the grouped order: the heads per group.
  void prepareTileOrder();
  /// Producer: waits until the Q buffer of tile number `iteration` is free;
  /// returns the buffer.
  Value acquireQBuffer(Value iteration);
  void buildProducer();
  void buildConsumer();

  // --- consumer pieces ----------------------------------------------------
  /// rescale=lazy-late: the loops carry each tile's α to just before the
  /// next P·V (after the next Q·Kᵀ is issued), where a warp skips it if it
  /// can; the others apply it after the P·V they follow.
  bool lateRescale() const {
    return config.rescale == KernelConfig::Rescale::LazyLate;
  }
  /// Consumers of persistent grids with two Q buffers (or one, with O in the
  /// K/V ring) issue the next tile's first Q·Kᵀ before they store this
  /// tile's O, so that the two overlap (buildPipelinedConsumer).
  bool pipelinesTiles() const { return config.pipelinesTiles(); }
  void buildPipelinedConsumer();
  /// Recomputes sharedBase and sharedBase32 in a role, after setmaxnreg:
  /// ptxas spills values that are live across setmaxnreg when registers are
  /// tight (the pipelined consumer at D=128 did, 4 bytes).
  void rebaseSharedMemory();
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
  struct Finished {
    Fragment acc;
    SmallVector<Value> max, sum;
  };
  /// The K/V loops after the prologue and the last P·V.
  Finished buildMainLoop(ArrayRef<Value> prologue, Value kvCount);
  /// O = acc / l as packed pairs (and the LSE, stored to global memory).
  struct OutputWord {
    Value row;
    int64_t columnTile;
    Value word;
  };
  SmallVector<OutputWord> normalizeOutput(Finished done);
  /// O through shared memory and TMA stores; releases the Q buffer, or with
  /// outputInRing the K/V slot at ring position `slot` (kvCount + tiles).
  void storeOutput(ArrayRef<OutputWord> words, Value slot);
  /// The three steps: O into this warpgroup's boxes (outputBox); the proxy
  /// fence, the warpgroup barrier and the leader's TMA stores; and the
  /// leader's wait for the stores to have read the boxes, which releases
  /// the Q buffer (or the K/V slot). The pipelined consumer runs the next
  /// tile's first softmax between the last two, so that no warp of the
  /// warpgroup waits for the TMA unit's read there.
  void stageOutput(ArrayRef<OutputWord> words, Value slot);
  void publishOutput();
  void releaseOutput();
  /// Byte offset of this consumer warpgroup's box of O for column block
  /// `block`: over its own 64 rows of the Q buffer, or (outputInRing) box
  /// consumer·D/64 + block of the slot's K half, then its V half.
  Value outputBox(int64_t block);
  /// The ring position just after the K/V tiles of a tile that started at
  /// `kvCount`: with outputInRing, the slot its O is staged in.
  Value outputSlot(Value kvCount) { return km.add(kvCount, range.numTiles); }
  /// The ring position the next tile starts at: past the K/V tiles, and past
  /// the O slot with outputInRing.
  Value ringAfterTile(Value kvCount) {
    Value next = outputSlot(kvCount);
    return config.outputInRing ? km.add(next, km.i32(1)) : next;
  }

  OpBuilder &b;
  Location loc;
  KernelMath km;
  const KernelConfig &config;
  SharedLayout layout;
  Type et;
  int64_t D, Br, Bc, S, C;

  Value tid, seqQ, seqKV, scale, scaleLog2e, qStart, headQ, headKV;
  Value queryHeads, kvHeads, batchSize, numQTiles;
  // The grouped order's heads per group (null for the order by head).
  Value heads, tileGroup;
  Value tensorMapQ, tensorMapK, tensorMapV, tensorMapO, lsePtr, counterPtr;
  Value sharedBase, sharedBase32;
  KVRange range;
  // warpgroupRanges: the tile counts of consumers 0..C-2's own rows (the
  // last one's are the block's). `own`: the K/V range the calling consumer
  // visits, the block's but (warpgroupRanges) for its own tile count.
  SmallVector<Value> groupTiles;
  KVRange own;
  // consumer-side
  Value consumer, descQ, warpInGroup, qBuffer;
  Value outputStage; // outputInRing: the K/V slot this tile's O is staged in
  LaneCoords coords;
  Value rowBase;
};
} // namespace

int64_t mlir::flash::sm90SharedBytes(const KernelConfig &config) {
  return SharedLayout(config).total;
}

bool mlir::flash::sm90OutputFitsInRing(const KernelConfig &config) {
  int64_t boxes = config.consumers * (config.headDim / kAtomColumns);
  return boxes <= 2 * SharedLayout(config).boxesPerHalf;
}

Fragment SM90KernelBuilder::scoresOf(Value stage) {
  Value kTile =
      km.add(km.i32(layout.offK), km.mul(stage, km.i32(layout.kvBytes)));
  Value descK0 = descriptor(kTile, /*leadingBytes=*/16);
  Type resultType = f32Struct(Bc / 2);
  Value acc = LLVM::UndefOp::create(b, loc, resultType); // scale-d = 0 first
  auto wgmmaType = et.isF16() ? NVVM::WGMMATypes::f16 : NVVM::WGMMATypes::bf16;
  for (int64_t kk = 0; kk < D / 16; ++kk) {
    // k-slice kk: column block kk/4, 32 bytes further per 16 columns.
    int64_t qOffset = (kk / 4) * Br * kSwizzleBytes + (kk % 4) * 32;
    int64_t kOffset = (kk / 4) * Bc * kSwizzleBytes + (kk % 4) * 32;
    acc = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, resultType, acc, advance(descQ, qOffset),
        advance(descK0, kOffset),
        NVVM::MMAShapeAttr::get(b.getContext(), 64, Bc, 16), wgmmaType,
        wgmmaType, NVVM::WGMMATypes::f32,
        kk == 0 ? NVVM::WGMMAScaleOut::zero : NVVM::WGMMAScaleOut::one,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
        NVVM::MMALayout::row, NVVM::MMALayout::col, NVVM::MMAIntOverflowAttr());
  }
  Fragment scores(1, Bc / 8, Value());
  for (int64_t i = 0; i < Bc / 2; ++i)
    scores.regs[i] =
        LLVM::ExtractValueOp::create(b, loc, acc, ArrayRef<int64_t>{i});
  return scores;
}

void SM90KernelBuilder::accumulate(Fragment &acc, ArrayRef<Value> probWords,
                                   Value stage) {
  const int64_t n = D / 2; // accumulator registers per thread
  Value vTile =
      km.add(km.i32(layout.offV), km.mul(stage, km.i32(layout.kvBytes)));
  // V is the transposed (MN-major) B operand: the leading byte offset steps
  // to the next 64-column block, the stride offset to the next 8 keys.
  Value descV0 = descriptor(vTile, /*leadingBytes=*/Bc * kSwizzleBytes);
  std::string type = et.isF16() ? "f16" : "bf16";
  std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n" +
                     std::to_string(D) + "k16.f32." + type + "." + type + " {";
  for (int64_t i = 0; i < n; ++i)
    text += (i ? ", $" : "$") + std::to_string(i);
  text += "}, {";
  for (int64_t i = 0; i < 4; ++i)
    text += (i ? ", $" : "$") + std::to_string(n + i);
  // scale-d = p (accumulate), scale-a = scale-b = 1, tnspB = 1 (V MN-major).
  text += "}, $" + std::to_string(n + 4) + ", p, 1, 1, 1;\n}";
  std::string constraints;
  for (int64_t i = 0; i < n; ++i)
    constraints += "=f,";
  constraints += "r,r,r,r,l";
  for (int64_t i = 0; i < n; ++i)
    constraints += "," + std::to_string(i);
  Type resultType = f32Struct(n);
  for (int64_t kk = 0; kk < Bc / 16; ++kk) {
    SmallVector<Value> operands(probWords.slice(4 * kk, 4));
    operands.push_back(advance(descV0, kk * 16 * kSwizzleBytes));
    operands.append(acc.regs.begin(), acc.regs.end());
    auto asmOp = LLVM::InlineAsmOp::create(
        b, loc, resultType, operands, b.getStringAttr(text),
        b.getStringAttr(constraints), b.getUnitAttr(), UnitAttr(),
        LLVM::TailCallKindAttr::get(b.getContext(), LLVM::TailCallKind::None),
        LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
        ArrayAttr());
    for (int64_t i = 0; i < n; ++i)
      acc.regs[i] = LLVM::ExtractValueOp::create(b, loc, asmOp.getResult(0),
                                                 ArrayRef<int64_t>{i});
  }
}

void SM90KernelBuilder::rebaseSharedMemory() {
  // An opaque read of the symbol's shared-window address, so that LLVM
  // cannot reuse the value computed before the roles split.
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, b.getI32Type(), ValueRange{},
      b.getStringAttr("mov.u32 $0, flash_smem;"), b.getStringAttr("=r"),
      /*has_side_effects=*/b.getUnitAttr(), UnitAttr(),
      LLVM::TailCallKindAttr::get(b.getContext(), LLVM::TailCallKind::None),
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      ArrayAttr());
  Value address = asmOp.getResult(0);
  Value pad = km.andi(km.sub(km.i32(0), address), km.i32(1023));
  sharedBase32 = km.add(address, pad);
  sharedBase = LLVM::IntToPtrOp::create(b, loc, sharedPtrType(), sharedBase32);
}

void SM90KernelBuilder::beginTurn() {
  if (!config.pingPong)
    return;
  NVVM::BarrierOp::create(b, loc, TypeRange{}, km.add(consumer, km.i32(1)),
                          km.i32(256), NVVM::BarrierReductionAttr(), Value());
}

void SM90KernelBuilder::endTurn() {
  if (!config.pingPong)
    return;
  Value next = arith::RemUIOp::create(b, loc, km.add(consumer, km.i32(1)),
                                      km.i32(C));
  NVVM::BarrierArriveOp::create(b, loc, km.add(next, km.i32(1)), km.i32(256));
}

Value SM90KernelBuilder::skippersOf(Value j, ArrayRef<Value> tiles) {
  Value count = km.i32(0);
  for (Value t : tiles)
    count = km.add(count, arith::ExtUIOp::create(
                              b, loc, b.getI32Type(),
                              km.cmp(arith::CmpIPredicate::sge, j, t)));
  return count;
}

Value SM90KernelBuilder::rowsTileCount(Value firstRow) {
  Value tiles =
      buildKVRange(km, firstRow, seqQ, seqKV, 64, Bc, config.causal).numTiles;
  Value blockHasTiles =
      km.cmp(arith::CmpIPredicate::sgt, range.numTiles, km.i32(0));
  return km.select(blockHasTiles, km.maxsi(tiles, km.i32(1)), km.i32(0));
}

void SM90KernelBuilder::keepAlive(ArrayRef<Value> values) {
  std::string constraints;
  for (size_t i = 0; i < values.size(); ++i)
    constraints += "=r,";
  for (size_t i = 0; i < values.size(); ++i)
    constraints += (i ? "," : "") + std::to_string(i);
  SmallVector<Type> types(values.size(), b.getI32Type());
  LLVM::InlineAsmOp::create(
      b, loc, LLVM::LLVMStructType::getLiteral(b.getContext(), types), values,
      b.getStringAttr(""), b.getStringAttr(constraints), b.getUnitAttr(),
      UnitAttr(),
      LLVM::TailCallKindAttr::get(b.getContext(), LLVM::TailCallKind::None),
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      ArrayAttr());
}

void SM90KernelBuilder::buildTileLoop(
    bool isProducer, function_ref<Value(Value, Value, Value)> body) {
  auto asI32 = [&](Value index) -> Value {
    return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index);
  };
  if (!config.persistent) {
    // One tile per block, straight-line: no loop around the K/V loops, so
    // the kernel is the same as before persistence existed (a one-trip
    // scf.for around them measured 608 against 659 and 631 TFLOP/s at D=128
    // N=8k: inside the run-to-run spread, docs/benchmarks.md).
    Value x = asI32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
    Value y = asI32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
    Value z = asI32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::z));
    Value tile =
        km.add(km.mul(km.add(km.mul(z, queryHeads), y), numQTiles), x);
    body(tile, km.i32(0), km.i32(0));
    return;
  }
  // Persistent grid with a dynamic scheduler: block c starts with tile c,
  // and its producer draws each next tile from a global counter
  // (gridDim.x + atomicAdd(counter, 1)) before it loads that tile's Q, so
  // tiles go out in order (longest first within a head, decodeTile) to
  // whichever block frees up first, as the hardware's block scheduler would
  // hand out blocks, while loads of the next tile overlap this one's end.
  // The producer publishes the tile index in shared memory before it arms
  // the Q barrier; the consumers read it after waiting on that barrier; an
  // index >= total ends both loops. Every block that starts draws until it
  // gets an index past the end, so the draws number exactly `total`, and the
  // block that draws total - 1 (the last draw) resets the counter to 0 for
  // the next launch on the same counter.
  using P = arith::CmpIPredicate;
  Type i32 = b.getI32Type();
  Value total = totalTiles();
  if (isProducer) {
    Value first = asI32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
    Value blocks = asI32(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
    auto loop = scf::WhileOp::create(
        b, loc, TypeRange{i32, i32, i32},
        ValueRange{first, km.i32(0), km.i32(0)});
    {
      OpBuilder::InsertionGuard guard(b);
      Block *before = b.createBlock(&loop.getBefore(), {}, {i32, i32, i32},
                                    {loc, loc, loc});
      scf::ConditionOp::create(
          b, loc, km.cmp(P::ult, before->getArgument(0), total),
          before->getArguments());
      Block *after = b.createBlock(&loop.getAfter(), {}, {i32, i32, i32},
                                   {loc, loc, loc});
      Value tile = after->getArgument(0), iteration = after->getArgument(1);
      Value next = body(tile, iteration, after->getArgument(2));
      Value drawn = LLVM::AtomicRMWOp::create(
          b, loc, LLVM::AtomicBinOp::add, counterPtr, km.i32(1),
          LLVM::AtomicOrdering::monotonic);
      auto last = scf::IfOp::create(
          b, loc, km.cmp(P::eq, drawn, km.sub(total, km.i32(1))), false);
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPoint(last.thenBlock()->getTerminator());
        LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::xchg, counterPtr,
                                  km.i32(0), LLVM::AtomicOrdering::monotonic);
      }
      scf::YieldOp::create(b, loc,
                           ValueRange{km.add(blocks, drawn),
                                      km.add(iteration, km.i32(1)), next});
    }
    // Tell the consumers there is no next tile: an index past the end,
    // published like a tile's.
    Value buffer = acquireQBuffer(loop.getResult(1));
    LLVM::StoreOp::create(b, loc, total, tileSlot(buffer), /*alignment=*/4,
                          /*isVolatile=*/true);
    arriveBarrier(barrier(kBarQ, buffer));
    return;
  }
  // (iteration, kvCount) -> (tile, iteration, kvCount)
  auto loop = scf::WhileOp::create(b, loc, TypeRange{i32, i32, i32},
                                   ValueRange{km.i32(0), km.i32(0)});
  OpBuilder::InsertionGuard guard(b);
  Block *before =
      b.createBlock(&loop.getBefore(), {}, {i32, i32}, {loc, loc});
  Value iteration = before->getArgument(0);
  Value tile = readTileIndex(iteration);
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

void SM90KernelBuilder::prepareTileOrder() {
  if (!config.causal || config.tileGroupBytes == 0)
    return;
  heads = km.mul(batchSize, queryHeads);
  // Grouped: heads in groups of G whose K/V fit in tileGroupBytes; within
  // a group every head's longest Q tile goes first, then every head's next
  // longest, so that the last wave holds the shortest tiles of the last
  // group instead of a few heads' tiles of every length. Each K/V is read
  // from DRAM once, by the head's longest tile, and from L2 by the others.
  // That first pass reads Br flop per byte, below the machine's balance,
  // and its share of the work is about 2/(numQTiles + 1): a head with fewer
  // than kMinGroupedQTiles Q tiles keeps G = 1, the order by head, where its
  // tiles share each K/V load as they run side by side. (Grouping all heads
  // into one group balanced the grid but streamed each K/V from DRAM once
  // per Q tile: slower, as was grouping at N <= 1024, docs/benchmarks.md.)
  int64_t rowBytes = (config.headDim + config.headDim) *
                     (config.elementType.getIntOrFloatBitWidth() / 8);
  Value fits = km.divu(km.i32(config.tileGroupBytes / rowBytes),
                       arith::MaxUIOp::create(b, loc, seqKV, km.i32(1)));
  Value group = arith::MinUIOp::create(
      b, loc, arith::MaxUIOp::create(b, loc, fits, km.i32(1)), heads);
  tileGroup = arith::SelectOp::create(
      b, loc,
      km.cmp(arith::CmpIPredicate::uge, numQTiles,
             km.i32(KernelConfig::kMinGroupedQTiles)),
      group, km.i32(1));
}

void SM90KernelBuilder::decodeTile(Value tile) {
  // Head by head: tile = (batch·Hq + head)·numQTiles + q, so consecutive
  // tiles share a head's K/V in L2. Causal Q tiles further down the
  // sequence visit more K/V tiles: they go first (q reversed) so that short
  // ones fill the last wave.
  Value q, headIndex; // batch·Hq + head
  if (tileGroup) {
    // Grouped (prepareTileOrder): the group's first head, then the tile's
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
  if (config.causal)
    q = km.sub(km.sub(numQTiles, km.i32(1)), q);
  Value batch = km.divu(headIndex, queryHeads);
  Value qHead = arith::RemUIOp::create(b, loc, headIndex, queryHeads);
  Value kvHead = km.divu(qHead, km.divu(queryHeads, kvHeads));
  headQ = headIndex;                                  // TMA coordinate 2
  headKV = km.add(km.mul(batch, kvHeads), kvHead);
  qStart = km.mul(q, km.i32(Br));
  // Producer and consumers compute the same K/V range.
  range = buildKVRange(km, qStart, seqQ, seqKV, Br, Bc, config.causal);
  own = range;
  groupTiles.clear();
  if (config.warpgroupRanges)
    for (int64_t c = 0; c + 1 < C; ++c)
      groupTiles.push_back(rowsTileCount(km.add(qStart, km.i32(64 * c))));
}

Value SM90KernelBuilder::acquireQBuffer(Value iteration) {
  // The buffer is free once every consumer warpgroup's TMA store of the O
  // it staged there for the tile that used it before has read it (use n-1
  // arrived on emptyQ with parity (n-1) & 1).
  auto [buffer, use] = qBufferOf(iteration);
  auto reused = scf::IfOp::create(
      b, loc, km.cmp(arith::CmpIPredicate::sgt, use, km.i32(0)), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(reused.thenBlock()->getTerminator());
  waitBarrier(barrier(kEmptyQ, buffer),
              km.andi(km.sub(use, km.i32(1)), km.i32(1)));
  return buffer;
}

void SM90KernelBuilder::buildProducer() {
  using P = arith::CmpIPredicate;
  NVVM::SetMaxRegisterOp::create(b, loc, config.producerRegisters,
                                 NVVM::SetMaxRegisterAction::decrease);
  auto firstThread =
      scf::IfOp::create(b, loc, km.cmp(P::eq, tid, km.i32(0)), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(firstThread.thenBlock()->getTerminator());
  buildTileLoop(/*isProducer=*/true, [&](Value tile, Value iteration,
                                         Value kvCount) -> Value {
    // With one Q buffer, each tile reads the shared-memory base afresh: LLVM
    // otherwise hoists Q's TMA destination addresses out of the tile loop,
    // and the producer's 24 registers spill (D=256: 8 bytes).
    Value outerBase = sharedBase, outerBase32 = sharedBase32;
    if (config.persistent && config.qBuffers == 1)
      rebaseSharedMemory();
    decodeTile(tile);
    Value buffer = acquireQBuffer(iteration);
    if (config.persistent) // the consumers read it after waiting on barQ
      LLVM::StoreOp::create(b, loc, tile, tileSlot(buffer), /*alignment=*/4,
                            /*isVolatile=*/true);
    Value barQ = barrier(kBarQ, buffer);
    expectBytes(barQ, layout.qBytes);
    loadTile(tensorMapQ, barQ, qBufferOffset(buffer), Br, qStart, headQ);

    auto loop =
        scf::ForOp::create(b, loc, km.i32(0), range.numTiles, km.i32(1));
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value j = loop.getInductionVar();
    Value ring = km.add(kvCount, j); // position in the ring of stages
    auto [stage, use] = stageOf(ring);
    Value reused = km.cmp(P::sge, ring, km.i32(S));
    // The consumers released use n-1 of this slot with parity (n-1) & 1.
    Value previousParity = km.andi(km.add(use, km.i32(1)), km.i32(1));
    Value kvStart = km.mul(j, km.i32(Bc));
    for (auto [empty, full, map, base] :
         {std::make_tuple(kEmptyK, kFullK, tensorMapK, layout.offK),
          std::make_tuple(kEmptyV, kFullV, tensorMapV, layout.offV)}) {
      auto ifReused = scf::IfOp::create(b, loc, reused, false);
      {
        OpBuilder::InsertionGuard innermost(b);
        b.setInsertionPoint(ifReused.thenBlock()->getTerminator());
        waitBarrier(barrier(empty, stage), previousParity);
      }
      Value fullBar = barrier(full, stage);
      expectBytes(fullBar, layout.kvBytes);
      loadTile(map, fullBar,
               km.add(km.i32(base), km.mul(stage, km.i32(layout.kvBytes))), Bc,
               kvStart, headKV);
      if (config.warpgroupRanges) {
        // Release the tile for the warpgroups whose rows see none of it
        // (j >= their tile count): the slot's previous use is released (the
        // wait above), so these arrivals count towards this use.
        Value skipping = skippersOf(j, groupTiles);
        auto ifSkipped = scf::IfOp::create(
            b, loc, km.cmp(P::sgt, skipping, km.i32(0)), false);
        OpBuilder::InsertionGuard innermost(b);
        b.setInsertionPoint(ifSkipped.thenBlock()->getTerminator());
        NVVM::MBarrierArriveOp::create(b, loc, b.getI64Type(),
                                       barrier(empty, stage),
                                       km.mul(skipping, km.i32(128)),
                                       NVVM::MemScopeKind::CTA, false);
      }
    }
    b.setInsertionPointAfter(loop);
    if (config.outputInRing) {
      // The slot after the tile's K/V tiles holds its O: once the consumers
      // have released the slot's previous use, arrive on its full barriers
      // with no bytes (fullV too, so that the slot's phases stay in step).
      Value slot = outputSlot(kvCount);
      auto [stage, use] = stageOf(slot);
      auto ifReused = scf::IfOp::create(b, loc, km.cmp(P::sge, slot, km.i32(S)),
                                        false);
      {
        OpBuilder::InsertionGuard innermost(b);
        b.setInsertionPoint(ifReused.thenBlock()->getTerminator());
        Value previousParity = km.andi(km.add(use, km.i32(1)), km.i32(1));
        waitBarrier(barrier(kEmptyK, stage), previousParity);
        waitBarrier(barrier(kEmptyV, stage), previousParity);
      }
      arriveBarrier(barrier(kFullK, stage));
      arriveBarrier(barrier(kFullV, stage));
    }
    sharedBase = outerBase, sharedBase32 = outerBase32;
    return ringAfterTile(kvCount);
  });
}

void SM90KernelBuilder::buildConsumer() {
  NVVM::SetMaxRegisterOp::create(b, loc, config.consumerRegisters,
                                 NVVM::SetMaxRegisterAction::increase);
  Value warpgroup = km.shru(tid, km.i32(7));
  consumer = km.sub(warpgroup, km.i32(1));
  Value localTid = km.andi(tid, km.i32(127));
  warpInGroup = km.shru(localTid, km.i32(5));
  Value lane = km.andi(tid, km.i32(31));
  coords = {km.shru(lane, km.i32(2)), km.andi(lane, km.i32(3))};
  if (config.pingPong) {
    // Consumer 0 takes the first turn: the last consumer hands it over.
    auto last = scf::IfOp::create(
        b, loc, km.cmp(arith::CmpIPredicate::eq, consumer, km.i32(C - 1)),
        false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(last.thenBlock()->getTerminator());
    NVVM::BarrierArriveOp::create(b, loc, km.i32(1), km.i32(256));
  }
  if (pipelinesTiles()) {
    rebaseSharedMemory();
    buildPipelinedConsumer();
    return;
  }
  buildTileLoop(/*isProducer=*/false, [&](Value tile, Value iteration,
                                          Value kvCount) -> Value {
    decodeTile(tile);
    beginConsumerTile(iteration);
    SmallVector<Value> state = buildPrologue(
        kvCount, km.cmp(arith::CmpIPredicate::sgt, range.numTiles,
                        km.i32(0)));
    storeOutput(normalizeOutput(buildMainLoop(state, kvCount)),
                outputSlot(kvCount));
    return ringAfterTile(kvCount);
  });
}

void SM90KernelBuilder::beginConsumerTile(Value tileIteration) {
  // First row (in the sequence) of this warp's 16 rows.
  rowBase = km.add(qStart, km.add(km.mul(consumer, km.i32(64)),
                                  km.mul(warpInGroup, km.i32(16))));
  // warpgroupRanges: this warpgroup's tile count. Its numUnmasked stays the
  // block's (a later warpgroup's own is larger): one more live value in the
  // K/V loops spilled at D = 256 (128x80: 44 bytes).
  if (config.warpgroupRanges)
    own.numTiles =
        rowsTileCount(km.add(qStart, km.mul(consumer, km.i32(64))));
  auto [buffer, use] = qBufferOf(tileIteration);
  qBuffer = buffer;
  // (In a persistent grid the tile loop has already waited on this phase to
  // read the tile index; the second wait returns at once.)
  waitBarrier(barrier(kBarQ, qBuffer), km.andi(use, km.i32(1)));
  // This consumer's 64 rows of Q within each column block.
  descQ = descriptor(km.add(qBufferOffset(qBuffer),
                            km.mul(consumer, km.i32(64 * kSwizzleBytes))),
                     /*leadingBytes=*/16);
}

SmallVector<Value>
SM90KernelBuilder::packProbs(const SoftmaxStep &step) {
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

SmallVector<Type> SM90KernelBuilder::prologueTypes() {
  SmallVector<Type> types(4, b.getF32Type());
  types.append(Bc / 16 * 4, b.getI32Type()); // P as packed 16-bit pairs
  return types;
}

SmallVector<Value> SM90KernelBuilder::emptyPrologue() {
  Value negInf = km.f32(-std::numeric_limits<double>::infinity());
  Value zero = km.f32(0.0);
  SmallVector<Value> empty = {negInf, negInf, zero, zero};
  empty.append(Bc / 16 * 4, km.i32(0));
  return empty;
}

Fragment SM90KernelBuilder::issueFirstScores(Value kvCount) {
  auto [stage0, use0] = stageOf(kvCount);
  beginTurn();
  waitBarrier(barrier(kFullK, stage0), km.andi(use0, km.i32(1)));
  fence();
  Fragment scores = scoresOf(stage0);
  commit();
  endTurn();
  return scores;
}

SmallVector<Value> SM90KernelBuilder::finishFirstScores(Fragment scores,
                                                       Value kvCount) {
  // Tile 0 may be a ragged or diagonal tile. With branchFirstTileMask it is
  // masked only then (no tile is unmasked): at short sequences tile 0 is a
  // large share of the tiles, and the mask costs a compare and a select per
  // score. The branch covers the first softmax too, so that only the
  // prologue state (m, l, P) merges (a branch over the scores alone measured
  // 2-8% slower at long sequences).
  auto [stage0, use0] = stageOf(kvCount);
  waitGroups(0);
  arriveBarrier(barrier(kEmptyK, stage0));
  auto firstStep = [&](bool masked) {
    Fragment s = scores;
    if (masked)
      buildFragmentMask(km, s, coords, km.i32(0), seqQ, seqKV, rowBase,
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
  if (!config.branchFirstTileMask)
    return firstStep(/*masked=*/true);
  auto ifMasked = scf::IfOp::create(
      b, loc, prologueTypes(),
      km.cmp(arith::CmpIPredicate::sle, own.numUnmasked, km.i32(0)), true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifMasked.thenBlock());
  scf::YieldOp::create(b, loc, firstStep(/*masked=*/true));
  b.setInsertionPointToStart(ifMasked.elseBlock());
  scf::YieldOp::create(b, loc, firstStep(/*masked=*/false));
  return SmallVector<Value>(ifMasked.getResults());
}

SmallVector<Value> SM90KernelBuilder::buildPrologue(Value kvCount,
                                                    Value cond) {
  auto prologue = scf::IfOp::create(b, loc, prologueTypes(), cond, true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(prologue.thenBlock());
  scf::YieldOp::create(
      b, loc, finishFirstScores(issueFirstScores(kvCount), kvCount));
  b.setInsertionPointToStart(prologue.elseBlock());
  scf::YieldOp::create(b, loc, emptyPrologue());
  return SmallVector<Value>(prologue.getResults());
}

SM90KernelBuilder::Finished
SM90KernelBuilder::buildMainLoop(ArrayRef<Value> prologue, Value kvCount) {
  using P = arith::CmpIPredicate;
  Type f32 = b.getF32Type();
  Value zero = km.f32(0.0);
  Value hasTiles = km.cmp(P::sgt, own.numTiles, km.i32(0));

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
    auto [stage, use] = stageOf(ring);
    auto [prevStage, prevUse] = stageOf(km.sub(ring, km.i32(1)));
    beginTurn();
    waitBarrier(barrier(kFullK, stage), km.andi(use, km.i32(1)));
    fence();
    Fragment scores = scoresOf(stage);
    commit();
    waitBarrier(barrier(kFullV, prevStage), km.andi(prevUse, km.i32(1)));
    if (lateRescale())
      buildRescaleIfNeeded(km, acc, pending);
    fence();
    accumulate(acc, probs, prevStage);
    commit();
    endTurn();
    waitGroups(1); // S_j is ready; P_{j-1}·V_{j-1} may still run
    arriveBarrier(barrier(kEmptyK, stage));
    if (masked)
      buildFragmentMask(km, scores, coords, km.mul(j, km.i32(Bc)), seqQ, seqKV,
                        rowBase, config.causal);
    SoftmaxStep step = buildOnlineSoftmax(km, scores, runningMax, runningSum,
                                          scaleLog2e, et,
                                          config.lazyThreshold());
    SmallVector<Value> nextProbs = packProbs(step);
    waitGroups(0);
    keepAlive(probs);
    arriveBarrier(barrier(kEmptyV, prevStage));
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
  state = buildLoop(one, own.numUnmasked, state, /*masked=*/false);
  state = buildLoop(km.maxsi(own.numUnmasked, one), own.numTiles, state,
                    /*masked=*/true);
  // Every Q·Kᵀ of the tile has completed: with O staged in the K/V ring, Q
  // is free for the next tile's load (one arrival per consumer thread).
  if (config.outputInRing)
    arriveBarrier(barrier(kEmptyQ, qBuffer));

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
    auto [stage, use] =
        stageOf(km.sub(km.add(kvCount, own.numTiles), one));
    beginTurn();
    waitBarrier(barrier(kFullV, stage), km.andi(use, km.i32(1)));
    Fragment drained = acc;
    if (lateRescale())
      buildRescaleIfNeeded(km, drained, lastPending);
    fence();
    accumulate(drained, lastProbs, stage);
    commit();
    endTurn();
    if (config.warpgroupRanges && config.pingPong) {
      // The turns of the block's tiles this warpgroup's rows do not see,
      // taken with no GEMMs while its last P·V runs, so that every
      // warpgroup takes as many turns as the last one: the order of turns
      // is unchanged. (The producer releases their K/V for it.)
      auto idle =
          scf::ForOp::create(b, loc, own.numTiles, range.numTiles, one);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPoint(idle.getBody()->getTerminator());
      beginTurn();
      endTurn();
    }
    waitGroups(0);
    arriveBarrier(barrier(kEmptyV, stage));
    scf::YieldOp::create(b, loc, drained.regs);
    b.setInsertionPointToStart(drain.elseBlock());
    scf::YieldOp::create(b, loc, acc.regs);
  }
  acc.regs.assign(drain.getResults().begin(), drain.getResults().end());
  out.acc = acc;
  return out;
}

SmallVector<SM90KernelBuilder::OutputWord>
SM90KernelBuilder::normalizeOutput(Finished done) {
  // Epilogue math (shared with sm_80): O = acc / l as packed 16-bit pairs,
  // and the LSE, which goes straight to global memory.
  Value headIndex = km.toIndex(headQ);
  Value lseBase = arith::MulIOp::create(b, loc, headIndex, km.toIndex(seqQ));
  Value lseMemref = config.writesLse
                        ? buildFlatGlobalMemref(km, lsePtr, b.getF32Type())
                        : Value();
  SmallVector<OutputWord> words;
  auto keepWord = [&](Value row, int64_t nt, Value word) {
    words.push_back({row, nt, word});
  };
  buildEpilogue(km, config, done.acc, done.max, done.sum, coords, rowBase,
                seqQ, scale, Value(), Value(), lseMemref, lseBase, keepWord);
  return words;
}

void SM90KernelBuilder::storeOutput(ArrayRef<OutputWord> words, Value slot) {
  stageOutput(words, slot);
  publishOutput();
  releaseOutput();
}

Value SM90KernelBuilder::outputBox(int64_t block) {
  if (!config.outputInRing)
    return km.add(qBufferOffset(qBuffer),
                  km.add(km.i32(block * Br * kSwizzleBytes),
                         km.mul(consumer, km.i32(kOutputBoxBytes))));
  Value box = km.add(km.mul(consumer, km.i32(D / kAtomColumns)),
                     km.i32(block));
  Value slotBytes = km.mul(outputStage, km.i32(layout.kvBytes));
  Value inK = km.add(km.add(km.i32(layout.offK), slotBytes),
                     km.mul(box, km.i32(kOutputBoxBytes)));
  Value inV = km.add(
      km.add(km.i32(layout.offV), slotBytes),
      km.mul(km.sub(box, km.i32(layout.boxesPerHalf)), km.i32(kOutputBoxBytes)));
  return arith::SelectOp::create(
      b, loc, km.cmp(arith::CmpIPredicate::ult, box, km.i32(layout.boxesPerHalf)),
      inK, inV);
}

void SM90KernelBuilder::stageOutput(ArrayRef<OutputWord> words, Value slot) {
  // O goes through shared memory and a TMA store: this consumer writes its
  // 64 rows of O in boxes of 64 rows × 128 bytes (outputBox), in the layout
  // TMA loads Q with; publishOutput then stores them. Over its own rows of
  // the Q buffer, no other warpgroup reads them and its Q·Kᵀ wgmmas have
  // all completed. In the K/V ring, the slot is free once the producer has
  // arrived on its full barrier (after the consumers released its last use).
  if (config.outputInRing) {
    auto [stage, use] = stageOf(slot);
    outputStage = stage;
    waitBarrier(barrier(kFullK, stage), km.andi(use, km.i32(1)));
  }
  SmallVector<Value> boxes;
  for (int64_t block = 0; block < D / kAtomColumns; ++block)
    boxes.push_back(outputBox(block));
  Value firstRow = km.add(qStart, km.mul(consumer, km.i32(64)));
  for (const OutputWord &w : words) {
    // Element (r, c) of a 128B-swizzled box: row r, 16-byte chunk
    // (c % 64) / 8 XOR (r % 8), then 2 bytes per element.
    Value local = km.sub(w.row, firstRow);
    Value chunk = km.xori(km.i32(w.columnTile % 8), km.andi(local, km.i32(7)));
    Value offset = km.add(
        boxes[w.columnTile / 8],
        km.add(km.add(km.mul(local, km.i32(kSwizzleBytes)),
                      km.mul(chunk, km.i32(16))),
               km.mul(coords.quadLane, km.i32(4))));
    LLVM::StoreOp::create(b, loc, w.word, sharedPtr(offset), /*alignment=*/4);
  }
}

void SM90KernelBuilder::publishOutput() {
  // One thread stores the staged rows with one TMA box per 64 columns (rows
  // past Nq are clipped by the tensor map); releaseOutput hands the buffer
  // back.
  using P = arith::CmpIPredicate;
  // Generic-proxy writes become visible to the TMA unit (async proxy) after
  // the fence and the warpgroup's barrier (id 1 + C + consumer: 1..C are
  // ping-pong's).
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
  NVVM::BarrierOp::create(b, loc, TypeRange{},
                          km.add(consumer, km.i32(1 + C)), km.i32(128),
                          NVVM::BarrierReductionAttr(), Value());
  Value localTid = km.andi(tid, km.i32(127));
  auto leader = scf::IfOp::create(
      b, loc, km.cmp(P::eq, localTid, km.i32(0)), false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(leader.thenBlock()->getTerminator());
    Value rows = km.add(qStart, km.mul(consumer, km.i32(64)));
    for (int64_t block = 0; block < D / kAtomColumns; ++block) {
      Value src = sharedPtr(outputBox(block));
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
          b, loc, tensorMapO, src,
          ValueRange{km.i32(block * kAtomColumns), rows, headQ}, Value(),
          NVVM::TMAStoreMode::TILE, Value());
    }
    NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
  }
}

void SM90KernelBuilder::releaseOutput() {
  using P = arith::CmpIPredicate;
  Value localTid = km.andi(tid, km.i32(127));
  auto leader = scf::IfOp::create(
      b, loc, km.cmp(P::eq, localTid, km.i32(0)), false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(leader.thenBlock()->getTerminator());
    // The bulk async-group is the leader thread's own: it issued the stores.
    NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, b.getUnitAttr());
    if (config.outputInRing) {
      // The slot's empty barriers count every consumer thread: the leader
      // arrives for its warpgroup's 128.
      for (BarrierKind empty : {kEmptyK, kEmptyV})
        NVVM::MBarrierArriveOp::create(b, loc, b.getI64Type(),
                                       barrier(empty, outputStage),
                                       km.i32(128), NVVM::MemScopeKind::CTA,
                                       false);
    } else {
      // One arrival per consumer warpgroup (emptyQ counts C).
      arriveBarrier(barrier(kEmptyQ, qBuffer));
    }
  }
}

void SM90KernelBuilder::buildPipelinedConsumer() {
  // Consumers of a persistent grid with two Q buffers run the tiles as one
  // pipeline: after a tile's last P·V they read the next tile's index, issue
  // its first Q·Kᵀ (its Q is in the other buffer), and write this tile's O
  // while that wgmma runs; then they finish the next tile's first softmax.
  // The tile index, the iteration, the K/V count and the first softmax state
  // are carried by the loop. The order of GEMM issues, and so of ping-pong
  // turns, is the same as tile by tile.
  using P = arith::CmpIPredicate;
  Type i32 = b.getI32Type();
  Value total = totalTiles();
  auto startsWork = [&](Value tile) {
    return arith::AndIOp::create(
        b, loc, km.cmp(P::ult, tile, total),
        km.cmp(P::sgt, range.numTiles, km.i32(0)));
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
  Value tile = after->getArgument(0), iteration = after->getArgument(1),
        kvCount = after->getArgument(2);
  decodeTile(tile);
  beginConsumerTile(iteration);
  SmallVector<Value> prologue(after->getArguments().drop_front(3));
  Finished done = buildMainLoop(prologue, kvCount);
  Value slot = outputSlot(kvCount);
  Value nextKV = ringAfterTile(kvCount);
  // O is normalised and staged in shared memory first: S_0 of the next tile
  // needs the accumulator's registers while in flight. The copy of O to
  // global memory then overlaps it.
  stageOutput(normalizeOutput(done), slot);
  // What publishOutput reads of a tile: it runs for this tile after the
  // next one has been decoded.
  struct TileValues {
    Value qStart, headQ, qBuffer, outputStage;
  };
  auto save = [&]() { return TileValues{qStart, headQ, qBuffer, outputStage}; };
  auto restore = [&](const TileValues &t) {
    qStart = t.qStart, headQ = t.headQ, qBuffer = t.qBuffer,
    outputStage = t.outputStage;
  };
  TileValues current = save();

  Value nextIteration = km.add(iteration, km.i32(1));
  Value next = readTileIndex(nextIteration);
  decodeTile(next);
  beginConsumerTile(nextIteration);
  TileValues upcoming = save();
  auto overlap = scf::IfOp::create(b, loc, prologueTypes(),
                                   startsWork(next), true);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(overlap.thenBlock());
    Fragment scores = issueFirstScores(nextKV);
    restore(current);
    publishOutput();
    if (!config.deferStoreWait)
      releaseOutput();
    restore(upcoming);
    SmallVector<Value> state = finishFirstScores(scores, nextKV);
    if (config.deferStoreWait) {
      restore(current);
      releaseOutput();
      restore(upcoming);
    }
    scf::YieldOp::create(b, loc, state);
    b.setInsertionPointToStart(overlap.elseBlock());
    restore(current);
    publishOutput();
    releaseOutput();
    restore(upcoming);
    scf::YieldOp::create(b, loc, emptyPrologue());
  }
  SmallVector<Value> yields = {next, nextIteration, nextKV};
  llvm::append_range(yields, overlap.getResults());
  scf::YieldOp::create(b, loc, yields);
}

void SM90KernelBuilder::build(LLVM::LLVMFuncOp func) {
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
  if (config.persistent)
    counterPtr = entry->getArgument(11);
  scaleLog2e = arith::MulFOp::create(b, loc, scale, km.f32(M_LOG2E));

  auto asI32 = [&](Value index) -> Value {
    return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index);
  };
  tid = asI32(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  numQTiles = km.divu(km.add(seqQ, km.i32(Br - 1)), km.i32(Br));
  prepareTileOrder();

  // Shared memory base rounded up to 1024 bytes (128B-swizzle atoms).
  auto global = SymbolTable::lookupNearestSymbolFrom<LLVM::GlobalOp>(
      func, b.getStringAttr("flash_smem"));
  Value raw = LLVM::AddressOfOp::create(b, loc, global);
  Value address = arith::TruncIOp::create(
      b, loc, b.getI32Type(),
      LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), raw));
  Value pad = km.andi(km.sub(km.i32(0), address), km.i32(1023));
  sharedBase = LLVM::GEPOp::create(b, loc, sharedPtrType(), b.getI8Type(),
                                   raw, ValueRange{pad});
  sharedBase32 = km.add(address, pad);

  // Thread 0 initialises the mbarriers; then the whole block synchronises.
  auto init = scf::IfOp::create(b, loc, km.cmp(P::eq, tid, km.i32(0)), false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(init.thenBlock()->getTerminator());
    for (int64_t buffer = 0; buffer < config.qBuffers; ++buffer) {
      NVVM::MBarrierInitOp::create(b, loc, barrier(kBarQ, km.i32(buffer)),
                                   km.i32(1), Value());
      // One arrival per consumer warpgroup, after its TMA store of O has
      // read the buffer; with O in the K/V ring, one per consumer thread
      // after its last Q·Kᵀ.
      NVVM::MBarrierInitOp::create(
          b, loc, barrier(kEmptyQ, km.i32(buffer)),
          km.i32(config.outputInRing ? 128 * C : C), Value());
    }
    for (int64_t s = 0; s < S; ++s) {
      Value stage = km.i32(s);
      NVVM::MBarrierInitOp::create(b, loc, barrier(kFullK, stage), km.i32(1),
                                   Value());
      NVVM::MBarrierInitOp::create(b, loc, barrier(kFullV, stage), km.i32(1),
                                   Value());
      NVVM::MBarrierInitOp::create(b, loc, barrier(kEmptyK, stage),
                                   km.i32(128 * C), Value());
      NVVM::MBarrierInitOp::create(b, loc, barrier(kEmptyV, stage),
                                   km.i32(128 * C), Value());
    }
    NVVM::FenceMbarrierInitOp::create(b, loc);
  }
  gpu::BarrierOp::create(b, loc);

  // Warpgroup 0 produces, warpgroups 1..C consume.
  Value isProducer =
      km.cmp(P::eq, km.shru(tid, km.i32(7)), km.i32(0));
  auto roles = scf::IfOp::create(b, loc, isProducer, true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(roles.thenBlock()->getTerminator());
    buildProducer();
    b.setInsertionPoint(roles.elseBlock()->getTerminator());
    buildConsumer();
  }
  LLVM::ReturnOp::create(b, loc, ValueRange{});
}

LogicalResult mlir::flash::buildSM90Kernel(OpBuilder &b, Location loc,
                                           const KernelConfig &config) {
  MLIRContext *ctx = b.getContext();
  // The shared-memory window every kernel of the module addresses.
  LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                         /*isConstant=*/false, LLVM::Linkage::External,
                         "flash_smem", Attribute(), /*alignment=*/16,
                         /*addrSpace=*/3);
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto global = LLVM::LLVMPointerType::get(ctx, 1);
  Type i32 = b.getI32Type();
  // (tmQ, tmK, tmV, tmO: CUtensorMap by value, LSE, B, Hq, Hkv, Nq, Nk, scale
  // [, the tile counter of a persistent grid: a zeroed i32])
  SmallVector<Type> params = {ptr, ptr, ptr, ptr, global, i32,
                              i32, i32, i32, i32, b.getF32Type()};
  if (config.persistent)
    params.push_back(global);
  auto type =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), params);
  auto func = LLVM::LLVMFuncOp::create(b, loc, config.name, type);
  func->setAttr("nvvm.kernel", b.getUnitAttr());
  int32_t threads = 128 * (config.consumers + 1);
  func->setAttr("nvvm.maxntid", b.getDenseI32ArrayAttr({threads, 1, 1}));
  func->setAttr("nvvm.minctasm", b.getI32IntegerAttr(config.blocksPerSM));
  auto tensorMapType =
      LLVM::LLVMArrayType::get(b.getI64Type(), 16); // sizeof(CUtensorMap) = 128
  for (unsigned i = 0; i < 4; ++i) {
    func.setArgAttr(i, "llvm.byval", TypeAttr::get(tensorMapType));
    func.setArgAttr(i, "llvm.align", b.getI64IntegerAttr(64));
    func.setArgAttr(i, "nvvm.grid_constant", b.getUnitAttr());
  }
  OpBuilder::InsertionGuard guard(b);
  SM90KernelBuilder(b, loc, config).build(func);
  return success();
}
