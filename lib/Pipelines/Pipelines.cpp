//===- Pipelines.cpp - flash-opt pass pipelines ---------------------------===//
//
// --flash-cpu-pipeline: the CPU path that CI uses to check the tiled
// algorithm numerically. Stages: L0 -> L1 (flash-select-schedule,
// flash-tile), L1 -> linalg (flash-decompose), bufferize, loops, LLVM.
//
//===----------------------------------------------------------------------===//

#include "flash/Pipelines/Pipelines.h"
#include "flash/Bundle/Passes.h"
#include "flash/Conversion/Passes.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"

#include "mlir/Dialect/GPU/Pipelines/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::flash;

void mlir::flash::buildTilingPipeline(OpPassManager &pm, StringRef arch,
                                      int64_t blockQ, int64_t blockKV) {
  FlashSelectScheduleOptions schedule;
  schedule.arch = arch.str();
  schedule.blockQ = blockQ;
  schedule.blockKV = blockKV;
  pm.addPass(createFlashSelectSchedule(schedule));
  pm.addPass(createFlashTile());
}

/// Upstream passes from tensors to the LLVM dialect, as a textual pipeline so
/// that it reads like the mlir-opt command it replaces.
static constexpr const char *kTensorToLLVM =
    "canonicalize,cse,"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map allow-return-allocs-from-loops},"
    "scf-forall-to-for,"
    "func.func(convert-linalg-to-loops),"
    "canonicalize,"
    "func.func(buffer-hoisting,buffer-loop-hoisting),"
    "buffer-deallocation-pipeline,"
    "convert-bufferization-to-memref,"
    "expand-strided-metadata,lower-affine,convert-scf-to-cf,"
    "convert-math-to-llvm,"
    "finalize-memref-to-llvm,convert-to-llvm,reconcile-unrealized-casts";

void mlir::flash::buildCPUPipeline(OpPassManager &pm,
                                   const CPUPipelineOptions &options) {
  if (options.reference) {
    pm.addPass(createFlashLowerToReference());
  } else {
    buildTilingPipeline(pm, "sm_80", options.blockQ, options.blockKV);
    pm.addPass(createFlashDecompose());
  }
  if (failed(parsePassPipeline(kTensorToLLVM, pm, llvm::errs())))
    llvm::report_fatal_error("flash-cpu-pipeline: bad upstream pipeline");
}

void mlir::flash::buildToPTXPipeline(OpPassManager &pm,
                                     const ToPTXPipelineOptions &options) {
  FlashSelectScheduleOptions schedule;
  schedule.arch = options.arch;
  schedule.blockQ = options.blockQ;
  schedule.blockKV = options.blockKV;
  schedule.warps = options.warps;
  schedule.stages = options.stages;
  pm.addPass(createFlashSelectSchedule(schedule));
  pm.addPass(createFlashTile());
  FlashSelectKernelFormOptions form;
  form.persistent = options.persistent;
  form.pingPong = options.pingPong;
  form.rescale = options.rescale;
  form.firstTileMask = options.firstTileMask;
  form.tileOrder = options.tileOrder;
  form.storeWait = options.storeWait;
  form.kvRange = options.kvRange;
  pm.addPass(createFlashSelectKernelForm(form));
  FlashLowerToNVGPUOptions lower;
  lower.arch = options.arch;
  pm.addPass(createFlashLowerToNVGPU(lower));

  // Upstream NVGPU -> NVVM -> LLVM -> PTX. sm_100a needs PTX ISA 8.6.
  gpu::GPUToNVVMPipelineOptions nvvm;
  nvvm.cubinChip = options.arch;
  nvvm.cubinFeatures = options.arch == "sm_100a" ? "+ptx86" : "+ptx80";
  nvvm.cubinFormat = "isa";
  nvvm.optLevel = 3;
  gpu::buildLowerToNVVMPassPipeline(pm, nvvm);

  if (!options.bundleDir.empty()) {
    FlashWriteBundleOptions bundle;
    bundle.dir = options.bundleDir;
    bundle.cubinArchs = options.cubinArchs;
    bundle.seqRange = options.seqRange;
    bundle.variant = options.variant;
    pm.addPass(createFlashWriteBundle(bundle));
  }
}

void mlir::flash::registerFlashPipelines() {
  PassPipelineRegistration<ToPTXPipelineOptions>(
      "flash-to-ptx",
      "Compile flash.attention to GPU kernels: schedule, tile, lower to "
      "nvgpu/nvvm, PTX in gpu.binary (and bundles with bundle-dir)",
      buildToPTXPipeline);
  PassPipelineRegistration<CPUPipelineOptions>(
      "flash-cpu-pipeline",
      "Lower flash.attention (tiled by default, or the reference) to the LLVM "
      "dialect for mlir-runner",
      buildCPUPipeline);
}
