//===- Pipelines.cpp - flash-opt pass pipelines ---------------------------===//
//
// --flash-cpu-pipeline: the CPU path that CI uses to check the tiled
// algorithm numerically (flash.attention, and flash.paged_attention in the
// split-KV form). Stages: a check of where tensors sit, L0 -> L1
// (flash-select-schedule, flash-tile), L1 -> linalg (flash-decompose), then
// bufferize, loops and LLVM on every builtin.module (innermost first), and a
// final check that only the LLVM dialect is left.
//
// Why the placement check and the per-module stage: one-shot-bufferize with
// function boundaries bufferizes the func.func ops that are direct children
// of the module it runs on, and skips nested symbol tables. A function in a
// nested builtin.module or a gpu.module stayed on tensors, scf-forall-to-for
// then erased a tensor-result scf.forall that its return still used, and the
// verifier crashed printing the dangling value (or, with no scf.forall, the
// pipeline "succeeded" with linalg on tensors). Nested builtin.modules are now
// lowered one by one; tensors anywhere else are refused before anything runs.
//
//===----------------------------------------------------------------------===//

#include "flash/Pipelines/Pipelines.h"
#include "flash/InitFlash.h"
#include "flash/Bundle/Passes.h"
#include "flash/Conversion/Passes.h"
#include "flash/Dialect/Flash/IR/Flash.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::flash;

void mlir::flash::buildTilingPipeline(OpPassManager &pm, StringRef arch,
                                      int64_t blockQ, int64_t blockKV,
                                      bool splitKV, int64_t maxSplits) {
  FlashSelectScheduleOptions schedule;
  schedule.arch = arch.str();
  schedule.blockQ = blockQ;
  schedule.blockKV = blockKV;
  schedule.splitKV = splitKV;
  schedule.maxSplits = maxSplits;
  pm.addPass(createFlashSelectSchedule(schedule));
  pm.addPass(createFlashTile());
}

/// Upstream passes from tensors to the LLVM dialect, as a textual pipeline so
/// that it reads like the mlir-opt command it replaces. It runs on one
/// builtin.module at a time (FlashLowerModulesToLLVMPass), anchored on it.
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

/// The stage as a pass manager; failure (with the parser's message in
/// `error`) when the upstream passes it names are not registered, as in a
/// tool that registered FlashMLIR's passes but not upstream's.
static FailureOr<OpPassManager> tensorToLLVMPipeline(std::string &error) {
  OpPassManager pm(ModuleOp::getOperationName());
  llvm::raw_string_ostream os(error);
  if (failed(parsePassPipeline(kTensorToLLVM, pm, os)))
    return failure();
  return pm;
}

namespace {
/// Refuses what the CPU pipeline cannot lower, before anything changes:
/// tensors (and flash ops) anywhere but in a func.func whose parent is a
/// builtin.module, the only functions one-shot-bufferize rewrites. A gpu.func,
/// a func.func in a gpu.module, or a tensor op outside any function gets a
/// located "not supported yet"; its body is not searched further.
struct FlashCPUCheckInputPass
    : PassWrapper<FlashCPUCheckInputPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FlashCPUCheckInputPass)
  StringRef getArgument() const override { return "flash-cpu-check-input"; }
  StringRef getDescription() const override {
    return "Refuse tensors and flash ops that --flash-cpu-pipeline cannot "
           "lower (outside a func.func of a builtin.module)";
  }

  static bool mentionsTensors(Operation *op) {
    auto isTensor = [](Type type) { return isa<TensorType>(type); };
    if (auto function = dyn_cast<FunctionOpInterface>(op))
      return llvm::any_of(function.getArgumentTypes(), isTensor) ||
             llvm::any_of(function.getResultTypes(), isTensor);
    return llvm::any_of(op->getOperandTypes(), isTensor) ||
           llvm::any_of(op->getResultTypes(), isTensor);
  }

  void runOnOperation() override {
    bool refused = false;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<ModuleOp>(op))
        return WalkResult::advance();
      bool isFlash = isa_and_nonnull<FlashDialect>(op->getDialect());
      if (!isFlash && !mentionsTensors(op))
        return WalkResult::advance();
      Operation *function = isa<FunctionOpInterface>(op)
                                ? op
                                : op->getParentOfType<FunctionOpInterface>();
      if (isa_and_nonnull<func::FuncOp>(function) &&
          isa<ModuleOp>(function->getParentOp()))
        return WalkResult::advance();
      // Located at the op, without the IR around it (as every refusal here).
      InFlightDiagnostic diag = mlir::emitError(op->getLoc())
                                << "'" << op->getName()
                                << "' op not supported yet: ";
      diag << (isFlash ? "a flash op" : "tensors");
      if (!function)
        diag << " outside a function";
      else if (!isa<func::FuncOp>(function))
        diag << " in a '" << function->getName() << "'";
      else
        diag << " in a func.func inside a '"
             << function->getParentOp()->getName() << "'";
      diag << " in --flash-cpu-pipeline, which lowers func.func ops of "
              "builtin.modules";
      refused = true;
      return WalkResult::skip();
    });
    if (refused)
      signalPassFailure();
  }
};

