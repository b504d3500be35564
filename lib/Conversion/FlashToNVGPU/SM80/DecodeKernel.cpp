//===- DecodeKernel.cpp - split-KV (Flash-Decoding) kernels ---------------===//
//
// The kernels of #flash.kernel kinds split_kv (flash.attention with few query
// rows over a contiguous B×Hkv×Nk×D cache) and paged (flash.paged_attention:
// key t of sequence b in page block_table[b][t / S], slot t % S of a P×S×Hkv×D
// cache). Decoding reads the whole cache for a handful of query rows, so the
// kernels are built for bandwidth; the same code serves sm_80 and sm_90a
// (their shared memory sets the pipeline depth):
//
// - Split kernel, grid (parts, Hkv · row tiles, B). A block takes one row
//   tile: the q-heads that share a kv-head times Nq (GQA packing: rows
//   ((b·Hq + kvHead·G)·Nq + ρ), contiguous in Q, O and LSE), at most
//   16·mTiles rows, so each K/V byte is read once per row tile. From the
//   sequence's length (seq_lens[b] on the device, or Nk) and the SM count it
//   computes how many parts the sequence is cut into (SplitKV.h, the same
//   formula as the merge) and which K/V tiles its part visits; a block past
//   the count exits. K/V tiles of 64 keys stream through a ring of stages
//   filled by 16-byte cp.async gathers (each row's address from the block
//   table, by DecodePageRows of SM80/DecodePages.h, which the CPU harness
//   flash-test-decode-pages runs too; rows past the length zero-filled, so
//   a stale slot's bits never reach the MMAs; a contiguous tile wholly
//   inside the length is copied from one base and constant offsets). A paged block copies its part's
//   page indices (up to decodeTableWindow of them: 512, or 1024 in a kernel
//   whose split count aims at one block an SM) from the block table into
//   shared memory, one coalesced load a thread per 128 entries, and looks
//   each tile's pages up there when it issues the tile in the loop; the
//   prologue's tiles take theirs from the table in global memory, loads in
//   flight with the window's (a part of more pages reads the table in global
//   memory as it goes). The separate merge's split kernel (sm_90a, few work
//   units) issues the prologue's table loads before the window's and, for
//   tiles wholly inside the length with S = 2^k >= 16, looks a page up once
//   per 16 keys (groupedStart); its kernels for one page size
//   (`_separate_s16`, `_separate_s64`) and the fused ones (`_s16`, `_s64`)
//   look a page up once per 16 keys or once a tile in every tile. Each of the 4 warps takes 16
//   keys of every tile: S = Q·Kᵀ and O += P·V on mma.sync m16n8k16, with its
//   own online softmax (KernelBuilder); at the end the warps' (m, l, O) are
//   combined through shared memory. With one part the block writes O (and
//   LSE) itself; otherwise it writes its part's normalised O and LSE (f32) to
//   the partials workspace.
// - The merge, at the end of the split kernel (no second launch): the blocks
//   of a row tile count themselves done (an atom.acq_rel.gpu per row tile,
//   by thread 0 after a block barrier) and the one
//   that finishes last merges, a warp per output row: the same count of parts
//   from the same length; O = Σ_s w_s·O_s / Σ_s w_s with w_s = exp(LSE_s −
//   max LSE) (a part whose rows saw no key has LSE = −inf and weight 0),
//   LSE = max + ln Σ w_s, in one pass with a running maximum, the partials
//   of a batch of parts (16 at Dv = 128) loaded together.
//   More than kSplitKVMergeDirect (32) parts merge in two levels, so that no
//   block reads them all: groups of about kSplitKVMergeGroup (16) parts, each
//   merged by the block that finishes it last into the partial slot of its
//   first part, then the groups by the block that finishes the last group.
//   Rows of a sequence with one part are written by the split kernel.
//
// Nothing depends on a host-side length: the grid is fixed by B, the heads
// and the SM count, so a captured CUDA graph replays correctly while
// seq_lens and block_table change.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"
#include "flash/Conversion/FlashToNVGPU/KernelForm.h"
#include "flash/Conversion/FlashToNVGPU/SM80/AsyncCopy.h"
#include "flash/Conversion/FlashToNVGPU/SM80/DecodeCopies.h"
#include "flash/Conversion/FlashToNVGPU/SM80/DecodeMerge.h"
#include "flash/Conversion/FlashToNVGPU/SM80/DecodePages.h"
#include "flash/Conversion/FlashToNVGPU/SM80/MMA.h"
#include "flash/Conversion/FlashToNVGPU/SM90/Barriers.h"
#include "flash/Dialect/Flash/Transforms/VisibleKV.h"
#include "flash/Target/SplitKV.h"
#include "flash/Target/TargetModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::sm80;

namespace {
/// The split kernel's shape (Target/SplitKV.h): 4 warps, each taking 16 keys
/// of a 64-key tile.
constexpr int64_t kWarps = kSplitKVWarps;
constexpr int64_t kKeysPerWarp = kSplitKVKeysPerWarp;
constexpr int64_t kBlockKV = kSplitKVBlockKV;
constexpr int64_t kMaxStages = kSplitKVMaxStages;
/// Largest part count the workspace and the merge's loop are built for.
constexpr int64_t kMaxSplitsLimit = 1024;

/// Accumulator registers per thread: mTiles·D/2 (≤ 128, so the row tile
/// is at most 16·max(256/D, 1) rows).
int64_t maxMTiles(int64_t headDim) { return splitKVMaxRowTiles(headDim); }

} // namespace

FailureOr<KernelConfig>
mlir::flash::decodeConfigFromDescriptor(KernelConfig c, KernelAttr kernel,
                                        const TargetModel &target,
                                        Location loc) {
  auto unsupported = [&](const Twine &what) -> FailureOr<KernelConfig> {
    return mlir::emitError(loc)
           << "not supported yet: " << what << " on " << target.arch;
  };
  c.decode.paged = c.kind == KernelKind::Paged;
  c.decode.pageSize = kernel.getPageSize();
  c.decode.maxSplits = kernel.getMaxSplits();
  if (c.decode.maxSplits < 1 || c.decode.maxSplits > kMaxSplitsLimit)
    return unsupported("max_splits = " + Twine(c.decode.maxSplits) +
                       " (1 to " + Twine(kMaxSplitsLimit) + ")");
  if (c.kvHeads < 1 || c.queryHeads % c.kvHeads != 0)
    return unsupported("q_heads that are not a multiple of kv_heads");
  // The tiles are the schedule's: flash-select-schedule records the split-KV
  // kernels' tiles (splitKVTileShape, Target/SplitKV.h), so that the CPU
  // form and these kernels cut a sequence into the same parts. A schedule
  // given by hand is checked against what the kernels can take: 64 keys a
  // K/V tile on 4 warps, a row tile of 16·m rows (m ≤ max(256 / D, 1): the
  // accumulators), 2 to 8 stages. More packed rows (G·Nq) than a row tile
  // holds take several row tiles (grid y).
  if (c.blockKV != kBlockKV || c.warps != kWarps)
    return unsupported("a split-KV schedule with block_kv = " +
                       Twine(c.blockKV) + ", warps = " + Twine(c.warps) +
                       " (the decode kernels take " + Twine(kBlockKV) +
                       " keys a tile on " + Twine(kWarps) + " warps)");
  if (c.blockQ < 16 || c.blockQ % 16 != 0 ||
      c.blockQ > 16 * maxMTiles(c.headDim))
    return unsupported("a split-KV row tile of block_q = " + Twine(c.blockQ) +
                       " (the decode kernels take 16·m rows, m = 1 to " +
                       Twine(maxMTiles(c.headDim)) + " at D = " +
                       Twine(c.headDim) + ")");
  if (c.stages < kSplitKVMinStages || c.stages > kMaxStages)
    return unsupported("a split-KV schedule of " + Twine(c.stages) +
                       " stages (the decode kernels take " +
                       Twine(kSplitKVMinStages) + " to " + Twine(kMaxStages) +
                       ")");
  c.decode.mTiles = c.blockQ / 16;
  const int64_t elementBytes = c.elementType.getIntOrFloatBitWidth() / 8;
  const int64_t stageBytes = 2 * elementBytes * kBlockKV * c.headDim;
  c.sharedBytes = splitKVTileBytes(c.blockQ, c.headDim, c.headDim,
                                   elementBytes, c.stages);
  c.decode.blocksPerSM =
      splitKVKernelBlocksPerSM(c.blockQ, c.headDim, c.headDim, elementBytes,
                               c.stages, target.sharedMemPerSM);
  if (c.decode.paged) {
    c.decode.tableWindow = decodeTableWindow(c.decode.blocksPerSM);
    c.sharedBytes += 4 * c.decode.tableWindow;
  }
  int64_t exchangeBytes =
      4 * (kWarps - 1) * warpCombineWordsPerWarp(c.decode.mTiles, c.headDim);
  if (exchangeBytes > c.stages * stageBytes)
    return unsupported("a warp exchange of " + Twine(exchangeBytes) +
                       " bytes in " + Twine(c.stages * stageBytes) +
                       " bytes of K/V stages");
  if (c.sharedBytes > target.sharedMemPerBlock)
    return unsupported(Twine(c.sharedBytes) + " bytes of shared memory (" +
                       Twine(target.sharedMemPerBlock) + " per block)");
  return c;
}

/// The separate merge's split kernel keeps kDecodeTableWindowBase entries:
/// its calls of at most kSplitKVSeparateMergeMaxWorkUnits work units cut a
/// sequence into at least SMs / 8 parts (16 on 132 SMs at one block an SM),
/// so 512 entries cover 128k keys at S = 16, and with 1024 its calls took up
/// to 1.6% more time (GQA 8/1 B = 1 L = 8k/32k at S = 16 and 64, H100,
/// docs/benchmarks.md forty-fifth session). Contiguous kernels have no
/// window (the value only sizes the unused page arithmetic).
int64_t mlir::flash::decodeSplitTableWindow(const KernelConfig &config,
                                            bool separateMerge) {
  if (!config.decode.paged)
    return kDecodeTableWindowBase;
  return separateMerge
             ? std::min(config.decode.tableWindow, kDecodeTableWindowBase)
             : config.decode.tableWindow;
}

int64_t mlir::flash::decodeSplitSharedBytes(const KernelConfig &config,
                                            bool separateMerge) {
  if (!config.decode.paged)
    return config.sharedBytes;
  return config.sharedBytes -
         4 * (config.decode.tableWindow -
              decodeSplitTableWindow(config, separateMerge));
}

SmallVector<StringRef> mlir::flash::decodeSplitKernelArgs(bool paged) {
  if (paged)
    return {"q:ptr",           "k:ptr",           "v:ptr",
            "block_table:ptr", "seq_lens:ptr",    "o:ptr",
            "lse:ptr",         "partial_o:ptr",   "partial_lse:ptr",
            "split_counter:ptr", "B:i32",         "Hq:i32",
            "Hkv:i32",         "Nq:i32",          "S:i32",
            "M:i32",           "SMs:i32",         "scale:f32"};
  return {"q:ptr",           "k:ptr",         "v:ptr",
          "o:ptr",           "lse:ptr",       "partial_o:ptr",
          "partial_lse:ptr", "split_counter:ptr", "B:i32",
          "Hq:i32",          "Hkv:i32",       "Nq:i32",
          "Nk:i32",          "SMs:i32",       "scale:f32"};
}

namespace {
/// A merged row's LSE from its parts' largest LSE and the sum of their
/// rescaled weights: maxLse + ln(total), −inf where the row sees no key.
/// Shared by the fused merge and the separate merge kernel.
Value mergedLse(KernelMath &km, Value noKey, Value negInf, Value maxLse,
                Value total) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  return km.select(noKey, negInf,
                   arith::AddFOp::create(b, loc, maxLse,
                                         buildNaturalLog(km, total)));
}

