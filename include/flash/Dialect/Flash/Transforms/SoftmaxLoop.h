//===- SoftmaxLoop.h - the K/V loop of the tiled forms ----------*- C++ -*-===//
//
// The online-softmax K/V loop that flash-tile builds for flash.attention and
// for the split stage of the split-KV forms (flash.paged_attention, few-row
// flash.attention), written once: the state a loop carries, its value before
// any key, the update by one tile of scores, and the scf.for that carries it.
// What differs between the forms (where a K/V tile comes from, how its scores
// are masked) is the caller's step. (The GPU kernels' loop over register
// fragments, a level below, is KernelBuilder.h's buildOnlineSoftmaxLoop.)
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_TRANSFORMS_SOFTMAXLOOP_H
#define FLASH_DIALECT_FLASH_TRANSFORMS_SOFTMAXLOOP_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace mlir {
namespace flash {

/// What the K/V loop carries for a tile of R query rows, all f32: the
/// running row max m (R), the running row sum l (R) and the unnormalised
/// accumulator (R × Dv).
struct SoftmaxState {
  Value runningMax, runningSum, acc;
};

/// The state before any key: m = -inf, l = 0, acc = 0 (rows × valueDim).
SoftmaxState buildInitialSoftmaxState(OpBuilder &b, Location loc, int64_t rows,
                                      int64_t valueDim);

/// The state after one tile: flash.online_softmax on its (already masked)
/// f32 scores (R × Bc) updates m and l and gives P and the rescale factor,
/// flash.accumulate_pv adds P·V (vTile: Bc × Dv) to the rescaled acc.
SoftmaxState buildSoftmaxUpdate(OpBuilder &b, Location loc, Value scores,
                                Value vTile, const SoftmaxState &state);

/// Builds one iteration of a K/V loop: the state after K/V tile `tileIndex`.
using SoftmaxStepBuilder = function_ref<SoftmaxState(
    OpBuilder &, Location, Value tileIndex, const SoftmaxState &)>;

/// scf.for over the K/V tiles [lb, ub) carrying the state from `init`; each
/// iteration is `step`'s. Returns the loop's results.
SoftmaxState buildSoftmaxLoop(OpBuilder &b, Location loc, Value lb, Value ub,
                              const SoftmaxState &init,
                              SoftmaxStepBuilder step);

} // namespace flash
} // namespace mlir

#endif // FLASH_DIALECT_FLASH_TRANSFORMS_SOFTMAXLOOP_H
