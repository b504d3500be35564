//===- Schedule.cpp - IO-aware schedule and IO model ----------------------===//
//
// The FlashAttention paper sizes tiles from on-chip memory M (Bc = M/4d,
// Br = min(Bc, d)); real kernels are bound as much by registers, because the
// f32 accumulator and the score tile live there. This file states both
// bounds per target and picks the largest tiles that fit. It also holds the
// byte and FLOP counts of the IO report, so that the report and the
// selection reason with the same numbers.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/Transforms/Schedule.h"
#include "flash/Target/SM80Backward.h"
#include "llvm/Support/MathExtras.h"
#include "flash/Dialect/Flash/Transforms/VisibleKV.h"
#include "flash/Dialect/Flash/IR/Flash.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::flash;

AttentionShape mlir::flash::getAttentionShape(RankedTensorType q,
                                             RankedTensorType k,
                                             RankedTensorType v) {
  AttentionShape shape{};
  shape.batch = q.getShape()[0];
  shape.queryHeads = q.getShape()[1];
  shape.seqQ = q.getShape()[2];
  shape.headDim = q.getShape()[3];
  shape.kvHeads = k.getShape()[1];
  shape.seqKV = k.getShape()[2];
  shape.valueDim = v.getShape()[3];
  shape.elementBytes = q.getElementType().getIntOrFloatBitWidth() / 8;
  return shape;
}

/// What the passes need of an op's tensors: static shapes, and sizes that
/// the loop counters and the kernels' i32 arguments can hold.
static LogicalResult
checkCountableShapes(Operation *op,
                     ArrayRef<std::pair<StringRef, Type>> types) {
  for (auto [name, type] : types) {
    if (!cast<RankedTensorType>(type).hasStaticShape())
      return op->emitOpError() << "not supported yet: dynamic dimensions ("
                               << name << " is " << type << ")";
  }
  for (auto [name, type] : types) {
    auto shaped = cast<RankedTensorType>(type);
    if (llvm::any_of(shaped.getShape(),
                     [](int64_t d) { return d > int64_t(INT32_MAX); }))
      return op->emitOpError()
             << "not supported yet: a dimension above 2^31 - 1 (" << name
             << " is " << type << ")";
    if (shaped.getNumElements() > (int64_t(1) << 48))
      return op->emitOpError()
             << "not supported yet: more than 2^48 elements (" << name
             << " is " << type << ")";
  }
  return success();
}

FailureOr<AttentionShape> mlir::flash::getAttentionShape(AttentionOp op) {
  auto q = op.getQuery().getType(), k = op.getKey().getType(),
       v = op.getValue().getType();
  SmallVector<std::pair<StringRef, Type>> types = {
      {"query", q}, {"key", k}, {"value", v}, {"output", op.getOutput().getType()}};
  if (op.getLse())
    types.push_back({"lse", op.getLse().getType()});
  if (failed(checkCountableShapes(op, types)))
    return failure();
  AttentionShape shape = getAttentionShape(q, k, v);
  shape.causal = op.getCausal();
  shape.hasLse = static_cast<bool>(op.getLse());
  return shape;
}

FailureOr<AttentionShape>
mlir::flash::getAttentionShape(AttentionBackwardOp op) {
  auto q = op.getQuery().getType(), k = op.getKey().getType(),
       v = op.getValue().getType();
  SmallVector<std::pair<StringRef, Type>> types = {
      {"query", q},
      {"key", k},
      {"value", v},
      {"output", op.getOutput().getType()},
      {"grad_output", op.getGradOutput().getType()},
      {"lse", op.getLse().getType()},
      {"grad_query", op.getGradQuery().getType()},
      {"grad_key", op.getGradKey().getType()},
      {"grad_value", op.getGradValue().getType()}};
  if (failed(checkCountableShapes(op, types)))
    return failure();
  AttentionShape shape = getAttentionShape(q, k, v);
  shape.causal = op.getCausal();
  shape.hasLse = false;
  return shape;
}

int64_t mlir::flash::sharedMemoryBytes(const AttentionShape &shape,
                                       int64_t blockQ, int64_t blockKV,
                                       int64_t stages) {
  int64_t qTile = blockQ * shape.headDim;
  int64_t kvTile = blockKV * (shape.headDim + shape.valueDim);
  return (qTile + stages * kvTile) * shape.elementBytes;
}

