//===- InitFlash.h - register every FlashMLIR piece -------------*- C++ -*-===//
//
// One call per piece, as upstream's InitAllDialects.h / InitAllPasses.h:
// a compiler that embeds FlashMLIR calls these next to its own registration
// (tools/flash-opt and examples/out-of-tree/my-opt.cpp do).
//
//   piece        library (CMake target)   registration
//   dialect      FlashMLIR::Dialect       registerFlashDialect(registry)
//   passes       FlashMLIR::Transforms    registerFlashPasses()
//                FlashMLIR::Conversion    registerFlashConversionPasses()
//                FlashMLIR::Bundle        registerFlashBundlePasses()
//   pipelines    FlashMLIR::Pipelines     registerFlashPipelines()
//   runtime      FlashMLIR::Runtime       none: a C library (flash_runtime.h)
//
// The flash passes create upstream ops (linalg, tensor, scf, gpu, nvgpu, nvvm,
// llvm); --flash-cpu-pipeline also needs upstream's bufferization and
// convert-to-llvm interfaces (registerAllDialects + registerAllExtensions),
// and --flash-to-ptx the LLVM IR translations (registerAllToLLVMIRTranslations)
// in the embedding tool's registry.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_INITFLASH_H
#define FLASH_INITFLASH_H

// Declarations only, so that a tool's main() compiles without the pass and
// dialect headers (flash/Dialect/Flash/IR/Flash.h, flash/*/Passes.h,
// flash/Pipelines/Pipelines.h hold the rest).

namespace mlir {
class DialectRegistry;
namespace flash {

/// The flash dialect in `registry` (the dialect's registration call, as
/// upstream dialects have). Defined in FlashMLIR::Dialect.
void registerFlashDialect(DialectRegistry &registry);

/// Every FlashMLIR pass and named pipeline (flash-raise-attention, ...,
/// flash-cpu-pipeline, flash-to-ptx) in the global pass registry, so that
/// pass pipeline strings and mlir-opt-style command lines find them:
/// registerFlashPasses(), registerFlashConversionPasses(),
/// registerFlashBundlePasses() and registerFlashPipelines(). Defined in
/// FlashMLIR::Pipelines.
void registerAllFlashPasses();

} // namespace flash
} // namespace mlir

#endif // FLASH_INITFLASH_H
