//===- BackwardKernel.cpp - the sm_80 backward kernels (mma.sync) ---------===//
//
// FlashAttention-2's backward pass for sm_80 as three kernels of one launch
// plan (BackwardKernel.h):
//
// preprocess  per query row: Δ = rowsum(dO∘O) in f32, and the exp2-domain
//             shift LSE·log2(e) (+inf for a row that saw no key), into
//             workspaces padded to whole blocks of 128 rows (padding rows:
//             Δ = 0, shift = +inf, so that they contribute nothing); zeroes
//             the f32 dQ accumulator (fragment order, BackwardKernel.h).
//             O and dO are read with the strides the plan passes (elements
//             of B, H, N: `o_stride0..2`, `dout_stride0..2`), so strided
//             views (B×N×H×D transposed) need no copy.
// main        one block per (K/V tile j, kv-head, batch). Warp w owns K/V
//             rows [16w, 16w + 16) of the tile; K_j and V_j stay in shared
//             memory, and the block loops over the group's q-heads and, per
//             head, over the Q tiles (of block_q rows) that see K/V tile j
//             (VisibleKV.h's visibleQTiles), Q_i, dO_i, shift_i and Δ_i
//             double-buffered by cp.async (one stage at D = 256 with 64-row
//             Q tiles: visit i + 1's load during dQ_i). It computes the transposed
//             scores, so that Pᵀ and dSᵀ come out in the C layout that is
//             the A operand of the next MMA (as P is for P·V in the forward):
//               Sᵀ  = K_j·Q_iᵀ            [mask]
//               Pᵀ  = exp2(Sᵀ·c − shift)   (c = scale·log2 e, shift per column)
//               dPᵀ − Δ = V_j·dO_iᵀ        (accumulated onto −Δ)
//               dSᵀ = Pᵀ∘(dPᵀ − Δ)         (to shared memory; a barrier)
//               dV += Pᵀ·dO_i,  dK += dSᵀ·Q_i  (registers, over every i)
//               dQ_i += dS·K_j  (dSᵀ read back with ldmatrix.trans; f32
//                                atomics into dQaccum, a 128-byte line each)
//             and writes dK·scale and dV once, in the element type.
//             At D = 256 a warp's 16 rows of dK and dV (256 f32 per thread)
//             do not fit its registers: two warps share 16 K/V rows
//             (block_kv = 8·warps, backwardColumnSplit). The first computes
//             their Sᵀ and Pᵀ, the second dPᵀ − Δ (each product once); Pᵀ
//             goes to the second in f32 through shared memory, which forms
//             dSᵀ; Pᵀ and dSᵀ meet in the exchange tile, and after a
//             barrier each warp multiplies a 32-key × 64-column tile of dV
//             and dK (128 f32 per thread), A by ldmatrix from that tile.
//             With 64-row Q tiles dQ_i comes in warp tiles of 32 query
//             rows × 64 columns (buildRowPairDQ; two passes of 32 columns
//             in the two-stage plan), not 16 rows × 128.
// convert     dQ = scale·dQaccum in the element type, written with dQ's
//             strides (`dq_stride0..2`: dQ in q's layout).
//
// Deterministic (`deterministic = true`): the main kernel leaves dQ out and
// a dQ kernel replaces convert: one block per Q tile looping over the K/V
// tiles it sees (the forward's visibleKVTiles), recomputing S, P and dP
//   dQ += (P∘(dP − Δ))·K_j
// in registers, in one fixed order: the result is bitwise repeatable. It
// costs three more GEMMs per (Q tile, K/V tile) pair than the atomics (S and
// dP again, 7 GEMMs instead of 5: ~1.4x the arithmetic) and a second pass
// over K and V.
//
// Shared tiles use AsyncCopy.h's layout (16-byte chunk c of row r at chunk
// c ^ (r & 7)); ldmatrix reads them for the four operand shapes of
// mma.sync m16n8k16 (A or B, K-major or transposed) with two lane mappings.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/SM80/BackwardKernel.h"
#include "flash/Conversion/FlashToNVGPU/SM80/AsyncCopy.h"
#include "flash/Conversion/FlashToNVGPU/SM80/MMA.h"
#include "flash/Conversion/FlashToNVGPU/SM90/Barriers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::sm80;

//===----------------------------------------------------------------------===//
// The launches
//===----------------------------------------------------------------------===//

/// Elements per row of the main kernel's dSᵀ tile: block_q, at least 64
/// (8 chunks of 16 bytes, which the swizzle c ^ (r & 7) moves chunks
/// among; Q tiles of 32 rows leave half of each row unused). D = 256 (the
/// exchange tile): dSᵀ and Pᵀ side by side, 2·block_q (Q tiles of 32 rows:
/// 64, the same row).
static int64_t scoresGradRowLength(const KernelConfig &c) {
  int64_t used = backwardColumnSplit(c) > 1 ? 2 * c.blockQ : c.blockQ;
  return std::max<int64_t>(used, 64);
}

int64_t sm80::backwardMainSharedBytes(const KernelConfig &c) {
  int64_t elementBytes = c.elementType.getIntOrFloatBitWidth() / 8;
  // K, V; Q and dO, `stages` of them (2: double-buffered; 1: the D = 256
  // form with 64-row Q tiles); dSᵀ; shift and Δ per stage (f32).
  // D = 256 (two warps per 16 K/V rows): Pᵀ in f32 from the warps that
  // compute it to those that form dSᵀ (block_kv × block_q).
  int64_t probsBytes = backwardColumnSplit(c) > 1 ? 4 * c.blockKV * c.blockQ : 0;
  return elementBytes * (2 * c.blockKV * c.headDim +
                         2 * c.stages * c.blockQ * c.headDim +
                         c.blockKV * scoresGradRowLength(c)) +
         4 * 2 * c.stages * c.blockQ + probsBytes;
}

int64_t sm80::backwardDQSharedBytes(const KernelConfig &c) {
  int64_t elementBytes = c.elementType.getIntOrFloatBitWidth() / 8;
  // Q, dO; K and V double-buffered.
  return elementBytes * c.headDim * (2 * kDQBlockQ + 4 * backwardDQBlockKV(c));
}

int64_t sm80::backwardDQBlockKV(const KernelConfig &c) {
  // D = 256: 64 K/V rows double-buffered would take 192 KB with Q and dO.
  return c.headDim > 128 ? kDQBlockKV / 2 : kDQBlockKV;
}

int64_t sm80::backwardColumnSplit(const KernelConfig &c) {
  return c.blockKV > 0 ? 16 * c.warps / c.blockKV : 0;
}

SmallVector<BackwardWorkspace>
sm80::backwardWorkspaces(const KernelConfig &c) {
  std::string paddedRows = "B*Hq*ceildiv(Nq, " +
                           std::to_string(kBackwardRowBlock) + ")*" +
                           std::to_string(kBackwardRowBlock) + "*4";
  SmallVector<BackwardWorkspace> out = {{"lse_log2", paddedRows},
                                        {"delta", paddedRows}};
  // dQ in f32 in fragment order (BackwardKernel.h), over the padded rows.
  if (!c.deterministic)
    out.push_back({"dq_accum", "B*Hq*ceildiv(Nq, " +
                                   std::to_string(kBackwardRowBlock) + ")*" +
                                   std::to_string(kBackwardRowBlock) + "*" +
                                   std::to_string(c.headDim) + "*4"});
  return out;
}

SmallVector<BackwardLaunch> sm80::backwardLaunches(const KernelConfig &c) {
  std::string rowBlocks =
      "ceildiv(Nq, " + std::to_string(kBackwardRowBlock) + ")";
  SmallVector<BackwardLaunch> out;
  using Role = BackwardLaunch::Role;
  BackwardLaunch pre{Role::Preprocess,
                     c.name + "_preprocess",
                     {"o:ptr", "dout:ptr", "lse:ptr", "lse_log2:ptr",
                      "delta:ptr"},
                     {rowBlocks, "Hq", "B"},
                     128,
                     0};
  if (!c.deterministic)
    pre.args.push_back("dq_accum:ptr");
  // O and dO are read with their own strides (elements, of dimensions B, H
  // and N; the innermost is contiguous): strided views need no copy.
  pre.args.append({"B:i32", "Hq:i32", "Nq:i32", "o_stride0:i32",
                   "o_stride1:i32", "o_stride2:i32", "dout_stride0:i32",
                   "dout_stride1:i32", "dout_stride2:i32"});
  out.push_back(pre);

  BackwardLaunch main{Role::Main,
                      c.name,
                      {"q:ptr", "k:ptr", "v:ptr", "dout:ptr", "lse_log2:ptr",
                       "delta:ptr"},
                      {"ceildiv(Nk, " + std::to_string(c.blockKV) + ")", "Hkv",
                       "B"},
                      c.threads(),
                      backwardMainSharedBytes(c)};
  // Causal: K/V tile j sees fewer Q tiles the larger j is, and blocks start
  // in the grid's order (x fastest). With the kv-head on x and the tile on
  // y, a batch's blocks start longest first (every head's tile 0, then
  // tile 1, ...), instead of head after head with the last head's longest
  // blocks starting near the end (+3 to 5% at N = 4k and 8k on the H200,
  // docs/benchmarks.md). Not causal: every block has the same work, and a
  // head's blocks running together share its Q and dO tiles in L2.
  if (c.causal)
    main.grid = {"Hkv", "ceildiv(Nk, " + std::to_string(c.blockKV) + ")",
                 "B"};
  if (!c.deterministic)
    main.args.push_back("dq_accum:ptr");
  main.args.append({"dk:ptr", "dv:ptr", "B:i32", "Hq:i32", "Hkv:i32",
                    "Nq:i32", "Nk:i32", "scale:f32"});
  // The strided form (`strided`): the strides of the tensors the kernel
  // addresses itself (elements of B, H, N), after its other arguments.
  auto appendStrides = [&](BackwardLaunch &l,
                           std::initializer_list<const char *> tensors) {
    if (!c.strided)
      return;
    for (const char *t : tensors)
      for (int d = 0; d < 3; ++d)
        l.args.push_back(std::string(t) + "_stride" + std::to_string(d) +
                         ":i32");
  };
  appendStrides(main, {"q", "k", "v", "dout", "dk", "dv"});
  out.push_back(main);

  if (c.deterministic) {
    BackwardLaunch dq{Role::DQ,
                      c.name + "_dq",
                      {"q:ptr", "k:ptr", "v:ptr", "dout:ptr", "lse_log2:ptr",
                       "delta:ptr", "dq:ptr", "B:i32", "Hq:i32", "Hkv:i32",
                       "Nq:i32", "Nk:i32", "scale:f32"},
                      {"ceildiv(Nq, " + std::to_string(kDQBlockQ) + ")", "Hq",
                       "B"},
                      32 * kDQWarps,
                      backwardDQSharedBytes(c)};
    appendStrides(dq, {"q", "k", "v", "dout", "dq"});
    out.push_back(dq);
  } else
    out.push_back({Role::Convert,
                   c.name + "_convert",
                   {"dq_accum:ptr", "dq:ptr", "B:i32", "Hq:i32", "Nq:i32",
                    "scale:f32", "dq_stride0:i32", "dq_stride1:i32",
                    "dq_stride2:i32"},
                   {rowBlocks, "Hq", "B"},
                   128,
                   0});
  return out;
}

//===----------------------------------------------------------------------===//
// The kernels
//===----------------------------------------------------------------------===//

