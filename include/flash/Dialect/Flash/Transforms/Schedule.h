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
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir {
namespace flash {
class AttentionOp;
class KernelAttr;
class ScheduleAttr;

/// The sizes of one attention problem, read off a flash.attention.
struct AttentionShape {
  int64_t batch, queryHeads, kvHeads, seqQ, seqKV, headDim, valueDim;
  int64_t elementBytes;
  bool causal;
  bool hasLse;
};

/// Reads the shape of `op`; fails (with a diagnostic) on dynamic dimensions.
FailureOr<AttentionShape> getAttentionShape(AttentionOp op);

/// The sizes of B×H×N×D query, key and value types with static shapes
/// (causal and hasLse false).
AttentionShape getAttentionShape(RankedTensorType query, RankedTensorType key,
                                 RankedTensorType value);

struct ScheduleChoice {
  int64_t blockQ, blockKV, stages, warps;
};

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

/// The tiles and stage counts the model chooses among on `target`.
struct ScheduleCandidates {
  SmallVector<int64_t> blockQs, blockKVs;
  int64_t maxStages = 2, minStages = 1;
};
ScheduleCandidates scheduleCandidates(const TargetModel &target);

/// Picks, among the tiles that fit shared memory (with the most stages up to
/// the target's preference) and registers, the one with the best balance of
/// K/V re-reads from HBM (∝ 1/Br) and per-step overhead (∝ 1/Bc). Returns
/// nothing when no tile fits.
std::optional<ScheduleChoice> chooseSchedule(const TargetModel &target,
                                             const AttentionShape &shape);

/// The typed descriptor of the forward kernel that computes `op` with
/// `schedule` (no form yet): what flash-tile attaches to its loop nest.
KernelAttr getForwardKernelDescriptor(AttentionOp op,
                                      const AttentionShape &shape,
                                      ScheduleAttr schedule);

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

} // namespace flash
} // namespace mlir

#endif // FLASH_DIALECT_FLASH_TRANSFORMS_SCHEDULE_H
