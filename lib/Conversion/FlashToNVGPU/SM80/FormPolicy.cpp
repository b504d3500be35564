//===- FormPolicy.cpp - the sm_80 kernel's one form and its checks --------===//
//
// The sm_80 kernel (SM80/ForwardKernel.cpp, FlashAttention-2's design) has
// one form: one Q tile per block, blocks taking tiles head by head, the first
// K/V tile always masked, an eager rescale, plain stores of O. This file
// refuses the sm_90a forms with what the sm_80 kernel does instead, and checks
// that the schedule's tiles are ones its copies and MMAs can move.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/KernelForm.h"
#include "flash/Conversion/FlashToNVGPU/SM80/BackwardKernel.h"
#include "flash/Target/SM80Backward.h"

using namespace mlir;
using namespace mlir::flash;

LogicalResult mlir::flash::checkSM80Choices(const FormChoices &choices,
                                            const TargetModel &target,
                                            Location loc) {
  if (choices.persistent == Toggle::Yes)
    return mlir::emitError(loc)
           << "not supported yet: a persistent grid on " << target.arch;
  if (choices.pingPong == Toggle::Yes)
    return mlir::emitError(loc)
           << "not supported yet: ping-pong on " << target.arch;
  // sm_90a's other forms, each with what the sm_80 kernel does instead.
  struct OnlySM90 {
    StringRef option, form;
    bool chosen;
    StringRef instead;
  };
  for (const OnlySM90 &only :
       {OnlySM90{"first-tile-mask", "branch",
                 choices.firstTileMask == FirstTileMask::Branch,
                 "it masks the first K/V tile always"},
        OnlySM90{"tile-order", "grouped",
                 choices.tileOrder == TileOrder::Grouped,
                 "its blocks take Q tiles head by head"},
        OnlySM90{"store-wait", "deferred",
                 choices.storeWait == StoreWait::Deferred,
                 "its output leaves by plain stores"},
        OnlySM90{"kv-range", "warpgroup",
                 choices.kvRange == KVRangeMode::Warpgroup,
                 "its warps visit the block's K/V tiles"}})
    if (only.chosen)
      return mlir::emitError(loc)
             << "not supported yet: " << only.option << "=" << only.form
             << " on " << target.arch << " (" << only.instead << ")";
  if (choices.rescale != Rescale::Auto && choices.rescale != Rescale::Eager)
    return mlir::emitError(loc)
           << "not supported yet: rescale=" << formOptionValue(choices.rescale)
           << " on " << target.arch << " (it rescales eagerly)";
  return success();
}

FailureOr<KernelConfig>
mlir::flash::sm80ConfigFromSchedule(KernelConfig c, const TargetModel &target,
                                    Location loc) {
  auto unsupported = [&](const Twine &what) -> FailureOr<KernelConfig> {
    return mlir::emitError(loc)
           << "not supported yet: " << what << " on " << target.arch;
  };
  if (c.warps < 1 || c.blockQ % (16 * c.warps) != 0)
    return unsupported("block_q = " + Twine(c.blockQ) +
                       " that is not a multiple of 16 rows per warp (" +
                       Twine(c.warps) + " warps)");
  if (c.blockKV % 16 != 0)
    return unsupported("block_kv = " + Twine(c.blockKV) +
                       " that is not a multiple of 16");
  // Copies move 16-byte chunks in passes of threads/chunksPerRow rows; the
  // swizzle phase of a pass must repeat within 8 rows.
  int64_t chunksPerRow = c.headDim / 8;
  int64_t rowsPerPass = c.threads() / chunksPerRow;
  if (rowsPerPass < 1 || (c.blockQ * chunksPerRow) % c.threads() != 0 ||
      (c.blockKV * chunksPerRow) % c.threads() != 0 ||
      (rowsPerPass % 8 != 0 && 8 % rowsPerPass != 0))
    return unsupported("tiles " + Twine(c.blockQ) + "x" + Twine(c.blockKV) +
                       " that " + Twine(c.threads()) +
                       " threads cannot copy in whole 16-byte passes of 8 rows");
  if (c.stages != 2)
    return unsupported(Twine(c.stages) +
                       " K/V stages (the sm_80 kernel double-buffers)");
  int64_t elementBytes = c.elementType.getIntOrFloatBitWidth() / 8;
  c.sharedBytes = elementBytes * c.headDim * (c.blockQ + 4 * c.blockKV);
  if (c.sharedBytes > target.sharedMemPerBlock)
    return unsupported(Twine(c.sharedBytes) + " bytes of shared memory (" +
                       Twine(target.sharedMemPerBlock) + " per block)");
  return c;
}