namespace {

/// One lane mapping of ldmatrix x4 on a swizzled tile: the lane gives the
/// address of row `row` (within a 16-row step) at 16-byte chunk c0 +
/// chunkBit; `swizzle` = chunkBit ^ (row & 7), so the chunk it reads is
/// (c0 ^ swizzle) for an even c0 (AsyncCopy.h's layout).
///   RowsByBit3: row = (l & 7) + 8·((l >> 3) & 1), chunkBit = l >> 4 — A from
///     an [m][k] tile, or B from a [k][n] tile with .trans;
///   RowsByBit4: row = (l & 7) + 8·(l >> 4), chunkBit = (l >> 3) & 1 — B from
///     an [n][k] tile, or A from a [k][m] tile with .trans.
struct LaneRows {
  Value row, swizzle;
};

/// A tile of `rowLength` 16-bit elements per row at element offset `base`
/// (i32) of a shared memref.
struct SharedTile {
  Value shared, base;
  int64_t rowLength;
};

class SM80BackwardBuilder {
public:
  SM80BackwardBuilder(OpBuilder &b, Location loc, const KernelConfig &config)
      : b(b), loc(loc), km{b, loc}, config(config), et(config.elementType),
        D(config.headDim) {}

  void buildPreprocess(gpu::GPUFuncOp func);
  void buildMain(gpu::GPUFuncOp func);
  /// The launch's BackwardLaunch::semaphoresPerRowBlock (preprocess) and
  /// swizzledAccumulator (convert).
  int64_t semaphoresPerRowBlock = 0;
  bool swizzledAccumulator = false;
  bool pairedAccumulator = false;
  bool blockedAccumulator = false;
  /// The launch's launchesDependents (preprocess: griddepcontrol
  /// launch_dependents first); sm_90a's plan only.
  bool launchesDependents = false;
  /// The launch's loadPasses (preprocess, convert).
  int64_t loadPasses = 1;
  /// The launch's zeroesHeadCounters (preprocess) and waitsForHeadsOfKVRows
  /// (convert); sm_90a's plan only.
  bool zeroesHeadCounters = false;
  int64_t waitsForHeadsOfKVRows = 0;
  void buildConvert(gpu::GPUFuncOp func);
  void buildDQ(gpu::GPUFuncOp func);

private:
  /// The main kernel's dQ_i += dS·K_j in warp tiles of 32 query rows × 64
  /// columns (D = 256's exchange form; buildMain), added to dQaccum (in
  /// fragment order) with f32 atomics.
  void buildRowPairDQ(const SharedTile &dsAll, const SharedTile &kAll,
                      Value accumPtr, Value bh, Value padded, Value qStart,
                      int64_t Br, int64_t Bc);
  Value asI32(Value index) {
    return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index);
  }
  Value blockId(gpu::Dimension d) {
    return asI32(gpu::BlockIdOp::create(b, loc, d));
  }
  /// tid, lane, warp, the quad coordinates and the two ldmatrix mappings.
  void threadCoordinates() {
    threadCoordinates(
        asI32(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x)));
  }
  void threadCoordinates(Value threadId) {
    tid = threadId;
    lane = km.andi(tid, km.i32(31));
    warp = km.shru(tid, km.i32(5));
    coords = {km.shru(lane, km.i32(2)), km.andi(lane, km.i32(3))};
    Value lane7 = km.andi(lane, km.i32(7));
    Value bit3 = km.andi(km.shru(lane, km.i32(3)), km.i32(1));
    Value bit4 = km.shru(lane, km.i32(4));
    rowsByBit3 = {km.add(lane7, km.mul(bit3, km.i32(8))), km.xori(bit4, lane7)};
    rowsByBit4 = {km.add(lane7, km.mul(bit4, km.i32(8))), km.xori(bit3, lane7)};
  }
  /// The strided form's `<tensor>_stride0..2` arguments (elements of B, H,
  /// N) from args[a] on (a advanced past them); none otherwise.
  std::array<Value, 3> strideArgs(ValueRange args, unsigned &a) {
    if (!config.strided)
      return {};
    std::array<Value, 3> s = {args[a], args[a + 1], args[a + 2]};
    a += 3;
    return s;
  }
  /// A strided tensor's (batch, head) rows: batch·stride0 + head·stride1
  /// (i32: the runtime keeps a strided tensor's span below 2^31 elements).
  Value headBase(const std::array<Value, 3> &s, Value batch, Value head) {
    return km.toIndex(km.add(km.mul(batch, s[0]), km.mul(head, s[1])));
  }
  /// Padded rows of a per-row workspace: ceil(Nq / 128)·128.
  Value paddedRows(Value seqQ) {
    return km.mul(km.divu(km.add(seqQ, km.i32(kBackwardRowBlock - 1)),
                          km.i32(kBackwardRowBlock)),
                  km.i32(kBackwardRowBlock));
  }
  MemRefType sharedType(int64_t elements, Type type) {
    return MemRefType::get({elements}, type, AffineMap(),
                           gpu::AddressSpaceAttr::get(
                               b.getContext(), gpu::AddressSpace::Workgroup));
  }
  Value sharedView(Value smem, int64_t byteOffset, int64_t elements,
                   Type type) {
    return memref::ViewOp::create(b, loc, sharedType(elements, type), smem,
                                  km.index(byteOffset), ValueRange{});
  }
  Value dynamicShared() {
    auto bytes = MemRefType::get(
        {ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
        gpu::AddressSpaceAttr::get(b.getContext(),
                                   gpu::AddressSpace::Workgroup));
    return gpu::DynamicSharedMemoryOp::create(b, loc, bytes);
  }
  /// ldmatrix x4 of the 16×16 block at rows row0.. and 16-byte chunks
  /// (chunkBase + chunk0, + 1) of `tile`, chunk0 even and static,
  /// chunkBase a run-time multiple of 8 (or null). The address is a run-time
  /// part (the tile's base, the lane's row and chunk (chunk0 & 7) ^ swizzle)
  /// plus a constant added as an index (row0·L + (chunk0 & ~7)·8), so that
  /// the constant lands in the instruction's immediate offset instead of a
  /// register per block (an i32 sum would be zero-extended whole).
  Pairs load(const SharedTile &tile, const LaneRows &lanes, int64_t row0,
             Value chunkBase, int64_t chunk0, bool transpose) {
    Value dynamic = km.add(
        km.add(tile.base, km.mul(lanes.row, km.i32(tile.rowLength))),
        km.mul(km.xori(km.i32(chunk0 & 7), lanes.swizzle), km.i32(8)));
    if (chunkBase)
      dynamic = km.add(dynamic, km.mul(chunkBase, km.i32(8)));
    Value offset = arith::AddIOp::create(
        b, loc, km.toIndex(dynamic),
        km.index(row0 * tile.rowLength + (chunk0 & ~int64_t(7)) * 8));
    return ldmatrixPairs(tile, offset, transpose);
  }
  /// Four 8×8 tiles of `tile` by ldmatrix from element `offset` (this
  /// lane's row address), as the four register pairs of an mma operand.
  Pairs ldmatrixPairs(const SharedTile &tile, Value offset, bool transpose) {
    auto type = VectorType::get({4, 2}, et);
    Value tiles = nvgpu::LdMatrixOp::create(b, loc, type, tile.shared,
                                            ValueRange{offset}, transpose,
                                            /*numTiles=*/4);
    Pairs pairs;
    for (int64_t i = 0; i < 4; ++i)
      pairs.push_back(
          vector::ExtractOp::create(b, loc, tiles, ArrayRef<int64_t>{i}));
    return pairs;
  }
  Pairs load(const SharedTile &tile, const LaneRows &lanes, int64_t row0,
             int64_t column0, bool transpose) {
    return load(tile, lanes, row0, Value(), column0 / 8, transpose);
  }
  /// The same for a run-time even chunk `chunk` of any value (the xor of
  /// the whole chunk is computed at run time).
  Pairs loadAtChunk(const SharedTile &tile, const LaneRows &lanes,
                    int64_t row0, Value chunk, bool transpose) {
    Value dynamic = km.add(
        km.add(tile.base, km.mul(lanes.row, km.i32(tile.rowLength))),
        km.mul(km.xori(chunk, lanes.swizzle), km.i32(8)));
    Value offset = arith::AddIOp::create(b, loc, km.toIndex(dynamic),
                                         km.index(row0 * tile.rowLength));
    return ldmatrixPairs(tile, offset, transpose);
  }
  /// acc (one 16-row m-tile) += A·Bᵀ over k = 0..kLength: A's 16 rows from
  /// [m][k] tile `a`, B's rows (the accumulator's columns) from [n][k]
  /// tile `bTile`.
  void gemmRowsByCols(Fragment &acc, const SharedTile &a,
                      const SharedTile &bTile, int64_t kLength) {
    for (int64_t kk = 0; kk < kLength / 16; ++kk) {
      Pairs aFrag = load(a, rowsByBit3, 0, kk * 16, /*transpose=*/false);
      for (int64_t np = 0; np < acc.nTiles / 2; ++np) {
        Pairs bFrag = load(bTile, rowsByBit4, np * 16, kk * 16,
                           /*transpose=*/false);
        for (int64_t half = 0; half < 2; ++half)
          mmaSyncInto(km, et, acc, 0, 2 * np + half, aFrag,
                      ArrayRef<Value>(bFrag).slice(2 * half, 2));
      }
    }
  }
  /// acc (one m-tile) += A·B with A in registers (packed pairs of a C
  /// fragment of kLength columns: k-slice kk is column tiles 2kk, 2kk + 1)
  /// and B from [k][n] tile `bTile` (n = the accumulator's columns).
  void gemmPackedByRows(Fragment &acc, ArrayRef<Value> aPairs,
                        const SharedTile &bTile, int64_t kLength) {
    for (int64_t kk = 0; kk < kLength / 16; ++kk) {
      SmallVector<Value> aFrag = {aPairs[(2 * kk) * 2], aPairs[(2 * kk) * 2 + 1],
                                  aPairs[(2 * kk + 1) * 2],
                                  aPairs[(2 * kk + 1) * 2 + 1]};
      for (int64_t np = 0; np < acc.nTiles / 2; ++np) {
        Pairs bFrag = load(bTile, rowsByBit3, kk * 16, np * 16,
                           /*transpose=*/true);
        for (int64_t half = 0; half < 2; ++half)
          mmaSyncInto(km, et, acc, 0, 2 * np + half, aFrag,
                      ArrayRef<Value>(bFrag).slice(2 * half, 2));
      }
    }
  }
  /// acc (acc.mTiles m-tiles) += A·B with A from [m][k] tile `a` (rows
  /// 16·mt.., k from column aColumn0, a multiple of 16) and B from [k][n]
  /// tile `bTile` (n = the accumulator's columns): the gradient products at
  /// D = 256, whose A operands (Pᵀ, dSᵀ) two warps wrote to shared memory.
  void gemmSharedByRows(Fragment &acc, const SharedTile &a, int64_t aColumn0,
                        const SharedTile &bTile, int64_t kLength) {
    for (int64_t kk = 0; kk < kLength / 16; ++kk) {
      SmallVector<Pairs> aFrags;
      for (int64_t mt = 0; mt < acc.mTiles; ++mt)
        aFrags.push_back(load(a, rowsByBit3, mt * 16, aColumn0 + kk * 16,
                              /*transpose=*/false));
      for (int64_t np = 0; np < acc.nTiles / 2; ++np) {
        Pairs bFrag = load(bTile, rowsByBit3, kk * 16, np * 16,
                           /*transpose=*/true);
        for (int64_t mt = 0; mt < acc.mTiles; ++mt)
          for (int64_t half = 0; half < 2; ++half)
            mmaSyncInto(km, et, acc, mt, 2 * np + half, aFrags[mt],
                        ArrayRef<Value>(bFrag).slice(2 * half, 2));
      }
    }
  }
  /// f32 atomic add (relaxed, device scope: red.global.add.f32) of `value`
  /// at element `index` (index) + constantOffset of the f32 array at
  /// `pointer` (the constant in the instruction's immediate offset).
  void atomicAdd(Value pointer, Value index, int64_t constantOffset,
                 Value value) {
    auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 1);
    Value index64 =
        arith::IndexCastUIOp::create(b, loc, b.getI64Type(), index);
    Value address = LLVM::GEPOp::create(b, loc, ptrType, b.getF32Type(),
                                        pointer, ValueRange{index64});
    if (constantOffset)
      address = LLVM::GEPOp::create(
          b, loc, ptrType, b.getF32Type(), address,
          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(constantOffset)});
    LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::fadd, address, value,
                              LLVM::AtomicOrdering::monotonic,
                              b.getStringAttr("device"));
  }
  /// The main kernel's block: its K/V tile, kv-head and batch, from the
  /// block index (`read` of an axis) in the grid's layout (backwardLaunches:
  /// causal, (B·Hkv, K/V tiles, 1); otherwise (K/V tiles, Hkv, B)).
  void blockCoordinates(Value &kvTile, Value &kvHead, Value &batch,
                        Value kvHeads,
                        function_ref<Value(gpu::Dimension)> read) {
    if (config.causal) {
      kvHead = read(gpu::Dimension::x);
      kvTile = read(gpu::Dimension::y);
      batch = read(gpu::Dimension::z);
      return;
    }
    kvTile = read(gpu::Dimension::x);
    kvHead = read(gpu::Dimension::y);
    batch = read(gpu::Dimension::z);
  }
  /// The special register `name` (%tid.x, %ctaid.y, ...) read by an
  /// instruction LLVM may neither hoist nor merge with another read (an
  /// inline-asm mov with side effects): values derived from it are computed
  /// where it is read instead of living in registers from the entry.
  Value readSpecial(StringRef name) {
    auto asmOp = LLVM::InlineAsmOp::create(
        b, loc, b.getI32Type(), ValueRange{},
        b.getStringAttr(("mov.u32 $0, " + name + ";").str()),
        b.getStringAttr("=r"),
        /*has_side_effects=*/b.getUnitAttr(), UnitAttr(),
        LLVM::TailCallKindAttr::get(b.getContext(), LLVM::TailCallKind::None),
        LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
        ArrayAttr());
    return asmOp.getResult(0);
  }
  /// Per-thread chunks of the preprocess and convert kernels: 128 threads,
  /// thread t on 16-byte chunk t % (D/8) of row t / (D/8) of each pass.
  struct RowChunks {
    Value chunk, rowInPass;
    int64_t rowsPerPass, passes;
  };
  RowChunks rowChunks() {
    int64_t chunksPerRow = D / 8;
    RowChunks r;
    r.chunk = km.andi(tid, km.i32(chunksPerRow - 1));
    r.rowInPass = km.shru(tid, km.i32(llvm::Log2_64(chunksPerRow)));
    r.rowsPerPass = 128 / chunksPerRow;
    r.passes = kBackwardRowBlock / r.rowsPerPass;
    return r;
  }

  OpBuilder &b;
  Location loc;
  KernelMath km;
  const KernelConfig &config;
  Type et;
  int64_t D;
  Value tid, lane, warp;
  LaneCoords coords;
  LaneRows rowsByBit3, rowsByBit4;
};
} // namespace