/// A gpu.func kernel whose arguments are `args` ("name:type"), and its
/// arguments by name.
gpu::GPUFuncOp createKernel(OpBuilder &b, Location loc, StringRef name,
                            ArrayRef<StringRef> args, int64_t threads,
                            llvm::StringMap<Value> &byName) {
  MLIRContext *ctx = b.getContext();
  SmallVector<Type> types;
  for (StringRef arg : args) {
    StringRef type = arg.split(':').second;
    types.push_back(type == "ptr"   ? Type(LLVM::LLVMPointerType::get(ctx, 1))
                    : type == "i32" ? Type(b.getI32Type())
                                    : Type(b.getF32Type()));
  }
  auto func = gpu::GPUFuncOp::create(b, loc, name,
                                     FunctionType::get(ctx, types, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  int32_t t = int32_t(threads);
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({t, 1, 1}));
  func->setAttr("nvvm.maxntid", b.getDenseI32ArrayAttr({t, 1, 1}));
  // The whole register file a thread may have: ptxas otherwise settled on
  // 168 registers and spilled 4 bytes in the paged causal D = 128 kernel.
  func->setAttr("nvvm.maxnreg", b.getI32IntegerAttr(255));
  Block &entry = func.getBody().front();
  for (auto [i, arg] : llvm::enumerate(args))
    byName[arg.split(':').first] = entry.getArgument(i);
  return func;
}

/// Sizes every decode kernel derives from its arguments.
struct DecodeSizes {
  Value groupRows;  ///< rows of one (batch, kv-head): Hq / Hkv · Nq
  Value rowTiles;   ///< row tiles per (batch, kv-head)
  Value workUnits;  ///< blocks per part over the call: B · Hkv · rowTiles
};

DecodeSizes decodeSizes(KernelMath &km, const KernelConfig &config,
                        llvm::StringMap<Value> &arg) {
  DecodeSizes s;
  s.groupRows = km.mul(km.divu(arg["Hq"], arg["Hkv"]), arg["Nq"]);
  s.rowTiles = km.divu(km.add(s.groupRows, km.i32(config.blockQ - 1)),
                       km.i32(config.blockQ));
  s.workUnits = km.mul(km.mul(arg["B"], arg["Hkv"]), s.rowTiles);
  return s;
}

/// The keys of sequence `batch`: seq_lens[b] clamped to [0, M·S] (a paged
/// cache), or Nk.
Value sequenceLength(KernelMath &km, const KernelConfig &config,
                     llvm::StringMap<Value> &arg, Value seqLens, Value batch) {
  if (!config.decode.paged)
    return arg["Nk"];
  Value length = memref::LoadOp::create(km.b, km.loc, seqLens,
                                        ValueRange{km.toIndex(batch)});
  return km.maxsi(km.minsi(length, km.mul(arg["M"], arg["S"])), km.i32(0));
}

/// The L2 policy of the split kernels' K/V copies (decodeKVEvictFirstBytes):
/// evict-first where B · capacity · Hkv · 2D elements exceed `l2Bytes`,
/// evict-unchanged (the priority without a policy) otherwise. In 64 bits:
/// the product is 2^31 already at B = 64, L = 8k, Hkv = 8, D = 128 in bf16
/// (item 5's largest row).
Value kvCopyPolicy(KernelMath &km, const KernelConfig &config,
                   llvm::StringMap<Value> &arg, int64_t l2Bytes) {
  auto i64 = [&](Value x) -> Value {
    return arith::ExtUIOp::create(km.b, km.loc, km.b.getI64Type(), x);
  };
  auto constant = [&](int64_t x) -> Value {
    return arith::ConstantOp::create(km.b, km.loc, km.b.getI64IntegerAttr(x));
  };
  Value capacity = config.decode.paged ? km.mul(i64(arg["M"]), i64(arg["S"]))
                                       : i64(arg["Nk"]);
  int64_t rowBytes =
      2 * config.headDim * config.elementType.getIntOrFloatBitWidth() / 8;
  Value bytes = km.mul(km.mul(km.mul(i64(arg["B"]), capacity), i64(arg["Hkv"])),
                       constant(rowBytes));
  Value large = km.cmp(arith::CmpIPredicate::ugt, bytes, constant(l2Bytes));
  Value unchanged = l2EvictUnchangedPolicy(km);
  return km.select(large, constant(kL2EvictFirstPolicy), unchanged);
}

/// The K/V tiles the rows of a sequence of `length` keys visit (every row
/// tile holds rows of every query index, so the range of the whole Nq rows,
/// VisibleKV.h), and its parts (SplitKV.h).
struct SequenceSplit {
  Value numTiles, numUnmasked, numSplits, tilesPerSplit;
};
SequenceSplit sequenceSplit(KernelMath &km, const KernelConfig &config,
                            Value length, Value seqQ, Value workUnits,
                            Value numSMs) {
  KernelI32Domain d{km};
  VisibleKVTiles<Value> tiles =
      visibleKVTiles(d, km.i32(0), seqQ, length, /*rows=*/int64_t(1) << 30,
                     kBlockKV, config.causal);
  SplitKVCount<Value> parts =
      splitKVCount(d, tiles.numTiles, workUnits, numSMs,
                   config.decode.maxSplits, config.decode.blocksPerSM);
  return {tiles.numTiles, tiles.numUnmasked, parts.numSplits,
          parts.tilesPerSplit};
}

OutputRows outputRows(KernelMath &km, const KernelConfig &config,
                      llvm::StringMap<Value> &arg) {
  OpBuilder &b = km.b;
  return {buildFlatGlobalMemref(km, arg["o"], b.getI32Type()),
          config.writesLse
              ? buildFlatGlobalMemref(km, arg["lse"], b.getF32Type())
              : Value(),
          arg["partial_o"], arg["partial_lse"]};
}
} // namespace

//===----------------------------------------------------------------------===//
// Merging the parts of an output row (one warp; SM80/DecodeMerge.h)
//===----------------------------------------------------------------------===//

namespace mlir::flash::sm80 {

namespace {
/// exp(x − shift) as the merges take it: 2^((x − shift)·log2 e).
Value mergeWeight(KernelMath &km, Value x, Value shift) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  return buildExp2(km, arith::MulFOp::create(
                           b, loc, arith::SubFOp::create(b, loc, x, shift),
                           km.f32(M_LOG2E)));
}
/// The shift of the weights: the largest LSE, or 0 where it is −inf (no
/// part saw a key: every weight 0).
Value mergeShift(KernelMath &km, Value max, Value negInf) {
  return km.select(arith::CmpFOp::create(km.b, km.loc,
                                         arith::CmpFPredicate::OEQ, max,
                                         negInf),
                   km.f32(0.0), max);
}
} // namespace

/// Lane `lane` of a warp writes its Dv/32 consecutive columns of O's row
/// `flatRow` (16-bit pairs) and, from lane 0, its LSE.
static void writeOutputRow(KernelMath &km, const KernelConfig &config,
                           const OutputRows &out, Value lane, Value flatRow,
                           ArrayRef<Value> o, Value lse) {
  using P = arith::CmpIPredicate;
  OpBuilder &b = km.b;
  Location loc = km.loc;
  const int64_t Dv = config.headDim, columns = Dv / 32;
  Value rowIndex = km.toIndex(flatRow);
  Value base = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, rowIndex, km.index(Dv)),
      km.toIndex(km.mul(lane, km.i32(columns))));
  for (int64_t c = 0; c < columns; c += 2) {
    Value word =
        km.pairWord(buildPackPair(km, o[c], o[c + 1], config.elementType));
    Value index = arith::ShRUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, base, km.index(c)), km.index(1));
    km.store(word, out.o, index);
  }
  if (out.lse)
    km.ifLanes(km.cmp(P::eq, lane, km.i32(0)),
               [&] { km.store(lse, out.lse, rowIndex); });
}

/// A load from global memory that bypasses L1 (ld.volatile.global): another
/// block wrote it during this launch.
static Value loadPastL1(KernelMath &km, Type type, Value pointer,
                        Value element) {
  OpBuilder &b = km.b;
  Value address = LLVM::GEPOp::create(
      b, km.loc, LLVM::LLVMPointerType::get(b.getContext(), 1),
      b.getF32Type(), pointer,
      ValueRange{arith::IndexCastOp::create(b, km.loc, b.getI64Type(),
                                            element)});
  unsigned alignment = std::min<unsigned>(
      16, type.isF32() ? 4 : 4 * cast<VectorType>(type).getNumElements());
  return LLVM::LoadOp::create(b, km.loc, type, address, alignment,
                              /*isVolatile=*/true);
}

/// Parts merged per batch of the merge's loop: their LSEs and O rows are
/// loaded together (independent loads in flight), then summed. As many as
/// about 96 registers a lane hold (Dv/32 + 1 words a part): 32 at Dv = 64,
/// 16 at 128, 8 at 256, so that the group and the groups of a two-level
/// merge (at most 16 parts at Dv ≤ 128) take one round trip a row.
static int64_t mergeBatch(int64_t valueDim) {
  int64_t words = valueDim / 32 + 1;
  int64_t batch = 8;
  while (batch < 32 && 2 * batch * words <= 96)
    batch *= 2;
  return batch;
}
/// Up to kMergeDirect parts one block merges them all; more merge in two
/// levels of groups of about kMergeGroup parts (Target/SplitKV.h).
constexpr int64_t kMergeDirect = kSplitKVMergeDirect;
constexpr int64_t kMergeGroup = kSplitKVMergeGroup;

// Documented in SM80/DecodeMerge.h.
void buildMergeRow(KernelMath &km, const KernelConfig &config,
                   const OutputRows &out, Value lane, Value flatRow,
                   Value first, Value count, Value stride, Value allRows,
                   MergeTarget target) {
  using P = arith::CmpIPredicate;
  OpBuilder &b = km.b;
  Location loc = km.loc;
  const int64_t Dv = config.headDim, columns = Dv / 32;
  const int64_t batch = mergeBatch(Dv);
  Type f32 = b.getF32Type();
  Value negInf = km.f32(-std::numeric_limits<double>::infinity());
  Value rowIndex = km.toIndex(flatRow);
  Value partStride = km.toIndex(allRows);
  auto partRow = [&](Value part) {
    return arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, km.toIndex(part), partStride),
        rowIndex);
  };
  auto partOf = [&](Value i) { return km.add(first, km.mul(i, stride)); };
  auto lseOf = [&](Value part) {
    return loadPastL1(km, f32, out.partialLse, partRow(part));
  };
  // Carried: the O sums, the weight sum, the running maximum.
  SmallVector<Value> inits(columns + 1, km.f32(0.0));
  inits.push_back(negInf);
  auto sumLoop = scf::ForOp::create(b, loc, km.i32(0), count,
                                    km.i32(batch), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(sumLoop.getBody());
    Value i0 = sumLoop.getInductionVar();
    SmallVector<Value> acc(sumLoop.getRegionIterArgs());
    Type vectorType = VectorType::get({columns}, f32);
    SmallVector<Value> valid, lses, values;
    for (int64_t u = 0; u < batch; ++u) {
      Value i = km.add(i0, km.i32(u));
      valid.push_back(km.cmp(P::slt, i, count));
      auto load = [&] {
        Value part = partOf(i);
        Value element = arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, partRow(part), km.index(Dv)),
            km.toIndex(km.mul(lane, km.i32(columns))));
        return SmallVector<Value>{
            lseOf(part),
            loadPastL1(km, vectorType, out.partialO, element)};
      };
      if (u == 0) { // i0 < count
        SmallVector<Value> loaded = load();
        lses.push_back(loaded[0]);
        values.push_back(loaded[1]);
        continue;
      }
      // Parts past `count` are not read (a warp-uniform branch). Read as
      // the last part instead, a short batch's loads all hit one line: 2-6%
      // slower on the rows of few parts (docs/benchmarks.md, 14th session).
      auto ifValid = scf::IfOp::create(b, loc, TypeRange{f32, vectorType},
                                       valid.back(), /*withElse=*/true);
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(ifValid.thenBlock());
        scf::YieldOp::create(b, loc, load());
        b.setInsertionPointToStart(ifValid.elseBlock());
        Value zero = LLVM::ZeroOp::create(b, loc, vectorType);
        scf::YieldOp::create(b, loc, ValueRange{negInf, zero});
      }
      lses.push_back(ifValid.getResult(0));
      values.push_back(ifValid.getResult(1));
    }
    Value oldMax = acc[columns + 1];
    Value newMax = oldMax;
    for (int64_t u = 0; u < batch; ++u)
      newMax = arith::MaxNumFOp::create(b, loc, newMax,
                                        km.select(valid[u], lses[u], negInf));
    // exp(x − shift) with shift = newMax, or 0 while no part saw a key
    // (then every x is −inf and every weight 0).
    Value shift = km.select(
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, newMax,
                              negInf),
        km.f32(0.0), newMax);
    auto weightOf = [&](Value x) {
      return buildExp2(
          km, arith::MulFOp::create(b, loc,
                                    arith::SubFOp::create(b, loc, x, shift),
                                    km.f32(M_LOG2E)));
    };
    Value rescale = weightOf(oldMax);
    for (int64_t c = 0; c <= columns; ++c)
      acc[c] = arith::MulFOp::create(b, loc, acc[c], rescale);
    for (int64_t u = 0; u < batch; ++u) {
      Value weight = km.select(valid[u], weightOf(lses[u]), km.f32(0.0));
      for (int64_t c = 0; c < columns; ++c) {
        Value o = LLVM::ExtractElementOp::create(b, loc, values[u], km.i32(c));
        acc[c] = buildFma(km, weight, o, acc[c]);
      }
      acc[columns] = arith::AddFOp::create(b, loc, acc[columns], weight);
    }
    acc[columns + 1] = newMax;
    scf::YieldOp::create(b, loc, acc);
  }
  Value maxLse = sumLoop.getResult(columns + 1);
  Value noKey = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                      maxLse, negInf);
  Value total = sumLoop.getResult(columns);
  Value inverse = km.select(noKey, km.f32(0.0),
                            arith::DivFOp::create(b, loc, km.f32(1.0), total));
  SmallVector<Value> o;
  for (int64_t c = 0; c < columns; ++c)
    o.push_back(arith::MulFOp::create(b, loc, sumLoop.getResult(c), inverse));
  Value lse = mergedLse(km, noKey, negInf, maxLse, total);
  if (!target.toPart) {
    writeOutputRow(km, config, out, lane, flatRow, o, lse);
    return;
  }
  // Into the partial slot of part `toPart` (one of the parts just read:
  // every lane's reads of the warp are done before any lane writes).
  NVVM::SyncWarpOp::create(b, loc, km.i32(-1));
  Value row = partRow(target.toPart);
  Value element = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, row, km.index(Dv)),
      km.toIndex(km.mul(lane, km.i32(columns))));
  Value vector = LLVM::UndefOp::create(b, loc, VectorType::get({columns}, f32));
  for (int64_t c = 0; c < columns; ++c)
    vector = LLVM::InsertElementOp::create(b, loc, vector, o[c], km.i32(c));
  Value address = LLVM::GEPOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 1), f32,
      out.partialO,
      ValueRange{arith::IndexCastOp::create(b, loc, b.getI64Type(), element)});
  LLVM::StoreOp::create(b, loc, vector, address,
                        std::min<unsigned>(16, 4 * columns));
  km.ifLanes(km.cmp(P::eq, lane, km.i32(0)), [&] {
    Value lseAddress = LLVM::GEPOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), 1), f32,
        out.partialLse,
        ValueRange{arith::IndexCastOp::create(b, loc, b.getI64Type(), row)});
    LLVM::StoreOp::create(b, loc, lse, lseAddress, 4);
  });
}

