//===- BackwardKernel.h - the sm_90a backward kernel's contract -*- C++ -*-===//
//
// The backward pass on sm_90a (SM90/BackwardKernel.cpp) is the main kernel of
// a three-kernel plan: a preprocess (Δ = rowsum(dO∘O) and the exp2-domain
// shift LSE·log2(e) per query row, in workspaces padded to whole blocks of
// kBackwardRowBlock rows; the f32 dQ accumulator zeroed), the main kernel
// (dK, dV per K/V tile, dQ reduced into the accumulator), and a convert
// (dQ = scale·accumulator). Those two, the workspaces and the plan's format
// are the sm_80 backward's (SM80/BackwardKernel.h), shared between the
// arches (the convert told that sm_90a's accumulator rows hold their 16-byte
// chunks swizzled, the preprocess to zero the deterministic plan's
// semaphores too); only the main kernel is Hopper's own.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_FLASHTONVGPU_SM90_BACKWARDKERNEL_H
#define FLASH_CONVERSION_FLASHTONVGPU_SM90_BACKWARDKERNEL_H

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"
#include "flash/Conversion/FlashToNVGPU/SM80/BackwardKernel.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <string>

namespace mlir {
namespace flash {

struct TargetModel;

namespace sm90 {

/// Programmatic dependent launch between the preprocess and the main kernel
/// (docs/gpu.md, "Backward on sm_90a"): the preprocess executes
/// griddepcontrol.launch_dependents at its start; the main kernel, launched
/// behind it with the plan's "programmatic_dependent_launch", initialises
/// its barriers and loads K_j and V_j (inputs the preprocess does not
/// write) while the preprocess's last blocks run, and executes
/// griddepcontrol.wait in every thread that reads Δ or the shift or adds to
/// the dQ accumulator (or reads the semaphores), before it does. false: the
/// kernels in stream order, main's PTX before the twentieth session.
constexpr bool kBackwardMainOverlapsPreprocess = true;
/// The dQ convert overlaps the main kernel's last wave (docs/gpu.md,
/// "Backward on sm_90a"; atomic plans at D = 64 and 128): the main kernel's
/// blocks count each q-head's dQ as complete on an i32 per (batch, q-head)
/// (`dq_done`, zeroed by the preprocess) and trigger the convert once the
/// preprocess is complete; the convert, launched behind the main kernel with
/// programmatic dependent launch, waits per block for its head's count, its
/// last block for the main grid. false: the convert in stream order.
constexpr bool kBackwardConvertOverlapsMain = true;
/// D = 128 non-causal atomic plans (BackwardKernel::rotatesQTiles; D = 64
/// and 256 measured slower with the change) whose heads have at most this
/// many Q tiles (Nq <= 64 · Br: 4096 rows at Br = 64) visit them from Q
/// tile kvTile mod numTiles on, wrapping around, instead of from tile 0
/// (docs/gpu.md, "Backward on sm_90a"): the blocks of one head that run
/// together then stage and reduce different dQ tiles at every step instead
/// of all the same one. Longer heads keep the order from tile 0 (measured
/// slower rotated at N = 8k/16k). 0: never (main's PTX before the
/// twenty-fourth session). Causal plans are staggered by the diagonal
/// already; deterministic plans keep their fixed order.
constexpr int64_t kBackwardRotateMaxQTiles = 64;

/// The kernels of `config` (kind = backward) in launch order: the shared
/// preprocess and convert (sm80::backwardLaunches' with dQ through the
/// accumulator) around this main kernel, the convert reading the
/// accumulator's chunk order (swizzledAccumulator; at D = 128 the paired
/// chunks of its 16-byte stores, pairedAccumulator). Deterministic, the
/// preprocess and the main kernel take a `dq_semaphore` workspace after
/// `dq_accum`: the preprocess zeroes it, the main kernel orders each Q
/// tile's dQ reductions by K/V tile with it.
SmallVector<sm80::BackwardLaunch> backwardLaunches(const KernelConfig &config);

/// The plan's workspaces: sm_80's with the f32 dQ accumulator (its rows'
/// 16-byte chunks in the order of the main kernel's dQ tile: chunk c of row
/// r at c ^ (r mod 8), at D = 128 the paired chunks of pairedDQ, at D =
/// 256 in blocks of 16 padded rows of 16 × 32-column slices, blockedDQ,
/// which the convert undoes), and when deterministic the
/// i32 semaphores, dqSemaphoresPerRowBlock per block of
/// sm80::kBackwardRowBlock query rows of each (batch, q-head): one per Q
/// tile.
SmallVector<sm80::BackwardWorkspace>
backwardWorkspaces(const KernelConfig &config);
int64_t dqSemaphoresPerRowBlock(const KernelConfig &config);

/// Shared-memory bytes of the main kernel of `config`.
int64_t backwardSharedBytes(const KernelConfig &config);

/// What the main kernel's launch records besides the common fields: its
/// tensor maps (rank 3 over (D, N, B·H), 64-column boxes, 128-byte swizzle)
/// and its warpgroups and register split.
SmallVector<NamedAttribute> describeBackwardMain(Builder &b,
                                                 const KernelConfig &config);

} // namespace sm90

/// sm_90a, kind = backward (SM90/FormPolicy.cpp): the schedule's tiles
/// checked against the main kernel (consumer warpgroups of 64 K/V rows, Q
/// tiles of 64 rows, two or more stages) and its resources.
FailureOr<KernelConfig> sm90BackwardConfig(KernelConfig common,
                                           const TargetModel &target,
                                           Location loc);

/// Emits the sm_90a backward's kernels (sm90::backwardLaunches) at the
/// builder's insertion point (inside a gpu.module): the main kernel as an
/// llvm.func (its tensor maps are __grid_constant__ parameters), the others
/// as the shared gpu.funcs.
LogicalResult buildSM90BackwardKernels(OpBuilder &b, Location loc,
                                       const KernelConfig &config);

} // namespace flash
} // namespace mlir

#endif // FLASH_CONVERSION_FLASHTONVGPU_SM90_BACKWARDKERNEL_H