//===----------------------------------------------------------------------===//
// preprocess: Δ, the shift, the zeroed dQ accumulator
//===----------------------------------------------------------------------===//

void SM80BackwardBuilder::buildPreprocess(gpu::GPUFuncOp func) {
  using P = arith::CmpIPredicate;
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  ValueRange args = entry.getArguments();
  unsigned a = 0;
  Value oPtr = args[a++], doPtr = args[a++], lsePtr = args[a++],
        shiftPtr = args[a++], deltaPtr = args[a++];
  Value accumPtr = config.deterministic ? Value() : args[a++];
  Value semaphorePtr = semaphoresPerRowBlock ? args[a++] : Value();
  // sm_90a: the main kernel may start once every block of this grid has
  // started (it loads K and V, then waits for this grid to complete before
  // it reads Δ or the shift or adds to the dQ accumulator).
  if (launchesDependents)
    NVVM::GriddepcontrolOp::create(
        b, loc, NVVM::GridDepActionKind::launch_dependents);
  Value queryHeads = args[a + 1], seqQ = args[a + 2];
  Value oStrides[3] = {args[a + 3], args[a + 4], args[a + 5]};
  Value doStrides[3] = {args[a + 6], args[a + 7], args[a + 8]};

  Value globalO = buildFlatGlobalMemref(km, oPtr, et);
  Value globalDO = buildFlatGlobalMemref(km, doPtr, et);
  Value globalLse = buildFlatGlobalMemref(km, lsePtr, b.getF32Type());
  Value globalShift = buildFlatGlobalMemref(km, shiftPtr, b.getF32Type());
  Value globalDelta = buildFlatGlobalMemref(km, deltaPtr, b.getF32Type());
  Value globalAccum =
      accumPtr ? buildFlatGlobalMemref(km, accumPtr, b.getF32Type()) : Value();

  threadCoordinates();
  RowChunks rc = rowChunks();
  Value rowBlock = blockId(gpu::Dimension::x);
  Value head = blockId(gpu::Dimension::y);
  Value batch = blockId(gpu::Dimension::z);
  Value bh = km.add(km.mul(batch, queryHeads), head);
  // Element offsets of this (batch, head)'s rows in O and dO (i32: the
  // runtime checks that a strided tensor's elements are addressable so).
  Value oBase = km.add(km.mul(batch, oStrides[0]), km.mul(head, oStrides[1]));
  Value doBase =
      km.add(km.mul(batch, doStrides[0]), km.mul(head, doStrides[1]));
  Value padded = paddedRows(seqQ);
  Value lastRow = km.sub(seqQ, km.i32(1));
  Value posInf = km.f32(std::numeric_limits<double>::infinity());
  Value negInf = km.f32(-std::numeric_limits<double>::infinity());
  auto f32x8 = VectorType::get({8}, b.getF32Type());
  auto f32x4 = VectorType::get({4}, b.getF32Type());
  auto alignment = b.getI64IntegerAttr(16);

  // Each thread issues the loads of `group` passes (loadPasses) before it
  // uses any of them; the lse too, then, in every thread of the row.
  int64_t group = std::clamp<int64_t>(loadPasses, 1, rc.passes);
  for (int64_t g = 0; g < rc.passes; g += group) {
    struct Pass {
      Value row, valid, readRow, o, dO, lse;
    };
    SmallVector<Pass> pass;
    for (int64_t p = g; p < std::min(g + group, rc.passes); ++p) {
      Pass &x = pass.emplace_back();
      x.row = km.add(km.mul(rowBlock, km.i32(kBackwardRowBlock)),
                     km.add(rc.rowInPass, km.i32(p * rc.rowsPerPass)));
      x.valid = km.cmp(P::slt, x.row, seqQ);
      // Rows past Nq read the last row (in bounds) and are discarded.
      x.readRow = km.minsi(x.row, lastRow);
      Value column = km.mul(rc.chunk, km.i32(8));
      auto loadChunk = [&](Value memref, Value base, Value rowStride) -> Value {
        Value element = km.toIndex(
            km.add(km.add(base, km.mul(x.readRow, rowStride)), column));
        Value v = vector::LoadOp::create(b, loc, VectorType::get({8}, et),
                                         memref, ValueRange{element},
                                         /*nontemporal=*/false, alignment);
        return arith::ExtFOp::create(b, loc, f32x8, v);
      };
      // (dO first: the order of main's kernels before loadPasses, whose
      // compiler evaluated the two loads as arguments right to left.)
      x.dO = loadChunk(globalDO, doBase, doStrides[2]);
      x.o = loadChunk(globalO, oBase, oStrides[2]);
      if (group > 1)
        x.lse = memref::LoadOp::create(
            b, loc, globalLse,
            ValueRange{km.toIndex(km.add(km.mul(bh, seqQ), x.readRow))});
    }
    for (Pass &x : pass) {
      // Δ = rowsum(dO∘O): 8 products per thread, then over the row's threads.
      Value products = arith::MulFOp::create(b, loc, x.o, x.dO);
      Value sum = vector::ReductionOp::create(
          b, loc, vector::CombiningKind::ADD, products);
      for (int64_t offset = 1; offset < D / 8; offset *= 2)
        sum = arith::AddFOp::create(b, loc, sum, km.shuffleXor(sum, offset));
      Value padIndex = km.toIndex(km.add(km.mul(bh, padded), x.row));
      km.ifLanes(km.cmp(P::eq, rc.chunk, km.i32(0)), [&] {
        Value lse =
            x.lse ? x.lse
                  : memref::LoadOp::create(
                        b, loc, globalLse,
                        ValueRange{km.toIndex(
                            km.add(km.mul(bh, seqQ), x.readRow))});
        // shift = LSE·log2(e); +inf for a row that saw no key (LSE = −inf)
        // and for padding, so that P = exp2(S·c − shift) is 0 there.
        Value sawKeys = arith::CmpFOp::create(
            b, loc, arith::CmpFPredicate::ONE, lse, negInf);
        Value shift = km.select(
            km.andi(x.valid, sawKeys),
            arith::MulFOp::create(b, loc, lse, km.f32(M_LOG2E)), posInf);
        km.store(shift, globalShift, padIndex);
        km.store(km.select(x.valid, sum, km.f32(0.0)), globalDelta, padIndex);
      });
      // The accumulator's rows, padding included (the main kernel adds to
      // every row of a Q tile; fragment order permutes within 16-row
      // blocks).
      if (globalAccum) {
        Value zeros = arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(f32x4, b.getF32FloatAttr(0.0f)));
        // (In index arithmetic: the padded rows times D may pass 2^31.)
        Value accumElement =
            km.add(km.mul(km.toIndex(km.add(km.mul(bh, padded), x.row)),
                          km.index(D)),
                   km.toIndex(km.mul(rc.chunk, km.i32(8))));
        for (int64_t half = 0; half < 2; ++half)
          vector::StoreOp::create(
              b, loc, zeros, globalAccum,
              ValueRange{km.add(accumElement, km.index(4 * half))},
              /*nontemporal=*/false, alignment);
      }
    }
  }
  // The per-head completion counters (zeroesHeadCounters): one per (batch,
  // q-head), by the first thread of the head's first row block. The main
  // kernel counts on them after its griddepcontrol.wait.
  if (zeroesHeadCounters) {
    Value counters =
        buildFlatGlobalMemref(km, args.back(), b.getI32Type());
    km.ifLanes(km.andi(km.cmp(P::eq, rowBlock, km.i32(0)),
                       km.cmp(P::eq, tid, km.i32(0))),
               [&] { km.store(km.i32(0), counters, km.toIndex(bh)); });
  }
  // The semaphores of this row block (sm_90a's deterministic plan: counts of
  // the dQ reductions done per Q tile), one per thread, zeroed on every
  // call, so that a replayed launch (a CUDA graph) starts from zero. The
  // main kernel is a later launch on the stream.
  if (semaphorePtr) {
    Value globalSemaphores =
        buildFlatGlobalMemref(km, semaphorePtr, b.getI32Type());
    km.ifLanes(km.cmp(P::ult, tid, km.i32(semaphoresPerRowBlock)), [&] {
      Value rowBlocks = km.divu(padded, km.i32(kBackwardRowBlock));
      Value index = km.add(
          km.mul(km.add(km.mul(bh, rowBlocks), rowBlock),
                 km.i32(semaphoresPerRowBlock)),
          tid);
      km.store(km.i32(0), globalSemaphores, km.toIndex(index));
    });
  }
  gpu::ReturnOp::create(b, loc);
}

