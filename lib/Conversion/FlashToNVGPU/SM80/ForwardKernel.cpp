//===- ForwardKernel.cpp - the sm_80 attention kernel (mma.sync) ----------===//
//
// A FlashAttention-2 forward kernel for sm_80, built op by op:
// - one thread block per Q tile of Br rows of one (batch, q-head); warp w
//   owns rows [w·16·k, (w+1)·16·k) of the tile;
// - K and V tiles stream through two shared-memory stages filled by
//   16-byte cp.async copies (zero-filled past the end of the sequence), with
//   16-byte chunk c of row r stored at chunk c ^ (r & 7) against bank
//   conflicts of ldmatrix;
// - S = Q·Kᵀ and O += P·V on mma.sync m16n8k16 (f32 accumulators) fed by
//   ldmatrix (transposed for V); P never leaves registers: the accumulator
//   layout of S, packed to 16-bit pairs, is the A-operand layout of P·V;
// - the online softmax, mask and epilogue come from KernelBuilder.cpp; the
//   copies from AsyncCopy.cpp and the MMAs from MMA.cpp (this folder).
//
// Pipeline per K/V tile j (groups are cp.async commit groups):
//   wait K_j; barrier; prefetch K_{j+1}; S = Q·K_jᵀ; [mask]; softmax;
//   wait V_j; barrier; prefetch V_{j+1}; O += P·V_j
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"
#include "flash/Conversion/FlashToNVGPU/SM80/AsyncCopy.h"
#include "flash/Conversion/FlashToNVGPU/SM80/MMA.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

#include <array>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::flash;

using namespace mlir::flash::sm80;

namespace {

class SM80KernelBuilder {
public:
  SM80KernelBuilder(OpBuilder &b, Location loc, const KernelConfig &config)
      : b(b), loc(loc), km{b, loc}, config(config), et(config.elementType),
        D(config.headDim), Br(config.blockQ), Bc(config.blockKV),
        Mw(config.mTilesPerWarp()), threads(config.threads()) {}

  void build(gpu::GPUFuncOp func);

private:
  MemRefType sharedType(int64_t elements) {
    return MemRefType::get({elements}, et, AffineMap(),
                           gpu::AddressSpaceAttr::get(
                               b.getContext(), gpu::AddressSpace::Workgroup));
  }

  void waitGroups(int64_t pending) { waitCopies(km, firstGroup, pending); }
  Pairs loadMatrix(Value shared, Value offset, bool transpose) {
    return loadMatrixX4(km, et, shared, offset, transpose);
  }
  void mmaInto(Fragment &acc, int64_t mt, int64_t nt, ArrayRef<Value> a,
               ArrayRef<Value> bPairs) {
    mmaSyncInto(km, et, acc, mt, nt, a, bPairs);
  }
  /// Element offset of 16-byte chunk `chunk` of a swizzled row, for a lane
  /// whose swizzle term is `x`.
  Value chunkOffset(int64_t chunk, Value x) {
    return km.mul(km.xori(x, km.i32(chunk)), km.i32(8));
  }
  Pairs queryFragment(int64_t mt, int64_t kk) {
    Value offset = km.add(qRowOffset, km.add(km.i32(mt * 16 * D),
                                             chunkOffset(2 * kk, qSwizzle)));
    return loadMatrix(sharedQ, offset, /*transpose=*/false);
  }

  /// One K/V loop over tiles [lb, ub) from `in`; returns the state after
  /// it.
  OnlineSoftmaxState buildKVLoop(Value lb, Value ub,
                                 const OnlineSoftmaxState &in, bool masked);

  OpBuilder &b;
  Location loc;
  KernelMath km;
  const KernelConfig &config;
  Type et;
  int64_t D, Br, Bc, Mw, threads;

  // Kernel-wide values.
  Value tid, lane, warp, seqQ, seqKV, scale, scaleLog2e;
  LaneCoords coords;
  // K's and V's head offsets (one for both when contiguous) and, for the
  // strided form, their row strides (null: D).
  Value globalK, globalV, kBase, vBase, kRowStride, vRowStride, qStart,
      rowBase, numTiles;
  Value sharedQ, sharedK, sharedV, firstGroup;
  Value qRowOffset, qSwizzle, kRowOffset, kSwizzle, vRowOffset, vSwizzle;
  TileCopier copier;
  SmallVector<SmallVector<Pairs>> queryInRegisters;
};
} // namespace

