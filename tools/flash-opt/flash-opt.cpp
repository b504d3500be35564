//===- flash-opt.cpp - the FlashMLIR driver -------------------------------===//
//
// mlir-opt with the flash dialect, its passes and pipelines, and every
// upstream dialect and pass, so that tests and users can mix them freely.
//
//===----------------------------------------------------------------------===//

#include "ParserGuard.h"
#include "flash/InitFlash.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cstdio>

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
void registerTestDecodeResultPass();
void registerTestDecodeCopiesPass();
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
  mlir::flash::registerTestDecodeResultPass();
  mlir::flash::registerTestDecodeCopiesPass();
  mlir::flash::registerTestTensorMemoryPass();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::flash::registerFlashDialect(registry);
  // gpu-module-to-binary translates gpu.module to LLVM IR (NVPTX).
  mlir::registerAllToLLVMIRTranslations(registry);

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "FlashMLIR optimizer driver: attention as a dialect op\n",
      registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // Nothing to read: upstream's driver prints the lists.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(mlir::MlirOptMain(
        argc, argv, inputFilename, outputFilename, registry));

  // What upstream's driver does, with the input read once and checked for
  // text MLIR 22's parser crashes on before it is parsed (ParserGuard.h).
  llvm::InitLLVM initLLVM(argc, argv);
  if (inputFilename == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return EXIT_FAILURE;
  }
  // Bytecode goes to its own reader (its strings are not text to scan).
  llvm::SmallVector<mlir::flash::ParserCrashHazard> hazards;
  if (!mlir::isBytecode(file->getMemBufferRef()))
    hazards = mlir::flash::findParserCrashHazards(file->getBuffer());
  if (!hazards.empty()) {
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(file->getMemBufferRef(),
                                         /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
    for (const mlir::flash::ParserCrashHazard &hazard : hazards)
      sourceMgr.PrintMessage(llvm::errs(),
                             llvm::SMLoc::getFromPointer(hazard.loc),
                             llvm::SourceMgr::DK_Error, hazard.message);
    return EXIT_FAILURE;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return EXIT_FAILURE;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(file), registry, config)))
    return EXIT_FAILURE;
  output->keep();
  return EXIT_SUCCESS;
}