//===----------------------------------------------------------------------===//
// convert: dQ = scale·dQaccum
//===----------------------------------------------------------------------===//

void SM80BackwardBuilder::buildConvert(gpu::GPUFuncOp func) {
  using P = arith::CmpIPredicate;
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  ValueRange args = entry.getArguments();
  Value globalAccum = buildFlatGlobalMemref(km, args[0], b.getF32Type());
  Value globalDQ = buildFlatGlobalMemref(km, args[1], et);
  Value queryHeads = args[3], seqQ = args[4], scale = args[5];
  // dQ is written with its own strides (elements, of B, H and N).
  Value dqStrides[3] = {args[6], args[7], args[8]};

  threadCoordinates();
  RowChunks rc = rowChunks();
  Value rowBlock = blockId(gpu::Dimension::x);
  Value head = blockId(gpu::Dimension::y);
  Value batch = blockId(gpu::Dimension::z);
  Value bh = km.add(km.mul(batch, queryHeads), head);
  Value dqBase =
      km.add(km.mul(batch, dqStrides[0]), km.mul(head, dqStrides[1]));
  auto f32x4 = VectorType::get({4}, b.getF32Type());
  auto f32x8 = VectorType::get({8}, b.getF32Type());
  auto alignment = b.getI64IntegerAttr(16);
  Value scales = vector::BroadcastOp::create(b, loc, f32x8, scale);
  Value padded = paddedRows(seqQ);
  // waitsForHeadsOfKVRows: the head's dQ is complete once every block of
  // the main kernel's K/V tiles has counted it (their acquire by the first
  // thread, then the block's barrier: the other threads' loads after it).
  if (waitsForHeadsOfKVRows) {
    // The launch's last two arguments (sm90::backwardLaunches appends them).
    Value counters = args[args.size() - 2], seqKV = args.back();
    Value tilesKV = km.divu(km.add(seqKV, km.i32(waitsForHeadsOfKVRows - 1)),
                            km.i32(waitsForHeadsOfKVRows));
    Value counter = LLVM::GEPOp::create(b, loc, counters.getType(),
                                        b.getI32Type(), counters,
                                        ValueRange{bh});
    km.ifLanes(km.cmp(P::eq, tid, km.i32(0)),
               [&] { sm90::semaphoreWaitAtLeast(km, counter, tilesKV); });
    gpu::BarrierOp::create(b, loc);
  }
  // This thread's 8 columns of row `row` of the accumulator, in order.
  auto loadAccum = [&](Value row) -> Value {
    Value all;
    if (pairedAccumulator) {
      // Paired chunks (sm_90a D = 128): columns 16G + 8u + 2t + e are
      // element 2u + e of chunk 4G + t, placed at (4G + t) ^ f, f = the
      // row's pair swizzle ((s & 1) << 2 | s >> 1, s = row mod 8): this
      // thread's 8 columns (G = chunk / 2, u = chunk % 2) are a pair of
      // floats from each of the group's four chunks.
      auto f32x2 = VectorType::get({2}, b.getF32Type());
      Value s = km.andi(row, km.i32(7));
      Value f = km.add(km.mul(km.andi(s, km.i32(1)), km.i32(4)),
                       km.shru(s, km.i32(1)));
      Value group4 = km.mul(km.shru(rc.chunk, km.i32(1)), km.i32(4));
      Value rowBase = km.mul(km.add(km.mul(bh, seqQ), row), km.i32(D));
      Value inChunk = km.mul(km.andi(rc.chunk, km.i32(1)), km.i32(2));
      SmallVector<Value> pairs;
      for (int64_t t = 0; t < 4; ++t) {
        Value chunk = km.xori(km.add(group4, km.i32(t)), f);
        Value source = km.add(rowBase,
                              km.add(km.mul(chunk, km.i32(4)), inChunk));
        pairs.push_back(vector::LoadOp::create(
            b, loc, f32x2, globalAccum, ValueRange{km.toIndex(source)},
            false, b.getI64IntegerAttr(8)));
      }
      Value low = vector::ShuffleOp::create(b, loc, pairs[0], pairs[1],
                                            ArrayRef<int64_t>{0, 1, 2, 3});
      Value high = vector::ShuffleOp::create(b, loc, pairs[2], pairs[3],
                                             ArrayRef<int64_t>{0, 1, 2, 3});
      all = vector::ShuffleOp::create(b, loc, low, high,
                                      ArrayRef<int64_t>{0, 1, 2, 3, 4, 5, 6,
                                                        7});
    } else if (swizzledAccumulator) {
      // Swizzled rows (sm_90a): the 16-byte chunks 2k, 2k + 1 of this
      // thread's 8 columns are at (2k) ^ s and (2k + 1) ^ s, s = row mod
      // 8: the pair of chunks at 2(k ^ (s >> 1)), in order when s is
      // even, swapped when odd.
      Value s = km.andi(row, km.i32(7));
      Value chunk = km.xori(rc.chunk, km.shru(s, km.i32(1)));
      Value source = km.add(km.mul(km.add(km.mul(bh, seqQ), row), km.i32(D)),
                            km.mul(chunk, km.i32(8)));
      if (blockedAccumulator) {
        // Blocks of 16 padded rows, each a run of 32-column slices of 16
        // rows × 128 bytes: the pair of chunks (4 per slice) lies in
        // slice chunk / 4, row row mod 16 of it.
        Value inBlock = km.andi(row, km.i32(15));
        source = km.add(
            km.mul(km.add(km.mul(bh, padded), km.sub(row, inBlock)),
                   km.i32(D)),
            km.add(km.add(km.mul(km.shru(chunk, km.i32(2)), km.i32(16 * 32)),
                          km.mul(inBlock, km.i32(32))),
                   km.mul(km.andi(chunk, km.i32(3)), km.i32(8))));
      }
      Value swapped = km.cmp(P::ne, km.andi(s, km.i32(1)), km.i32(0));
      Value low = vector::LoadOp::create(b, loc, f32x4, globalAccum,
                                         ValueRange{km.toIndex(source)},
                                         false, alignment);
      Value high = vector::LoadOp::create(
          b, loc, f32x4, globalAccum,
          ValueRange{km.toIndex(km.add(source, km.i32(4)))}, false,
          alignment);
      Value first = arith::SelectOp::create(b, loc, swapped, high, low);
      high = arith::SelectOp::create(b, loc, swapped, low, high);
      all = vector::ShuffleOp::create(b, loc, first, high,
                                      ArrayRef<int64_t>{0, 1, 2, 3, 4, 5, 6,
                                                        7});
    } else {
      // Fragment order (sm_80): columns 8k + 2t + e of row 16m + g + 8h
      // are at 16m·D + 128k + 32(2h + e) + 4g + t: four floats for e = 0,
      // four for e = 1, interleaved.
      Value inBlock = km.andi(row, km.i32(15));
      Value source = km.add(
          km.mul(
              km.toIndex(km.add(km.mul(bh, padded), km.sub(row, inBlock))),
              km.index(D)),
          km.toIndex(km.add(
              km.mul(rc.chunk, km.i32(128)),
              km.add(km.mul(km.shru(inBlock, km.i32(3)), km.i32(64)),
                     km.mul(km.andi(inBlock, km.i32(7)), km.i32(4))))));
      Value even = vector::LoadOp::create(b, loc, f32x4, globalAccum,
                                          ValueRange{source}, false,
                                          alignment);
      Value odd = vector::LoadOp::create(
          b, loc, f32x4, globalAccum,
          ValueRange{km.add(source, km.index(32))}, false, alignment);
      all = vector::ShuffleOp::create(b, loc, even, odd,
                                      ArrayRef<int64_t>{0, 4, 1, 5, 2, 6, 3,
                                                        7});
    }
    return all;
  };
  // Each thread issues the loads of `group` passes (loadPasses) before it
  // stores any of them: rows past Nq too (the accumulator spans the padded
  // rows), their results unused.
  int64_t group = std::clamp<int64_t>(loadPasses, 1, rc.passes);
  for (int64_t g = 0; g < rc.passes; g += group) {
    SmallVector<Value> rows, loaded;
    for (int64_t p = g; p < std::min(g + group, rc.passes); ++p) {
      rows.push_back(
          km.add(km.mul(rowBlock, km.i32(kBackwardRowBlock)),
                 km.add(rc.rowInPass, km.i32(p * rc.rowsPerPass))));
      if (group > 1)
        loaded.push_back(loadAccum(rows.back()));
    }
    for (auto [index, row] : llvm::enumerate(rows)) {
      km.ifLanes(km.cmp(P::slt, row, seqQ), [&] {
        Value element = km.add(km.add(dqBase, km.mul(row, dqStrides[2])),
                               km.mul(rc.chunk, km.i32(8)));
        Value all = group > 1 ? loaded[index] : loadAccum(row);
        Value scaled = arith::MulFOp::create(b, loc, all, scales);
        Value out = arith::TruncFOp::create(b, loc, VectorType::get({8}, et),
                                            scaled);
        vector::StoreOp::create(b, loc, out, globalDQ,
                                ValueRange{km.toIndex(element)}, false,
                                alignment);
      });
    }
  }
  // waitsForHeadsOfKVRows: the grid's last block leaves only once the main
  // kernel has completed (the convert's completion then implies the main
  // kernel's, for the work after it on the stream).
  if (waitsForHeadsOfKVRows) {
    auto last = [&](gpu::Dimension d) {
      Value dim = arith::IndexCastUIOp::create(
          b, loc, b.getI32Type(), gpu::GridDimOp::create(b, loc, d));
      return km.cmp(P::eq, blockId(d), km.sub(dim, km.i32(1)));
    };
    km.ifLanes(km.andi(km.andi(last(gpu::Dimension::x),
                               last(gpu::Dimension::y)),
                       last(gpu::Dimension::z)),
               [&] {
                 NVVM::GriddepcontrolOp::create(
                     b, loc, NVVM::GridDepActionKind::wait);
               });
  }
  gpu::ReturnOp::create(b, loc);
}

//===----------------------------------------------------------------------===//
// main: dK, dV per K/V tile; dQ through atomics
//===----------------------------------------------------------------------===//