// Documented in SM80/DecodeMerge.h.
void buildPairMergeRows(KernelMath &km, const KernelConfig &config,
                        const OutputRows &out, Value warp, Value rank,
                        Value lane, Value rowsInTile, Value tileFlatRow0,
                        const PairPartials &partials) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  const int64_t Dv = config.headDim, columns = Dv / 32;
  // Rows 2·warp + rank + 2·kSplitKVWarps·k of the tile.
  auto loop = scf::ForOp::create(b, loc, km.add(km.mul(warp, km.i32(2)), rank),
                                 rowsInTile, km.i32(2 * kSplitKVWarps));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value row = loop.getInductionVar();
  SmallVector<Value> lses;
  SmallVector<SmallVector<Value>> parts;
  Value column = km.mul(lane, km.i32(columns));
  for (int64_t s = 0; s < 2; ++s) {
    parts.push_back(partials.o(s, km.add(km.mul(row, km.i32(Dv)), column)));
    lses.push_back(partials.lse(s, row));
  }
  Value negInfinity = km.f32(-std::numeric_limits<double>::infinity());
  Value maxLse = arith::MaxNumFOp::create(b, loc, lses[0], lses[1]);
  Value noKey = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                      maxLse, negInfinity);
  Value shift = mergeShift(km, maxLse, negInfinity);
  Value w0 = mergeWeight(km, lses[0], shift);
  Value w1 = mergeWeight(km, lses[1], shift);
  Value total = arith::AddFOp::create(b, loc, w0, w1);
  Value inverse = km.select(
      noKey, km.f32(0.0), arith::DivFOp::create(b, loc, km.f32(1.0), total));
  SmallVector<Value> o;
  for (int64_t c = 0; c < columns; ++c) {
    Value sum = buildFma(km, w1, parts[1][c],
                         arith::MulFOp::create(b, loc, w0, parts[0][c]));
    o.push_back(arith::MulFOp::create(b, loc, sum, inverse));
  }
  writeOutputRow(km, config, out, lane, km.add(tileFlatRow0, row), o,
                 mergedLse(km, noKey, negInfinity, maxLse, total));
}

MergeGroups buildMergeGroups(KernelMath &km, Value numSplits) {
  using P = arith::CmpIPredicate;
  Value twoLevel = km.cmp(P::sgt, numSplits, km.i32(kMergeDirect));
  // Balanced groups: ⌈n / ⌈n / kMergeGroup⌉⌉ parts each, the last
  // group non-empty.
  Value groupSize = km.select(
      twoLevel,
      km.divu(km.add(numSplits,
                     km.sub(km.divu(km.add(numSplits,
                                           km.i32(kMergeGroup - 1)),
                                    km.i32(kMergeGroup)),
                            km.i32(1))),
              km.divu(km.add(numSplits, km.i32(kMergeGroup - 1)),
                      km.i32(kMergeGroup))),
      numSplits);
  Value numGroups = km.divu(km.add(numSplits, km.sub(groupSize, km.i32(1))),
                            groupSize);
  return {twoLevel, groupSize, numGroups};
}

void buildFusedMergeCounts(KernelMath &km, Value numSplits, Value part,
                           const FusedMergeCounting &c) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  MergeGroups groups = buildMergeGroups(km, numSplits);
  Value twoLevel = groups.twoLevel, groupSize = groups.groupSize,
        numGroups = groups.numGroups;
  Value group = km.divu(part, groupSize);
  Value groupFirst = km.mul(group, groupSize);
  Value groupCount = km.minsi(groupSize, km.sub(numSplits, groupFirst));
  Value gridParts = c.gridParts();
  Value counterStride = km.mul(
      km.i32(2), km.divu(km.add(gridParts, km.i32(kSplitKVMergeGroup - 1)),
                         km.i32(kSplitKVMergeGroup)));
  Value unitCounter = km.mul(c.unitIndex(), counterStride);
  Value topCounter = c.counterAt(unitCounter);
  Value firstCounter = c.counterAt(km.select(
      twoLevel, km.add(unitCounter, km.add(group, km.i32(1))), unitCounter));
  c.ready();
  Value isLast = c.lastToCount(firstCounter, groupCount);
  km.ifLanes(isLast, [&] {
    auto ifTwo = scf::IfOp::create(b, loc, twoLevel, /*withElse=*/true);
    OpBuilder::InsertionGuard inner(b);
    // One level: every part into the output rows.
    b.setInsertionPoint(ifTwo.elseBlock()->getTerminator());
    c.mergeAll();
    c.reset(firstCounter);
    // Two levels: the group into its first part's slot, then (the last
    // group's finisher) the groups into the output rows.
    b.setInsertionPoint(ifTwo.thenBlock()->getTerminator());
    c.mergeGroup(groupFirst, groupCount);
    c.reset(firstCounter);
    c.barrier();
    Value isLastGroup = c.lastToCount(topCounter, numGroups);
    km.ifLanes(isLastGroup, [&] {
      c.mergeGroups(numGroups, groupSize);
      c.reset(topCounter);
    });
  });
}

//===----------------------------------------------------------------------===//
// The split kernels' combine of their warps
//===----------------------------------------------------------------------===//

int64_t warpCombineWordsPerWarp(int64_t mTiles, int64_t headDim) {
  return (2 * 2 * mTiles + mTiles * (headDim / 8) * 4) * 32;
}

bool warpCombineInParallel(int64_t mTiles, int64_t headDim,
                           int64_t ringBytes) {
  return 4 * kSplitKVWarps * warpCombineWordsPerWarp(mTiles, headDim) <=
         ringBytes;
}

/// The words a warp leaves: its rows' m, then l, then the accumulator.
static SmallVector<Value> combineWords(const OnlineSoftmaxState &state) {
  SmallVector<Value> words(state.runningMax);
  words.append(state.runningSum.begin(), state.runningSum.end());
  words.append(state.acc.regs.begin(), state.acc.regs.end());
  return words;
}

/// Where word `word` of lane `lane` of the warp at place `place` (warp
/// index, or warp − 1 when warp 0 keeps its own) lies: (place·words/32 +
/// word)·32 + lane.
static Value combineSlot(KernelMath &km, Value place, Value word, Value lane,
                         int64_t wordsPerLane) {
  return km.toIndex(km.add(
      km.mul(km.add(km.mul(place, km.i32(wordsPerLane)), word), km.i32(32)),
      lane));
}

/// −(the rows' common maxima)·c (0 for a row no warp saw a key of): the
/// shift of every warp's rescale factor 2^(m_w·c − shift).
static SmallVector<Value> combineShifts(KernelMath &km, ArrayRef<Value> common,
                                        Value scaleLog2e) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  Value negInf = km.f32(-std::numeric_limits<double>::infinity());
  SmallVector<Value> shift;
  for (Value m : common) {
    Value empty =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m, negInf);
    shift.push_back(arith::NegFOp::create(
        b, loc,
        km.select(empty, km.f32(0.0),
                  arith::MulFOp::create(b, loc, m, scaleLog2e))));
  }
  return shift;
}

void storeWarpCombineWords(KernelMath &km, Value exchange, Value warp,
                           Value lane, const OnlineSoftmaxState &state,
                           int64_t mTiles, int64_t headDim, bool parallel) {
  using P = arith::CmpIPredicate;
  const int64_t perLane = warpCombineWordsPerWarp(mTiles, headDim) / 32;
  SmallVector<Value> words = combineWords(state);
  if (parallel) {
    for (auto [i, w] : llvm::enumerate(words))
      km.store(w, exchange,
               combineSlot(km, warp, km.i32(int64_t(i)), lane, perLane));
    return;
  }
  km.ifLanes(km.cmp(P::ne, warp, km.i32(0)), [&] {
    for (auto [i, w] : llvm::enumerate(words))
      km.store(w, exchange,
               combineSlot(km, km.sub(warp, km.i32(1)), km.i32(int64_t(i)),
                           lane, perLane));
  });
}

CombinedWarps combineWarpSlices(KernelMath &km, Value exchange, Value warp,
                                Value lane, int64_t mTiles, int64_t headDim,
                                Value scaleLog2e) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  const int64_t numRows = 2 * mTiles;
  const int64_t perLane = warpCombineWordsPerWarp(mTiles, headDim) / 32;
  auto load = [&](int64_t w, Value word) -> Value {
    return memref::LoadOp::create(
        b, loc, exchange,
        ValueRange{combineSlot(km, km.i32(w), word, lane, perLane)});
  };
  Value negInf = km.f32(-std::numeric_limits<double>::infinity());
  SmallVector<SmallVector<Value>> maxes;
  SmallVector<Value> common(numRows, negInf);
  for (int64_t w = 0; w < kSplitKVWarps; ++w) {
    maxes.emplace_back();
    for (int64_t r = 0; r < numRows; ++r) {
      maxes.back().push_back(load(w, km.i32(r)));
      common[r] = w == 0 ? maxes.back()[r]
                         : arith::MaxNumFOp::create(b, loc, common[r],
                                                    maxes.back()[r]);
    }
  }
  SmallVector<Value> shift = combineShifts(km, common, scaleLog2e);
  const int64_t nTiles = headDim / 8, sliceTiles = nTiles / kSplitKVWarps;
  CombinedWarps out{common, SmallVector<Value>(numRows),
                    Fragment(mTiles, sliceTiles, km.f32(0.0))};
  Fragment &acc = out.acc;
  Value sliceWord0 =
      km.add(km.i32(2 * numRows), km.mul(warp, km.i32(sliceTiles * 4)));
  for (int64_t w = 0; w < kSplitKVWarps; ++w) {
    SmallVector<Value> f;
    for (int64_t r = 0; r < numRows; ++r)
      f.push_back(
          buildExp2(km, buildFma(km, maxes[w][r], scaleLog2e, shift[r])));
    for (int64_t r = 0; r < numRows; ++r) {
      Value sum = load(w, km.i32(numRows + r));
      out.runningSum[r] = w == 0 ? arith::MulFOp::create(b, loc, sum, f[r])
                                 : buildFma(km, sum, f[r], out.runningSum[r]);
    }
    for (int64_t mt = 0; mt < mTiles; ++mt)
      for (int64_t t = 0; t < sliceTiles; ++t)
        for (int64_t e = 0; e < 4; ++e) {
          Value word = km.add(sliceWord0, km.i32((mt * nTiles + t) * 4 + e));
          Value &reg = acc.at(mt, t, e);
          int64_t row = acc.layout.rowOfRegister((mt * sliceTiles + t) * 4 + e);
          Value x = load(w, word);
          reg = w == 0 ? arith::MulFOp::create(b, loc, x, f[row])
                       : buildFma(km, x, f[row], reg);
        }
  }
  return out;
}