OnlineSoftmaxState SM80KernelBuilder::buildKVLoop(Value lb, Value ub,
                                                  const OnlineSoftmaxState &in,
                                                  bool masked) {
  using P = arith::CmpIPredicate;
  auto iteration = [&](Value j, const OnlineSoftmaxState &carried)
      -> OnlineSoftmaxState {
    const SmallVector<Value> &runningMax = carried.runningMax;
    const SmallVector<Value> &runningSum = carried.runningSum;
    Fragment acc = carried.acc;

    Value stage = km.andi(j, km.i32(1));
    Value stageOffset = km.mul(stage, km.i32(Bc * D));
    Value otherStageOffset = km.mul(km.sub(km.i32(1), stage), km.i32(Bc * D));
    Value next = km.add(j, km.i32(1));
    Value hasNext = km.cmp(P::slt, next, numTiles);
    Value nextStart = km.mul(next, km.i32(Bc));
    auto prefetch = [&](Value global, Value base, Value rowStride,
                        Value shared) {
      auto ifNext = scf::IfOp::create(b, loc, hasNext, false);
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPoint(ifNext.thenBlock()->getTerminator());
        copier.copy(km, global, base, nextStart, seqKV, shared,
                    otherStageOffset, Bc, /*fullTileFastPath=*/true,
                    rowStride);
      }
      commitCopies(km);
    };

    // K_j has landed (V_j may be in flight); the barrier also retires every
    // read of the other stage, which the prefetch of K_{j+1} overwrites.
    waitGroups(1);
    gpu::BarrierOp::create(b, loc);
    prefetch(globalK, kBase, kRowStride, sharedK);

    // S = Q·K_jᵀ: Mw × Bc/8 accumulators of 4 f32 per lane.
    Fragment scores(Mw, Bc / 8, km.f32(0.0));
    for (int64_t kk = 0; kk < D / 16; ++kk) {
      SmallVector<Pairs> qFrag;
      for (int64_t mt = 0; mt < Mw; ++mt)
        qFrag.push_back(queryInRegisters.empty() ? queryFragment(mt, kk)
                                                 : queryInRegisters[mt][kk]);
      Value kOffset = km.add(km.add(stageOffset, kRowOffset),
                             chunkOffset(2 * kk, kSwizzle));
      for (int64_t np = 0; np < Bc / 16; ++np) {
        Pairs kFrag = loadMatrix(sharedK, km.add(kOffset, km.i32(np * 16 * D)),
                                 /*transpose=*/false);
        for (int64_t mt = 0; mt < Mw; ++mt)
          for (int64_t half = 0; half < 2; ++half)
            mmaInto(scores, mt, 2 * np + half, qFrag[mt],
                    ArrayRef<Value>(kFrag).slice(2 * half, 2));
      }
    }
    Value kvStart = km.mul(j, km.i32(Bc));
    if (masked)
      buildFragmentMask(km, scores, coords, kvStart, seqQ, seqKV, rowBase,
                        config.causal);
    SoftmaxStep step = buildOnlineSoftmax(km, scores, runningMax, runningSum,
                                          scaleLog2e, et);
    buildRescale(km, acc, step.rescale);

    // V_j has landed; prefetch V_{j+1} into the other stage.
    waitGroups(1);
    gpu::BarrierOp::create(b, loc);
    prefetch(globalV, vBase, vRowStride, sharedV);

    // O += P·V_j. The A operand of k-slice kk is the S layout of column
    // tiles 2kk and 2kk+1: [C(2kk) rows g, C(2kk) rows g+8, C(2kk+1) ...].
    for (int64_t kk = 0; kk < Bc / 16; ++kk) {
      SmallVector<Pairs> pFrag;
      for (int64_t mt = 0; mt < Mw; ++mt) {
        auto probs = [&](int64_t nt, int64_t half) {
          return step.probs[(mt * (Bc / 8) + nt) * 2 + half];
        };
        pFrag.push_back({probs(2 * kk, 0), probs(2 * kk, 1),
                         probs(2 * kk + 1, 0), probs(2 * kk + 1, 1)});
      }
      Value vRow = km.add(km.add(stageOffset, vRowOffset),
                          km.i32(kk * 16 * D));
      for (int64_t dp = 0; dp < D / 16; ++dp) {
        Pairs vFrag = loadMatrix(sharedV, km.add(vRow, chunkOffset(2 * dp, vSwizzle)),
                                 /*transpose=*/true);
        for (int64_t mt = 0; mt < Mw; ++mt)
          for (int64_t half = 0; half < 2; ++half)
            mmaInto(acc, mt, 2 * dp + half, pFrag[mt],
                    ArrayRef<Value>(vFrag).slice(2 * half, 2));
      }
    }
    return {step.newMax, step.newSum, acc};
  };
  return buildOnlineSoftmaxLoop(km, lb, ub, in, iteration);
}

