//===- FormPolicy.cpp - the sm_100a forward kernel's form and checks ------===//
//
// The sm_100a forward kernel (SM100/ForwardKernel.cpp) has one form for
// now: one 128-row Q tile per block in six warps (a softmax warpgroup, a
// TMA warp, an MMA warp), blocks taking tiles head by head, the lazy
// (conditional) rescale of O in tensor memory, plain stores of O. This file
// refuses the form options of the other arches and checks the schedule's
// tiles against the kernel: tensor memory (O, S and P of the tile) within
// the SM's 512 columns, shared memory within a block's. It also picks the
// share of P's exponentials computed by a polynomial on the FMA units.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/KernelForm.h"

#include <cmath>

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
  c.exp2Split = sm100Exp2Split(target);
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

Exp2Split mlir::flash::sm100Exp2Split(const TargetModel &target) {
  // Per score the softmax issues about kSoftmaxIssues instructions besides
  // its exponential's result on the MUFU (S·c − shift, the row max, the row
  // sum, half a 16-bit pair conversion, and the ex2 issue itself), all on
  // the schedulers that also feed the FMA units (fmaPerClock instructions
  // per SM and clock); the polynomial (KernelMath::exp2Polynomial: clamp,
  // three adds, three fma, shift, integer add) issues kPolynomialIssues
  // more than the ex2 it replaces. With a share q of polynomials, per score
  //   MUFU: (1 − q) / exp2PerClock    issue: (a + c·q) / fmaPerClock,
  // equal at q = (F/M − a) / (F/M + c). The kernel takes one column in
  // `period` = round(1/q): on sm_100a F/M = 128/16 = 8, q = 3/16, one in
  // five. (On sm_90a, where the tensor cores are half as fast, one in four
  // and one in two were measured slower: docs/benchmarks.md, "exp2 on the
  // FMA pipe"; sm_100a's share is unmeasured.)
  constexpr double kSoftmaxIssues = 5.0, kPolynomialIssues = 8.0;
  double ratio = double(target.fmaPerClock) / double(target.exp2PerClock);
  if (ratio <= kSoftmaxIssues)
    return {};
  double share = (ratio - kSoftmaxIssues) / (ratio + kPolynomialIssues);
  return {/*polynomial=*/1,
          /*period=*/std::max<int64_t>(2, int64_t(std::lround(1.0 / share)))};
}