CombinedWarps combineIntoFirstWarp(KernelMath &km, Value exchange, Value lane,
                                   const OnlineSoftmaxState &own,
                                   int64_t mTiles, int64_t headDim,
                                   Value scaleLog2e) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  const int64_t numRows = 2 * mTiles;
  const int64_t perLane = warpCombineWordsPerWarp(mTiles, headDim) / 32;
  CombinedWarps out{own.runningMax, own.runningSum, own.acc};
  SmallVector<Value> &common = out.common, &runningSum = out.runningSum;
  Fragment &acc = out.acc;
  // The common max of each row over the warps, then each warp's part
  // rescaled by 2^(m_w·c − shift) (0 for a warp whose row saw no key) and
  // summed, one warp at a time (its words loaded as they are used).
  auto load = [&](int64_t w, int64_t word) -> Value {
    return memref::LoadOp::create(
        b, loc, exchange,
        ValueRange{combineSlot(km, km.sub(km.i32(w), km.i32(1)),
                               km.i32(word), lane, perLane)});
  };
  SmallVector<SmallVector<Value>> otherMax;
  for (int64_t w = 1; w < kSplitKVWarps; ++w) {
    otherMax.emplace_back();
    for (int64_t r = 0; r < numRows; ++r) {
      otherMax.back().push_back(load(w, r));
      common[r] =
          arith::MaxNumFOp::create(b, loc, common[r], otherMax.back()[r]);
    }
  }
  SmallVector<Value> shift = combineShifts(km, common, scaleLog2e);
  auto factors = [&](ArrayRef<Value> m) {
    SmallVector<Value> f;
    for (int64_t r = 0; r < numRows; ++r)
      f.push_back(buildExp2(km, buildFma(km, m[r], scaleLog2e, shift[r])));
    return f;
  };
  SmallVector<Value> ownFactors = factors(own.runningMax);
  for (int64_t r = 0; r < numRows; ++r)
    runningSum[r] = arith::MulFOp::create(b, loc, runningSum[r], ownFactors[r]);
  buildRescale(km, acc, ownFactors);
  for (int64_t w = 1; w < kSplitKVWarps; ++w) {
    SmallVector<Value> f = factors(otherMax[w - 1]);
    for (int64_t r = 0; r < numRows; ++r)
      runningSum[r] = buildFma(km, load(w, numRows + r), f[r], runningSum[r]);
    for (int64_t reg = 0; reg < int64_t(acc.regs.size()); ++reg)
      acc.regs[reg] = buildFma(km, load(w, 2 * numRows + reg),
                               f[acc.layout.rowOfRegister(reg)], acc.regs[reg]);
  }
  return out;
}

void writeSplitResult(KernelMath &km, const KernelConfig &config,
                      Fragment &acc, ArrayRef<Value> common,
                      ArrayRef<Value> runningSum, Value columnShift,
                      Value lseWriter, const SplitResultPlace &place) {
  using P = arith::CmpIPredicate;
  OpBuilder &b = km.b;
  Location loc = km.loc;
  const int64_t D = config.headDim;
  const int64_t numRows = acc.layout.rowsPerThread;
  Value negInf = km.f32(-std::numeric_limits<double>::infinity());
  const LaneCoords &coords = place.coords;
  // One part: O and LSE straight to the outputs.
  auto ifWhole = scf::IfOp::create(b, loc, place.onePart(), /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifWhole.thenBlock()->getTerminator());
    auto [globalO, globalLse] = place.outputs();
    Fragment out = acc;
    Value outBase =
        columnShift ? arith::AddIOp::create(b, loc, place.qBase, columnShift)
                    : place.qBase;
    buildEpilogue(km, config, out, common, runningSum, coords, place.tileRow0,
                  place.groupRows, place.scale, globalO, outBase,
                  lseWriter ? Value() : globalLse, place.groupBase);
    if (lseWriter && globalLse) {
      // The LSE by the writing warp's quad lane 0.
      for (int64_t r = 0; r < numRows; ++r) {
        Value rowSum = buildRowSum(km, acc.layout, runningSum[r]);
        Value empty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                            rowSum, km.f32(0.0));
        Value row = km.add(place.tileRow0,
                           km.add(coords.group, km.i32(acc.layout.rowOffset(r))));
        Value writes = km.andi(
            lseWriter, km.andi(km.cmp(P::slt, row, place.groupRows),
                               km.cmp(P::eq, coords.quadLane, km.i32(0))));
        km.ifLanes(writes, [&] {
          Value lse =
              buildRowLse(km, common[r], place.scale, rowSum, empty, negInf);
          km.store(lse, globalLse,
                   arith::AddIOp::create(b, loc, place.groupBase,
                                         km.toIndex(row)));
        });
      }
    }
    // Several parts: this part's normalised O and its LSE (natural log;
    // −inf for a row that saw no key of the part), f32, at part-major
    // rows of the workspaces.
    b.setInsertionPoint(ifWhole.elseBlock()->getTerminator());
    const AccumulatorLayout &layout = acc.layout;
    auto storePartials = [&](Value partialO, Value partialLse,
                             Value partRow0) {
      for (int64_t r = 0; r < numRows; ++r) {
        Value rowSum = buildRowSum(km, layout, runningSum[r]);
        Value empty = arith::CmpFOp::create(
            b, loc, arith::CmpFPredicate::OEQ, rowSum, km.f32(0.0));
        Value inverse =
            km.select(empty, km.f32(0.0),
                      arith::DivFOp::create(b, loc, km.f32(1.0), rowSum));
        Value row = km.add(place.tileRow0,
                           km.add(coords.group, km.i32(layout.rowOffset(r))));
        km.ifLanes(km.cmp(P::slt, row, place.groupRows), [&] {
          Value flatRow =
              arith::AddIOp::create(b, loc, partRow0, km.toIndex(row));
          Value rowBase = arith::AddIOp::create(
              b, loc, arith::MulIOp::create(b, loc, flatRow, km.index(D)),
              km.toIndex(
                  km.mul(coords.quadLane, km.i32(layout.columnLaneStride()))));
          if (columnShift)
            rowBase = arith::AddIOp::create(b, loc, rowBase, columnShift);
          for (int64_t c = 0; c < layout.columnsPerRow; ++c) {
            Value o = arith::MulFOp::create(b, loc, acc.reg(r, c), inverse);
            km.store(o, partialO,
                     arith::AddIOp::create(b, loc, rowBase,
                                           km.index(layout.columnOffset(c))));
          }
          Value lseLane = km.cmp(P::eq, coords.quadLane, km.i32(0));
          if (lseWriter)
            lseLane = km.andi(lseLane, lseWriter);
          km.ifLanes(lseLane, [&] {
            km.store(buildRowLse(km, common[r], place.scale, rowSum, empty,
                                 negInf),
                     partialLse, flatRow);
          });
        });
      }
    };
    auto toGlobal = [&] {
      auto [partialO, partialLse] = place.partials();
      Value allRows = km.toIndex(
          km.mul(km.mul(place.batch, place.queryHeads), place.seqQ));
      storePartials(partialO, partialLse,
                    arith::AddIOp::create(
                        b, loc,
                        arith::MulIOp::create(b, loc, km.toIndex(place.part),
                                              allRows),
                        place.groupBase));
    };
    if (!place.inShared) {
      toGlobal();
    } else {
      auto ifShared =
          scf::IfOp::create(b, loc, place.inShared(), /*withElse=*/true);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPoint(ifShared.thenBlock()->getTerminator());
      auto [sharedO, sharedLse] = place.sharedPartials();
      // Row `row` of the tile at row row − tileRow0.
      storePartials(sharedO, sharedLse,
                    arith::IndexCastOp::create(
                        b, loc, km.laneType(b.getIndexType()),
                        km.sub(km.i32(0), place.tileRow0)));
      b.setInsertionPoint(ifShared.elseBlock()->getTerminator());
      toGlobal();
    }
  }
}

} // namespace mlir::flash::sm80

namespace {

//===----------------------------------------------------------------------===//
// The split kernel
//===----------------------------------------------------------------------===//

class SplitKernelBuilder : DecodeTileCopies {
public:
  /// `separateMerge`: the split kernel of the separate merge (sm_90a, few
  /// work units): it triggers its dependents after its K/V loop and writes
  /// the partials only (no count, no merge).
  SplitKernelBuilder(OpBuilder &b, Location loc, const KernelConfig &config,
                     bool separateMerge = false)
      : DecodeTileCopies(b, loc, config.headDim, config.threads(),
                         config.decode.constantPageSize,
                         config.decode.paged && separateMerge &&
                             !config.decode.constantPageSize,
                         config.decode.paged,
                         decodeSplitTableWindow(config, separateMerge)),
        b(b), loc(loc), config(config), et(config.elementType),
        Mw(config.decode.mTiles), stages(config.stages),
        separateMerge(separateMerge),
        clusterPairs(!separateMerge && decodeClusterPairs(config)) {}

  void build(gpu::GPUFuncOp func, llvm::StringMap<Value> &arg);

private:
  /// Online-softmax state of a warp.
  using State = OnlineSoftmaxState;

  MemRefType sharedType(Type element, int64_t elements) {
    return MemRefType::get({elements}, element, AffineMap(),
                           gpu::AddressSpaceAttr::get(
                               b.getContext(), gpu::AddressSpace::Workgroup));
  }
  Value chunkOffset(int64_t chunk, Value x) {
    return km.mul(km.xori(x, km.i32(chunk)), km.i32(8));
  }
  /// One loop over local tiles [lb, ub) of the part.
  State buildLoop(Value lb, Value ub, const State &in, bool masked);
  /// S[.., key] = −inf where the key is past the row's last visible key.
  void mask(Fragment &scores, Value kvStart);

  OpBuilder &b;
  Location loc;
  const KernelConfig &config;
  Type et;
  int64_t Mw, stages;
  bool separateMerge;
  /// The pair merge in clusters of two (decodeClusterPairs).
  bool clusterPairs;

