//===- my-opt.cpp - an mlir-opt that embeds FlashMLIR ---------------------===//
//
// What a compiler does to use FlashMLIR as its attention lowering: register
// upstream MLIR as usual, then FlashMLIR's dialect and its passes/pipelines
// (one call each, include/flash/InitFlash.h), from the installed package.
//
//===----------------------------------------------------------------------===//

#include "flash/InitFlash.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  // Passes: upstream's, then FlashMLIR's (flash-raise-attention, ...,
  // flash-cpu-pipeline, flash-to-ptx).
  mlir::registerAllPasses();
  mlir::flash::registerAllFlashPasses();

  // Dialects: upstream's with their extensions (bufferization and
  // convert-to-llvm interfaces), the LLVM IR translations, and flash.
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::flash::registerFlashDialect(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "my-opt: upstream MLIR + FlashMLIR\n", registry));
}