FailureOr<KernelConfig>
mlir::flash::sm80BackwardConfigFromSchedule(KernelConfig c,
                                            const TargetModel &target,
                                            Location loc) {
  auto unsupported = [&](const Twine &what) -> FailureOr<KernelConfig> {
    return mlir::emitError(loc)
           << "not supported yet: " << what << " on " << target.arch;
  };
  if (c.writesLse)
    return unsupported("a backward kernel that writes LSE");
  // Q and dO double-buffered; at D = 256 also one stage (Q tiles of 64
  // rows: the next visit's Q and dO load during this one's dQ).
  if (c.stages != 2 && !(c.stages == 1 && c.headDim == 256))
    return unsupported(Twine(c.stages) +
                       " stages in the backward (it double-buffers Q and dO; "
                       "one stage at D = 256)");
  if (c.warps != 4 && c.warps != 8)
    return unsupported("a backward kernel of " + Twine(c.warps) +
                       " warps (4 or 8)");
  // The main kernel keeps a 16-row slice of dK and dV per warp in registers:
  // D/2 + D/2 f32 per thread, 256 at D = 256 (beyond the 255 a thread has).
  // There two warps share 16 K/V rows (sm80::backwardColumnSplit): one
  // computes their Sᵀ, the other dPᵀ, and each keeps a 32-row × 64-column
  // tile of dK and dV.
  if (c.headDim == 256) {
    if (c.blockKV != 8 * c.warps)
      return unsupported(
          "D=256 backward block_kv = " + Twine(c.blockKV) + " with " +
          Twine(c.warps) +
          " warps (dK and dV of 16 K/V rows take 256 f32 registers per "
          "thread: two warps share them: "
          "block_kv = " +
          Twine(8 * c.warps) + ")");
  } else if (c.blockKV != 16 * c.warps) {
    return unsupported("backward block_kv = " + Twine(c.blockKV) + " with " +
                       Twine(c.warps) +
                       " warps (each warp owns 16 K/V rows: block_kv = " +
                       Twine(16 * c.warps) + ")");
  }
  // The main kernel visits Q tiles of block_q rows: Sᵀ and dPᵀ of a warp's
  // 16 keys take block_q f32 registers per thread beside its columns of dK
  // and dV (D, or D/2 where two warps share the keys). At D = 256 Q tiles
  // of 32 rows keep Q and dO double-buffered within an A100's 163 KB, and
  // Q tiles of 64 rows fit there with one stage.
  if (c.blockQ != 64 && c.blockQ != 128 &&
      !(c.blockQ == 32 && c.headDim == 256))
    return unsupported("backward block_q = " + Twine(c.blockQ) +
                       " (the kernel visits Q tiles of 64 or 128 rows; 32 "
                       "or 64 at D = 256)");
  int64_t columns = c.headDim / sm80::backwardColumnSplit(c);
  if (!sm80BackwardFitsRegisters(c.headDim, c.blockQ, c.blockKV, c.warps))
    return unsupported("backward block_q = " + Twine(c.blockQ) + " at D = " +
                       Twine(c.headDim) +
                       " (Sᵀ, dPᵀ, dK and dV of a warp's 16 keys would take " +
                       Twine(columns + c.blockQ) +
                       " f32 registers per thread; " +
                       Twine(kSM80BackwardRegisterColumns) + " fit)");
  c.sharedBytes = sm80::backwardMainSharedBytes(c);
  int64_t dqBytes = c.deterministic ? sm80::backwardDQSharedBytes(c) : 0;
  if (std::max(c.sharedBytes, dqBytes) > target.sharedMemPerBlock)
    return unsupported(Twine(std::max(c.sharedBytes, dqBytes)) +
                       " bytes of shared memory in the backward (" +
                       Twine(target.sharedMemPerBlock) + " per block)");
  return c;
}
