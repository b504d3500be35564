//===- FormPolicy.cpp - the sm_100a forward kernel's form and checks ------===//
//
// The sm_100a forward kernel (SM100/ForwardKernel.cpp) has one form for
// now: one 128-row Q tile per block in six warps (a softmax warpgroup, a
// TMA warp, an MMA warp), blocks taking tiles head by head, the lazy
// (conditional) rescale of O in tensor memory, plain stores of O. This file
// refuses the form options of the other arches and checks the schedule's
// tiles against the kernel: tensor memory (O, S and P of the tile) within
// the SM's 512 columns, shared memory within a block's.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/KernelForm.h"

using namespace mlir;
using namespace mlir::flash;

LogicalResult mlir::flash::checkSM100Choices(const FormChoices &choices,
                                             const TargetModel &target,
                                             Location loc) {
  FormChoices automatic;
  if (choices.persistent != automatic.persistent ||
      choices.pingPong != automatic.pingPong ||
      choices.firstTileMask != automatic.firstTileMask ||
      choices.tileOrder != automatic.tileOrder ||
      choices.storeWait != automatic.storeWait ||
      choices.kvRange != automatic.kvRange ||
      (choices.rescale != Rescale::Auto && choices.rescale != Rescale::Lazy))
    return mlir::emitError(loc)
           << "not supported yet: form options on " << target.arch
           << " (its forward kernel has one form: one Q tile per block, "
              "rescale=lazy)";
  return success();
}

FailureOr<KernelConfig>
mlir::flash::sm100ConfigFromSchedule(KernelConfig c, const TargetModel &target,
                                     Location loc) {
  auto unsupported = [&](const Twine &what) -> FailureOr<KernelConfig> {
    return mlir::emitError(loc)
           << "not supported yet: " << what << " on " << target.arch;
  };
  if (c.kind != KernelKind::Forward)
    return unsupported("kernel kind " + stringifyKernelKind(c.kind));
  if (c.blockQ != 128)
    return unsupported("block_q = " + Twine(c.blockQ) +
                       " (the kernel computes one 128-row Q tile per block)");
  if (c.blockKV != 64 && c.blockKV != 128)
    return unsupported("block_kv = " + Twine(c.blockKV) + " (64 or 128)");
  if (c.warps != 6)
    return unsupported(Twine(c.warps) +
                       " warps (the kernel has six: a softmax warpgroup, a "
                       "TMA warp and an MMA warp)");
  if (c.stages < 2)
    return unsupported(Twine(c.stages) + " K/V stage (two or more)");
  c.rescale = KernelConfig::Rescale::Lazy;
  c.blocksPerSM = 1;
  int64_t columns = sm100TensorMemoryColumns(c);
  if (columns > target.tensorMemoryColumns)
    return unsupported(Twine(columns) + " tensor-memory columns for O, S and "
                       "P (" + Twine(target.tensorMemoryColumns) +
                       " per SM)");
  c.sharedBytes = sm100SharedBytes(c);
  if (c.sharedBytes > target.sharedMemPerBlock)
    return unsupported(Twine(c.sharedBytes) + " bytes of shared memory (" +
                       Twine(target.sharedMemPerBlock) + " per block)");
  return c;
}