void SM80BackwardBuilder::buildMain(gpu::GPUFuncOp func) {
  using P = arith::CmpIPredicate;
  const int64_t Bc = config.blockKV, Br = config.blockQ, warps = config.warps,
                threads = config.threads();
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  ValueRange args = entry.getArguments();
  unsigned a = 0;
  Value qPtr = args[a++], kPtr = args[a++], vPtr = args[a++],
        doPtr = args[a++], shiftPtr = args[a++], deltaPtr = args[a++];
  Value accumPtr = config.deterministic ? Value() : args[a++];
  Value dkPtr = args[a++], dvPtr = args[a++];
  ++a; // B
  Value queryHeads = args[a++], kvHeads = args[a++], seqQ = args[a++],
        seqKV = args[a++], scale = args[a++];
  // The strided form: q, k, v, dO, dK, dV strides (rows stride2 apart; null
  // otherwise: rows of D, heads N·D apart).
  std::array<Value, 3> qStrides = strideArgs(args, a),
                       kStrides = strideArgs(args, a),
                       vStrides = strideArgs(args, a),
                       doStrides = strideArgs(args, a),
                       dkStrides = strideArgs(args, a),
                       dvStrides = strideArgs(args, a);
  Value scaleLog2e = arith::MulFOp::create(b, loc, scale, km.f32(M_LOG2E));

  Value globalQ = buildFlatGlobalMemref(km, qPtr, et);
  Value globalK = buildFlatGlobalMemref(km, kPtr, et);
  Value globalV = buildFlatGlobalMemref(km, vPtr, et);
  Value globalDO = buildFlatGlobalMemref(km, doPtr, et);
  Value globalShift = buildFlatGlobalMemref(km, shiftPtr, b.getF32Type());
  Value globalDelta = buildFlatGlobalMemref(km, deltaPtr, b.getF32Type());
  Value globalDK = buildFlatGlobalMemref(km, dkPtr, b.getI32Type());
  Value globalDV = buildFlatGlobalMemref(km, dvPtr, b.getI32Type());

  // Shared memory: K[Bc][D] | V[Bc][D] | Q[S][Br][D] | dO[S][Br][D] |
  // dSᵀ[Bc][dsRow] | shift[S][Br] f32 | Δ[S][Br] f32 | (D = 256)
  // Pᵀ[rowGroups][Br/2 registers][32 lanes] f32; S = stages (2, or 1 for
  // the D = 256 form with 64-row Q tiles, which loads visit t + 1 once
  // visit t's products have read Q_i and dO_i, during its dQ).
  const int64_t S = config.stages;
  assert((S == 2 || S == 1) && "the sm_80 backward has one or two stages");
  int64_t eb = et.getIntOrFloatBitWidth() / 8;
  Value smem = dynamicShared();
  int64_t offK = 0, offV = offK + eb * Bc * D, offQ = offV + eb * Bc * D,
          offDO = offQ + eb * S * Br * D, offDS = offDO + eb * S * Br * D,
          offShift = offDS + eb * Bc * scoresGradRowLength(config),
          offDelta = offShift + 4 * S * Br;
  Value sharedK = sharedView(smem, offK, Bc * D, et);
  Value sharedV = sharedView(smem, offV, Bc * D, et);
  Value sharedQ = sharedView(smem, offQ, S * Br * D, et);
  Value sharedDO = sharedView(smem, offDO, S * Br * D, et);
  const int64_t dsRow = scoresGradRowLength(config);
  Value sharedDS = sharedView(smem, offDS, Bc * dsRow, et);
  Value sharedDSWords = sharedView(smem, offDS, Bc * dsRow / 2, b.getI32Type());
  Value sharedShift = sharedView(smem, offShift, S * Br, b.getF32Type());
  Value sharedDelta = sharedView(smem, offDelta, S * Br, b.getF32Type());
  const int64_t offProbs = offDelta + 4 * S * Br;
  Value sharedProbs = backwardColumnSplit(config) > 1
                          ? sharedView(smem, offProbs, Bc * Br, b.getF32Type())
                          : Value();

  threadCoordinates();
  Value kvTile, kvHead, batch;
  blockCoordinates(kvTile, kvHead, batch, kvHeads, [&](gpu::Dimension d) {
    return blockId(d);
  });
  Value group = km.divu(queryHeads, kvHeads);
  Value kvStart = km.mul(kvTile, km.i32(Bc));
  Value kBase, vBase;
  if (!config.strided) {
    kBase = vBase = km.toIndex(km.mul(
        km.mul(km.add(km.mul(batch, kvHeads), kvHead), seqKV), km.i32(D)));
  } else {
    kBase = headBase(kStrides, batch, kvHead);
    vBase = headBase(vStrides, batch, kvHead);
  }
  Value padded = paddedRows(seqQ);
  // Q tiles that see this K/V tile, per q-head of the group; the block
  // visits them head by head: iteration t is tile firstTile + t % perHead
  // of the group's head t / perHead.
  QTileRange range = buildQTileRange(km, kvStart, seqQ, seqKV, Bc, Br,
                                     config.causal);
  Value perHead = km.sub(range.numTiles, range.firstTile);
  Value total = km.mul(group, perHead);
  Value perHeadDivisor = km.maxsi(perHead, km.i32(1));
  struct Visit {
    Value tile, qStart, bh, qHead;
  };
  auto visitOf = [&](Value t) -> Visit {
    Value headInGroup = km.divu(t, perHeadDivisor);
    // (Clamped for the prologue of a block with no visit, which the model
    // rules out: every key is seen by the last query.)
    Value inHead = km.sub(t, km.mul(headInGroup, perHeadDivisor));
    Value tile = km.minsi(km.add(range.firstTile, inHead),
                          km.sub(range.numTiles, km.i32(1)));
    Value qHead = km.add(km.mul(kvHead, group), headInGroup);
    Value bh = km.add(km.mul(batch, queryHeads), qHead);
    return {tile, km.mul(tile, km.i32(Br)), bh, qHead};
  };

  // Q_i, dO_i and the rows' shift and Δ of visit t into stage `stage`: the
  // per-row values as 16-byte chunks of 4 f32 from the padded workspaces
  // (always in bounds), by the first Br / 2 threads.
  auto issueVisit = [&](TileCopier &copier, Value t, Value stage) {
    Visit v = visitOf(t);
    Value qBase, doBase;
    if (!config.strided) {
      qBase = doBase = km.toIndex(km.mul(km.mul(v.bh, seqQ), km.i32(D)));
    } else {
      qBase = headBase(qStrides, batch, v.qHead);
      doBase = headBase(doStrides, batch, v.qHead);
    }
    Value tileOffset = km.mul(stage, km.i32(Br * D));
    copier.copy(km, globalQ, qBase, v.qStart, seqQ, sharedQ, tileOffset, Br,
                /*fullTileFastPath=*/true, qStrides[2]);
    copier.copy(km, globalDO, doBase, v.qStart, seqQ, sharedDO, tileOffset,
                Br, /*fullTileFastPath=*/true, doStrides[2]);
    auto tokenType = nvgpu::DeviceAsyncTokenType::get(b.getContext());
    Value rowBase = km.add(km.mul(v.bh, padded), v.qStart);
    for (auto [which, global, shared] :
         {std::tuple<int64_t, Value, Value>{0, globalShift, sharedShift},
          {1, globalDelta, sharedDelta}}) {
      Value chunk = km.sub(tid, km.i32(which * Br / 4));
      Value mine = km.andi(km.cmp(P::sge, chunk, km.i32(0)),
                           km.cmp(P::slt, chunk, km.i32(Br / 4)));
      km.ifLanes(mine, [&] {
        Value row = km.mul(chunk, km.i32(4));
        nvgpu::DeviceAsyncCopyOp::create(
            b, loc, tokenType, shared,
            ValueRange{km.toIndex(km.add(km.mul(stage, km.i32(Br)), row))},
            global, ValueRange{km.toIndex(km.add(rowBase, row))},
            b.getIndexAttr(4), Value(), b.getUnitAttr());
      });
    }
  };

  // Prologue: K_j, V_j and visit 0 in one group.
  TileCopier copier = makeTileCopier(km, tid, D, threads);
  copier.copy(km, globalK, kBase, kvStart, seqKV, sharedK, km.i32(0), Bc,
              /*fullTileFastPath=*/false, kStrides[2]);
  copier.copy(km, globalV, vBase, kvStart, seqKV, sharedV, km.i32(0), Bc,
              /*fullTileFastPath=*/false, vStrides[2]);
  issueVisit(copier, km.i32(0), km.i32(0));
  Value firstGroup = commitCopies(km);

  // The warp's 16 K/V rows (row group). Where two warps share them
  // (D = 256, split = 2), warp w < rowGroups computes their Sᵀ and Pᵀ and
  // warp w + rowGroups their dPᵀ − Δ and dSᵀ, through the shared exchange
  // tile, and after a barrier the block's warps multiply it in tiles of 32
  // K/V rows × 64 columns of dK and dV (gradient group (w mod keyGroups,
  // w / keyGroups)).
  const int64_t split = backwardColumnSplit(config), Dw = D / split,
                rowGroups = warps / split;
  const bool exchange = split > 1;
  assert((S == 2 || exchange) && "one stage only in the D = 256 form");
  const int64_t keyGroups = Bc / 32,
                gradColumns = exchange ? D * keyGroups / warps : Dw;
  auto rowGroupOf = [&](Value w) {
    return split == 1 ? w : km.andi(w, km.i32(rowGroups - 1));
  };
  auto keyGroupOf = [&](Value w) {
    return keyGroups == 1 ? km.i32(0) : km.andi(w, km.i32(keyGroups - 1));
  };
  auto gradColumnGroupOf = [&](Value w) {
    return km.shru(w, km.i32(llvm::Log2_64(keyGroups)));
  };
  if (exchange) {
    // Pᵀ and dSᵀ side by side in the dSᵀ tile's rows of 2·Br (at least 64).
    assert(2 * Br <= scoresGradRowLength(config) && gradColumns == 64 &&
           "the D = 256 exchange takes 32 K/V rows × 64 columns per warp");
  }
  const int64_t gradMTiles = exchange ? 2 : 1;
  Fragment dK0(gradMTiles, gradColumns / 8, km.f32(0.0)),
      dV0(gradMTiles, gradColumns / 8, km.f32(0.0));
  SmallVector<Value> inits(dK0.regs);
  inits.append(dV0.regs.begin(), dV0.regs.end());
  auto loop = scf::ForOp::create(b, loc, km.i32(0), total, km.i32(1), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value t = loop.getInductionVar();
    ValueRange iter = loop.getRegionIterArgs();
    Fragment dK = dK0, dV = dV0;
    dK.regs.assign(iter.begin(), iter.begin() + dK0.regs.size());
    dV.regs.assign(iter.begin() + dK0.regs.size(), iter.end());

    // The thread's coordinates, and every address derived from them, from
    // the thread index read again here through an opaque move: LLVM would
    // otherwise hoist each address (a 64-bit register per tile, k-step and
    // lane mapping, ~80 of them) out of the loop, and ptxas spill them.
    threadCoordinates(readSpecial("%tid.x"));
    // The two-stage D = 256 causal plan with atomics: the K/V tile's first
    // key from its block index read again here too (%ctaid.y:
    // blockCoordinates' causal grid), not kept in a register across the
    // loop: ptxas spilled 4 bytes of the sm_90 cubin with it
    // (docs/benchmarks.md, nineteenth session). The other plans keep it.
    Value visitKVStart = kvStart;
    if (exchange && S == 2 && config.causal && !config.deterministic)
      visitKVStart = km.mul(readSpecial("%ctaid.y"), km.i32(Bc));
    Value warpRows = km.mul(rowGroupOf(warp), km.i32(16));
    Value kWarpBase = km.mul(warpRows, km.i32(D));
    Value keyRowBase = km.add(visitKVStart, warpRows);
    TileCopier copier = makeTileCopier(km, tid, D, threads);

    Value stage = S == 2 ? km.andi(t, km.i32(1)) : km.i32(0);
    // Visit t has landed; the barrier also retires every read of the other
    // stage and of dSᵀ by the previous visit.
    waitCopies(km, firstGroup, 0);
    gpu::BarrierOp::create(b, loc);
    Value next = km.add(t, km.i32(1));
    // Visit t + 1 into the free stage (one stage: into this visit's, once
    // its products have read Q_i, dO_i, the shift and Δ; below).
    auto issueNext = [&] {
      auto ifNext = scf::IfOp::create(b, loc, km.cmp(P::slt, next, total),
                                      /*withElseRegion=*/false);
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPoint(ifNext.thenBlock()->getTerminator());
        issueVisit(copier, next, S == 2 ? km.sub(km.i32(1), stage) : stage);
      }
      commitCopies(km);
    };
    if (S == 2)
      issueNext();

    Visit v = visitOf(t);
    Value tileOffset = km.mul(stage, km.i32(Br * D));
    SharedTile qTile{sharedQ, tileOffset, D}, doTile{sharedDO, tileOffset, D};
    // The B operands of dK += dSᵀ·Q_i and dV += Pᵀ·dO_i: the warp's columns
    // (a multiple of 64 from the row start, which keeps the swizzle).
    SharedTile qColumns = qTile, doColumns = doTile;
    if (exchange) {
      Value columnBase =
          km.add(tileOffset, km.mul(gradColumnGroupOf(warp),
                                    km.i32(gradColumns)));
      qColumns.base = doColumns.base = columnBase;
    }
    SharedTile kWarp{sharedK, kWarpBase, D}, vWarp{sharedV, kWarpBase, D};
    SharedTile kAll{sharedK, km.i32(0), D};
    SharedTile dsAll{sharedDS, km.i32(0), dsRow};

    Fragment probs;
    SmallVector<Value> probPairs, gradPairs;
    // dV += Pᵀ·dO_i, dK += dSᵀ·Q_i. With atomics they come after the
    // barrier that publishes dSᵀ: ptxas sinks MMAs that feed nothing before
    // a barrier past it, with every B fragment loaded above it held in
    // registers across (128 at D = 128), which spilled.
    auto gradientProducts = [&] {
      gemmPackedByRows(dV, probPairs, doColumns, Br);
      gemmPackedByRows(dK, gradPairs, qColumns, Br);
    };
    // Packed pairs of the warp's rows to the dSᵀ tile: pair (row g + 8·half,
    // column tile nt) goes to chunk (chunkBase + nt) ^ g of its row (by the
    // first warp of the rows where two share them); chunkBase Br/8 is the
    // exchange tile's Pᵀ half at D = 256.
    auto storePairs = [&](ArrayRef<Value> pairs, int64_t chunkBase) {
      for (int64_t nt = 0; nt < Br / 8; ++nt)
        for (int64_t half = 0; half < 2; ++half) {
          Value row = km.add(warpRows, km.add(coords.group, km.i32(8 * half)));
          Value element = km.add(
              km.mul(row, km.i32(dsRow)),
              km.add(km.mul(km.xori(coords.group, km.i32(chunkBase + nt)),
                            km.i32(8)),
                     km.mul(coords.quadLane, km.i32(2))));
          memref::StoreOp::create(
              b, loc, km.pairWord(pairs[nt * 2 + half]), sharedDSWords,
              ValueRange{km.toIndex(km.shru(element, km.i32(1)))});
        }
    };
    if (exchange) {
      // D = 256: warps [0, rowGroups) compute Sᵀ and Pᵀ of their row
      // group's 16 keys × Br queries, warps [rowGroups, warps) dPᵀ − Δ of
      // the same keys (each product once, 16 × Br per warp: 3 ldmatrix per 4
      // mma.sync). The first write Pᵀ to the exchange tile (chunks [Br/8,
      // Br/4) of the rows) and in f32 to the probs tile; after a barrier
      // the second form dSᵀ = Pᵀ∘(dPᵀ − Δ) and write it (chunks [0, Br/8));
      // after another every warp multiplies its 32 keys × 64 columns of dV
      // and dK, A by ldmatrix from the exchange tile.
      const int64_t nRegs = 4 * (Br / 8);
      AccumulatorLayout layout = AccumulatorLayout::mmaQuad(1, Br / 8);
      Value computesScores = km.cmp(P::ult, warp, km.i32(rowGroups));
      Value column0 = km.add(km.mul(stage, km.i32(Br)),
                             km.mul(coords.quadLane, km.i32(2)));
      Value columnIndex0 = km.toIndex(column0);
      auto columnValues = [&](Value shared) {
        SmallVector<Value> values;
        for (int64_t c = 0; c < layout.columnsPerRow; ++c) {
          Value index = arith::AddIOp::create(
              b, loc, columnIndex0, km.index(layout.columnOffset(c)));
          values.push_back(memref::LoadOp::create(b, loc, shared, index));
        }
        return values;
      };
      // Register r of the row group's Pᵀ, lane l: [rowGroup][r][l] (f32).
      Value probsLane0 = km.toIndex(km.add(
          km.mul(rowGroupOf(warp), km.i32(nRegs * 32)), lane));
      auto probsIndex = [&](int64_t r) {
        return arith::AddIOp::create(b, loc, probsLane0, km.index(r * 32))
            .getResult();
      };
      SmallVector<Type> types(nRegs, b.getF32Type());
      auto ifRole = scf::IfOp::create(b, loc, types, computesScores, true);
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(ifRole.thenBlock());
        Fragment scores(1, Br / 8, km.f32(0.0));
        gemmRowsByCols(scores, kWarp, qTile, D);
        {
          auto ifMasked = scf::IfOp::create(
              b, loc, types, km.cmp(P::slt, v.tile, range.firstUnmasked), true);
          OpBuilder::InsertionGuard masking(b);
          b.setInsertionPointToStart(ifMasked.thenBlock());
          Fragment masked = scores;
          buildKeyRowMask(km, masked, coords, keyRowBase, v.qStart, seqQ,
                          seqKV, config.causal);
          scf::YieldOp::create(b, loc, masked.regs);
          b.setInsertionPointToStart(ifMasked.elseBlock());
          scf::YieldOp::create(b, loc, scores.regs);
          scores.regs.assign(ifMasked.getResults().begin(),
                             ifMasked.getResults().end());
        }
        Fragment p = buildRecomputedProbs(km, scores, columnValues(sharedShift),
                                          /*perColumn=*/true, scaleLog2e);
        for (int64_t r = 0; r < nRegs; ++r)
          memref::StoreOp::create(b, loc, p.regs[r], sharedProbs,
                                  ValueRange{probsIndex(r)});
        storePairs(buildPackFragment(km, p, et), Br / 8);
        scf::YieldOp::create(b, loc, p.regs);
        b.setInsertionPointToStart(ifRole.elseBlock());
        Fragment g(1, Br / 8, km.f32(0.0));
        SmallVector<Value> deltas = columnValues(sharedDelta);
        for (int64_t r = 0; r < g.layout.rowsPerThread; ++r)
          for (int64_t c = 0; c < g.layout.columnsPerRow; ++c)
            g.reg(r, c) = arith::NegFOp::create(b, loc, deltas[c]);
        gemmRowsByCols(g, vWarp, doTile, D);
        scf::YieldOp::create(b, loc, g.regs);
      }
      gpu::BarrierOp::create(b, loc);
      {
        auto ifGrad = scf::IfOp::create(
            b, loc, TypeRange{}, km.cmp(P::uge, warp, km.i32(rowGroups)),
            false);
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPoint(ifGrad.thenBlock()->getTerminator());
        Fragment p(1, Br / 8, km.f32(0.0)), g(1, Br / 8, km.f32(0.0));
        for (int64_t r = 0; r < nRegs; ++r)
          p.regs[r] = memref::LoadOp::create(b, loc, sharedProbs,
                                             ValueRange{probsIndex(r)});
        g.regs.assign(ifRole.getResults().begin(), ifRole.getResults().end());
        Fragment ds = buildScoreGradient(km, p, g, {}, /*perColumn=*/true);
        storePairs(buildPackFragment(km, ds, et), 0);
      }
      gpu::BarrierOp::create(b, loc);
      // dV += Pᵀ·dO_i, dK += dSᵀ·Q_i over the warp's 32 keys × 64
      // columns, A by ldmatrix from the exchange tile.
      SharedTile exchangeRows{
          sharedDS, km.mul(keyGroupOf(warp), km.i32(32 * dsRow)), dsRow};
      gemmSharedByRows(dV, exchangeRows, Br, doColumns, Br);
      gemmSharedByRows(dK, exchangeRows, 0, qColumns, Br);
      if (S == 1) {
        // One stage: every read of Q_i, dO_i, the shift and Δ is done after
        // this barrier; visit t + 1 loads during dQ_i += dS·K_j (which
        // reads only the exchange tile and K_j).
        gpu::BarrierOp::create(b, loc);
        issueNext();
      }
    }

    if (!exchange) {
      // Sᵀ = K_j·Q_iᵀ (16 keys × Br queries per warp).
      Fragment scores(1, Br / 8, km.f32(0.0));
      gemmRowsByCols(scores, kWarp, qTile, D);
      // Tiles crossing the diagonal, or a ragged K/V tile: mask (uniform).
      {
        SmallVector<Type> types(scores.regs.size(), b.getF32Type());
        auto ifMasked = scf::IfOp::create(
            b, loc, types, km.cmp(P::slt, v.tile, range.firstUnmasked), true);
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(ifMasked.thenBlock());
        Fragment masked = scores;
        buildKeyRowMask(km, masked, coords, keyRowBase, v.qStart, seqQ, seqKV,
                        config.causal);
        scf::YieldOp::create(b, loc, masked.regs);
        b.setInsertionPointToStart(ifMasked.elseBlock());
        scf::YieldOp::create(b, loc, scores.regs);
        scores.regs.assign(ifMasked.getResults().begin(),
                           ifMasked.getResults().end());
      }
      // The columns' shift, then Δ (queries 2t + columnOffset(c) of the
      // tile), each read from shared memory where it is used: the 16 Δ of a
      // thread are not live across the dPᵀ product.
      Value column0 =
          km.add(km.mul(stage, km.i32(Br)), km.mul(coords.quadLane, km.i32(2)));
      Value columnIndex0 = km.toIndex(column0);
      auto columnValues = [&](Value shared) {
        SmallVector<Value> values;
        for (int64_t c = 0; c < scores.layout.columnsPerRow; ++c) {
          Value index = arith::AddIOp::create(
              b, loc, columnIndex0, km.index(scores.layout.columnOffset(c)));
          values.push_back(memref::LoadOp::create(b, loc, shared, index));
        }
        return values;
      };
      probs = buildRecomputedProbs(km, scores, columnValues(sharedShift),
                                            /*perColumn=*/true, scaleLog2e);
      probPairs = buildPackFragment(km, probs, et);
      // (Without atomics: dV += Pᵀ·dO_i here, the packed Pᵀ dead before dPᵀ
      // is live.)
      if (config.deterministic)
        gemmPackedByRows(dV, probPairs, doColumns, Br);
      // dPᵀ − Δ = V_j·dO_iᵀ accumulated onto −Δ (no Δ live across the
      // product); dSᵀ = Pᵀ∘(dPᵀ − Δ).
      Fragment probsGrad(1, Br / 8, km.f32(0.0));
      {
        SmallVector<Value> deltas = columnValues(sharedDelta);
        for (int64_t r = 0; r < probsGrad.layout.rowsPerThread; ++r)
          for (int64_t c = 0; c < probsGrad.layout.columnsPerRow; ++c)
            probsGrad.reg(r, c) = arith::NegFOp::create(b, loc, deltas[c]);
      }
      gemmRowsByCols(probsGrad, vWarp, doTile, D);
      Fragment scoresGrad = buildScoreGradient(km, probs, probsGrad, {},
                                               /*perColumn=*/true);
      gradPairs = buildPackFragment(km, scoresGrad, et);
      if (config.deterministic)
        gemmPackedByRows(dK, gradPairs, qColumns, Br);
    }

    if (!config.deterministic) {
      // dSᵀ to shared memory (storePairs), chunk nt ^ (row & 7) = nt ^ g.
      if (!exchange) {
        storePairs(gradPairs, 0);
        gpu::BarrierOp::create(b, loc);
        gradientProducts();
      }
      // D = 256 with Q tiles of 64 rows (exchange): warp w multiplies 32
      // query rows × 64 columns of dQ (rows 32·(w mod Br/32), columns
      // 64·(w / (Br/32))): per k-step 2 ldmatrix of dS, then one of K per
      // 16 columns for 4 mma.sync, where 16 rows × 2 chunks of 64 columns
      // take 1 of dS per chunk (FlashAttention-2's dQ partition; 192
      // ldmatrix.x4 a block per visit in one pass, 256 in two, against 320).
      const bool rowPairDQ =
          exchange && Br >= 64 && D * (Br / 32) == 64 * warps;
      if (rowPairDQ) {
        buildRowPairDQ(dsAll, kAll, accumPtr, v.bh, padded, v.qStart, Br, Bc);
      } else {
        // dQ_i += dS·K_j: Br/16 m-tiles × D columns over the warps (warp w:
        // m-tile w % (Br/16), a 1/(warps / (Br/16)) share of the columns),
        // 64 columns at a time, added to dQaccum with f32 atomics.
        const int64_t mTiles = Br / 16;
        const int64_t columnGroups = warps / mTiles;
        const int64_t columnsPerWarp = D / columnGroups;
        const int64_t chunkColumns = std::min<int64_t>(64, columnsPerWarp);
        Value mTile = km.andi(warp, km.i32(mTiles - 1));
        Value warpColumn0 = km.mul(km.shru(warp, km.i32(llvm::Log2_64(mTiles))),
                                   km.i32(columnsPerWarp));
        Value warpChunk0 = km.shru(warpColumn0, km.i32(3));
        // The warp's first C tile in fragment order: its 16 rows' block,
        // 8-column tile warpColumn0 / 8, this lane.
        Value accumLane0 = km.add(
            km.mul(km.toIndex(km.add(km.add(km.mul(v.bh, padded), v.qStart),
                                     km.mul(mTile, km.i32(16)))),
                   km.index(D)),
            km.toIndex(km.add(km.mul(warpColumn0, km.i32(16)), lane)));
        // One chunk of chunkColumns columns from 16-byte chunk `chunkBase` of
        // the rows (a multiple of 8 where the warp's columns are whole 64s),
        // its atomics at `accumBase`.
        auto dqChunk = [&](Value chunkBase, Value accumBase) {
          Fragment dq(1, chunkColumns / 8, km.f32(0.0));
          for (int64_t kk = 0; kk < Bc / 16; ++kk) {
            // A = dS (queries × keys) from dSᵀ [keys][queries], transposed.
            Pairs aFrag = loadAtChunk(dsAll, rowsByBit4, kk * 16,
                                      km.mul(mTile, km.i32(2)),
                                      /*transpose=*/true);
            for (int64_t np = 0; np < chunkColumns / 16; ++np) {
              // The warp's columns start at a multiple of 8 chunks (64
              // columns) or not (32 columns at D = 64 with 8 warps).
              Pairs bFrag =
                  columnsPerWarp % 64 == 0
                      ? load(kAll, rowsByBit3, kk * 16, chunkBase, np * 2,
                             /*transpose=*/true)
                      : loadAtChunk(kAll, rowsByBit3, kk * 16,
                                    km.add(chunkBase, km.i32(np * 2)),
                                    /*transpose=*/true);
              for (int64_t half = 0; half < 2; ++half)
                mmaSyncInto(km, et, dq, 0, 2 * np + half, aFrag,
                            ArrayRef<Value>(bFrag).slice(2 * half, 2));
            }
          }
          // One atomic instruction per (8-column tile, row half, column
          // parity): 32 lanes on 32 consecutive floats, one 128-byte line.
          // Rows past Nq land in the padding, which convert does not read.
          for (int64_t nt = 0; nt < dq.nTiles; ++nt)
            for (int64_t r = 0; r < 2; ++r)
              for (int64_t e = 0; e < 2; ++e)
                atomicAdd(accumPtr, accumBase, nt * 128 + (2 * r + e) * 32,
                          dq.reg(r, 2 * nt + e));
        };
        const int64_t chunks = columnsPerWarp / chunkColumns;
        if (chunks == 1) {
          dqChunk(warpChunk0, accumLane0);
        } else {
          // Several chunks (4 warps at D = 128): a loop, so that ptxas does
          // not interleave them and hold every chunk's accumulator at once.
          auto chunkLoop =
              scf::ForOp::create(b, loc, km.i32(0), km.i32(chunks), km.i32(1));
          OpBuilder::InsertionGuard inner(b);
          b.setInsertionPointToStart(chunkLoop.getBody());
          Value ch = chunkLoop.getInductionVar();
          dqChunk(km.add(warpChunk0, km.mul(ch, km.i32(chunkColumns / 8))),
                  km.add(accumLane0, km.toIndex(km.mul(
                                         ch, km.i32(chunkColumns / 8 * 128)))));
        }
      }
    }
    SmallVector<Value> yields(dK.regs);
    yields.append(dV.regs.begin(), dV.regs.end());
    scf::YieldOp::create(b, loc, yields);
  }
  Fragment dK = dK0, dV = dV0;
  dK.regs.assign(loop.getResults().begin(),
                 loop.getResults().begin() + dK0.regs.size());
  dV.regs.assign(loop.getResults().begin() + dK0.regs.size(),
                 loop.getResults().end());
  waitCopies(km, firstGroup, 0);
  // dK = scale·Σ dSᵀ·Q, dV = Σ Pᵀ·dO, for keys below Nk; the coordinates
  // and the K/V rows' base read again (nothing but dK, dV live across the
  // loop for the epilogue).
  threadCoordinates(readSpecial("%tid.x"));
  Value tileAfter, headAfter, batchAfter;
  blockCoordinates(tileAfter, headAfter, batchAfter, kvHeads,
                   [&](gpu::Dimension d) {
                     return readSpecial(d == gpu::Dimension::x   ? "%ctaid.x"
                                        : d == gpu::Dimension::y ? "%ctaid.y"
                                                                 : "%ctaid.z");
                   });
  Value keyRowBase =
      km.add(km.mul(tileAfter, km.i32(Bc)),
             exchange ? km.mul(keyGroupOf(warp), km.i32(32))
                      : km.mul(rowGroupOf(warp), km.i32(16)));
  if (!config.strided) {
    Value kvBaseAfter = km.toIndex(km.mul(
        km.mul(km.add(km.mul(batchAfter, kvHeads), headAfter), seqKV),
        km.i32(D)));
    if (exchange)
      kvBaseAfter = arith::AddIOp::create(
          b, loc, kvBaseAfter,
          km.toIndex(km.mul(gradColumnGroupOf(warp), km.i32(gradColumns))));
    buildStoreFragment(km, dK, scale, et, coords, keyRowBase, seqKV, D,
                       globalDK, kvBaseAfter);
    buildStoreFragment(km, dV, Value(), et, coords, keyRowBase, seqKV, D,
                       globalDV, kvBaseAfter);
  } else {
    // dK and dV each with their own strides (rows stride2 apart).
    Value columns =
        exchange ? km.mul(gradColumnGroupOf(warp), km.i32(gradColumns))
                 : Value();
    auto baseOf = [&](const std::array<Value, 3> &s) {
      Value base = headBase(s, batchAfter, headAfter);
      return columns ? arith::AddIOp::create(b, loc, base, km.toIndex(columns))
                           .getResult()
                     : base;
    };
    buildStoreFragment(km, dK, scale, et, coords, keyRowBase, seqKV, D,
                       globalDK, baseOf(dkStrides), dkStrides[2]);
    buildStoreFragment(km, dV, Value(), et, coords, keyRowBase, seqKV, D,
                       globalDV, baseOf(dvStrides), dvStrides[2]);
  }
  gpu::ReturnOp::create(b, loc);
}