/// Threads that hold accumulator rows: all warps on sm_80; the consumer
/// warpgroups (all but one producer warpgroup) on sm_90a and sm_100a.
static int64_t accumulatorThreads(const TargetModel &target,
                                  const ScheduleChoice &c) {
  if (target.mmaKind == MmaKind::WarpMma)
    return 32 * c.warps;
  return 32 * std::max<int64_t>(c.warps - 4, 4);
}

int64_t mlir::flash::estimateRegistersPerThread(const TargetModel &target,
                                                const AttentionShape &shape,
                                                const ScheduleChoice &c) {
  int64_t threads = accumulatorThreads(target, c);
  // f32 output accumulator: Br×Dv spread over the threads.
  int64_t acc = c.blockQ * shape.valueDim / threads;
  // f32 scores; on tensor-memory targets S and O live in TMEM.
  int64_t scores = c.blockQ * c.blockKV / threads;
  // wgmma takes P from registers as 16-bit operands while the next S is
  // being computed, so both are live (P is half the words of S). With
  // mma.sync, P is converted fragment by fragment in place of S.
  int64_t probs = target.mmaKind == MmaKind::WarpgroupMma ? scores / 2 : 0;
  // The sm_80 kernel keeps the warp's Q fragments in registers when they
  // take at most 32 words (16·mTiles rows × D halves per lane).
  int64_t queryFragments = 0;
  if (target.mmaKind == MmaKind::WarpMma) {
    int64_t mTiles = c.blockQ / (16 * c.warps);
    if (mTiles * shape.headDim / 4 <= 32)
      queryFragments = mTiles * shape.headDim / 4;
  }
  // Addresses, loop state, m and l, fragments of K/V in flight.
  constexpr int64_t kOverhead = 32;
  // sm_100a (SM100/ForwardKernel.cpp): O and S live in tensor memory; a
  // softmax thread holds its row of S (Bc f32) and of P (Bc/2 pairs). With
  // two tiles P goes out before the rescale and S's registers turn into
  // P's as the pairs are computed: the row of S is the peak.
  if (target.mmaKind == MmaKind::TensorMemoryMma)
    return c.blockQ > 128 ? c.blockKV + kOverhead
                          : c.blockKV + c.blockKV / 2 + kOverhead;
  return acc + scores + probs + queryFragments + kOverhead;
}

int64_t mlir::flash::registerBudgetPerThread(const TargetModel &target,
                                             const ScheduleChoice &c) {
  if (target.mmaKind == MmaKind::WarpMma)
    return target.maxRegistersPerThread;
  // Warp-specialised: one producer warpgroup keeps 24 registers (setmaxnreg),
  // the consumers share the rest of the register file, in steps of 8.
  int64_t consumers = accumulatorThreads(target, c);
  if (target.mmaKind == MmaKind::TensorMemoryMma && c.blockQ > 128) {
    // The sm_100a two-tile kernel's split: setmaxnreg moves registers
    // within the block's launch share (the cap of its 32·warps threads, a
    // multiple of 8: 128 × 512), so .inc never waits for registers no .dec
    // released. The correction warpgroup keeps kCorrectionRegisters, the
    // TMA and MMA warpgroup kTensorMemoryIssuerRegisters, the softmax
    // warpgroups (128 threads per tile) share the rest.
    int64_t threads = 32 * c.warps;
    int64_t perThread =
        std::min<int64_t>(target.registersPerSM / threads / 8 * 8, 248);
    return (perThread * threads -
            128 * (kCorrectionRegisters + kTensorMemoryIssuerRegisters)) /
           (128 * (c.blockQ / 128)) / 8 * 8;
  }
  int64_t perConsumer = (target.registersPerSM - 128 * 24) / consumers;
  perConsumer = perConsumer / 8 * 8;
  return std::min<int64_t>(perConsumer, 240);
}

int64_t mlir::flash::qTileRows(const TargetModel &target, int64_t blockQ) {
  if (target.mmaKind == MmaKind::TensorMemoryMma)
    return std::min<int64_t>(blockQ, 128);
  return blockQ;
}

int64_t mlir::flash::tensorMemoryColumnsForBlock(int64_t blockQ,
                                                 int64_t blockKV,
                                                 int64_t valueDim) {
  int64_t needed = blockQ > 128 ? (blockQ / 128) * (valueDim + blockKV)
                                : valueDim + blockKV + blockKV / 2;
  return std::max<int64_t>(32, int64_t(llvm::PowerOf2Ceil(needed)));
}

