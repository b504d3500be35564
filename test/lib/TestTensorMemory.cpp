//===- TestTensorMemory.cpp - the static tensor-memory check on any IR ----===//
//
// flash-test-check-tensor-memory runs sm100::checkTensorMemory (the check the
// sm_100a lowering applies to every kernel it emits) on every llvm.func of
// the input, so that test/Conversion/tensor-memory-check.mlir can show it
// catching hand-written kernels that leak or overflow tensor memory.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/SM100/TCGen05.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::flash;

namespace {
struct TestTensorMemoryPass
    : public PassWrapper<TestTensorMemoryPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestTensorMemoryPass)
  TestTensorMemoryPass() = default;
  TestTensorMemoryPass(const TestTensorMemoryPass &other)
      : PassWrapper(other) {}

  StringRef getArgument() const final {
    return "flash-test-check-tensor-memory";
  }
  StringRef getDescription() const final {
    return "Run the sm_100a kernels' static tensor-memory check on every "
           "llvm.func";
  }

  Option<int64_t> blocksPerSM{*this, "blocks-per-sm", llvm::cl::init(1)};

  void runOnOperation() override {
    bool failedAny = false;
    getOperation().walk([&](LLVM::LLVMFuncOp func) {
      if (func.isExternal())
        return;
      failedAny |= failed(sm100::checkTensorMemory(
          func, sm100::kTensorMemoryColumns, blocksPerSM));
    });
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace

namespace mlir::flash {
void registerTestTensorMemoryPass() {
  PassRegistration<TestTensorMemoryPass>();
}
} // namespace mlir::flash