void SM80BackwardBuilder::buildRowPairDQ(const SharedTile &dsAll,
                                         const SharedTile &kAll,
                                         Value accumPtr, Value bh,
                                         Value padded, Value qStart,
                                         int64_t Br, int64_t Bc) {
  const int64_t rowParts = Br / 32, columns = 64;
  // Two stages: 32 columns a pass, two passes (a loop); one stage: 64 in
  // one. Measured on the H200 (docs/benchmarks.md, eighteenth session): the
  // two-stage plan ran 3-7% faster than the 16-row partition with two
  // passes, and with one 1-2% slower (non-causal) to 1-3% faster (causal):
  // ptxas spilled up to 32 bytes there with one; the one-stage plan ran
  // 1-4% faster with one pass (two were not timed there).
  const int64_t passColumns = config.stages == 2 ? 32 : 64;
  Value rowPart = km.andi(warp, km.i32(rowParts - 1));
  Value columnGroup = km.shru(warp, km.i32(llvm::Log2_64(rowParts)));
  // The warp's columns: a whole 8 chunks from the row start (the swizzle's
  // period), so B's chunk constants land in the immediate offsets.
  Value chunkBase = km.mul(columnGroup, km.i32(columns / 8));
  // Fragment order (BackwardKernel.h): the C tile (m-tile mt, 8-column tile
  // nt) of the warp at 16·(2·rowPart + mt)·D + 128·(8·columnGroup + nt);
  // one atomic instruction per (tile, row half, column parity) on one
  // 128-byte line. Rows past Nq land in the padding.
  auto pass = [&](Value passChunk, Value accumBase) {
    Fragment dq(2, passColumns / 8, km.f32(0.0));
    for (int64_t kk = 0; kk < Bc / 16; ++kk) {
      // A = dS (queries × keys) from dSᵀ [keys][queries], transposed: the
      // warp's two m-tiles, chunks 4·rowPart and 4·rowPart + 2.
      SmallVector<Pairs> aFrags;
      for (int64_t mt = 0; mt < 2; ++mt)
        aFrags.push_back(loadAtChunk(
            dsAll, rowsByBit4, kk * 16,
            km.add(km.mul(rowPart, km.i32(4)), km.i32(2 * mt)),
            /*transpose=*/true));
      for (int64_t np = 0; np < passColumns / 16; ++np) {
        Pairs bFrag =
            passChunk ? loadAtChunk(kAll, rowsByBit3, kk * 16,
                                    km.add(passChunk, km.i32(np * 2)),
                                    /*transpose=*/true)
                      : load(kAll, rowsByBit3, kk * 16, chunkBase, np * 2,
                             /*transpose=*/true);
        for (int64_t mt = 0; mt < 2; ++mt)
          for (int64_t half = 0; half < 2; ++half)
            mmaSyncInto(km, et, dq, mt, 2 * np + half, aFrags[mt],
                        ArrayRef<Value>(bFrag).slice(2 * half, 2));
      }
    }
    for (int64_t mt = 0; mt < 2; ++mt)
      for (int64_t nt = 0; nt < passColumns / 8; ++nt)
        for (int64_t r = 0; r < 2; ++r)
          for (int64_t e = 0; e < 2; ++e)
            atomicAdd(accumPtr, accumBase,
                      mt * 16 * D + nt * 128 + (2 * r + e) * 32,
                      dq.reg(2 * mt + r, 2 * nt + e));
  };
  Value accumBase = km.add(
      km.mul(km.toIndex(km.add(km.add(km.mul(bh, padded), qStart),
                               km.mul(rowPart, km.i32(32)))),
             km.index(D)),
      km.toIndex(km.add(km.mul(columnGroup, km.i32(columns * 16)), lane)));
  if (passColumns == columns) {
    pass(Value(), accumBase);
    return;
  }
  auto passLoop = scf::ForOp::create(b, loc, km.i32(0),
                                     km.i32(columns / passColumns), km.i32(1));
  OpBuilder::InsertionGuard inner(b);
  b.setInsertionPointToStart(passLoop.getBody());
  Value p = passLoop.getInductionVar();
  pass(km.add(chunkBase, km.mul(p, km.i32(passColumns / 8))),
       km.add(accumBase, km.toIndex(km.mul(p, km.i32(passColumns / 8 * 128)))));
}