ScheduleCandidates mlir::flash::scheduleCandidates(const TargetModel &target) {
  ScheduleCandidates c;
  SmallVector<int64_t> &blockQs = c.blockQs, &blockKVs = c.blockKVs;
  int64_t &maxStages = c.maxStages, &minStages = c.minStages;
  switch (target.mmaKind) {
  case MmaKind::WarpMma:
    // Each warp owns 16·k query rows of the tile (mma.sync m16).
    blockQs = {16, 32, 64, 128};
    blockKVs = {16, 32, 64, 128};
    // The sm_80 kernel double-buffers K and V.
    minStages = 2;
    break;
  case MmaKind::WarpgroupMma:
    // Each consumer warpgroup owns 64 rows (wgmma m64). wgmma allows any N
    // that is a multiple of 16 up to 256; the K/V widths offered are the ones
    // the sm_90a kernel has been measured with on the H200 without spills
    // (docs/benchmarks.md). 80 is the widest that fits two stages at D=256
    // (FlashAttention-3 uses it there); 160 to 192 at D=128 measured no
    // faster than 128 at long sequences and slower at short ones. The
    // producer/consumer pipeline needs two stages.
    blockQs = {64, 128, 192};
    blockKVs = {64, 80, 128};
    minStages = 2;
    break;
  case MmaKind::TensorMemoryMma:
    // tcgen05 m128: the sm_100a kernel computes one 128-row Q tile per block
    // or two (256 rows, where their O and S fit tensor memory:
    // tensorMemoryColumnsForBlock).
    blockQs = {128, 256};
    blockKVs = {64, 128};
    maxStages = 3;
    minStages = 2;
    break;
  }
  return c;
}

int64_t mlir::flash::warpsForQTile(const TargetModel &target,
                                   int64_t blockQ) {
  switch (target.mmaKind) {
  case MmaKind::WarpMma:
    // FlashAttention-2's choice; 8 warps measured slower (fewer rows per warp).
    return 4;
  case MmaKind::WarpgroupMma:
    return 4 * (blockQ / 64 + 1); // consumers + one producer
  case MmaKind::TensorMemoryMma:
    // A softmax warpgroup per 128-row tile, a TMA warp and an MMA warp
    // (SM100/ForwardKernel.cpp); with two tiles a correction warpgroup
    // (O's rescale and the epilogue) and the TMA and MMA warps in a
    // warpgroup of their own (setmaxnreg acts on whole warpgroups).
    return blockQ <= 128 ? 6 : 4 * (blockQ / 128) + 8;
  }
  return 4;
}

