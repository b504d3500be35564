//===- BackwardKernel.h - the sm_80 backward kernels' launches --*- C++ -*-===//
//
// FlashAttention-2's backward on sm_80 is three kernels in one launch plan
// (SM80/BackwardKernel.cpp builds them):
//   1. preprocess  Δ = rowsum(dO∘O) and the exp2-domain shift LSE·log2(e)
//                  per query row, into workspaces padded to whole blocks of
//                  kBackwardRowBlock rows (padding: Δ = 0, shift = +inf);
//                  zeroes the f32 dQ accumulator (not when deterministic)
//                  and, where the plan has them, the dQ semaphores of
//                  sm_90a's deterministic main kernel;
//   2. main        one block per (K/V tile, kv-head, batch): dK, dV on
//                  chip over the group's q-heads and the Q tiles that see
//                  the K/V tile; dQ added to the f32 accumulator with
//                  atomics (not when deterministic);
//   3. convert     dQ = scale·accumulator in the element type; or, when
//                  deterministic, the dQ kernel: one block per Q tile
//                  looping over the K/V tiles it sees (P and dP recomputed),
//                  so that every dQ element is summed in one fixed order.
// The f32 dQ accumulator (`dq_accum`, over ceil(Nq/128)·128 rows per q-head)
// is in fragment order: per 16-row block of a q-head (16·D floats), its
// 16×8 mma.sync C tiles one after another by column, each as 128 floats
// [row half h][column parity e][lane] (lane 4g + t holds row g + 8h, column
// 2t + e of the tile). One atomic instruction of a warp (one h, one e of one
// tile) then covers 32 consecutive floats, a 128-byte line (row-major, it
// touched 8 lines: 4 of every 8 floats of 8 rows); convert reads it back.
// This header says what each kernel takes and how it is launched; the
// lowering records it in `flash.kernels` and flash-write-bundle turns it
// into the plan.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_FLASHTONVGPU_SM80_BACKWARDKERNEL_H
#define FLASH_CONVERSION_FLASHTONVGPU_SM80_BACKWARDKERNEL_H

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"

#include <string>