  // Block-wide values (the page arithmetic's and the copies' are
  // DecodeTileCopies').
  Value tid, lane, warp, batch, kvHead, scaleLog2e;
  Value numKVHeads, seqKV;
  Value sharedQ, firstGroup;
  Value qRowOffset, qSwizzle, kRowOffset, kSwizzle, vRowOffset, vSwizzle;
  LaneCoords coords;
  SmallVector<Value> rowLimit; ///< last visible key of each thread row
  SmallVector<SmallVector<Pairs>> queryInRegisters;
};

void SplitKernelBuilder::mask(Fragment &scores, Value kvStart) {
  using P = arith::CmpIPredicate;
  Value negInf = km.f32(-std::numeric_limits<double>::infinity());
  const AccumulatorLayout &layout = scores.layout;
  // Column c of this lane is key col0 + columnOffset(c); visible iff it is
  // at most the row's last visible key.
  Value col0 = km.add(kvStart, km.mul(coords.quadLane,
                                      km.i32(layout.columnLaneStride())));
  for (int64_t r = 0; r < layout.rowsPerThread; ++r) {
    Value relative = km.sub(rowLimit[r], col0);
    for (int64_t c = 0; c < layout.columnsPerRow; ++c) {
      Value visible = km.cmp(P::sle, km.i32(layout.columnOffset(c)), relative);
      Value &s = scores.reg(r, c);
      s = arith::SelectOp::create(b, loc, visible, s, negInf);
    }
  }
}

SplitKernelBuilder::State SplitKernelBuilder::buildLoop(Value lb, Value ub,
                                                        const State &in,
                                                        bool masked) {
  using P = arith::CmpIPredicate;
  auto iteration = [&](Value j, const State &carried) -> State {
    const SmallVector<Value> &runningMax = carried.runningMax;
    const SmallVector<Value> &runningSum = carried.runningSum;
    Fragment acc = carried.acc;

    // Tile j has landed (at most stages − 2 later groups in flight); the
    // barrier also retires every read of the stage that tile j + stages − 1
    // refills (tile j − 1's).
    waitCopies(km, firstGroup, stages - 2);
    gpu::BarrierOp::create(b, loc);
    Value ahead = km.add(j, km.i32(stages - 1));
    Value aheadTile = km.add(tileBegin, ahead);
    auto ifAhead = scf::IfOp::create(
        b, loc, km.cmp(P::slt, aheadTile, tileEnd), /*withElse=*/false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPoint(ifAhead.thenBlock()->getTerminator());
      if (groupedStart) {
        // A full tile with S = 2^k >= 16: grouped lookups, plain copies.
        Value aheadStage =
            arith::RemUIOp::create(b, loc, ahead, km.i32(stages));
        Value fast = fullTile(aheadTile);
        fast = arith::AndIOp::create(b, loc, fastPages, fast);
        auto ifFast = scf::IfOp::create(b, loc, fast, /*withElse=*/true);
        b.setInsertionPoint(ifFast.thenBlock()->getTerminator());
        issueTile(aheadTile, aheadStage,
                  groupedRowsOf(aheadTile, /*fromTable=*/false,
                                /*clampKeys=*/false),
                  /*plain=*/true);
        b.setInsertionPoint(ifFast.elseBlock()->getTerminator());
        issueTile(aheadTile, aheadStage, cacheRowsOf(aheadTile));
      } else {
        issueTile(aheadTile, arith::RemUIOp::create(b, loc, ahead,
                                                    km.i32(stages)),
                  paged ? cacheRowsOf(aheadTile) : SmallVector<Value>());
      }
    }
    commitCopies(km);

    Value stage = arith::RemUIOp::create(b, loc, j, km.i32(stages));
    Value stageOffset = km.mul(stage, km.i32(kBlockKV * D));
    Value warpKeys = km.mul(warp, km.i32(kKeysPerWarp * D));

    // S = Q·Kᵀ over this warp's 16 keys: Mw × 2 accumulators of 4 f32.
    Fragment scores(Mw, 2, km.f32(0.0));
    for (int64_t kk = 0; kk < D / 16; ++kk) {
      SmallVector<Pairs> qFrag;
      for (int64_t mt = 0; mt < Mw; ++mt) {
        if (!queryInRegisters.empty()) {
          qFrag.push_back(queryInRegisters[mt][kk]);
          continue;
        }
        Value offset = km.add(qRowOffset, km.add(km.i32(mt * 16 * D),
                                                 chunkOffset(2 * kk, qSwizzle)));
        qFrag.push_back(loadMatrixX4(km, et, sharedQ, offset, false));
      }
      Value kOffset = km.add(km.add(stageOffset, warpKeys),
                             km.add(kRowOffset, chunkOffset(2 * kk, kSwizzle)));
      Pairs kFrag = loadMatrixX4(km, et, sharedK, kOffset, false);
      for (int64_t mt = 0; mt < Mw; ++mt)
        for (int64_t half = 0; half < 2; ++half)
          mmaSyncInto(km, et, scores, mt, half, qFrag[mt],
                      ArrayRef<Value>(kFrag).slice(2 * half, 2));
    }
    Value tile = km.add(tileBegin, j);
    if (masked)
      mask(scores, km.add(km.mul(tile, km.i32(kBlockKV)),
                          km.mul(warp, km.i32(kKeysPerWarp))));
    SoftmaxStep step = buildOnlineSoftmax(km, scores, runningMax, runningSum,
                                          scaleLog2e, et);
    buildRescale(km, acc, step.rescale);

    // O += P·V over the same 16 keys: P's A operand is the S layout of
    // column tiles 0 and 1.
    SmallVector<Pairs> pFrag;
    for (int64_t mt = 0; mt < Mw; ++mt) {
      auto probs = [&](int64_t nt, int64_t half) {
        return step.probs[(mt * 2 + nt) * 2 + half];
      };
      pFrag.push_back({probs(0, 0), probs(0, 1), probs(1, 0), probs(1, 1)});
    }
    Value vRow = km.add(km.add(stageOffset, warpKeys), vRowOffset);
    for (int64_t dp = 0; dp < D / 16; ++dp) {
      Pairs vFrag = loadMatrixX4(km, et, sharedV,
                                 km.add(vRow, chunkOffset(2 * dp, vSwizzle)),
                                 /*transpose=*/true);
      for (int64_t mt = 0; mt < Mw; ++mt)
        for (int64_t half = 0; half < 2; ++half)
          mmaSyncInto(km, et, acc, mt, 2 * dp + half, pFrag[mt],
                      ArrayRef<Value>(vFrag).slice(2 * half, 2));
    }
    return {step.newMax, step.newSum, acc};
  };
  return buildOnlineSoftmaxLoop(km, lb, ub, in, iteration);
}

void SplitKernelBuilder::build(gpu::GPUFuncOp func,
                               llvm::StringMap<Value> &arg) {
  using P = arith::CmpIPredicate;
  MLIRContext *ctx = b.getContext();
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  Value scale = arg["scale"];
  scaleLog2e = arith::MulFOp::create(b, loc, scale, km.f32(M_LOG2E));
  numKVHeads = arg["Hkv"];
  Value queryHeads = arg["Hq"], seqQ = arg["Nq"];
  DecodeSizes sizes = decodeSizes(km, config, arg);
  auto asI32 = [&](Value index) -> Value {
    return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index);
  };
  tid = asI32(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  lane = km.andi(tid, km.i32(31));
  warp = km.shru(tid, km.i32(5));
  coords = {km.shru(lane, km.i32(2)), km.andi(lane, km.i32(3))};
  Value part = asI32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value headTile = asI32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
  batch = asI32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::z));
  kvHead = km.divu(headTile, sizes.rowTiles);
  Value rowTile = km.sub(headTile, km.mul(kvHead, sizes.rowTiles));

  // The separate merge's split kernel is launched behind the previous
  // kernel of the stream with programmatic dependent launch (KernelBuilder.h,
  // decodeSeparateSplitKernelName): nothing in global memory is read or
  // written before that kernel completes (it may have written seq_lens,
  // the block table, Q or the cache; the previous call's merge reads the
  // partials this grid overwrites). The launch and the blocks' start
  // overlap that kernel's end.
  if (separateMerge)
    NVVM::GriddepcontrolOp::create(b, loc, NVVM::GridDepActionKind::wait);
  Value seqLens = paged ? buildFlatGlobalMemref(km, arg["seq_lens"],
                                                b.getI32Type())
                        : Value();
  length = sequenceLength(km, config, arg, seqLens, batch);
  SequenceSplit split = sequenceSplit(km, config, length, seqQ,
                                      sizes.workUnits, arg["SMs"]);

  // Output rows of this block's row tile: (b·Hq + kvHead·G)·Nq + tileRow0
  // + [0, rowsInTile).
  Value groupSizeEarly = km.divu(queryHeads, numKVHeads);
  Value tileFlatRow0 = km.add(
      km.mul(km.add(km.mul(batch, queryHeads), km.mul(kvHead, groupSizeEarly)),
             seqQ),
      km.mul(rowTile, km.i32(config.blockQ)));
  Value rowsInTile = km.minsi(
      km.sub(sizes.groupRows, km.mul(rowTile, km.i32(config.blockQ))),
      km.i32(config.blockQ));
  OutputRows outputs = outputRows(km, config, arg);
  // Each warp takes rows warp, warp + 4, ... of the row tile.
  auto forEachRow = [&](function_ref<void(Value flatRow)> body) {
    auto loop = scf::ForOp::create(b, loc, warp, rowsInTile, km.i32(kWarps));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    body(km.add(tileFlatRow0, loop.getInductionVar()));
  };

  // A block past the sequence's parts has nothing to do, except that with
  // no part at all (no key) block 0 writes its rows: O = 0, LSE = −inf.
  auto ifPart = scf::IfOp::create(
      b, loc, km.cmp(P::slt, part, split.numSplits), /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifPart.elseBlock()->getTerminator());
    km.ifLanes(km.cmp(P::eq, km.add(part, split.numSplits), km.i32(0)), [&] {
      forEachRow([&](Value flatRow) {
        writeOutputRow(km, config, outputs, lane, flatRow,
                       SmallVector<Value>(D / 32, km.f32(0.0)),
                       km.f32(-std::numeric_limits<double>::infinity()));
      });
    });
  }
  b.setInsertionPoint(ifPart.thenBlock()->getTerminator());

  tileBegin = km.mul(part, split.tilesPerSplit);
  tileEnd = km.minsi(km.add(tileBegin, split.tilesPerSplit), split.numTiles);
  Value numLocal = km.sub(tileEnd, tileBegin);
  Value numUnmaskedLocal = km.maxsi(
      km.minsi(km.sub(split.numUnmasked, tileBegin), numLocal), km.i32(0));

  // Global tensors. Rows of this block: (b·Hq + kvHead·G)·Nq + tileRow0 + ρ.
  Value globalQ = buildFlatGlobalMemref(km, arg["q"], et);
  globalK = buildFlatGlobalMemref(km, arg["k"], et);
  globalV = buildFlatGlobalMemref(km, arg["v"], et);
  Value groupSize = km.divu(queryHeads, numKVHeads);
  Value groupRow0 = km.mul(km.add(km.mul(batch, queryHeads),
                                  km.mul(kvHead, groupSize)),
                           seqQ);
  Value tileRow0 = km.mul(rowTile, km.i32(config.blockQ));
  Value groupBase = km.toIndex(groupRow0);
  Value qBase = arith::MulIOp::create(b, loc, groupBase, km.index(D));
  if (paged) {
    globalTable = buildFlatGlobalMemref(km, arg["block_table"],
                                        b.getI32Type());
    // A fused split kernel for one page size (`<name>_s<S>`) has S as a
    // constant: its page and slot arithmetic folds (GQA 8/1 B = 64 L = 1k
    // 0.974-0.991x the time on the H200). The separate merge's split kernel
    // is built so only for S = 2^k >= 16 (`<name>_separate_s<S>`), where
    // cacheRowsOf looks a page up once a tile (S >= 64) or once per 16 keys,
    // and without the grouped form (groupedStart), which takes S as an
    // argument: with the constant, the grouped form and a lookup a key in
    // the other tiles it measured up to 3.5% slower at S = 16
    // (docs/benchmarks.md, thirtieth, thirty-first, thirty-fifth and
    // thirty-seventh sessions).
    setPageSize(arg["S"], batch, arg["M"]);
  } else {
    seqKV = arg["Nk"];
    setContiguousBase(batch, numKVHeads, kvHead, seqKV);
  }

  // Shared memory: Q[Br][D] | K[stages][Bc][D] | V[stages][Bc][D].
  auto bytes = MemRefType::get(
      {ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
  Value smem = gpu::DynamicSharedMemoryOp::create(b, loc, bytes);
  int64_t elementBytes = et.getIntOrFloatBitWidth() / 8;
  int64_t queryBytes = elementBytes * config.blockQ * D;
  int64_t ringElements = stages * kBlockKV * D;
  auto view = [&](Type element, int64_t byteOffset, int64_t elements) {
    return memref::ViewOp::create(b, loc, sharedType(element, elements), smem,
                                  km.index(byteOffset), ValueRange{})
        .getResult();
  };
  sharedQ = view(et, 0, config.blockQ * D);
  sharedK = view(et, queryBytes, ringElements);
  sharedV = view(et, queryBytes + elementBytes * ringElements, ringElements);

  setCopyOffsets(tid, numKVHeads, kvHead);
  if (int64_t evictFirstBytes = decodeKVEvictFirstBytes(config)) {
    // K/V copies under an L2 policy (decodeKVEvictFirstBytes): into the
    // rings' shared pointers from the caches' (the flat memrefs' offsets
    // are 0).
    Value policy = kvCopyPolicy(km, config, arg, evictFirstBytes);
    auto i64 = [this](Value index) -> Value {
      return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), index);
    };
    auto sharedPointer = LLVM::LLVMPointerType::get(ctx, 3);
    auto globalPointer = LLVM::LLVMPointerType::get(ctx, 1);
    auto ringPointer = [&](Value ring) -> Value {
      return LLVM::IntToPtrOp::create(
          b, loc, sharedPointer,
          i64(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, ring)));
    };
    Value kRing = ringPointer(sharedK), vRing = ringPointer(sharedV);
    Value kCache = arg["k"], vCache = arg["v"];
    emitCopy = [this, i64, policy, kRing, vRing, kCache, vCache, sharedPointer,
                globalPointer](Value shared, Value dest, Value, Value source,
                               Value elements) {
      bool isK = shared == sharedK;
      Value to = LLVM::GEPOp::create(b, loc, sharedPointer, et,
                                     isK ? kRing : vRing, ValueRange{i64(dest)});
      Value from =
          LLVM::GEPOp::create(b, loc, globalPointer, et, isK ? kCache : vCache,
                              ValueRange{i64(source)});
      Value bytes = elements
                        ? km.mul(arith::IndexCastUIOp::create(
                                     b, loc, b.getI32Type(), elements),
                                 km.i32(et.getIntOrFloatBitWidth() / 8))
                        : Value();
      copyWithL2Policy(km, to, from, bytes, policy);
    };
  }

  // The last visible key of each thread row ρ = tileRow0 + g + rowOffset(r)
  // (query index i = ρ mod Nq): i + length − Nq under causal masking (a row
  // that sees no key gets a negative limit), else length − 1.
  Fragment shape(Mw, 2, km.f32(0.0));
  for (int64_t r = 0; r < shape.numRows(); ++r) {
    if (!config.causal) {
      rowLimit.push_back(km.sub(length, km.i32(1)));
      continue;
    }
    Value row = km.add(tileRow0, km.add(coords.group,
                                        km.i32(shape.layout.rowOffset(r))));
    Value query = arith::RemUIOp::create(b, loc, row, seqQ);
    rowLimit.push_back(km.add(query, km.sub(length, seqQ)));
  }

  // Prologue: group 0 = Q; groups 1 .. stages − 1 = tiles 0 .. stages − 2
  // (empty where the part is shorter).
  //
  // Paged: the block-table window's loads first. The part's pages are
  // [firstPage, lastPage], those of its keys [tileBegin·64, partLastKey];
  // when they are at most tableWindow, the block loads them (each thread
  // tableWindow / threads entries, independent loads; entries past the
  // part repeat its last page, never past the sequence's). The prologue's
  // tiles take their pages from the table in global memory, loads in flight
  // with the window's, so that no shared-memory store, barrier and load lie
  // between the table and the first K/V copies; the window is stored after
  // those copies are issued, and the loop's first barrier orders it before
  // any lookup (docs/benchmarks.md, eighteenth session).
  //
  // groupedStart (the separate merge's split kernel): the prologue's table
  // loads (one a 16-key group when its tiles are full and S = 2^k >= 16)
  // come first, then the window's, without a branch: entry e of the window
  // is one of the part's pages whether or not the part fits in it (then
  // windowPages > tableWindow), so those loads are always in bounds.
  SmallVector<Value> windowEntries;
  Value windowPages;
  if (paged) {
    window = view(b.getI32Type(),
                  queryBytes + 2 * elementBytes * ringElements, tableWindow);
    setPartLastKey();
  }
  auto loadWindow = [&] {
    windowPages = setWindowBounds();
    auto entryLoad = [&](int64_t i) {
      return windowEntry(tid, i, windowPages);
    };
    // The base rounds, then (a window past kDecodeTableWindowBase entries)
    // the others where the part has more pages; 0 where it has not (those
    // slots are neither stored nor looked up).
    auto loadRounds = [&](SmallVectorImpl<Value> &entries) {
      for (int64_t i = 0; i < windowBaseRounds(); ++i)
        entries.push_back(entryLoad(i));
      if (windowRounds() == windowBaseRounds())
        return;
      SmallVector<Type> types(windowRounds() - windowBaseRounds(),
                              b.getI32Type());
      auto ifPast =
          scf::IfOp::create(b, loc, types, windowPastBase, /*withElse=*/true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifPast.thenBlock());
      SmallVector<Value> past;
      for (int64_t i = windowBaseRounds(); i < windowRounds(); ++i)
        past.push_back(entryLoad(i));
      scf::YieldOp::create(b, loc, past);
      b.setInsertionPointToStart(ifPast.elseBlock());
      scf::YieldOp::create(b, loc, SmallVector<Value>(types.size(), km.i32(0)));
      entries.append(ifPast.getResults().begin(), ifPast.getResults().end());
    };
    if (groupedStart) {
      loadRounds(windowEntries);
      return;
    }
    SmallVector<Type> types(windowRounds(), b.getI32Type());
    auto ifLoad = scf::IfOp::create(b, loc, types, windowed, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifLoad.thenBlock());
      SmallVector<Value> entries;
      loadRounds(entries);
      scf::YieldOp::create(b, loc, entries);
      b.setInsertionPointToStart(ifLoad.elseBlock());
      scf::YieldOp::create(b, loc, SmallVector<Value>(types.size(), km.i32(0)));
    }
    windowEntries.assign(ifLoad.getResults().begin(),
                         ifLoad.getResults().end());
  };
  if (paged && !groupedStart)
    loadWindow();
  SmallVector<SmallVector<Value>> prologueRows(stages);
  Value prologueFast;
  if (groupedStart) {
    prologueFast = DecodePageRows::prologueFast(stages);
    SmallVector<Type> types((stages - 1) * passes(), b.getI32Type());
    auto ifFast = scf::IfOp::create(b, loc, types, prologueFast,
                                    /*withElse=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      for (bool fast : {true, false}) {
        b.setInsertionPointToStart(fast ? ifFast.thenBlock()
                                        : ifFast.elseBlock());
        SmallVector<Value> all;
        for (int64_t s = 0; s < stages - 1; ++s) {
          Value tile = km.add(tileBegin, km.i32(s));
          SmallVector<Value> rows =
              fast ? groupedRowsOf(tile, /*fromTable=*/true,
                                   /*clampKeys=*/true)
                   : cacheRowsOf(tile, /*fromTable=*/true);
          all.append(rows.begin(), rows.end());
        }
        scf::YieldOp::create(b, loc, all);
      }
    }
    for (int64_t s = 0; s < stages - 1; ++s)
      prologueRows[s].assign(ifFast.getResults().begin() + s * passes(),
                             ifFast.getResults().begin() + (s + 1) * passes());
    loadWindow();
  } else if (paged) {
    for (int64_t s = 0; s < stages - 1; ++s)
      prologueRows[s] =
          cacheRowsOf(km.add(tileBegin, km.i32(s)), /*fromTable=*/true);
  }
  copier.copy(km, globalQ, qBase, tileRow0, sizes.groupRows, sharedQ,
              km.i32(0), config.blockQ);
  firstGroup = commitCopies(km);
  for (int64_t s = 0; s < stages - 1; ++s) {
    Value tile = km.add(tileBegin, km.i32(s));
    auto ifTile = scf::IfOp::create(b, loc, km.cmp(P::slt, tile, tileEnd),
                                    /*withElse=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(ifTile.thenBlock()->getTerminator());
      if (prologueFast) {
        auto ifFast =
            scf::IfOp::create(b, loc, prologueFast, /*withElse=*/true);
        b.setInsertionPoint(ifFast.thenBlock()->getTerminator());
        issueTile(tile, km.i32(s), prologueRows[s], /*plain=*/true);
        b.setInsertionPoint(ifFast.elseBlock()->getTerminator());
      }
      issueTile(tile, km.i32(s), prologueRows[s]);
    }
    commitCopies(km);
  }
  if (window)
    km.ifLanes(windowed, [&] {
      auto store = [&](int64_t i) {
        km.store(windowEntries[i], window,
                 km.toIndex(km.add(tid, km.i32(i * threads))));
      };
      for (int64_t i = 0; i < windowBaseRounds(); ++i)
        store(i);
      if (windowRounds() > windowBaseRounds())
        km.ifLanes(windowPastBase, [&] {
          for (int64_t i = windowBaseRounds(); i < windowRounds(); ++i)
            store(i);
        });
    });
  State state;

  // ldmatrix lane addresses, as in the forward kernel (SM80/ForwardKernel):
  // every warp reads all rows of Q and its own 16 keys of each K/V tile.
  Value lane7 = km.andi(lane, km.i32(7));
  Value lane8 = km.andi(km.shru(lane, km.i32(3)), km.i32(1));
  Value lane16 = km.shru(lane, km.i32(4));
  qRowOffset = km.mul(km.andi(lane, km.i32(15)), km.i32(D));
  qSwizzle = km.xori(lane16, lane7);
  kRowOffset = km.mul(km.add(lane7, km.mul(lane16, km.i32(8))), km.i32(D));
  kSwizzle = km.xori(lane8, lane7);
  vRowOffset = km.mul(km.add(lane7, km.mul(lane8, km.i32(8))), km.i32(D));
  vSwizzle = km.xori(lane16, lane7);

  // Q fragments stay in registers when they are few.
  if (Mw * D / 4 <= 32) {
    waitCopies(km, firstGroup, stages - 1);
    gpu::BarrierOp::create(b, loc);
    for (int64_t mt = 0; mt < Mw; ++mt) {
      queryInRegisters.emplace_back();
      for (int64_t kk = 0; kk < D / 16; ++kk) {
        Value offset = km.add(qRowOffset, km.add(km.i32(mt * 16 * D),
                                                 chunkOffset(2 * kk, qSwizzle)));
        queryInRegisters.back().push_back(
            loadMatrixX4(km, et, sharedQ, offset, false));
      }
    }
  }

  Value negInf = km.f32(-std::numeric_limits<double>::infinity());
  state.runningMax.assign(2 * Mw, negInf);
  state.runningSum.assign(2 * Mw, km.f32(0.0));
  state.acc = Fragment(Mw, D / 8, km.f32(0.0));
  State unmasked = buildLoop(km.i32(0), numUnmaskedLocal, state, false);
  State done = buildLoop(numUnmaskedLocal, numLocal, unmasked, true);
  // The separate merge (Target/SplitKV.h; sm_90a): the merge kernel's
  // blocks may start once every block of this grid has run its K/V loop
  // (its last tile loaded, its MMAs issued) or exited (the blocks past a
  // sequence's parts); they wait for this grid to complete before they
  // read a partial, and the merge is theirs. Here and not at the kernel's
  // start: measured on the H200 (docs/benchmarks.md, twentieth session),
  // the trigger first was slower than here on the calls of 2 to 8 work
  // units (up to 12%: paged GQA 32/8 B = 1 L = 8k, 11.67 against 10.44 us,
  // slower than the fused merge's 11.28; a tie at L = 128k) and no faster
  // at one work unit.
  if (separateMerge)
    NVVM::GriddepcontrolOp::create(
        b, loc, NVVM::GridDepActionKind::launch_dependents);

  // Combine the warps' (m, l, acc): warps 1..3 leave theirs in shared
  // memory (over the drained K/V ring, word i of lane l at i·32 + l), warp 0
  // rescales every warp's part to the common max and sums.
  waitCopies(km, firstGroup, 0);
  gpu::BarrierOp::create(b, loc);
  const int64_t perWarp = warpCombineWordsPerWarp(Mw, D);
  // What the block writes from the combined (m, l, acc) of its rows
  // (writeSplitResult, SM80/DecodeMerge.h).
  SplitResultPlace place;
  place.part = part;
  place.batch = arg["B"];
  place.queryHeads = queryHeads;
  place.seqQ = seqQ;
  place.tileRow0 = tileRow0;
  place.groupRows = sizes.groupRows;
  place.groupBase = groupBase;
  place.qBase = qBase;
  place.scale = scale;
  place.coords = coords;
  place.onePart = [&] {
    return km.cmp(P::eq, split.numSplits, km.i32(1));
  };
  place.outputs = [&]() -> std::pair<Value, Value> {
    Value globalO = buildFlatGlobalMemref(km, arg["o"], b.getI32Type());
    Value globalLse = config.writesLse ? buildFlatGlobalMemref(km, arg["lse"],
                                                               b.getF32Type())
                                       : Value();
    return {globalO, globalLse};
  };
  // The pair merge (decodeClusterPairs): the partials of the row tile's
  // blockQ rows in shared memory after the warps' words (over the drained
  // K/V ring), read by the other block of the cluster.
  const int64_t pairOffset =
      llvm::alignTo(queryBytes + 4 * kWarps * perWarp, 16);
  const int64_t pairWords = config.blockQ * D;
  // Uniform over the grid: launched in clusters of exactly two blocks,
  // along x, over two parts' blocks a row tile (the plan's "cluster" where
  // grid x = 2), so that a block's cluster peer is its row tile's other part.
  auto inPairs = [&]() -> Value {
    Type i32 = b.getI32Type();
    return km.andi(
        km.andi(km.cmp(P::eq, NVVM::ClusterDim::create(b, loc, i32),
                       km.i32(2)),
                km.cmp(P::eq, NVVM::ClusterDimBlocksXOp::create(b, loc, i32),
                       km.i32(2))),
        km.cmp(P::eq,
               asI32(gpu::GridDimOp::create(b, loc, gpu::Dimension::x)),
               km.i32(2)));
  };
  if (clusterPairs) {
    if (pairOffset + 4 * (pairWords + config.blockQ) >
        queryBytes + 2 * elementBytes * ringElements)
      llvm::report_fatal_error("decode: the pair merge's partials do not fit "
                               "in the K/V ring");
    place.inShared = inPairs;
    place.sharedPartials = [&]() -> std::pair<Value, Value> {
      return {view(b.getF32Type(), pairOffset, pairWords),
              view(b.getF32Type(), pairOffset + 4 * pairWords, config.blockQ)};
    };
  }
  place.partials = [&]() -> std::pair<Value, Value> {
    Value partialO =
        buildFlatGlobalMemref(km, arg["partial_o"], b.getF32Type());
    Value partialLse =
        buildFlatGlobalMemref(km, arg["partial_lse"], b.getF32Type());
    return {partialO, partialLse};
  };

  // Every warp leaves its (m, l, acc) in shared memory (over the drained
  // K/V ring), then combines a quarter of the columns (the statistics of
  // every row: each warp computes the common maxima and the row sums) and
  // writes them, O or the part's partials; warp 0 writes the LSE. Where the
  // four warps' words do not fit in the ring, warp 0 combines and writes
  // everything (the three others' words in shared memory): with the
  // schedules of splitKVTileShape only on sm_80, at D = 64 with m = 4 (4
  // stages) and at D = 128 with m = 2 (2 stages), i.e. ops of more than 48
  // or 16 packed rows G·Nq (flash-opt, `compile --decode-rows`), never the
  // shipped plans' m = 1; schedules given by hand (block-q, stages) on both
  // arches where three warps' words fit and four do not. Measured:
  // docs/benchmarks.md, twenty-first session; both forms pinned in
  // test/Pipeline/ptx-decode-combine.mlir, the GPU check of this one
  // (decode_check --only rows on compile --decode-rows 64 plans):
  // docs/benchmarks.md, twenty-second session, issue 17; both run on the
  // CPU (flash-test-decode-combine, python/tests/test_decode_combine.py).
  const bool parallelCombine =
      warpCombineInParallel(Mw, D, 2 * elementBytes * ringElements);
  if (parallelCombine) {
    Value exchange = view(b.getF32Type(), queryBytes, kWarps * perWarp);
    storeWarpCombineWords(km, exchange, warp, lane, done, Mw, D,
                          /*parallel=*/true);
    gpu::BarrierOp::create(b, loc);
    CombinedWarps combined =
        combineWarpSlices(km, exchange, warp, lane, Mw, D, scaleLog2e);
    writeSplitResult(km, config, combined.acc, combined.common,
                     combined.runningSum,
                     km.toIndex(km.mul(warp, km.i32(D / kWarps))),
                     km.cmp(P::eq, warp, km.i32(0)), place);
  } else {
    Value exchange = view(b.getF32Type(), queryBytes, (kWarps - 1) * perWarp);
    storeWarpCombineWords(km, exchange, warp, lane, done, Mw, D,
                          /*parallel=*/false);
    gpu::BarrierOp::create(b, loc);
    km.ifLanes(km.cmp(P::eq, warp, km.i32(0)), [&] {
      CombinedWarps combined =
          combineIntoFirstWarp(km, exchange, lane, done, Mw, D, scaleLog2e);
      writeSplitResult(km, config, combined.acc, combined.common,
                       combined.runningSum, Value(), Value(), place);
    });
  }

  // Several parts: the block that finishes last merges them. Its partials
  // are ordered before the count by the block barrier (CTA scope: every
  // thread's stores before thread 0's count) and the count's release at GPU
  // scope (atom.acq_rel.gpu); the count's acquire and the barrier after it
  // order the merging block's reads (past L1) after every counted part's
  // stores. No membar.gl: with one a thread before the barrier and one
  // after the count the rows of few parts took 0.1-0.6 µs longer
  // (docs/benchmarks.md, eighteenth session). It resets the count, so the
  // counters are zero again for the next launch (and every replay of a
  // captured graph).
  //
  // More than kMergeDirect parts merge in two levels, so that no block
  // reads them all (at B = 1, GQA 8/1, 256 parts of 8 rows are 1 MB of
  // partials for one SM): the parts form groups of about kMergeGroup
  // consecutive parts; the block that finishes a group last merges it into
  // the partial slot of the group's first part, and the block that finishes
  // the last group merges the groups' results into the output rows.
  // Counters of a work unit u (stride 2·⌈gridDim.x / kMergeGroup⌉ words):
  // u·stride the groups (or the parts, one level), u·stride + 1 + g the
  // parts of group g (buildFusedMergeCounts, SM80/DecodeMerge.h, which the
  // CPU harness flash-test-decode-counts also builds).
  // With the separate merge the partials are all this kernel writes.
  if (separateMerge) {
    b.setInsertionPointToEnd(&entry);
    gpu::ReturnOp::create(b, loc);
    return;
  }
  // The pair merge (decodeClusterPairs; sm_90a's fused split kernels, grid
  // x = 2 launched in clusters of two): the two parts' blocks of a row tile
  // are one cluster. Each has left its partials in its shared memory
  // (writeSplitResult); after a cluster barrier (every thread's stores
  // released, the other block's acquired) block `rank` merges rows rank,
  // rank + 2, ... reading both blocks' partials through distributed shared
  // memory, and writes O (and LSE); a second barrier keeps each block's
  // shared memory alive until the other has read it. No partials in global
  // memory, no count: the fused merge's handoff (partials, count, the last
  // block's reads) cost a one-wave GQA 8/1 grid about 2.6 us
  // (docs/benchmarks.md, forty-eighth session).
  Value numSplitsAtLeast2 = km.cmp(P::sge, split.numSplits, km.i32(2));
  if (clusterPairs) {
    auto ifPairs = scf::IfOp::create(
        b, loc, km.andi(inPairs(), numSplitsAtLeast2), /*withElse=*/true);
    b.setInsertionPoint(ifPairs.thenBlock()->getTerminator());
    sm90::clusterSync(km);
    Value rank = NVVM::ClusterId::create(b, loc, b.getI32Type());
    auto sharedAddress = [&](int64_t byteOffset) -> Value {
      Value pointer = memref::ExtractAlignedPointerAsIndexOp::create(
          b, loc, view(b.getF32Type(), byteOffset, 1));
      return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), pointer);
    };
    Value oBase = sharedAddress(pairOffset);
    Value lseBase = sharedAddress(pairOffset + 4 * pairWords);
    // Block s's partials through distributed shared memory: O's words from
    // `word` (a lane's columns in loads of at most 4; D = 256: 8 columns),
    // the row's LSE.
    PairPartials fromCluster;
    fromCluster.o = [&](int64_t s, Value word) {
      Value remote = sm90::clusterAddress(
          km, km.add(oBase, km.mul(word, km.i32(4))), km.i32(s));
      SmallVector<Value> words;
      for (int64_t c = 0; c < D / 32; c += 4)
        words.append(sm90::loadClusterF32s(km, km.add(remote, km.i32(4 * c)),
                                           std::min<int64_t>(D / 32 - c, 4)));
      return words;
    };
    fromCluster.lse = [&](int64_t s, Value row) {
      return sm90::loadClusterF32s(
          km,
          sm90::clusterAddress(km, km.add(lseBase, km.mul(row, km.i32(4))),
                               km.i32(s)),
          1)[0];
    };
    buildPairMergeRows(km, config, outputs, warp, rank, lane, rowsInTile,
                       tileFlatRow0, fromCluster);
    sm90::clusterSync(km);
    // The fused merge's count otherwise (below, in the else branch).
    b.setInsertionPoint(ifPairs.elseBlock()->getTerminator());
  }
  km.ifLanes(numSplitsAtLeast2, [&] {
    gpu::BarrierOp::create(b, loc);
    Value numSplits = split.numSplits;
    Value flag, allRows;
    // Whether this block is the last of `expected` to count on `counter`
    // (block-uniform, through shared memory).
    auto lastToCount = [&](Value counter, Value expected) {
      km.ifLanes(km.cmp(P::eq, tid, km.i32(0)), [&] {
        // atom.acq_rel.gpu, spelled inline: NVPTX drops an atomicrmw's
        // ordering (acq_rel atomicrmw gave a plain atom.global.add).
        Value done = inlinePtx(
            km, b.getI32Type(),
            ValueRange{
                LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), counter)},
            "atom.acq_rel.gpu.global.add.u32 $0, [$1], 1;", "=r,l,~{memory}");
        Value last = km.cmp(P::eq, done, km.sub(expected, km.i32(1)));
        km.store(arith::ExtUIOp::create(b, loc, b.getI32Type(), last), flag,
                 km.index(0));
      });
      gpu::BarrierOp::create(b, loc);
      return km.cmp(P::ne,
                    memref::LoadOp::create(b, loc, flag,
                                           ValueRange{km.index(0)}),
                    km.i32(0));
    };
    FusedMergeCounting counting{
        /*gridParts=*/
        [&] {
          return asI32(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
        },
        /*unitIndex=*/
        [&] {
          return km.add(km.mul(batch, km.mul(numKVHeads, sizes.rowTiles)),
                        headTile);
        },
        /*counterAt=*/
        [&](Value index) -> Value {
          return LLVM::GEPOp::create(
              b, loc, LLVM::LLVMPointerType::get(b.getContext(), 1),
              b.getI32Type(), arg["split_counter"], ValueRange{index});
        },
        /*ready=*/
        [&] {
          flag = view(b.getI32Type(), 0, 1);
          allRows = km.mul(km.mul(arg["B"], queryHeads), seqQ);
        },
        lastToCount,
        /*reset=*/
        [&](Value counter) {
          km.ifLanes(km.cmp(P::eq, tid, km.i32(0)), [&] {
            LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::xchg, counter,
                                      km.i32(0),
                                      LLVM::AtomicOrdering::monotonic);
          });
        },
        /*barrier=*/[&] { gpu::BarrierOp::create(b, loc); },
        /*mergeAll=*/
        [&] {
          forEachRow([&](Value flatRow) {
            buildMergeRow(km, config, outputs, lane, flatRow, km.i32(0),
                          numSplits, km.i32(1), allRows, MergeTarget{});
          });
        },
        /*mergeGroup=*/
        [&](Value first, Value count) {
          forEachRow([&](Value flatRow) {
            buildMergeRow(km, config, outputs, lane, flatRow, first, count,
                          km.i32(1), allRows, MergeTarget{first});
          });
        },
        /*mergeGroups=*/
        [&](Value numGroups, Value groupSize) {
          forEachRow([&](Value flatRow) {
            buildMergeRow(km, config, outputs, lane, flatRow, km.i32(0),
                          numGroups, groupSize, allRows, MergeTarget{});
          });
        }};
    buildFusedMergeCounts(km, numSplits, part, counting);
  });
  b.setInsertionPointToEnd(&entry);
  gpu::ReturnOp::create(b, loc);
}