std::optional<ScheduleChoice>
mlir::flash::chooseSchedule(const TargetModel &target,
                            const AttentionShape &shape) {
  ScheduleCandidates candidates = scheduleCandidates(target);
  ArrayRef<int64_t> blockQs = candidates.blockQs,
                    blockKVs = candidates.blockKVs;
  int64_t maxStages = candidates.maxStages, minStages = candidates.minStages;

  // Objective: Br·Bc / (Br + Bc). HBM traffic for K/V falls as 1/Br, and the
  // fixed cost per K/V step (barriers, the softmax's row reductions) as 1/Bc;
  // the harmonic form rewards balance. With mma.sync, each K/V fragment a
  // warp loads from shared memory feeds one MMA per 16-row tile the warp
  // owns, so shared-memory traffic per FLOP falls as 1/(rows per warp): the
  // objective is weighted by min(rows per warp / 16, 2) (measured on the
  // H200, docs/benchmarks.md: 128×64 with 4 warps beats 128×128 with 8 by
  // 20%). Where the target model has fitted weights (sm_90a), the harmonic
  // form becomes the inverse of the time of one (query, key) pair,
  // w·(D+Dv)/2 + u/C + 1/Br + 1/Bc: the MMA work, which makes the tile shape
  // matter less at large D, and the softmax share the other C − 1 consumer
  // warpgroups' GEMMs do not hide (TargetModel.h, docs/io-model.md). Ties go
  // to the larger Q tile, then to fewer warps.
  // (Targets without fitted weights keep the harmonic expression itself, not
  // its w = u = 0 equivalent, so that their ties compare exactly as before.)
  bool fitted = target.pairWorkWeight > 0.0 || target.softmaxPairWeight > 0.0;
  std::optional<ScheduleChoice> best;
  double bestScore = -1.0;
  for (int64_t blockQ : blockQs) {
    SmallVector<int64_t> warpCounts = {warpsForQTile(target, blockQ)};
    for (int64_t blockKV : blockKVs) {
      // Tensor memory holds O, S and P of each 128-row tile: one tile
      // where two do not fit (the sm_100a kernel's rule, 2·(Dv + Bc) within
      // the model's columns; tensorMemoryColumnsForBlock).
      if (target.tensorMemoryColumns &&
          tensorMemoryColumnsForBlock(blockQ, blockKV, shape.valueDim) >
              target.tensorMemoryColumns)
        continue;
      for (int64_t warps : warpCounts) {
        if (target.mmaKind == MmaKind::WarpMma && blockQ % (16 * warps) != 0)
          continue;
        ScheduleChoice choice{blockQ, blockKV, 0, warps,
                              qTileRows(target, blockQ)};
        if (estimateRegistersPerThread(target, shape, choice) >
            registerBudgetPerThread(target, choice))
          continue;
        for (int64_t stages = maxStages; stages >= minStages; --stages) {
          if (sharedMemoryBytes(shape, blockQ, blockKV, stages) >
              target.sharedMemPerBlock)
            continue;
          choice.stages = stages;
          double score =
              fitted
                  ? 1.0 / (target.pairWorkWeight *
                               double(shape.headDim + shape.valueDim) / 2.0 +
                           target.softmaxPairWeight /
                               double(std::max<int64_t>(blockQ / 64, 1)) +
                           1.0 / double(blockQ) + 1.0 / double(blockKV))
                  : double(blockQ * blockKV) / double(blockQ + blockKV);
          // Work on whole tiles: the share of the computed (query, key)
          // pairs that are visible. It charges the causal diagonal and the
          // sequence tails to the tiles that cause them, so short and causal
          // attention prefers smaller tiles than long attention.
          IOModel io = computeIOModel(shape, choice);
          if (io.executedFlops > 0)
            score *= double(io.usefulFlops) / double(io.executedFlops);
          if (target.mmaKind == MmaKind::WarpMma)
            score *= std::min<int64_t>(blockQ / (16 * warps), 2);
          bool better = score > bestScore ||
                        (score == bestScore &&
                         (blockQ > best->blockQ ||
                          (blockQ == best->blockQ && warps < best->warps)));
          if (better) {
            best = choice;
            bestScore = score;
          }
          break;
        }
      }
    }
  }
  return best;
}

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t mlir::flash::countVisiblePairs(const AttentionShape &shape) {
  // Nq·Nk, or with causal Σ_i clamp(i + off + 1, 0, Nk), summed in closed
  // form (rows before the first key: 0; then a ramp 1, 2, ... up to Nk; then
  // Nk per row).
  const int64_t causalOffset = shape.seqKV - shape.seqQ;
  int64_t visiblePairs = shape.seqQ * shape.seqKV;
  if (shape.causal) {
    int64_t firstRow = std::clamp<int64_t>(-causalOffset, 0, shape.seqQ);
    int64_t fullRow = std::clamp<int64_t>(shape.seqKV - causalOffset - 1, 0,
                                          shape.seqQ); // first row seeing Nk keys
    int64_t rampRows = std::max<int64_t>(fullRow - firstRow, 0);
    int64_t rampStart = firstRow + causalOffset + 1; // keys seen by firstRow
    visiblePairs = rampRows * rampStart + rampRows * (rampRows - 1) / 2 +
                   (shape.seqQ - std::max(fullRow, firstRow)) * shape.seqKV;
  }
  return shape.batch * shape.queryHeads * visiblePairs;
}

