//===- Schedule.h - IO-aware schedule and IO model --------------*- C++ -*-===//
//
// The plain functions behind flash-select-schedule and flash-io-report: what
// a schedule costs in shared memory and registers on a target, which one to
// pick, and how many bytes and FLOPs the tiled and standard algorithms move.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_TRANSFORMS_SCHEDULE_H
#define FLASH_DIALECT_FLASH_TRANSFORMS_SCHEDULE_H

#include "flash/Target/TargetModel.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir {
namespace flash {
class AttentionOp;
class AttentionBackwardOp;
class PagedAttentionOp;
class KernelAttr;
class ScheduleAttr;

/// The sizes of one attention problem, read off a flash.attention (or the
/// flash.attention_backward of one).
struct AttentionShape {
  int64_t batch, queryHeads, kvHeads, seqQ, seqKV, headDim, valueDim;
  int64_t elementBytes;
  bool causal;
  bool hasLse;
};

/// Reads the shape of `op`; fails (with a diagnostic) on dynamic dimensions
/// and on sizes the passes and kernels cannot count (above 2^31 - 1 in a
/// dimension, 2^48 elements in a tensor).
FailureOr<AttentionShape> getAttentionShape(AttentionOp op);
/// The same for a backward (hasLse false: LSE is an input there).
FailureOr<AttentionShape> getAttentionShape(AttentionBackwardOp op);

/// The sizes of B×H×N×D query, key and value types with static shapes
/// (causal and hasLse false).
AttentionShape getAttentionShape(RankedTensorType query, RankedTensorType key,
                                 RankedTensorType value);

struct ScheduleChoice {
  int64_t blockQ, blockKV, stages, warps;
  /// Rows of the Q tiles a block computes each over its own K/V range (0:
  /// the block's blockQ rows as one tile). sm_100a's two-tile blocks
  /// (qTileRows) read K/V as the block's last tile and compute each tile's
  /// range apart: the IO model counts their FLOPs per tile.
  int64_t tileRows = 0;
};

/// The rows of one Q tile of a block of `blockQ` rows on `target`: 128 on
/// tensor-memory targets (tcgen05 M = 128, one tensor-memory lane per
/// row: a block of 256 rows holds two tiles), blockQ elsewhere.
int64_t qTileRows(const TargetModel &target, int64_t blockQ);

/// Tensor-memory columns (32-bit, 128 lanes) the sm_100a forward kernel
/// allocates for a block of `blockQ` rows (SM100/ForwardKernel.cpp): one
/// 128-row tile holds O (Dv columns), S (Bc) and P (Bc/2: 16-bit pairs)
/// apart, so that S(j+1) can be computed while P(j) waits; two tiles
/// (blockQ = 256) hold O and S each, P written over the first Bc/2 columns
/// of its S: 2·(Dv + Bc). Rounded up to a power of two (tcgen05.alloc).
int64_t tensorMemoryColumnsForBlock(int64_t blockQ, int64_t blockKV,
                                    int64_t valueDim);

/// Shared memory one thread block holds: the Q tile plus `stages` K and V
/// tiles.
int64_t sharedMemoryBytes(const AttentionShape &shape, int64_t blockQ,
                          int64_t blockKV, int64_t stages);

/// Estimated 32-bit registers per thread of the threads that hold the
/// accumulators (consumer warpgroups on sm_90a), and the budget they have.
int64_t estimateRegistersPerThread(const TargetModel &target,
                                   const AttentionShape &shape,
                                   const ScheduleChoice &choice);
int64_t registerBudgetPerThread(const TargetModel &target,
                                const ScheduleChoice &choice);

/// The sm_100a two-tile kernel's setmaxnreg split (SM100/ForwardKernel.cpp,
/// sixteen warps): the correction warpgroup keeps kCorrectionRegisters, the
/// warpgroup of the TMA and MMA warps kTensorMemoryIssuerRegisters, the two
/// softmax warpgroups share the rest of the block's launch share
/// (registerBudgetPerThread: (128·512 − 128·(88 + 56)) / 256 = 184).
constexpr int64_t kCorrectionRegisters = 88;
constexpr int64_t kTensorMemoryIssuerRegisters = 56;

/// The tiles and stage counts the model chooses among on `target`.
struct ScheduleCandidates {
  SmallVector<int64_t> blockQs, blockKVs;
  int64_t maxStages = 2, minStages = 1;
};
ScheduleCandidates scheduleCandidates(const TargetModel &target);

/// The warps a Q tile of `blockQ` rows runs with on `target`.
int64_t warpsForQTile(const TargetModel &target, int64_t blockQ);

/// Picks, among the tiles that fit shared memory (with the most stages up to
/// the target's preference) and registers, the one with the best balance of
/// K/V re-reads from HBM (∝ 1/Br) and per-step overhead (∝ 1/Bc). Returns
/// nothing when no tile fits.
std::optional<ScheduleChoice> chooseSchedule(const TargetModel &target,
                                             const AttentionShape &shape);

/// The backward's counterparts (docs/io-model.md, "The backward"): a block
/// keeps one K/V tile and its f32 dK, dV accumulators while `stages` Q tiles
/// (with dO, LSE and D) stream past; P and dS pass through shared memory in
/// the element type for the products that take them transposed.
int64_t backwardSharedMemoryBytes(const AttentionShape &shape, int64_t blockQ,
                                  int64_t blockKV, int64_t stages);
int64_t estimateBackwardRegistersPerThread(const TargetModel &target,
                                           const AttentionShape &shape,
                                           const ScheduleChoice &choice);
/// The backward's candidate tiles on `target`; `deterministic` for the plan
/// whose dQ reductions are ordered (sm_90a: Q tiles of 64 rows only).
ScheduleCandidates backwardScheduleCandidates(const TargetModel &target,
                                              bool deterministic = false);
/// The backward's warps per block on `target` for a Q tile of `blockQ` rows.
int64_t backwardWarps(const TargetModel &target, int64_t blockQ);
/// Picks the backward's tiles: among those that fit shared memory and
/// registers, the best Br·Bc/(Br + Bc) times the useful share of the
/// executed FLOPs, ties to the larger K/V tile (Q, dO and the dQ workspace
/// are re-read once per K/V tile). Nothing when no tile fits.
/// `deterministic`: for flash.attention_backward {deterministic}
/// (backwardScheduleCandidates).
std::optional<ScheduleChoice>
chooseBackwardSchedule(const TargetModel &target, const AttentionShape &shape,
                       bool deterministic = false);

/// The typed descriptor of the forward kernel that computes `op` with
/// `schedule` (no form yet): what flash-tile attaches to its loop nest.
KernelAttr getForwardKernelDescriptor(AttentionOp op,
                                      const AttentionShape &shape,
                                      ScheduleAttr schedule);

/// The typed descriptor of the backward that computes `op` with `schedule`
/// (kind = backward, lse = false, deterministic from the op; no form yet):
/// what flash-tile attaches to the backward's main loop nest.
KernelAttr getBackwardKernelDescriptor(AttentionBackwardOp op,
                                       const AttentionShape &shape,
                                       ScheduleAttr schedule);

/// (query, key) pairs that attention computes (not masked), over all
/// batches and query heads.
int64_t countVisiblePairs(const AttentionShape &shape);

/// The IO model of docs/io-model.md.
struct IOModel {
  int64_t numQueryTiles;
  int64_t visitedKVTiles;     ///< over all (batch, head, Q tile)
  int64_t tiledBytesQ, tiledBytesKV, tiledBytesO, tiledBytesLse;
  int64_t tiledBytes;         ///< sum of the above
  int64_t standardBytes;      ///< three kernels writing S and P
  int64_t usefulFlops;        ///< 2·(D+Dv) per visible (query, key) pair
  int64_t executedFlops;      ///< 2·(D+Dv)·Br·Bc per visited tile
  int64_t sharedBytes;
};
IOModel computeIOModel(const AttentionShape &shape, const ScheduleChoice &s);

/// The backward's IO model (docs/io-model.md, "The backward"): the three
/// stages of the tiled backward against standard attention's backward
/// (Algorithm 3 of the FlashAttention paper, P stored by the forward).
struct BackwardIOModel {
  int64_t numKVTiles;
  int64_t visitedTilePairs; ///< (K/V tile, Q tile) steps over all q-heads
  int64_t visitedQRows;     ///< Q rows those steps read, over all q-heads
  // Preprocess: O and dO read, D and the zeroed dQ workspace written.
  int64_t preprocessBytes;
  // Main: K and V read and dK, dV written once per kv-head; Q, dO, LSE and
  // D read and the f32 dQ workspace read and written per visited step.
  int64_t mainBytesKV, mainBytesGrads, mainBytesQ, mainBytesDQ;
  // Conversion: the dQ workspace read, dQ written.
  int64_t convertBytes;
  int64_t tiledBytes;       ///< sum of the above
  int64_t standardBytes;    ///< standard attention's backward
  int64_t usefulFlops;      ///< 2·(3D + 2Dv) per visible pair (S recomputed)
  int64_t executedFlops;    ///< the same per pair of every visited tile pair
  int64_t sharedBytes;
};
BackwardIOModel computeBackwardIOModel(const AttentionShape &shape,
                                       const ScheduleChoice &s);

//===----------------------------------------------------------------------===//
// Split-KV (Flash-Decoding): flash.attention with few query rows and
// flash.paged_attention (SplitKVSchedule.cpp)
//===----------------------------------------------------------------------===//

/// The sizes of a flash.paged_attention: those of the attention it computes
/// with seqKV = M·S (the keys a sequence can address), and the cache's.
struct PagedAttentionShape : AttentionShape {
  int64_t numPages, pageSize, pagesPerSequence;
};

/// Reads the shape of `op`; fails (with a diagnostic) on dynamic dimensions
/// and on sizes the kernels' i32 arithmetic cannot hold.
FailureOr<PagedAttentionShape> getPagedAttentionShape(PagedAttentionOp op);

/// The query rows of one kv-head that a split-KV tile packs: the q-heads of
/// its group times Nq (row r is q-head h0 + r / Nq, query r mod Nq).
inline int64_t packedQueryRows(const AttentionShape &shape) {
  return shape.queryHeads / shape.kvHeads * shape.seqQ;
}

/// The rule of flash-select-schedule: a flash.attention takes the split-KV
/// form when its packed rows fit the target's smallest Q tile (the rows of
/// one MMA row group: 64 on sm_80 and sm_90a, 128 on sm_100a), so that one
/// block reads each K/V byte once for the whole group.
int64_t splitKVRowLimit(const TargetModel &target);
bool takesSplitKVForm(const TargetModel &target, const AttentionShape &shape);

/// A split-KV schedule: the split-KV kernels' tiles (splitKVTileShape in
/// include/flash/Target/SplitKV.h: row tiles of 16·m packed rows, 64 keys a
/// K/V tile on 4 warps, the stages half an SM's shared memory holds), so
/// that the CPU form and the GPU kernels cut a sequence the same way, and
/// max_splits (the workspace's capacity: the SM count, the most parts that
/// splitKVCount asks for when one block has the whole GPU). Nothing when
/// two stages do not fit a block's shared memory.
struct SplitKVScheduleChoice {
  ScheduleChoice tiles;
  int64_t maxSplits;
};
std::optional<SplitKVScheduleChoice>
chooseSplitKVSchedule(const TargetModel &target, const AttentionShape &shape);

/// The typed descriptor of the split-KV kernel that computes `op` (a
/// flash.attention with a split-KV schedule: kind split_kv; a
/// flash.paged_attention: kind paged with its page size).
KernelAttr getSplitKVKernelDescriptor(Operation *op,
                                      const AttentionShape &shape,
                                      ScheduleAttr schedule, int64_t pageSize,
                                      float scale);

/// The IO model of a split-KV kernel at `seqKV` keys per sequence (every
/// sequence at that length; docs/io-model.md): K/V read once per kv-head,
/// the partials' workspace written by the splits and read by the merge; the
/// parts as the kernels count them on `numSMs` SMs of `sharedMemPerSM`
/// bytes of shared memory (whether two blocks fit one).
struct SplitKVIOModel {
  int64_t splits, tilesPerSplit; ///< splitKVCount at this length
  int64_t qTiles;                ///< Q tiles of packed rows per kv-head
  int64_t splitBlocks;           ///< blocks of the split stage
  int64_t bytesQ, bytesKV, bytesTable, bytesO, bytesLse;
  int64_t bytesPartials;         ///< partial O (f32) and LSE, written + read
  int64_t bytes;                 ///< sum of the above
  int64_t forwardBytesKV;        ///< K/V bytes one block per (b, q-head) reads
  int64_t usefulFlops;
  int64_t sharedBytes;
};
SplitKVIOModel computeSplitKVIOModel(const AttentionShape &shape,
                                     const ScheduleChoice &tiles,
                                     int64_t maxSplits, int64_t numSMs,
                                     int64_t sharedMemPerSM,
                                     int64_t pageSize);

} // namespace flash
} // namespace mlir

#endif // FLASH_DIALECT_FLASH_TRANSFORMS_SCHEDULE_H