//===----------------------------------------------------------------------===//
// The separate merge kernel (sm_90a, few work units)
//===----------------------------------------------------------------------===//

/// Grid (B·Hq·Nq, Dv / kSplitKVMergeSlice): a block per output row and
/// slice of kSplitKVMergeSlice columns, launched behind the split kernel
/// with programmatic dependent launch (only when the call has at most
/// decodeSeparateMergeBound work units; the plan gives it no block
/// otherwise). It counts the row's parts (a paged plan from seq_lens[b],
/// loaded before the wait), waits for the split grid (griddepcontrol.wait:
/// the grid complete, its stores visible), then merges the row's parts by their LSE
/// as the fused merge does (buildMergeRow), spread over the block: a thread
/// takes 4 consecutive columns (one 16-byte load a part) of every
/// (threads·4/slice)-th part, in batches of kMergeKernelBatch parts loaded
/// together, with a running maximum; then the groups' (max, sum, O sums)
/// are combined through shared memory by the first group's threads, which
/// write O (and LSE). Rows of a sequence of fewer than two parts are left
/// alone: the split kernel writes them (O = 0, LSE = −inf with no key).
constexpr int64_t kMergeKernelBatch = 8;

int64_t mergeKernelGroups() {
  return kSplitKVMergeThreads * 4 / kSplitKVMergeSlice;
}

} // namespace

