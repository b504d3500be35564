//===- FormPolicy.cpp - the sm_100a forward kernel's form and checks ------===//
//
// The sm_100a forward kernel (SM100/ForwardKernel.cpp) takes its shape from
// the schedule: one 128-row Q tile per block in six warps (a softmax
// warpgroup, a TMA warp, an MMA warp) or, where the schedule picked 256
// rows (two tiles' O and S fit tensor memory: 2·(D + Bc) columns), two
// tiles in sixteen warps (a softmax warpgroup per tile, a correction
// warpgroup, the TMA and MMA warps in a fourth, registers moved by
// setmaxnreg). Blocks take tiles head by head, O is rescaled lazily in
// tensor memory, O leaves through shared memory and TMA stores.
// This file refuses the form options of the other arches and checks the
// schedule's tiles against the kernel: tensor memory within the SM's 512
// columns, shared memory within a block's. It also picks the share of P's
// exponentials computed by a polynomial on the FMA units.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/KernelForm.h"
#include "flash/Dialect/Flash/Transforms/Schedule.h"

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
           << " (its forward kernel has no form options: one or two Q "
              "tiles per block as the schedule says, rescale=lazy)";
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
  if (c.blockQ != 128 && c.blockQ != 256)
    return unsupported("block_q = " + Twine(c.blockQ) +
                       " (the kernel computes one or two 128-row Q tiles "
                       "per block)");
  if (c.blockKV != 64 && c.blockKV != 128)
    return unsupported("block_kv = " + Twine(c.blockKV) + " (64 or 128)");
  if (c.blockQ == 128 && c.warps != 6)
    return unsupported(Twine(c.warps) +
                       " warps with one Q tile (the kernel has six: a "
                       "softmax warpgroup, a TMA warp and an MMA warp)");
  if (c.blockQ == 256 && c.warps != 16)
    return unsupported(Twine(c.warps) +
                       " warps with two Q tiles (the kernel has sixteen: two "
                       "softmax warpgroups, a correction warpgroup and one "
                       "of the TMA and MMA warps)");
  // Two tiles hold O and S each in tensor memory, P written over S: the
  // rule the schedule follows (tensorMemoryColumnsForBlock).
  if (c.blockQ == 256 &&
      2 * (c.headDim + c.blockKV) > target.tensorMemoryColumns)
    return unsupported("two Q tiles at D = " + Twine(c.headDim) +
                       ", block_kv = " + Twine(c.blockKV) + " (2·(D + Bc) = " +
                       Twine(2 * (c.headDim + c.blockKV)) +
                       " tensor-memory columns, " +
                       Twine(target.tensorMemoryColumns) + " per SM)");
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

SM100Roles mlir::flash::sm100Roles(const KernelConfig &c) {
  int64_t tiles = c.blockQ / 128;
  if (tiles == 1)
    return {1, /*producerWarp=*/4, /*mmaWarp=*/5, 0, 0};
  // Two softmax warpgroups (warps 0-7), the correction warpgroup (8-11),
  // warpgroup 3 of the TMA warp (12), the MMA warp (13) and two idle ones:
  // 2·128·184 + 128·88 + 128·56 = 65536, the block's launch share (128 ×
  // 512): setmaxnreg.inc takes only what .dec released. The schedule's
  // budget (registerBudgetPerThread) is the softmax's share: one number for
  // the model and the kernel. A softmax thread holds its row of S (Bc f32)
  // and of P (Bc/2 pairs); the correction thread a chunk of 32 columns of
  // O (the rescale, the epilogue). The MMA thread rebuilds its descriptors
  // inside its loop (reloadSharedBase) rather than keeping both tiles' Q
  // descriptors across it, and every role re-reads the entry values after
  // its setmaxnreg. ptxas -v (2026-12-02): 192/80/48 spilled 8-28 bytes in
  // the non-causal bundles, 192/72/56 16-28 (the correction), 184/88/56
  // none (docs/results/sm100a-static-2026-12-02/correction/).
  const TargetModel *target = lookupTargetModel(c.arch);
  int64_t softmax = registerBudgetPerThread(
      *target, ScheduleChoice{c.blockQ, c.blockKV, c.stages, c.warps});
  SM100Roles roles{2, /*producerWarp=*/12, /*mmaWarp=*/13, softmax,
                   /*other=*/kTensorMemoryIssuerRegisters};
  roles.correctionWarp = 8;
  roles.correctionRegisters = kCorrectionRegisters;
  return roles;
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