/// Runs the upstream tensor -> LLVM stage on every builtin.module, innermost
/// first (a post-order walk), so that a func.func in a nested module is
/// bufferized at its own module's function boundaries like a top-level one.
struct FlashLowerModulesToLLVMPass
    : PassWrapper<FlashLowerModulesToLLVMPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FlashLowerModulesToLLVMPass)
  StringRef getArgument() const override {
    return "flash-lower-modules-to-llvm";
  }
  StringRef getDescription() const override {
    return "Bufferize and lower each builtin.module (innermost first) to the "
           "LLVM dialect with the upstream passes of --flash-cpu-pipeline";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    std::string error;
    if (auto pipeline = tensorToLLVMPipeline(error); succeeded(pipeline))
      pipeline->getDependentDialects(registry);
  }
  void runOnOperation() override {
    SmallVector<ModuleOp> modules;
    getOperation()->walk([&](ModuleOp module) { modules.push_back(module); });
    std::string error;
    FailureOr<OpPassManager> pipeline = tensorToLLVMPipeline(error);
    if (failed(pipeline)) {
      getOperation()->emitError()
          << "flash-cpu-pipeline: the upstream passes it runs are not "
             "registered (call mlir::registerAllPasses(), or "
             "mlirRegisterAllPasses() from the C API, before running it): "
          << StringRef(error).split('\n').first;
      return signalPassFailure();
    }
    for (ModuleOp module : modules)
      if (failed(runPipeline(*pipeline, module)))
        return signalPassFailure();
  }
};

/// Emits a located error (without the IR around it) at each outermost op
/// that `survived` picks; true when there was one.
static bool reportSurvivors(Operation *root,
                            function_ref<bool(Operation *)> survived,
                            StringRef what) {
  bool found = false;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (!survived(op))
      return WalkResult::advance();
    mlir::emitError(op->getLoc())
        << "'" << op->getName() << "' op was not lowered " << what;
    found = true;
    return WalkResult::skip();
  });
  return found;
}

/// The end of --flash-cpu-pipeline: success means LLVM dialect only (inside
/// builtin.modules). Anything else, e.g. linalg on tensors that a lowering
/// skipped, is a located error instead of half-lowered output.
struct FlashCheckLoweredToLLVMPass
    : PassWrapper<FlashCheckLoweredToLLVMPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FlashCheckLoweredToLLVMPass)
  FlashCheckLoweredToLLVMPass(StringRef pipeline = "--flash-cpu-pipeline")
      : pipeline(pipeline.str()) {}
  std::string pipeline;
  StringRef getArgument() const override {
    return "flash-check-lowered-to-llvm";
  }
  StringRef getDescription() const override {
    return "Fail with a located error on any op outside the LLVM dialect "
           "(builtin.module aside)";
  }
  void runOnOperation() override {
    auto notLLVM = [](Operation *op) {
      return !isa<ModuleOp>(op) &&
             !isa_and_nonnull<LLVM::LLVMDialect>(op->getDialect());
    };
    if (reportSurvivors(getOperation(), notLLVM,
                        "to the LLVM dialect by " + pipeline))
      signalPassFailure();
  }
};