namespace mlir::flash::sm80 {

// Documented in SM80/DecodeMerge.h.
MergeKernelThread mergeKernelThread(KernelMath &km, Value tid) {
  const int64_t quads = kSplitKVMergeSlice / 4;
  Value quad = km.andi(tid, km.i32(quads - 1));
  Value group = km.shru(tid, km.i32(llvm::Log2_64(quads)));
  return {group, quad};
}

Value mergeKernelColumn(KernelMath &km, Value slice, Value quad) {
  return km.add(km.mul(slice, km.i32(kSplitKVMergeSlice)),
                km.mul(quad, km.i32(4)));
}

Value mergeKernelSlot(KernelMath &km, int64_t word, Value group,
                      Value quad) {
  const int64_t quads = kSplitKVMergeSlice / 4, groups = mergeKernelGroups();
  return km.toIndex(km.add(
      km.mul(km.add(km.i32(word * groups), group), km.i32(quads)), quad));
}

SmallVector<Value> buildMergeKernelSums(KernelMath &km,
                                        const KernelConfig &config,
                                        const OutputRows &out, Value group,
                                        Value column, Value rowIndex,
                                        Value allRows, Value numSplits) {
  using P = arith::CmpIPredicate;
  OpBuilder &b = km.b;
  Location loc = km.loc;
  const int64_t Dv = config.headDim, groups = mergeKernelGroups();
  Type f32 = b.getF32Type();
  Value negInf = km.f32(-std::numeric_limits<double>::infinity());
  auto partRow = [&](Value part) {
    return arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, km.toIndex(part), allRows),
        rowIndex);
  };
  // This thread's parts: group, group + groups, ... (batches of
  // kMergeKernelBatch, each part of a batch `groups` apart). Carried: the 4
  // O sums, the weight sum, the running maximum.
  Type vectorType = VectorType::get({4}, f32);
  SmallVector<Value> inits(5, km.f32(0.0));
  inits.push_back(negInf);
  auto loop = scf::ForOp::create(b, loc, group, numSplits,
                                 km.i32(groups * kMergeKernelBatch), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value i0 = loop.getInductionVar();
    SmallVector<Value> acc(loop.getRegionIterArgs());
    Value lastPart = km.sub(numSplits, km.i32(1));
    SmallVector<Value> valid, lses, values;
    for (int64_t u = 0; u < kMergeKernelBatch; ++u) {
      Value i = km.add(i0, km.i32(u * groups));
      valid.push_back(km.cmp(P::slt, i, numSplits));
      auto load = [&](Value part) {
        Value row = partRow(part);
        Value lse = loadPastL1(km, f32, out.partialLse, row);
        Value element = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, row, km.index(Dv)),
            km.toIndex(column));
        return SmallVector<Value>{
            lse, loadPastL1(km, vectorType, out.partialO, element)};
      };
      // Parts past the last are not read (weight 0): a branch, so that a
      // batch of 8 costs no load at the few parts of most calls of 2-8 work
      // units. The first part of a batch is always one (i0 < numSplits);
      // its index is clamped all the same (the form that was measured).
      if (u == 0) {
        SmallVector<Value> loaded = load(km.minsi(i, lastPart));
        lses.push_back(loaded[0]);
        values.push_back(loaded[1]);
        continue;
      }
      auto ifValid = scf::IfOp::create(b, loc, TypeRange{f32, vectorType},
                                       valid.back(), /*withElse=*/true);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(ifValid.thenBlock());
      scf::YieldOp::create(b, loc, load(i));
      b.setInsertionPointToStart(ifValid.elseBlock());
      Value zero = LLVM::ZeroOp::create(b, loc, vectorType);
      scf::YieldOp::create(b, loc, ValueRange{negInf, zero});
      lses.push_back(ifValid.getResult(0));
      values.push_back(ifValid.getResult(1));
    }
    Value oldMax = acc[5], newMax = oldMax;
    for (int64_t u = 0; u < kMergeKernelBatch; ++u)
      newMax = arith::MaxNumFOp::create(b, loc, newMax,
                                        km.select(valid[u], lses[u], negInf));
    Value shift = mergeShift(km, newMax, negInf);
    Value rescale = mergeWeight(km, oldMax, shift);
    for (int64_t c = 0; c < 5; ++c)
      acc[c] = arith::MulFOp::create(b, loc, acc[c], rescale);
    for (int64_t u = 0; u < kMergeKernelBatch; ++u) {
      Value weight = km.select(valid[u], mergeWeight(km, lses[u], shift),
                               km.f32(0.0));
      for (int64_t c = 0; c < 4; ++c) {
        Value o = LLVM::ExtractElementOp::create(b, loc, values[u], km.i32(c));
        acc[c] = buildFma(km, weight, o, acc[c]);
      }
      acc[4] = arith::AddFOp::create(b, loc, acc[4], weight);
    }
    acc[5] = newMax;
    scf::YieldOp::create(b, loc, acc);
  }
  SmallVector<Value> words = {loop.getResult(5), loop.getResult(4)};
  for (int64_t c = 0; c < 4; ++c)
    words.push_back(loop.getResult(c));
  return words;
}