namespace mlir {
namespace flash {
namespace sm80 {

/// Rows per block of the preprocess and convert kernels, and the padding of
/// the per-row workspaces (a multiple of every Q tile of the kernels).
constexpr int64_t kBackwardRowBlock = 128;
/// The deterministic dQ kernel's tiles: Q rows per block (one 16-row slice
/// per warp of 4) and K/V rows per step (backwardDQBlockKV: half of them at
/// D = 256, so that its shared memory fits an A100's 163 KB).
constexpr int64_t kDQBlockQ = 64, kDQBlockKV = 64, kDQWarps = 4;
int64_t backwardDQBlockKV(const KernelConfig &config);
/// Warps of the main kernel that share one 16-row slice of its K/V tile:
/// 16·warps / block_kv. 1: each warp owns its 16 rows' dK and dV (D ≤ 128);
/// 2 (D = 256): one of the two computes the rows' Sᵀ, the other their
/// dPᵀ, Pᵀ and dSᵀ meet in shared memory, and each warp keeps a 32-row ×
/// 64-column tile of the block's dK and dV (128 f32 per thread instead of
/// D + D).
int64_t backwardColumnSplit(const KernelConfig &config);

/// One kernel of the backward plan.
struct BackwardLaunch {
  enum class Role { Preprocess, Main, Convert, DQ };
  Role role;
  std::string name;                 ///< gpu.func symbol
  SmallVector<std::string> args;    ///< "name:type", in the kernel's order
  SmallVector<std::string, 3> grid; ///< formulas of B, Hq, Hkv, Nq, Nk
  int64_t threads = 0, sharedBytes = 0;
  /// Preprocess: the i32 counters per block of kBackwardRowBlock rows that
  /// it zeroes in the `dq_semaphore` workspace (an argument after
  /// `dq_accum`: sm_90a's deterministic plan, SM90/BackwardKernel.h); 0 for
  /// none.
  int64_t semaphoresPerRowBlock = 0;
  /// Convert: the accumulator is sm_90a's, row-major over B×Hq×Nq rows
  /// whose 16-byte chunk c sits at chunk c ^ (row mod 8) (its dQ tiles are
  /// staged that way to avoid bank conflicts and added whole); false: the
  /// sm_80 main kernel's fragment order over padded rows (docs/gpu.md).
  bool swizzledAccumulator = false;
  /// Convert, with swizzledAccumulator: each 16-column group's four chunks
  /// hold column pairs (2t, 2t + 1, 8 + 2t, 9 + 2t) in chunk t (the sm_90a
  /// D = 128 kernel stages its dQ fragment with 16-byte stores that way),
  /// chunk c at chunk c ^ pairSwizzle(row mod 8) (SM90/BackwardKernel.cpp).
  bool pairedAccumulator = false;
  /// Convert, with swizzledAccumulator: the rows come in blocks of 16 over
  /// the padded rows (B×Hq×padded), and within a block each 32-column slice
  /// is contiguous (16 rows of 128 bytes, the row's swizzled chunks): the
  /// sm_90a D = 256 kernel adds each warp's 16 × 32 f32 slice with one bulk
  /// reduction (SM90/BackwardKernel.cpp, blockedDQ).
  bool blockedAccumulator = false;
  /// Launched with programmatic dependent launch behind the kernel before it
  /// in the plan (the plan's "programmatic_dependent_launch": true): it may
  /// start while that kernel's last blocks run, and executes
  /// griddepcontrol.wait before it touches what that kernel writes (sm_90a's
  /// main kernel only; SM90/BackwardKernel.h says where).
  bool programmaticDependentLaunch = false;
  /// Executes griddepcontrol.launch_dependents at its start, so that the
  /// next kernel of the plan (launched with programmatic dependent launch)
  /// may start once every block of this one has started.
  bool launchesDependents = false;
  /// Per-head completion counters (sm_90a's atomic plan at D = 64 and 128,
  /// SM90/BackwardKernel.cpp, convertOverlapsMain): an i32 per (batch,
  /// q-head) in the `dq_done` workspace (the launch's last `ptr` argument),
  /// which the main kernel's blocks increment once their dQ reductions of
  /// that head are complete. Preprocess: zeroes them. Convert (with the
  /// K/V tile rows of the main kernel here, and `Nk` its last argument):
  /// each block waits until its head's counter is ceildiv(Nk, rows), then
  /// converts; launched with programmatic dependent launch behind the main
  /// kernel, whose blocks trigger once the preprocess is complete, the
  /// convert's blocks run on the SMs that the main kernel's last wave
  /// leaves idle. Its last block executes griddepcontrol.wait before it
  /// leaves, so that the convert completes after the main kernel. 0: off.
  bool zeroesHeadCounters = false;
  int64_t waitsForHeadsOfKVRows = 0;
  /// Preprocess and convert: the row passes whose global loads each thread
  /// issues together, before it computes or stores any of them (the
  /// compiler keeps a pass's loads behind the stores of the pass before,
  /// which it cannot tell apart from them: one pass at a time leaves one
  /// pass's loads in flight per thread). 1: pass after pass (sm_80's plans).
  int64_t loadPasses = 1;
};

/// The kernels of `config` (kind = backward) in launch order.
SmallVector<BackwardLaunch> backwardLaunches(const KernelConfig &config);

/// Emits `launch` of `config` as a gpu.func at the builder's insertion point
/// (inside a gpu.module). The preprocess and convert kernels are plain CUDA
/// cores' work, the same on every arch: the sm_90a backward
/// (SM90/BackwardKernel.h) builds its own with this.
void buildBackwardKernel(OpBuilder &b, Location loc, const KernelConfig &config,
                         const BackwardLaunch &launch);

/// A workspace of the backward plan: its name and size as a formula.
struct BackwardWorkspace {
  std::string name, bytes;
};
SmallVector<BackwardWorkspace> backwardWorkspaces(const KernelConfig &config);

/// Shared-memory bytes of the main kernel and of the deterministic dQ
/// kernel.
int64_t backwardMainSharedBytes(const KernelConfig &config);
int64_t backwardDQSharedBytes(const KernelConfig &config);

} // namespace sm80
} // namespace flash
} // namespace mlir

#endif // FLASH_CONVERSION_FLASHTONVGPU_SM80_BACKWARDKERNEL_H
