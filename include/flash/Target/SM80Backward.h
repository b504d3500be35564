//===- SM80Backward.h - The sm_80 backward kernel's register rule -*- C++ -*-===//
//
// One rule of the sm_80 backward kernel (SM80/BackwardKernel.cpp) that the
// target model's schedule choice (Schedule.cpp, chooseBackwardSchedule) and
// the kernel's own check (SM80/FormPolicy.cpp) both apply, written once: a
// warp keeps its columns of dK and dV (D/split f32 per thread; split =
// 16·warps / block_kv, 2 where two warps share 16 keys, at D = 256) beside
// Sᵀ or dPᵀ of its 16 keys × block_q queries, at most 192 f32 together.
// Without it a budget of more shared memory (shared-memory-per-block) would
// let the model pick 128-row Q tiles at D = 256, which the kernel refuses.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_TARGET_SM80BACKWARD_H
#define FLASH_TARGET_SM80BACKWARD_H

#include <cstdint>

namespace mlir {
namespace flash {

/// f32 registers per thread the sm_80 backward gives a warp's dK and dV
/// columns and its Sᵀ or dPᵀ together.
constexpr int64_t kSM80BackwardRegisterColumns = 192;

/// Warps that share a warp's 16 keys: 16·warps / block_kv (at least 1).
inline int64_t sm80BackwardKeySplit(int64_t warps, int64_t blockKV) {
  int64_t split = blockKV > 0 ? 16 * warps / blockKV : 1;
  return split > 1 ? split : 1;
}

/// Whether the tiles keep dK and dV's columns and Sᵀ or dPᵀ within
/// kSM80BackwardRegisterColumns.
inline bool sm80BackwardFitsRegisters(int64_t headDim, int64_t blockQ,
                                      int64_t blockKV, int64_t warps) {
  return headDim / sm80BackwardKeySplit(warps, blockKV) + blockQ <=
         kSM80BackwardRegisterColumns;
}

} // namespace flash
} // namespace mlir

#endif // FLASH_TARGET_SM80BACKWARD_H