IOModel mlir::flash::computeIOModel(const AttentionShape &shape,
                                    const ScheduleChoice &s) {
  IOModel m{};
  const int64_t e = shape.elementBytes;
  const int64_t heads = shape.batch * shape.queryHeads;
  m.numQueryTiles = ceilDiv(shape.seqQ, s.blockQ);

  // K/V rows each Q tile reads: everything up to the last key its last row
  // sees (the same bound flash-tile puts on its K/V loop).
  // A block of several tiles (tileRows < blockQ) reads its last tile's
  // range and computes each tile's own: the FLOPs are counted per tile
  // (kvTiles in units of tileRows × Bc).
  int64_t tileRows = s.tileRows > 0 ? s.tileRows : s.blockQ;
  int64_t kvRows = 0, kvTiles = 0, blockKVTiles = 0;
  for (int64_t t = 0; t < m.numQueryTiles; ++t) {
    VisibleKVTiles<int64_t> visible =
        visibleKVTiles(t * s.blockQ, shape.seqQ, shape.seqKV, s.blockQ,
                       s.blockKV, shape.causal);
    kvRows += visible.kvEnd;
    blockKVTiles += visible.numTiles;
    if (tileRows == s.blockQ) {
      kvTiles += visible.numTiles;
      continue;
    }
    for (int64_t r = 0; r < s.blockQ; r += tileRows)
      kvTiles += visibleKVTiles(t * s.blockQ + r, shape.seqQ, shape.seqKV,
                                tileRows, s.blockKV, shape.causal)
                     .numTiles;
  }
  m.visitedKVTiles = heads * blockKVTiles;
  m.tiledBytesQ = heads * shape.seqQ * shape.headDim * e;
  m.tiledBytesKV = heads * kvRows * (shape.headDim + shape.valueDim) * e;
  m.tiledBytesO = heads * shape.seqQ * shape.valueDim * e;
  m.tiledBytesLse = shape.hasLse ? heads * shape.seqQ * 4 : 0;
  m.tiledBytes = m.tiledBytesQ + m.tiledBytesKV + m.tiledBytesO + m.tiledBytesLse;

  // Standard attention, three kernels: S = QKᵀ (read Q, K; write S),
  // P = softmax(S) (read S, write P), O = PV (read P, V; write O). S and P
  // are stored in the input element type; K and V are read once per q-head.
  int64_t scores = shape.seqQ * shape.seqKV;
  m.standardBytes =
      heads * e *
      (shape.seqQ * shape.headDim + shape.seqKV * shape.headDim + 4 * scores +
       shape.seqKV * shape.valueDim + shape.seqQ * shape.valueDim);
  if (shape.hasLse)
    m.standardBytes += heads * shape.seqQ * 4;

  m.usefulFlops =
      countVisiblePairs(shape) * 2 * (shape.headDim + shape.valueDim);
  m.executedFlops = heads * kvTiles * tileRows * s.blockKV * 2 *
                    (shape.headDim + shape.valueDim);
  m.sharedBytes = sharedMemoryBytes(shape, s.blockQ, s.blockKV, s.stages);
  return m;
}

KernelAttr mlir::flash::getForwardKernelDescriptor(AttentionOp op,
                                                   const AttentionShape &shape,
                                                   ScheduleAttr schedule) {
  MLIRContext *ctx = op.getContext();
  return KernelAttr::get(
      ctx, KernelKind::Forward, op.getQuery().getType().getElementType(),
      shape.batch, shape.queryHeads, shape.kvHeads, shape.seqQ, shape.seqKV,
      shape.headDim, shape.valueDim, shape.causal, shape.hasLse,
      FloatAttr::get(Float32Type::get(ctx), op.getEffectiveScale()), schedule,
      /*deterministic=*/false, /*page_size=*/0, /*max_splits=*/0,
      /*form=*/nullptr);
}

//===----------------------------------------------------------------------===//
// The backward
//===----------------------------------------------------------------------===//

int64_t mlir::flash::backwardSharedMemoryBytes(const AttentionShape &shape,
                                               int64_t blockQ, int64_t blockKV,
                                               int64_t stages) {
  const int64_t e = shape.elementBytes;
  int64_t kvTile = blockKV * (shape.headDim + shape.valueDim) * e;
  // Q and dO tiles with their LSE and D rows, `stages` of them in flight.
  int64_t qTile = blockQ * (shape.headDim + shape.valueDim) * e + 2 * blockQ * 4;
  // P (for dV += Pᵀ·dO) and dS (for dK += dSᵀ·Q and dQ += dS·K) in T.
  int64_t probs = 2 * blockQ * blockKV * e;
  return kvTile + stages * qTile + probs;
}

