//===- flash-opt.cpp - the FlashMLIR driver -------------------------------===//
//
// mlir-opt with the flash dialect, its passes and pipelines, and every
// upstream dialect and pass, so that tests and users can mix them freely.
//
//===----------------------------------------------------------------------===//

#include "flash/InitFlash.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

namespace mlir::flash {
/// Test-only passes (test/lib).
void registerTestKernelMathPass();
void registerTestVisibleRangesPass();
void registerTestSplitKVPass();
void registerTestTensorMemoryPass();
void registerTestDecodePagesPass();
void registerTestDecodeMergePass();
void registerTestDecodeCombinePass();
void registerTestDecodeCountsPass();
} // namespace mlir::flash

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::flash::registerAllFlashPasses();
  mlir::flash::registerTestKernelMathPass();
  mlir::flash::registerTestVisibleRangesPass();
  mlir::flash::registerTestSplitKVPass();
  mlir::flash::registerTestDecodePagesPass();
  mlir::flash::registerTestDecodeMergePass();
  mlir::flash::registerTestDecodeCombinePass();
  mlir::flash::registerTestDecodeCountsPass();
  mlir::flash::registerTestTensorMemoryPass();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::flash::registerFlashDialect(registry);
  // gpu-module-to-binary translates gpu.module to LLVM IR (NVPTX).
  mlir::registerAllToLLVMIRTranslations(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "FlashMLIR optimizer driver: attention as a dialect op\n",
      registry));
}