void buildMergeKernelCombine(KernelMath &km, const KernelConfig &config,
                             const MergeKernelOutputs &outputs,
                             Value exchange, Value slice, Value quad,
                             Value column, Value rowIndex) {
  using P = arith::CmpIPredicate;
  OpBuilder &b = km.b;
  Location loc = km.loc;
  const int64_t Dv = config.headDim, groups = mergeKernelGroups();
  Value negInf = km.f32(-std::numeric_limits<double>::infinity());
  auto load = [&](int64_t word, int64_t g) -> Value {
    return memref::LoadOp::create(
        b, loc, exchange, ValueRange{mergeKernelSlot(km, word, km.i32(g), quad)});
  };
  SmallVector<Value> maxes;
  Value maxLse = negInf;
  for (int64_t g = 0; g < groups; ++g) {
    maxes.push_back(load(0, g));
    maxLse = arith::MaxNumFOp::create(b, loc, maxLse, maxes.back());
  }
  Value shift = mergeShift(km, maxLse, negInf);
  SmallVector<Value> sums(5, km.f32(0.0));
  for (int64_t g = 0; g < groups; ++g) {
    Value f = mergeWeight(km, maxes[g], shift);
    for (int64_t k = 0; k < 5; ++k)
      sums[k] = buildFma(km, f, load(k + 1, g), sums[k]);
  }
  Value noKey = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                      maxLse, negInf);
  Value total = sums[0];
  Value inverse = km.select(
      noKey, km.f32(0.0), arith::DivFOp::create(b, loc, km.f32(1.0), total));
  SmallVector<Value> o;
  for (int64_t c = 0; c < 4; ++c)
    o.push_back(arith::MulFOp::create(b, loc, sums[c + 1], inverse));
  Value oRows = outputs.o();
  Value base = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, rowIndex, km.index(Dv)),
      km.toIndex(column));
  for (int64_t c = 0; c < 4; c += 2) {
    Value word = km.pairWord(
        buildPackPair(km, o[c], o[c + 1], config.elementType));
    Value index = arith::ShRUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, base, km.index(c)),
        km.index(1));
    km.store(word, oRows, index);
  }
  if (config.writesLse) {
    Value lse = mergedLse(km, noKey, negInf, maxLse, total);
    Value lseRows = outputs.lse();
    km.ifLanes(km.cmp(P::eq, km.add(slice, quad), km.i32(0)),
               [&] { km.store(lse, lseRows, rowIndex); });
  }
}

} // namespace mlir::flash::sm80

namespace {

/// The separate merge kernel (see above): a thread's sums
/// (buildMergeKernelSums) through shared memory to the first group's
/// threads, which combine them (buildMergeKernelCombine).
void buildMergeKernel(OpBuilder &b, Location loc, const KernelConfig &config,
                      gpu::GPUFuncOp func, llvm::StringMap<Value> &arg) {
  using P = arith::CmpIPredicate;
  KernelMath km{b, loc};
  MLIRContext *ctx = b.getContext();
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  Type f32 = b.getF32Type();
  auto asI32 = [&](Value index) -> Value {
    return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index);
  };
  // Nothing of the split grid is read before the wait. A paged plan reads
  // seq_lens[b] and counts the row's parts before it: seq_lens is an input,
  // written by a kernel that completed before this one launched (the split
  // kernel waits for the kernel before it, then triggers this one), so the
  // load and the count overlap the split grid's tail instead of following
  // it (GQA 8/1 B = 1: 0.98-0.99x the time; docs/benchmarks.md, twentieth
  // session). A contiguous plan's count comes from Nk, an argument; its wait
  // stays first.
  const bool lengthBeforeWait = config.decode.paged;
  // No trigger: the next call's split kernel launches when this grid
  // completes. Measured on an H100 (docs/benchmarks.md, forty-first
  // session), a trigger at this kernel's start made calls back to back at
  // GQA 8/1 B = 1 L = 8k 0.89-0.93x the time but L = 32k 1.06-1.10x.
  if (!lengthBeforeWait)
    NVVM::GriddepcontrolOp::create(b, loc, NVVM::GridDepActionKind::wait);
  DecodeSizes sizes = decodeSizes(km, config, arg);
  Value tid = asI32(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  Value flatRow = asI32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value slice = asI32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
  MergeKernelThread thread = mergeKernelThread(km, tid);
  Value batch = km.divu(flatRow, km.mul(arg["Hq"], arg["Nq"]));
  Value seqLens = config.decode.paged
                      ? buildFlatGlobalMemref(km, arg["seq_lens"],
                                              b.getI32Type())
                      : Value();
  Value length = sequenceLength(km, config, arg, seqLens, batch);
  SequenceSplit split = sequenceSplit(km, config, length, arg["Nq"],
                                      sizes.workUnits, arg["SMs"]);
  Value numSplits = split.numSplits;
  if (lengthBeforeWait)
    NVVM::GriddepcontrolOp::create(b, loc, NVVM::GridDepActionKind::wait);
  Value column = mergeKernelColumn(km, slice, thread.quad);
  Value allRows =
      km.toIndex(km.mul(km.mul(arg["B"], arg["Hq"]), arg["Nq"]));
  Value rowIndex = km.toIndex(flatRow);
  auto ifMerge = scf::IfOp::create(
      b, loc, km.cmp(P::sge, numSplits, km.i32(2)), /*withElse=*/false);
  b.setInsertionPoint(ifMerge.thenBlock()->getTerminator());
  OutputRows partials;
  partials.partialO = arg["partial_o"];
  partials.partialLse = arg["partial_lse"];
  SmallVector<Value> mine =
      buildMergeKernelSums(km, config, partials, thread.group, column,
                           rowIndex, allRows, numSplits);

  // The groups' (max, sum, O sums) through shared memory: word k of thread
  // (group, quad) at mergeKernelSlot(k, group, quad).
  auto bytes = MemRefType::get(
      {ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
  Value smem = gpu::DynamicSharedMemoryOp::create(b, loc, bytes);
  Value exchange = memref::ViewOp::create(
      b, loc,
      MemRefType::get({kSplitKVMergeSharedBytes / 4}, f32, AffineMap(),
                      gpu::AddressSpaceAttr::get(
                          ctx, gpu::AddressSpace::Workgroup)),
      smem, km.index(0), ValueRange{});
  for (auto [k, w] : llvm::enumerate(mine))
    km.store(w, exchange,
             mergeKernelSlot(km, k, thread.group, thread.quad));
  gpu::BarrierOp::create(b, loc);
  km.ifLanes(km.cmp(P::eq, thread.group, km.i32(0)), [&] {
    // O and the LSE as flat global memrefs, made where the kernel first
    // needs each.
    auto oRows = [&] {
      return buildFlatGlobalMemref(km, arg["o"], b.getI32Type());
    };
    auto lseRows = [&] { return buildFlatGlobalMemref(km, arg["lse"], f32); };
    buildMergeKernelCombine(km, config, MergeKernelOutputs{oRows, lseRows},
                            exchange, slice, thread.quad, column, rowIndex);
  });
  b.setInsertionPointToEnd(&entry);
  gpu::ReturnOp::create(b, loc);
}

} // namespace

int64_t mlir::flash::decodeSeparateMergeBound(const KernelConfig &config) {
  return decodeSeparateMergeBound(config.arch);
}

int64_t mlir::flash::decodeSeparateMergeBound(llvm::StringRef arch) {
  return splitKVSeparateMergeBound(arch == "sm_90a");
}

bool mlir::flash::decodeClusterPairs(const KernelConfig &config) {
  return config.arch == "sm_90a";
}

int64_t mlir::flash::decodeKVEvictFirstBytes(const KernelConfig &config) {
  if (config.arch != "sm_90a")
    return 0;
  return lookupTargetModel(config.arch)->l2Bytes;
}

int64_t mlir::flash::decodeMergeBatch(int64_t valueDim) {
  return mergeBatch(valueDim);
}

std::string mlir::flash::decodeMergeKernelName(const KernelConfig &config) {
  return config.name + "_merge";
}

std::string
mlir::flash::decodeSeparateSplitKernelName(const KernelConfig &config) {
  return config.name + "_separate";
}

SmallVector<int64_t>
mlir::flash::decodeSeparatePageSizes(const KernelConfig &config) {
  SmallVector<int64_t> sizes;
  if (decodeSeparateMergeBound(config) > 0)
    for (int64_t pageSize : config.decode.fusedPageSizes)
      if (DecodePageRows::onePageATile(pageSize) ||
          DecodePageRows::onePageA16Keys(pageSize))
        sizes.push_back(pageSize);
  return sizes;
}

std::string
mlir::flash::decodeSeparatePageKernelName(const KernelConfig &config,
                                          int64_t pageSize) {
  return decodeSeparateSplitKernelName(config) + "_s" +
         std::to_string(pageSize);
}

ArrayRef<int64_t>
mlir::flash::decodeDefaultFusedPageSizes(const KernelConfig &config) {
  // sm_80's plans (the fused kernel only) lost 6-8% at GQA 32/8 B = 1
  // L = 8k with the constant (thirtieth session, run 6).
  static constexpr int64_t kSM90a[] = {16, 64};
  if (config.arch == "sm_90a")
    return kSM90a;
  return {};
}

std::string mlir::flash::decodeFusedPageKernelName(const KernelConfig &config,
                                                   int64_t pageSize) {
  return config.name + "_s" + std::to_string(pageSize);
}

LogicalResult mlir::flash::buildDecodeKernels(OpBuilder &b, Location loc,
                                              const KernelConfig &config) {
  OpBuilder::InsertionGuard guard(b);
  llvm::StringMap<Value> arg;
  gpu::GPUFuncOp split =
      createKernel(b, loc, config.name,
                   decodeSplitKernelArgs(config.decode.paged),
                   config.threads(), arg);
  SplitKernelBuilder(b, loc, config).build(split, arg);
  Operation *last = split;
  if (decodeSeparateMergeBound(config) > 0) {
    // The separate merge's split kernel and the merge kernel, the same
    // arguments (each launch plan entry runs one of the two paths).
    b.setInsertionPointAfter(split);
    llvm::StringMap<Value> separateArg;
    gpu::GPUFuncOp separate = createKernel(
        b, loc, decodeSeparateSplitKernelName(config),
        decodeSplitKernelArgs(config.decode.paged), config.threads(),
        separateArg);
    SplitKernelBuilder(b, loc, config, /*separateMerge=*/true)
        .build(separate, separateArg);
    b.setInsertionPointAfter(separate);
    // Its kernels for one page size (S a constant), before the merge kernel
    // that waits on whichever of them runs.
    for (int64_t pageSize : decodeSeparatePageSizes(config)) {
      KernelConfig constant = config;
      constant.decode.constantPageSize = pageSize;
      llvm::StringMap<Value> pageArg;
      gpu::GPUFuncOp kernel = createKernel(
          b, loc, decodeSeparatePageKernelName(config, pageSize),
          decodeSplitKernelArgs(config.decode.paged), config.threads(),
          pageArg);
      SplitKernelBuilder(b, loc, constant, /*separateMerge=*/true)
          .build(kernel, pageArg);
      b.setInsertionPointAfter(kernel);
    }
    llvm::StringMap<Value> mergeArg;
    std::string mergeName = decodeMergeKernelName(config);
    gpu::GPUFuncOp merge = createKernel(
        b, loc, mergeName, decodeSplitKernelArgs(config.decode.paged),
        kSplitKVMergeThreads, mergeArg);
    buildMergeKernel(b, loc, config, merge, mergeArg);
    last = merge;
  }
  // The fused split kernels for one page size each (S a constant), after the
  // others: the launch plan lists them last.
  for (int64_t pageSize : config.decode.fusedPageSizes) {
    b.setInsertionPointAfter(last);
    KernelConfig constant = config;
    constant.decode.constantPageSize = pageSize;
    llvm::StringMap<Value> pageArg;
    gpu::GPUFuncOp kernel = createKernel(
        b, loc, decodeFusedPageKernelName(config, pageSize),
        decodeSplitKernelArgs(config.decode.paged), config.threads(), pageArg);
    SplitKernelBuilder(b, loc, constant).build(kernel, pageArg);
    last = kernel;
  }
  return success();
}