int64_t mlir::flash::estimateBackwardRegistersPerThread(
    const TargetModel &target, const AttentionShape &shape,
    const ScheduleChoice &c) {
  int64_t threads = accumulatorThreads(target, c);
  constexpr int64_t kOverhead = 32;
  // Tensor memory holds dK, dV, S and dP; the softmax pulls slices of S.
  if (target.mmaKind == MmaKind::TensorMemoryMma)
    return c.blockQ * c.blockKV / (4 * threads) + kOverhead;
  // f32 dK and dV accumulators (Bc×(D + Dv)) live through the whole Q loop;
  // at the peak of a step S (then P) and dP (then dS) are live beside them.
  // dQ's Br×D partial product comes after S and dP are dead.
  int64_t grads = c.blockKV * (shape.headDim + shape.valueDim) / threads;
  int64_t scores = 2 * c.blockQ * c.blockKV / threads;
  return grads + scores + kOverhead;
}

ScheduleCandidates
mlir::flash::backwardScheduleCandidates(const TargetModel &target,
                                        bool deterministic) {
  ScheduleCandidates c;
  switch (target.mmaKind) {
  case MmaKind::WarpMma:
    // FlashAttention-2's backward tiles on 8 warps (64 or 128 per side). The
    // sm_80 kernel (SM80/BackwardKernel.cpp) double-buffers Q and dO where
    // that fits; where 64-row Q tiles with two stages overflow an A100's
    // shared memory (D = 256) it takes them with one stage (as
    // FlashAttention-2's A100 build does), or Q tiles of 32 rows with two.
    c.blockQs = {32, 64, 128};
    c.blockKVs = {64, 128};
    c.maxStages = 2;
    c.minStages = 1;
    break;
  case MmaKind::WarpgroupMma:
    // The tiles of the sm_90a backward kernel (SM90/BackwardKernel.cpp), the
    // only ones it takes: two consumer warpgroups of 64 K/V rows (Bc = 128)
    // and Q tiles of 64 rows, or of 128 where Sᵀ and dPᵀ of 64 × 128 fit the
    // registers beside dK and dV (D = 64; dQ split by rows), two stages for
    // the producer's Q/dO ring; where dK and dV of 128 rows do not fit the
    // registers (D = 256), the two warpgroups share 64 rows (Bc = 64) and
    // split the columns, taken only then (chooseBackwardSchedule). The
    // deterministic plan keeps Q tiles of 64 rows: at 128 its causal kernel
    // spills (ptxas: 4 stores at D = 64). Measured on the H200
    // (docs/benchmarks.md, fourteenth session): 128×128 at D = 64 ran at
    // 1.01-1.15× cuDNN where 64×128 ran at 0.92-1.03×; a third or fourth
    // stage was no faster at D = 64 or 128, so the model offers two.
    c.blockQs = deterministic ? SmallVector<int64_t>{64}
                              : SmallVector<int64_t>{64, 128};
    c.blockKVs = {128, 64};
    c.maxStages = 2;
    c.minStages = 2;
    break;
  case MmaKind::TensorMemoryMma:
    // tcgen05 m128: dK and dV take the 128 lanes of tensor memory.
    c.blockQs = {64, 128};
    c.blockKVs = {128};
    c.maxStages = 2;
    c.minStages = 2;
    break;
  }
  return c;
}

int64_t mlir::flash::backwardWarps(const TargetModel &target, int64_t blockQ) {
  switch (target.mmaKind) {
  case MmaKind::WarpMma:
    return 8; // FlashAttention-2's backward
  case MmaKind::WarpgroupMma:
    return 12; // two MMA warpgroups and a producer (FlashAttention-3's)
  case MmaKind::TensorMemoryMma:
    return 4 * (blockQ / 64) + 8; // not measured: no sm_100a lowering yet
  }
  return 8;
}