//===----------------------------------------------------------------------===//
// dQ (deterministic): one block per Q tile over the K/V tiles it sees
//===----------------------------------------------------------------------===//

void SM80BackwardBuilder::buildDQ(gpu::GPUFuncOp func) {
  using P = arith::CmpIPredicate;
  const int64_t Br = kDQBlockQ, Bc = backwardDQBlockKV(config),
                threads = 32 * kDQWarps;
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  ValueRange args = entry.getArguments();
  Value globalQ = buildFlatGlobalMemref(km, args[0], et);
  Value globalK = buildFlatGlobalMemref(km, args[1], et);
  Value globalV = buildFlatGlobalMemref(km, args[2], et);
  Value globalDO = buildFlatGlobalMemref(km, args[3], et);
  Value globalShift = buildFlatGlobalMemref(km, args[4], b.getF32Type());
  Value globalDelta = buildFlatGlobalMemref(km, args[5], b.getF32Type());
  Value globalDQ = buildFlatGlobalMemref(km, args[6], b.getI32Type());
  Value queryHeads = args[8], kvHeads = args[9], seqQ = args[10],
        seqKV = args[11], scale = args[12];
  // The strided form: q, k, v, dO, dQ strides.
  unsigned a = 13;
  std::array<Value, 3> qStrides = strideArgs(args, a),
                       kStrides = strideArgs(args, a),
                       vStrides = strideArgs(args, a),
                       doStrides = strideArgs(args, a),
                       dqStrides = strideArgs(args, a);
  Value scaleLog2e = arith::MulFOp::create(b, loc, scale, km.f32(M_LOG2E));

  // Shared memory: Q[Br][D] | dO[Br][D] | K[2][Bc][D] | V[2][Bc][D].
  int64_t eb = et.getIntOrFloatBitWidth() / 8;
  Value smem = dynamicShared();
  Value sharedQ = sharedView(smem, 0, Br * D, et);
  Value sharedDO = sharedView(smem, eb * Br * D, Br * D, et);
  Value sharedK = sharedView(smem, eb * 2 * Br * D, 2 * Bc * D, et);
  Value sharedV = sharedView(smem, eb * (2 * Br + 2 * Bc) * D, 2 * Bc * D, et);

  threadCoordinates();
  // Causal Q tiles further down see more K/V tiles: run them first.
  Value qTile = blockId(gpu::Dimension::x);
  if (config.causal)
    qTile = km.sub(
        km.sub(asI32(gpu::GridDimOp::create(b, loc, gpu::Dimension::x)),
               km.i32(1)),
        qTile);
  Value qHead = blockId(gpu::Dimension::y);
  Value batch = blockId(gpu::Dimension::z);
  Value kvHead = km.divu(qHead, km.divu(queryHeads, kvHeads));
  Value bh = km.add(km.mul(batch, queryHeads), qHead);
  Value qBase, doBase, dqBase, kBase, vBase;
  if (!config.strided) {
    qBase = doBase = dqBase = km.toIndex(km.mul(km.mul(bh, seqQ), km.i32(D)));
    kBase = vBase = km.toIndex(km.mul(
        km.mul(km.add(km.mul(batch, kvHeads), kvHead), seqKV), km.i32(D)));
  } else {
    qBase = headBase(qStrides, batch, qHead);
    doBase = headBase(doStrides, batch, qHead);
    dqBase = headBase(dqStrides, batch, qHead);
    kBase = headBase(kStrides, batch, kvHead);
    vBase = headBase(vStrides, batch, kvHead);
  }
  Value qStart = km.mul(qTile, km.i32(Br));
  Value warpRows = km.mul(warp, km.i32(16));
  Value rowBase = km.add(qStart, warpRows);
  KVRange range = buildKVRange(km, qStart, seqQ, seqKV, Br, Bc, config.causal);

  TileCopier copier = makeTileCopier(km, tid, D, threads);
  auto issueKV = [&](Value j, Value stage, bool fastPath) {
    Value offset = km.mul(stage, km.i32(Bc * D));
    Value start = km.mul(j, km.i32(Bc));
    copier.copy(km, globalK, kBase, start, seqKV, sharedK, offset, Bc,
                fastPath, kStrides[2]);
    copier.copy(km, globalV, vBase, start, seqKV, sharedV, offset, Bc,
                fastPath, vStrides[2]);
  };
  copier.copy(km, globalQ, qBase, qStart, seqQ, sharedQ, km.i32(0), Br,
              /*fullTileFastPath=*/false, qStrides[2]);
  copier.copy(km, globalDO, doBase, qStart, seqQ, sharedDO, km.i32(0), Br,
              /*fullTileFastPath=*/false, doStrides[2]);
  issueKV(km.i32(0), km.i32(0), false);
  Value firstGroup = commitCopies(km);

  // The rows' shift and Δ (padded workspaces: in bounds).
  Value padded = paddedRows(seqQ);
  SmallVector<Value> shifts, deltas;
  for (int64_t r = 0; r < 2; ++r) {
    Value row = km.add(rowBase, km.add(coords.group, km.i32(8 * r)));
    Value index = km.toIndex(km.add(km.mul(bh, padded), row));
    shifts.push_back(memref::LoadOp::create(b, loc, globalShift, index));
    deltas.push_back(memref::LoadOp::create(b, loc, globalDelta, index));
  }

  SharedTile qWarp{sharedQ, km.mul(warpRows, km.i32(D)), D};
  SharedTile doWarp{sharedDO, km.mul(warpRows, km.i32(D)), D};
  auto kvLoop = [&](Value lb, Value ub, const Fragment &dq0, bool masked) {
    auto loop = scf::ForOp::create(b, loc, lb, ub, km.i32(1), dq0.regs);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value j = loop.getInductionVar();
    Fragment dq = dq0;
    dq.regs.assign(loop.getRegionIterArgs().begin(),
                   loop.getRegionIterArgs().end());
    Value stage = km.andi(j, km.i32(1));
    waitCopies(km, firstGroup, 0);
    gpu::BarrierOp::create(b, loc);
    Value next = km.add(j, km.i32(1));
    auto ifNext = scf::IfOp::create(b, loc, km.cmp(P::slt, next, range.numTiles),
                                    /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPoint(ifNext.thenBlock()->getTerminator());
      issueKV(next, km.sub(km.i32(1), stage), true);
    }
    commitCopies(km);
    Value tileOffset = km.mul(stage, km.i32(Bc * D));
    SharedTile kTile{sharedK, tileOffset, D}, vTile{sharedV, tileOffset, D};
    // S = Q·K_jᵀ, P from the LSE, dP = dO·V_jᵀ, dS = P∘(dP − Δ).
    Fragment scores(1, Bc / 8, km.f32(0.0));
    gemmRowsByCols(scores, qWarp, kTile, D);
    if (masked)
      buildFragmentMask(km, scores, coords, km.mul(j, km.i32(Bc)), seqQ, seqKV,
                        rowBase, config.causal);
    Fragment probs = buildRecomputedProbs(km, scores, shifts,
                                          /*perColumn=*/false, scaleLog2e);
    Fragment probsGrad(1, Bc / 8, km.f32(0.0));
    gemmRowsByCols(probsGrad, doWarp, vTile, D);
    Fragment scoresGrad = buildScoreGradient(km, probs, probsGrad, deltas,
                                             /*perColumn=*/false);
    // dQ += dS·K_j.
    gemmPackedByRows(dq, buildPackFragment(km, scoresGrad, et), kTile, Bc);
    scf::YieldOp::create(b, loc, dq.regs);
    Fragment out = dq0;
    out.regs.assign(loop.getResults().begin(), loop.getResults().end());
    return out;
  };
  Fragment dq0(1, D / 8, km.f32(0.0));
  Fragment dq1 = kvLoop(km.i32(0), range.numUnmasked, dq0, /*masked=*/false);
  Fragment dq2 = kvLoop(range.numUnmasked, range.numTiles, dq1,
                        /*masked=*/true);
  waitCopies(km, firstGroup, 0);
  buildStoreFragment(km, dq2, scale, et, coords, rowBase, seqQ, D, globalDQ,
                     dqBase, dqStrides[2]);
  gpu::ReturnOp::create(b, loc);
}

