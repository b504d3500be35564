//===- SelectSchedule.cpp - IO-aware schedule choice -----------------------===//
//
// Attaches #flash.schedule to each flash.attention, chosen by
// chooseSchedule() (Schedule.cpp) from the target model named by `arch`, or
// a split-KV schedule (chooseSplitKVSchedule, SplitKVSchedule.cpp) to each
// flash.paged_attention and to each flash.attention with few query rows.
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
    const TargetModel *target = lookupTargetModel(arch);
    if (!target) {
      getOperation()->emitError()
          << "flash-select-schedule: unknown arch '" << arch
          << "'; expected one of " << llvm::join(knownArchs(), ", ");
      return signalPassFailure();
    }
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
        ScheduleAttr schedule = splitKVSchedule(op, *shape, /*diagnose=*/true);
        if (!schedule)
          return WalkResult::interrupt();
        paged.setScheduleAttr(schedule);
        return WalkResult::advance();
      }
      auto attention = dyn_cast<AttentionOp>(op);
      if (!attention || (attention.getScheduleAttr() && !overwrite))
        return WalkResult::advance();
      FailureOr<AttentionShape> shape = getAttentionShape(attention);
      if (failed(shape))
        return WalkResult::interrupt();
      // Few query rows: the split-KV form, where a split-KV tile fits (else
      // the forward form, whose own fit is checked below).
      if (splitKV && takesSplitKVForm(*target, *shape)) {
        if (ScheduleAttr schedule =
                splitKVSchedule(op, *shape, /*diagnose=*/false)) {
          attention.setScheduleAttr(schedule);
          return WalkResult::advance();
        }
      }
      std::optional<ScheduleChoice> choice;
      if (!allOverridden) {
        choice = chooseSchedule(*target, *shape);
        if (!choice) {
          attention.emitOpError()
              << "not supported yet: no schedule for " << arch
              << " fits D=" << shape->headDim << ", Dv=" << shape->valueDim
              << " in shared memory and registers";
          return WalkResult::interrupt();
        }
      } else {
        choice = ScheduleChoice{};
      }
      override(*choice);
      attention.setScheduleAttr(ScheduleAttr::get(
          &getContext(), target->arch, choice->blockQ, choice->blockKV,
          choice->stages, choice->warps));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