std::optional<ScheduleChoice>
mlir::flash::chooseBackwardSchedule(const TargetModel &target,
                                    const AttentionShape &shape,
                                    bool deterministic) {
  ScheduleCandidates candidates =
      backwardScheduleCandidates(target, deterministic);
  // Objective: Br·Bc/(Br + Bc) times the useful share of the executed
  // FLOPs, as the forward's (Schedule.cpp, chooseSchedule), with the roles
  // of the tiles swapped: a block keeps one K/V tile, so the bytes it
  // streams (Q, dO, LSE, D, and the f32 dQ workspace read and written) are
  // re-read once per K/V tile and fall as 1/Bc, while the fixed cost of a
  // step (its barriers, the dQ update) falls as 1/Br. Ties go to the larger
  // K/V tile (FlashAttention-2 measured 128×64 slower than 64×128 at D = 128
  // for that reason: twice the dQ traffic), then to the larger Q tile. The
  // fit checks keep what FlashAttention-2 chose by hand on sm_80: 128×128 at
  // D = 64, 64×128 at D = 128 (128×128's dK, dV, S and dP overflow the
  // registers); at D = 256 64-row Q tiles with two stages overflow an
  // A100's shared memory, and 64×64 with one stage (FlashAttention-2's A100
  // choice; the sm_80 kernel's two warps per 16 keys: block_kv = 8 · warps)
  // beats 32×64 with two. On sm_90a the candidates
  // are the kernel's tiles: 128×128 where it fits the registers (D = 64;
  // not for the deterministic plan), else 64×128, and 64×64 (its warpgroups
  // sharing the K/V rows) only where no 64×128 fits: at D = 256, whose dK
  // and dV of 128 rows do not fit the registers
  // (backwardScheduleCandidates). (At D = 128, 128×64 fits and ties
  // 64×128; the larger K/V tile wins, and 64×64 would lose to it anyway.)
  std::optional<ScheduleChoice> best;
  double bestScore = -1.0;
  for (int64_t blockQ : candidates.blockQs) {
    for (int64_t blockKV : candidates.blockKVs) {
      // Tensor memory (128 lanes): dK and dV (D + Dv columns) beside S and
      // dP (Br columns each, transposed to the K/V tile's rows).
      if (target.tensorMemoryColumns &&
          shape.headDim + shape.valueDim + 2 * blockQ >
              target.tensorMemoryColumns)
        continue;
      if (target.mmaKind == MmaKind::WarpgroupMma && best &&
          blockKV < best->blockKV)
        continue;
      ScheduleChoice choice{blockQ, blockKV, 0, backwardWarps(target, blockQ)};
      if (estimateBackwardRegistersPerThread(target, shape, choice) >
          registerBudgetPerThread(target, choice))
        continue;
      // The sm_80 kernel's own register rule (Target/SM80Backward.h): at
      // D = 256 no Q tile beyond 64 rows, whatever the shared memory.
      if (target.mmaKind == MmaKind::WarpMma &&
          !sm80BackwardFitsRegisters(shape.headDim, blockQ, blockKV,
                                     choice.warps))
        continue;
      for (int64_t stages = candidates.maxStages;
           stages >= candidates.minStages; --stages) {
        if (backwardSharedMemoryBytes(shape, blockQ, blockKV, stages) >
            target.sharedMemPerBlock)
          continue;
        choice.stages = stages;
        double score = double(blockQ * blockKV) / double(blockQ + blockKV);
        BackwardIOModel io = computeBackwardIOModel(shape, choice);
        if (io.executedFlops > 0)
          score *= double(io.usefulFlops) / double(io.executedFlops);
        bool better =
            score > bestScore ||
            (score == bestScore &&
             (blockKV > best->blockKV ||
              (blockKV == best->blockKV && blockQ > best->blockQ)));
        if (better) {
          best = choice;
          bestScore = score;
        }
        break;
      }
    }
  }
  return best;
}