//===----------------------------------------------------------------------===//

void sm80::buildBackwardKernel(OpBuilder &b, Location loc,
                               const KernelConfig &config,
                               const BackwardLaunch &launch) {
  MLIRContext *ctx = b.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx, 1);
  SmallVector<Type> types;
  for (StringRef arg : launch.args) {
    StringRef type = arg.split(':').second;
    types.push_back(type == "ptr"   ? Type(ptr)
                    : type == "i32" ? Type(b.getI32Type())
                                    : Type(b.getF32Type()));
  }
  auto func = gpu::GPUFuncOp::create(b, loc, launch.name,
                                     FunctionType::get(ctx, types, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  int32_t threads = launch.threads;
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({threads, 1, 1}));
  func->setAttr("nvvm.maxntid", b.getDenseI32ArrayAttr({threads, 1, 1}));
  // The main kernel: its registers (dK, dV of 16 rows per warp) allow one
  // block of 8 warps or two of 4 per SM whatever ptxas does
  // (.minnctapersm 1); without it ptxas may cap them for an occupancy of
  // three blocks of 4 warps, and spill (4 bytes at D = 64).
  if (launch.role == BackwardLaunch::Role::Main)
    func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  b.getI32IntegerAttr(1));
  OpBuilder::InsertionGuard guard(b);
  SM80BackwardBuilder builder(b, loc, config);
  builder.semaphoresPerRowBlock = launch.semaphoresPerRowBlock;
  builder.swizzledAccumulator = launch.swizzledAccumulator;
  builder.pairedAccumulator = launch.pairedAccumulator;
  builder.blockedAccumulator = launch.blockedAccumulator;
  builder.launchesDependents = launch.launchesDependents;
  builder.loadPasses = launch.loadPasses;
  builder.zeroesHeadCounters = launch.zeroesHeadCounters;
  builder.waitsForHeadsOfKVRows = launch.waitsForHeadsOfKVRows;
  switch (launch.role) {
  case BackwardLaunch::Role::Preprocess:
    builder.buildPreprocess(func);
    break;
  case BackwardLaunch::Role::Main:
    builder.buildMain(func);
    break;
  case BackwardLaunch::Role::Convert:
    builder.buildConvert(func);
    break;
  case BackwardLaunch::Role::DQ:
    builder.buildDQ(func);
    break;
  }
}

LogicalResult mlir::flash::buildSM80BackwardKernels(OpBuilder &b, Location loc,
                                                    const KernelConfig &config) {
  for (const BackwardLaunch &launch : backwardLaunches(config))
    buildBackwardKernel(b, loc, config, launch);
  return success();
}