void SM80KernelBuilder::build(gpu::GPUFuncOp func) {
  MLIRContext *ctx = b.getContext();
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  Value qPtr = entry.getArgument(0), kPtr = entry.getArgument(1),
        vPtr = entry.getArgument(2), oPtr = entry.getArgument(3),
        lsePtr = entry.getArgument(4);
  Value queryHeads = entry.getArgument(6), kvHeads = entry.getArgument(7);
  seqQ = entry.getArgument(8);
  seqKV = entry.getArgument(9);
  scale = entry.getArgument(10);
  // The strided form's `<tensor>_stride0..2` of q, k, v, o (elements of B,
  // H, N; buildSM80Kernel's arguments 11-22).
  auto strides = [&](unsigned first) -> std::array<Value, 3> {
    if (!config.strided)
      return {};
    return {entry.getArgument(first), entry.getArgument(first + 1),
            entry.getArgument(first + 2)};
  };
  std::array<Value, 3> qStrides = strides(11), kStrides = strides(14),
                       vStrides = strides(17), oStrides = strides(20);
  scaleLog2e = arith::MulFOp::create(b, loc, scale, km.f32(M_LOG2E));

  // Global tensors as flat memrefs; O is written as 32-bit pairs.
  Value globalQ = buildFlatGlobalMemref(km, qPtr, et);
  globalK = buildFlatGlobalMemref(km, kPtr, et);
  globalV = buildFlatGlobalMemref(km, vPtr, et);
  Value globalO = buildFlatGlobalMemref(km, oPtr, b.getI32Type());
  Value globalLse = config.writesLse
                        ? buildFlatGlobalMemref(km, lsePtr, b.getF32Type())
                        : Value();

  // Shared memory: Q[Br][D] | K[2][Bc][D] | V[2][Bc][D].
  auto bytes = MemRefType::get(
      {ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
  Value smem = gpu::DynamicSharedMemoryOp::create(b, loc, bytes);
  int64_t elementBytes = et.getIntOrFloatBitWidth() / 8;
  auto view = [&](int64_t byteOffset, int64_t elements) -> Value {
    return memref::ViewOp::create(b, loc, sharedType(elements), smem,
                                  km.index(byteOffset), ValueRange{});
  };
  sharedQ = view(0, Br * D);
  sharedK = view(elementBytes * Br * D, 2 * Bc * D);
  sharedV = view(elementBytes * (Br + 2 * Bc) * D, 2 * Bc * D);

  // Coordinates: block (Q tile, q-head, batch), thread (warp, lane).
  auto asI32 = [&](Value index) -> Value {
    return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index);
  };
  tid = asI32(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  lane = km.andi(tid, km.i32(31));
  warp = km.shru(tid, km.i32(5));
  coords = {km.shru(lane, km.i32(2)), km.andi(lane, km.i32(3))};
  Value lane7 = km.andi(lane, km.i32(7));
  Value lane8 = km.andi(km.shru(lane, km.i32(3)), km.i32(1));
  Value lane16 = km.shru(lane, km.i32(4));
  // Causal Q tiles further down the sequence visit more K/V tiles: hand them
  // out first (block x runs the tiles in reverse) so that the short ones
  // fill the last wave instead of the long ones.
  Value qTile = asI32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  if (config.causal)
    qTile = km.sub(km.sub(asI32(gpu::GridDimOp::create(b, loc,
                                                       gpu::Dimension::x)),
                          km.i32(1)),
                   qTile);
  Value qHead = asI32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
  Value batch = asI32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::z));
  // GQA: kv-head = h / (Hq / Hkv).
  Value kvHead = km.divu(qHead, km.divu(queryHeads, kvHeads));
  Value headIndex = km.toIndex(km.add(km.mul(batch, queryHeads), qHead));
  Value lseBase = arith::MulIOp::create(b, loc, headIndex, km.toIndex(seqQ));
  Value qBase, oBase;
  if (!config.strided) {
    qBase = oBase = arith::MulIOp::create(b, loc, lseBase, km.index(D));
    kBase = vBase = arith::MulIOp::create(
        b, loc,
        arith::MulIOp::create(
            b, loc, km.toIndex(km.add(km.mul(batch, kvHeads), kvHead)),
            km.toIndex(seqKV)),
        km.index(D));
  } else {
    // b·stride0 + h·stride1 (i32: the runtime keeps a strided tensor's span
    // below 2^31 elements); rows stride2 apart.
    auto headBase = [&](const std::array<Value, 3> &s, Value head) -> Value {
      return km.toIndex(km.add(km.mul(batch, s[0]), km.mul(head, s[1])));
    };
    qBase = headBase(qStrides, qHead);
    oBase = headBase(oStrides, qHead);
    kBase = headBase(kStrides, kvHead);
    vBase = headBase(vStrides, kvHead);
    kRowStride = kStrides[2];
    vRowStride = vStrides[2];
  }
  qStart = km.mul(qTile, km.i32(Br));
  rowBase = km.add(qStart, km.mul(warp, km.i32(Mw * 16)));

  KVRange range = buildKVRange(km, qStart, seqQ, seqKV, Br, Bc, config.causal);
  numTiles = range.numTiles;

  // Per-thread chunk of the tile copies, swizzled (AsyncCopy.h).
  copier = makeTileCopier(km, tid, D, threads);

  // Prologue: group 0 = Q + K_0, group 1 = V_0.
  copier.copy(km, globalQ, qBase, qStart, seqQ, sharedQ, km.i32(0), Br,
              /*fullTileFastPath=*/false, qStrides[2]);
  copier.copy(km, globalK, kBase, km.i32(0), seqKV, sharedK, km.i32(0), Bc,
              /*fullTileFastPath=*/false, kRowStride);
  firstGroup = commitCopies(km);
  copier.copy(km, globalV, vBase, km.i32(0), seqKV, sharedV, km.i32(0), Bc,
              /*fullTileFastPath=*/false, vRowStride);
  commitCopies(km);

  // ldmatrix lane addresses. Q (A, x4): lanes 0-15 rows 0-15 of chunk 2kk,
  // lanes 16-31 the same rows at chunk 2kk+1. K (B, x4): lanes 0-7 keys 0-7
  // chunk 2kk, 8-15 keys 0-7 chunk 2kk+1, 16-31 keys 8-15 likewise. V (B,
  // x4, transposed): lanes 0-7 keys 0-7 chunk 2dp, 8-15 keys 8-15 chunk 2dp,
  // 16-31 the same keys at chunk 2dp+1.
  qRowOffset = km.mul(km.add(km.mul(warp, km.i32(Mw * 16)),
                             km.andi(lane, km.i32(15))),
                      km.i32(D));
  qSwizzle = km.xori(lane16, lane7);
  kRowOffset = km.mul(km.add(lane7, km.mul(lane16, km.i32(8))), km.i32(D));
  kSwizzle = km.xori(lane8, lane7);
  vRowOffset = km.mul(km.add(lane7, km.mul(lane8, km.i32(8))), km.i32(D));
  vSwizzle = km.xori(lane16, lane7);

  // Q fragments stay in registers when they are few (D·Mw/4 words).
  if (Mw * D / 4 <= 32) {
    waitGroups(1);
    gpu::BarrierOp::create(b, loc);
    for (int64_t mt = 0; mt < Mw; ++mt) {
      queryInRegisters.emplace_back();
      for (int64_t kk = 0; kk < D / 16; ++kk)
        queryInRegisters.back().push_back(queryFragment(mt, kk));
    }
  }

  Value negInf = km.f32(-std::numeric_limits<double>::infinity());
  SmallVector<Value> m0(2 * Mw, negInf), l0(2 * Mw, km.f32(0.0));
  Fragment acc0(Mw, D / 8, km.f32(0.0));
  OnlineSoftmaxState unmasked = buildKVLoop(
      km.i32(0), range.numUnmasked, {m0, l0, acc0}, /*masked=*/false);
  OnlineSoftmaxState done =
      buildKVLoop(range.numUnmasked, numTiles, unmasked, /*masked=*/true);

  waitGroups(0);
  buildEpilogue(km, config, done.acc, done.runningMax, done.runningSum, coords,
                rowBase, seqQ, scale,
                globalO, oBase, globalLse, lseBase, /*storeWord=*/nullptr,
                oStrides[2]);
  gpu::ReturnOp::create(b, loc);
}

LogicalResult mlir::flash::buildSM80Kernel(OpBuilder &b, Location loc,
                                           const KernelConfig &config) {
  MLIRContext *ctx = b.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx, 1);
  Type i32 = b.getI32Type();
  // (Q, K, V, O, LSE, B, Hq, Hkv, Nq, Nk, scale), and in the strided form
  // q_stride0..2, k_stride0..2, v_stride0..2, o_stride0..2
  // (describeKernel's argument list).
  SmallVector<Type> types = {ptr, ptr, ptr, ptr, ptr, i32,
                             i32, i32, i32, i32, b.getF32Type()};
  if (config.strided)
    types.append(12, i32);
  auto type = FunctionType::get(ctx, types, {});
  auto func = gpu::GPUFuncOp::create(b, loc, config.name, type);
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  int32_t threads = config.threads();
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({threads, 1, 1}));
  func->setAttr("nvvm.maxntid", b.getDenseI32ArrayAttr({threads, 1, 1}));
  OpBuilder::InsertionGuard guard(b);
  SM80KernelBuilder(b, loc, config).build(func);
  return success();
}
