//===- SelectSchedule.cpp - IO-aware schedule choice -----------------------===//
//
// Attaches #flash.schedule to each flash.attention and
// flash.attention_backward, chosen by chooseSchedule() or
// chooseBackwardSchedule() (Schedule.cpp) from the target model named by
// `arch`, or a split-KV schedule (chooseSplitKVSchedule, SplitKVSchedule.cpp)
// to each flash.paged_attention and to each flash.attention with few query
// rows.
// Options override single fields; an op that already has a schedule keeps it
// unless `overwrite` is set.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/Flash.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"
#include "flash/Dialect/Flash/Transforms/Schedule.h"

#include "llvm/ADT/StringExtras.h"

namespace mlir {
namespace flash {
#define GEN_PASS_DEF_FLASHSELECTSCHEDULE
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"
} // namespace flash
} // namespace mlir

using namespace mlir;
using namespace mlir::flash;

namespace {
struct FlashSelectSchedulePass
    : flash::impl::FlashSelectScheduleBase<FlashSelectSchedulePass> {
  using Base::Base;

  void runOnOperation() override {
    if (!lookupTargetModel(arch)) {
      getOperation()->emitError()
          << "flash-select-schedule: unknown arch '" << arch
          << "'; expected one of " << llvm::join(knownArchs(), ", ");
      return signalPassFailure();
    }
    // The model with the shared memory of the devices the plan is for.
    std::optional<TargetModel> model =
        lookupTargetModel(arch, sharedMemoryPerBlock);
    if (!model) {
      getOperation()->emitError()
          << sharedMemoryBudgetError("flash-select-schedule",
                                     sharedMemoryPerBlock);
      return signalPassFailure();
    }
    const TargetModel *target = &*model;
    for (auto [name, value] :
         {std::pair<StringRef, int64_t>{"block-q", blockQ},
          {"block-kv", blockKV},
          {"stages", stages},
          {"warps", warps}}) {
      if (value < 0) {
        getOperation()->emitError() << "flash-select-schedule: " << name
                                    << " must be non-negative, got " << value;
        return signalPassFailure();
      }
    }

    if (maxSplits < 0) {
      getOperation()->emitError()
          << "flash-select-schedule: max-splits must be non-negative, got "
          << int64_t(maxSplits);
      return signalPassFailure();
    }

    // The fields the options override (a non-zero option wins).
    auto override = [&](ScheduleChoice &choice) {
      if (blockQ)
        choice.blockQ = blockQ;
      if (blockKV)
        choice.blockKV = blockKV;
      if (stages)
        choice.stages = stages;
      if (warps)
        choice.warps = warps;
    };
    bool allOverridden = blockQ && blockKV && stages && warps;

    // One op of the forward or the backward: its shape, the model's choice
    // (unless every field is overridden), then the overrides.
    auto schedule = [&](Operation *op, FailureOr<AttentionShape> shape,
                        function_ref<std::optional<ScheduleChoice>(
                            const AttentionShape &)>
                            choose,
                        StringRef what) -> FailureOr<ScheduleAttr> {
      if (failed(shape))
        return failure();
      std::optional<ScheduleChoice> choice;
      if (!allOverridden) {
        choice = choose(*shape);
        if (!choice)
          return op->emitOpError()
                 << "not supported yet: no " << what << "schedule for "
                 << arch << " fits D=" << shape->headDim
                 << ", Dv=" << shape->valueDim
                 << " in shared memory and registers";
      } else {
        choice = ScheduleChoice{};
      }
      override(*choice);
      return ScheduleAttr::get(&getContext(), target->arch, choice->blockQ,
                               choice->blockKV, choice->stages,
                               choice->warps);
    };

    // The split-KV schedule of `op` (Flash-Decoding; SplitKVSchedule.cpp).
    // Nothing when no tile fits (diagnosed when `diagnose` is set).
    auto splitKVSchedule = [&](Operation *op, const AttentionShape &shape,
                               bool diagnose) -> ScheduleAttr {
      std::optional<SplitKVScheduleChoice> choice =
          chooseSplitKVSchedule(*target, shape);
      if (!choice) {
        if (diagnose)
          op->emitOpError() << "not supported yet: no split-KV schedule for "
                            << arch << " fits D=" << shape.headDim
                            << ", Dv=" << shape.valueDim
                            << " in shared memory and registers";
        return nullptr;
      }
      override(choice->tiles);
      return ScheduleAttr::get(&getContext(), target->arch,
                               choice->tiles.blockQ, choice->tiles.blockKV,
                               choice->tiles.stages, choice->tiles.warps,
                               maxSplits ? int64_t(maxSplits)
                                         : choice->maxSplits);
    };

    WalkResult result = getOperation()->walk([&](Operation *op) {
      if (auto paged = dyn_cast<PagedAttentionOp>(op)) {
        if (paged.getScheduleAttr() && !overwrite)
          return WalkResult::advance();
        FailureOr<PagedAttentionShape> shape = getPagedAttentionShape(paged);
        if (failed(shape))
          return WalkResult::interrupt();
        ScheduleAttr chosen = splitKVSchedule(op, *shape, /*diagnose=*/true);
        if (!chosen)
          return WalkResult::interrupt();
        paged.setScheduleAttr(chosen);
      } else if (auto forward = dyn_cast<AttentionOp>(op)) {
        if (forward.getScheduleAttr() && !overwrite)
          return WalkResult::advance();
        FailureOr<AttentionShape> shape = getAttentionShape(forward);
        if (failed(shape))
          return WalkResult::interrupt();
        // Few query rows: the split-KV form, where a split-KV tile fits (else
        // the forward form, whose own fit is checked below).
        if (splitKV && takesSplitKVForm(*target, *shape)) {
          if (ScheduleAttr chosen =
                  splitKVSchedule(op, *shape, /*diagnose=*/false)) {
            forward.setScheduleAttr(chosen);
            return WalkResult::advance();
          }
        }
        FailureOr<ScheduleAttr> chosen = schedule(
            op, shape,
            [&](const AttentionShape &s) { return chooseSchedule(*target, s); },
            "");
        if (failed(chosen))
          return WalkResult::interrupt();
        forward.setScheduleAttr(*chosen);
      } else if (auto backward = dyn_cast<AttentionBackwardOp>(op)) {
        if (backward.getScheduleAttr() && !overwrite)
          return WalkResult::advance();
        FailureOr<ScheduleAttr> chosen = schedule(
            op, getAttentionShape(backward),
            [&](const AttentionShape &s) {
              return chooseBackwardSchedule(*target, s,
                                            backward.getDeterministic());
            },
            "backward ");
        if (failed(chosen))
          return WalkResult::interrupt();
        backward.setScheduleAttr(*chosen);
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
