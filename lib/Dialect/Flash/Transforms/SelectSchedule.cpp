//===- SelectSchedule.cpp - IO-aware schedule choice -----------------------===//
//
// Attaches #flash.schedule to each flash.attention, chosen by
// chooseSchedule() (Schedule.cpp) from the target model named by `arch`.
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

    WalkResult result = getOperation()->walk([&](AttentionOp op) {
      if (op.getScheduleAttr() && !overwrite)
        return WalkResult::advance();
      FailureOr<AttentionShape> shape = getAttentionShape(op);
      if (failed(shape))
        return WalkResult::interrupt();
      bool allOverridden = blockQ && blockKV && stages && warps;
      std::optional<ScheduleChoice> choice;
      if (!allOverridden) {
        choice = chooseSchedule(*target, *shape);
        if (!choice) {
          op.emitOpError() << "not supported yet: no schedule for " << arch
                           << " fits D=" << shape->headDim
                           << ", Dv=" << shape->valueDim
                           << " in shared memory and registers";
          return WalkResult::interrupt();
        }
      } else {
        choice = ScheduleChoice{};
      }
      if (blockQ)
        choice->blockQ = blockQ;
      if (blockKV)
        choice->blockKV = blockKV;
      if (stages)
        choice->stages = stages;
      if (warps)
        choice->warps = warps;
      op.setScheduleAttr(ScheduleAttr::get(&getContext(), target->arch,
                                           choice->blockQ, choice->blockKV,
                                           choice->stages, choice->warps));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