/// The end of --flash-to-ptx: no flash op, no gpu.module (every kernel is
/// in a gpu.binary) and no NVGPU or NVVM op, which only a kernel can hold
/// (found outside a gpu.module, e.g. in an llvm.func of the input, it would
/// otherwise pass through as host code).
struct FlashCheckLoweredToBinaryPass
    : PassWrapper<FlashCheckLoweredToBinaryPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FlashCheckLoweredToBinaryPass)
  StringRef getArgument() const override {
    return "flash-check-lowered-to-binary";
  }
  StringRef getDescription() const override {
    return "Fail with a located error on any flash, NVGPU or NVVM op or "
           "gpu.module left";
  }
  void runOnOperation() override {
    auto notLowered = [](Operation *op) {
      return isa<gpu::GPUModuleOp>(op) ||
             isa_and_nonnull<FlashDialect, NVVM::NVVMDialect,
                             nvgpu::NVGPUDialect>(op->getDialect());
    };
    if (reportSurvivors(getOperation(), notLowered, "by --flash-to-ptx"))
      signalPassFailure();
  }
};
} // namespace

std::unique_ptr<Pass>
mlir::flash::createFlashCheckLoweredToLLVMPass(StringRef pipeline) {
  return std::make_unique<FlashCheckLoweredToLLVMPass>(pipeline);
}

void mlir::flash::buildCPUPipeline(OpPassManager &pm,
                                   const CPUPipelineOptions &options) {
  pm.addPass(std::make_unique<FlashCPUCheckInputPass>());
  if (options.reference) {
    pm.addPass(createFlashLowerToReference());
  } else {
    buildTilingPipeline(pm, "sm_80", options.blockQ, options.blockKV,
                        options.splitKV, options.maxSplits);
    pm.addPass(createFlashDecompose());
  }
  pm.addPass(std::make_unique<FlashLowerModulesToLLVMPass>());
  pm.addPass(std::make_unique<FlashCheckLoweredToLLVMPass>());
}

void mlir::flash::buildToPTXPipeline(OpPassManager &pm,
                                     const ToPTXPipelineOptions &options) {
  FlashSelectScheduleOptions schedule;
  schedule.arch = options.arch;
  schedule.blockQ = options.blockQ;
  schedule.blockKV = options.blockKV;
  schedule.warps = options.warps;
  schedule.stages = options.stages;
  schedule.splitKV = options.splitKV;
  schedule.maxSplits = options.maxSplits;
  schedule.sharedMemoryPerBlock = options.sharedMemoryPerBlock;
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
  form.sharedMemoryPerBlock = options.sharedMemoryPerBlock;
  pm.addPass(createFlashSelectKernelForm(form));
  FlashLowerToNVGPUOptions lower;
  lower.arch = options.arch;
  lower.batchMaps = options.batchMaps;
  lower.strides = options.strides;
  lower.sharedMemoryPerBlock = options.sharedMemoryPerBlock;
  lower.fusedPageSizes = options.fusedPageSizes;
  pm.addPass(createFlashLowerToNVGPU(lower));

  // Upstream NVGPU -> NVVM -> LLVM -> PTX. sm_100a needs PTX ISA 8.6.
  gpu::GPUToNVVMPipelineOptions nvvm;
  nvvm.cubinChip = options.arch;
  nvvm.cubinFeatures = options.arch == "sm_100a" ? "+ptx86" : "+ptx80";
  nvvm.cubinFormat = "isa";
  nvvm.optLevel = 3;
  gpu::buildLowerToNVVMPassPipeline(pm, nvvm);
  pm.addPass(std::make_unique<FlashCheckLoweredToBinaryPass>());

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
  PassRegistration<FlashCPUCheckInputPass>();
  PassRegistration<FlashLowerModulesToLLVMPass>();
  PassRegistration<FlashCheckLoweredToLLVMPass>();
  PassRegistration<FlashCheckLoweredToBinaryPass>();
  registerFlashHostPasses();
  PassPipelineRegistration<ToPTXPipelineOptions>(
      "flash-to-ptx",
      "Compile flash.attention, flash.paged_attention and "
      "flash.attention_backward to GPU kernels: schedule, tile, lower to "
      "nvgpu/nvvm, PTX in gpu.binary (and bundles with bundle-dir)",
      buildToPTXPipeline);
  PassPipelineRegistration<CPUPipelineOptions>(
      "flash-cpu-pipeline",
      "Lower flash.attention (tiled by default, or the reference) to the LLVM "
      "dialect for mlir-runner",
      buildCPUPipeline);
}

void mlir::flash::registerAllFlashPasses() {
  registerFlashPasses();
  registerFlashConversionPasses();
  registerFlashBundlePasses();
  registerFlashPipelines();
}