BackwardIOModel
mlir::flash::computeBackwardIOModel(const AttentionShape &shape,
                                    const ScheduleChoice &s) {
  BackwardIOModel m{};
  const int64_t e = shape.elementBytes;
  const int64_t qHeads = shape.batch * shape.queryHeads;
  const int64_t kvHeads = shape.batch * shape.kvHeads;
  const int64_t d = shape.headDim, dv = shape.valueDim;
  m.numKVTiles = ceilDiv(shape.seqKV, s.blockKV);

  // The (K/V tile, Q tile) steps of one q-head, and the Q rows they read:
  // the Q tiles from the first that sees the K/V tile to the last (the same
  // bounds flash-tile puts on the backward's Q loop).
  int64_t tilePairs = 0, qRows = 0;
  for (int64_t j = 0; j < m.numKVTiles; ++j) {
    VisibleQTiles<int64_t> visible =
        visibleQTiles(j * s.blockKV, shape.seqQ, shape.seqKV, s.blockQ,
                      s.blockKV, shape.causal);
    tilePairs += visible.numTiles - visible.first;
    qRows += shape.seqQ - std::min(visible.first * s.blockQ, shape.seqQ);
  }
  m.visitedTilePairs = qHeads * tilePairs;
  m.visitedQRows = qHeads * qRows;

  // Preprocess: read O and dO; write D (f32) and zero the f32 dQ workspace.
  m.preprocessBytes = qHeads * shape.seqQ * (2 * dv * e + 4 + 4 * d);
  // Main: K, V once per kv-head, dK, dV written once; per visited Q row the
  // Q and dO rows, LSE and D, and the dQ workspace row read and written.
  m.mainBytesKV = kvHeads * shape.seqKV * (d + dv) * e;
  m.mainBytesGrads = m.mainBytesKV;
  m.mainBytesQ = m.visitedQRows * ((d + dv) * e + 4 + 4);
  m.mainBytesDQ = m.visitedQRows * d * 4 * 2;
  // Conversion: the dQ workspace read, dQ = scale·dQacc written in T.
  m.convertBytes = qHeads * shape.seqQ * d * (4 + e);
  m.tiledBytes = m.preprocessBytes + m.mainBytesKV + m.mainBytesGrads +
                 m.mainBytesQ + m.mainBytesDQ + m.convertBytes;

  // Standard attention's backward (the paper's Algorithm 3), P kept by the
  // forward, every matrix in T, one kernel per line:
  //   dV = Pᵀ·dO       read P, dO; write dV
  //   dP = dO·Vᵀ       read dO, V; write dP
  //   dS = P∘(dP − D)  read P, dP; write dS
  //   dQ = dS·K        read dS, K; write dQ
  //   dK = dSᵀ·Q       read dS, Q; write dK
  // Under GQA it runs per q-head (K, V read per q-head) and sums the group's
  // dK, dV at the end (read per q-head, write per kv-head).
  const int64_t scores = shape.seqQ * shape.seqKV;
  m.standardBytes =
      qHeads * e *
      (7 * scores + 2 * shape.seqQ * dv + 2 * shape.seqKV * dv +
       2 * shape.seqKV * d + 2 * shape.seqQ * d);
  if (shape.queryHeads != shape.kvHeads)
    m.standardBytes += (qHeads + kvHeads) * shape.seqKV * (d + dv) * e;

  // FLOPs per computed pair: S = Q·Kᵀ again (2D), dV (2Dv), dP (2Dv), dK and
  // dQ (2D each): 2.5× the forward's at D = Dv.
  const int64_t pairFlops = 2 * (3 * d + 2 * dv);
  m.usefulFlops = countVisiblePairs(shape) * pairFlops;
  m.executedFlops = m.visitedTilePairs * s.blockQ * s.blockKV * pairFlops;
  m.sharedBytes =
      backwardSharedMemoryBytes(shape, s.blockQ, s.blockKV, s.stages);
  return m;
}

KernelAttr mlir::flash::getBackwardKernelDescriptor(
    AttentionBackwardOp op, const AttentionShape &shape,
    ScheduleAttr schedule) {
  MLIRContext *ctx = op.getContext();
  return KernelAttr::get(
      ctx, KernelKind::Backward, op.getQuery().getType().getElementType(),
      shape.batch, shape.queryHeads, shape.kvHeads, shape.seqQ, shape.seqKV,
      shape.headDim, shape.valueDim, shape.causal, /*lse=*/false,
      FloatAttr::get(Float32Type::get(ctx), op.getEffectiveScale()), schedule,
      op.getDeterministic(), /*page_size=*/0, /*max_splits=*/0,
      /*form=*/nullptr);
}

KernelAttr mlir::flash::getSplitKVKernelDescriptor(Operation *op,
                                                   const AttentionShape &shape,
                                                   ScheduleAttr schedule,
                                                   int64_t pageSize,
                                                   float scale) {
  MLIRContext *ctx = op->getContext();
  Type elementType =
      cast<RankedTensorType>(op->getOperand(0).getType()).getElementType();
  return KernelAttr::get(
      ctx, pageSize ? KernelKind::Paged : KernelKind::SplitKV, elementType,
      shape.batch, shape.queryHeads, shape.kvHeads, shape.seqQ, shape.seqKV,
      shape.headDim, shape.valueDim, shape.causal, shape.hasLse,
      FloatAttr::get(Float32Type::get(ctx), scale), schedule,
      /*deterministic=*/false, pageSize, schedule.getMaxSplits(),
      /*form=*/nullptr);
}
