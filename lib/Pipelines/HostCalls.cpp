//===- HostCalls.cpp - flash.attention among host code --------------------===//
//
// A function where flash.attention sits among other ops (what an ML
// compiler's frontend gives once flash-raise-attention ran) is compiled in
// two parts from the same input:
//
//   kernels:   flash-extract-attention-kernels keeps one kernel function per
//              distinct attention key (element type, D, Dv, causal) and drops
//              the rest; --flash-to-ptx="bundle-dir=..." makes the bundles.
//   host code: flash-attention-to-runtime-calls replaces each flash.attention
//              by a call of the runtime's C entry point
//              flash_attention_memref_<dtype> on the memrefs of Q, K, V and a
//              new O; --flash-host-to-llvm bufferizes the function and lowers
//              it to the LLVM dialect for mlir-translate and llc.
//
// At run time the call selects the bundle's plan by the same key and launches
// it on the stream the embedder bound to the thread (flash_runtime.h, "calls
// from compiled host code"). The host code runs on the CPU over device
// buffers: flash-check-host-code refuses any op that would read or write
// their elements there (a copy, a loop, a constant buffer in host memory)
// with a located "not supported yet", instead of an object file that
// crashes. Allocations it keeps (intermediate results) are device memory
// through upstream's generic allocation functions (docs/embedding.md).
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/Flash.h"
#include "flash/Pipelines/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::flash;

namespace {
/// What the host call and the kernel bundle must agree on: the selection key
/// of the plan (the lengths and head counts are run-time values).
struct AttentionKey {
  Type elementType;
  int64_t headDim, valueDim;
  bool causal;
};

StringRef dtypeSuffix(Type type) {
  if (type.isBF16())
    return "bf16";
  if (type.isF16())
    return "f16";
  return "";
}

/// The key of `op`, or a located "not supported yet" when the GPU path
/// cannot take it (the same rule for the host call and the kernels).
FailureOr<AttentionKey> hostCallKey(AttentionOp op) {
  auto query = cast<RankedTensorType>(op.getQuery().getType());
  auto value = cast<RankedTensorType>(op.getValue().getType());
  if (op.getLse())
    return op.emitOpError()
           << "not supported yet: the LSE result in a call from host code "
              "(flash_attention_memref writes O only)";
  if (dtypeSuffix(query.getElementType()).empty())
    return op.emitOpError() << "not supported yet: " << query.getElementType()
                            << " attention on the GPU path (its kernels take "
                               "bf16 and f16; f32 is the CPU pipeline's)";
  if (query.isDynamicDim(3) || value.isDynamicDim(3))
    return op.emitOpError()
           << "not supported yet: a dynamic head dimension (D and Dv select "
              "the kernel)";
  return AttentionKey{query.getElementType(), query.getDimSize(3),
                      value.getDimSize(3), op.getCausal()};
}

/// A located "not supported yet" at each flash op other than flash.attention
/// (the backward, paged attention, L1 ops): the host ABI has no call for
/// them, and neither pass may drop or keep one silently. True if any.
bool refuseOtherFlashOps(ModuleOp module) {
  bool refused = false;
  module.walk([&](Operation *op) {
    if (isa<AttentionOp>(op) || !isa_and_nonnull<FlashDialect>(op->getDialect()))
      return;
    op->emitOpError() << "not supported yet: '" << op->getName()
                      << "' in host code lowered to runtime calls (the "
                         "runtime's host ABI calls flash.attention only)";
    refused = true;
  });
  return refused;
}

/// A rank-4 memref of `element` with every size, stride and the offset
/// dynamic: the one type of every descriptor flash_attention_memref takes.
MemRefType anyMemRef4d(Type element) {
  MLIRContext *context = element.getContext();
  SmallVector<int64_t> dynamic(4, ShapedType::kDynamic);
  return MemRefType::get(
      dynamic, element,
      StridedLayoutAttr::get(context, ShapedType::kDynamic, dynamic));
}

//===-- flash-attention-to-runtime-calls ----------------------------------===//

struct FlashAttentionToRuntimeCallsPass
    : PassWrapper<FlashAttentionToRuntimeCallsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FlashAttentionToRuntimeCallsPass)
  FlashAttentionToRuntimeCallsPass() = default;
  FlashAttentionToRuntimeCallsPass(const FlashAttentionToRuntimeCallsPass &) {}

  StringRef getArgument() const override {
    return "flash-attention-to-runtime-calls";
  }
  StringRef getDescription() const override {
    return "Replace each flash.attention of a host function by a call of the "
           "runtime's flash_attention_memref_<dtype> on the memrefs of Q, K, "
           "V and a new O (bufferization then lowers the rest)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, bufferization::BufferizationDialect,
                    func::FuncDialect, memref::MemRefDialect,
                    tensor::TensorDialect, LLVM::LLVMDialect>();
  }

  Option<bool> cInterface{
      *this, "c-interface",
      llvm::cl::desc("Mark the module's public functions "
                     "llvm.emit_c_interface (a C caller then passes memref "
                     "descriptors by pointer: _mlir_ciface_NAME)"),
      llvm::cl::init(true)};

  /// The declaration of flash_attention_memref_<dtype>, created once.
  FailureOr<func::FuncOp> declaration(ModuleOp module, Type element,
                                      Location loc) {
    std::string name = ("flash_attention_memref_" + dtypeSuffix(element)).str();
    MemRefType memref = anyMemRef4d(element);
    Builder b(module.getContext());
    auto type = b.getFunctionType(
        {memref, memref, memref, memref, b.getI32Type(), b.getF32Type()},
        {b.getI32Type()});
    if (auto existing = module.lookupSymbol<func::FuncOp>(name)) {
      if (existing.getFunctionType() != type || !existing.isExternal())
        return existing.emitOpError()
               << "is not the runtime's declaration " << type
               << " (the name is flash_runtime.h's)";
      return existing;
    }
    if (module.lookupSymbol(name))
      return mlir::emitError(loc) << "the symbol '" << name
                                  << "' is taken by a non-function";
    OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
    auto function = func::FuncOp::create(builder, loc, name, type);
    function.setPrivate();
    function->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                      builder.getUnitAttr());
    return function;
  }

  /// Rewrites `op` into buffers, a call and a tensor of O's buffer.
  LogicalResult rewrite(AttentionOp op, func::FuncOp callee) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto outputType = cast<RankedTensorType>(op.getOutput().getType());
    Type element = outputType.getElementType();
    MemRefType anyMemRef = anyMemRef4d(element);
    // Q, K, V: their buffers as bufferization finds them (any layout: a
    // slice of a larger buffer is passed as the strided view it is).
    auto operandBuffer = [&](Value tensor) -> Value {
      auto type = cast<RankedTensorType>(tensor.getType());
      auto strided = MemRefType::get(
          type.getShape(), element,
          StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic,
                                 SmallVector<int64_t>(4, ShapedType::kDynamic)));
      Value buffer = bufferization::ToBufferOp::create(b, loc, strided, tensor,
                                                       /*readOnly=*/true);
      return memref::CastOp::create(b, loc, anyMemRef, buffer);
    };
    Value query = operandBuffer(op.getQuery());
    Value key = operandBuffer(op.getKey());
    Value value = operandBuffer(op.getValue());
    // O: a new buffer B×Hq×Nq from Q, Dv from V (dynamic sizes read there).
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < 4; ++d)
      if (outputType.isDynamicDim(d))
        dynamicSizes.push_back(tensor::DimOp::create(
            b, loc, d < 3 ? op.getQuery() : op.getValue(), d));
    auto outputBufferType = MemRefType::get(outputType.getShape(), element);
    Value output =
        memref::AllocOp::create(b, loc, outputBufferType, dynamicSizes);
    Value outputAny = memref::CastOp::create(b, loc, anyMemRef, output);
    Value causal = arith::ConstantIntOp::create(b, loc, op.getCausal() ? 1 : 0,
                                                /*width=*/32);
    Value scale = arith::ConstantFloatOp::create(
        b, loc, b.getF32Type(), APFloat(op.getEffectiveScale()));
    func::CallOp::create(b, loc, callee,
                         ValueRange{query, key, value, outputAny, causal, scale});
    Value result = bufferization::ToTensorOp::create(
        b, loc, outputType, output, /*restrict=*/true, /*writable=*/true);
    op.getOutput().replaceAllUsesWith(result);
    op.erase();
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<AttentionOp> attentions;
    bool refused = refuseOtherFlashOps(module);
    module.walk([&](AttentionOp op) {
      auto function = op->getParentOfType<func::FuncOp>();
      if (!function || function->getParentOp() != module.getOperation()) {
        op.emitOpError() << "not supported yet: flash.attention outside a "
                            "func.func of the module (host calls are emitted "
                            "in the module's functions)";
        refused = true;
        return;
      }
      if (failed(hostCallKey(op))) {
        refused = true;
        return;
      }
      attentions.push_back(op);
    });
    if (refused)
      return signalPassFailure();
    for (AttentionOp op : attentions) {
      Type element =
          cast<RankedTensorType>(op.getOutput().getType()).getElementType();
      FailureOr<func::FuncOp> callee = declaration(module, element, op.getLoc());
      if (failed(callee) || failed(rewrite(op, *callee)))
        return signalPassFailure();
    }
    if (cInterface)
      for (auto function : module.getOps<func::FuncOp>())
        if (function.isPublic() && !function.isExternal())
          function->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                            UnitAttr::get(&getContext()));
  }
};

//===-- flash-extract-attention-kernels -----------------------------------===//

/// The length the kernels are compiled at (they take B, H and N at run time;
/// the length only drives the schedule's choice), as flash_mlir.compile's
/// single bundle per key.
constexpr int64_t kRepresentativeSeqLen = 1024;

struct FlashExtractAttentionKernelsPass
    : PassWrapper<FlashExtractAttentionKernelsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FlashExtractAttentionKernelsPass)
  StringRef getArgument() const override {
    return "flash-extract-attention-kernels";
  }
  StringRef getDescription() const override {
    return "Keep one kernel function per distinct flash.attention key "
           "(element type, D, Dv, causal) of the module, for --flash-to-ptx "
           "with bundle-dir; everything else is dropped";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<func::FuncDialect, FlashDialect>();
  }

  static std::string kernelName(const AttentionKey &key) {
    std::string name = ("flash_fwd_" + dtypeSuffix(key.elementType) + "_d" +
                        Twine(key.headDim))
                           .str();
    if (key.valueDim != key.headDim)
      name += "_dv" + std::to_string(key.valueDim);
    if (key.causal)
      name += "_causal";
    return name;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Keys in order of first appearance (names are unique per key).
    SmallVector<std::tuple<std::string, AttentionKey, Location>> kernels;
    llvm::StringSet<> names;
    bool refused = refuseOtherFlashOps(module);
    module.walk([&](AttentionOp op) {
      FailureOr<AttentionKey> key = hostCallKey(op);
      if (failed(key)) {
        refused = true;
        return;
      }
      std::string name = kernelName(*key);
      if (names.insert(name).second)
        kernels.push_back({name, *key, op.getLoc()});
    });
    if (refused)
      return signalPassFailure();
    // The module keeps its attributes and loses its ops.
    for (Operation &op : llvm::make_early_inc_range(*module.getBody()))
      op.erase();
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    for (auto &[name, key, loc] : kernels) {
      auto qk = RankedTensorType::get({1, 1, kRepresentativeSeqLen, key.headDim},
                                      key.elementType);
      auto v = RankedTensorType::get(
          {1, 1, kRepresentativeSeqLen, key.valueDim}, key.elementType);
      auto function = func::FuncOp::create(
          b, loc, name, b.getFunctionType({qk, qk, v}, {v}));
      Block *body = function.addEntryBlock();
      OpBuilder inside = OpBuilder::atBlockEnd(body);
      auto attention = AttentionOp::create(
          inside, loc, v, /*lse=*/Type(), body->getArgument(0),
          body->getArgument(1), body->getArgument(2),
          key.causal ? inside.getUnitAttr() : UnitAttr(), FloatAttr(),
          ScheduleAttr());
      func::ReturnOp::create(inside, loc, attention.getOutput());
    }
  }
};

//===-- flash-check-host-code ---------------------------------------------===//

/// True for ops host code may apply to device buffers: views and metadata
/// (no element is read), allocation and deallocation (device memory through
/// the generic allocation functions), calls and control flow that pass
/// buffers on.
bool passesBuffersOn(Operation *op) {
  if (isa<ViewLikeOpInterface>(op))
    return true;
  return isa<memref::CastOp, memref::DimOp, memref::RankOp,
             memref::ExtractStridedMetadataOp,
             memref::ExtractAlignedPointerAsIndexOp, memref::AllocOp,
             memref::DeallocOp, bufferization::DeallocOp, func::CallOp,
             func::ReturnOp, func::FuncOp, scf::IfOp, scf::YieldOp,
             scf::ForOp, scf::WhileOp, scf::ConditionOp, cf::BranchOp,
             cf::CondBranchOp, arith::SelectOp>(op);
}

struct FlashCheckHostCodePass
    : PassWrapper<FlashCheckHostCodePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FlashCheckHostCodePass)
  StringRef getArgument() const override { return "flash-check-host-code"; }
  StringRef getDescription() const override {
    return "Refuse ops of bufferized host code that would read or write the "
           "elements of (device) buffers on the CPU";
  }
  void runOnOperation() override {
    bool refused = false;
    auto isMemRef = [](Type type) { return isa<BaseMemRefType>(type); };
    getOperation().walk([&](Operation *op) {
      if (isa<memref::GetGlobalOp, memref::AllocaOp>(op)) {
        op->emitOpError()
            << "not supported yet: a buffer in host memory in host code "
               "around flash.attention (its buffers are device memory; a "
               "constant tensor or a stack buffer would be read by the GPU "
               "from a CPU address)";
        refused = true;
        return;
      }
      if (passesBuffersOn(op))
        return;
      if (llvm::any_of(op->getOperandTypes(), isMemRef) ||
          llvm::any_of(op->getResultTypes(), isMemRef)) {
        op->emitOpError()
            << "not supported yet: reading or writing the elements of a "
               "buffer in host code around flash.attention (the host code "
               "runs on the CPU over device buffers: it may make views of "
               "them, allocate and free them, and pass them to calls)";
        refused = true;
      }
    });
    if (refused)
      signalPassFailure();
  }
};
/// Before buffer-results-to-out-params: a function returning one buffer as
/// two results would need a copy into the second out-parameter (host code
/// touching device memory), and upstream's hoist-static-allocs crashes on
/// it (MLIR 22: the alloc is replaced for the first result and used again).
struct FlashCheckHostReturnsPass
    : PassWrapper<FlashCheckHostReturnsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FlashCheckHostReturnsPass)
  StringRef getArgument() const override {
    return "flash-check-host-returns";
  }
  StringRef getDescription() const override {
    return "Refuse a bufferized host function that returns one buffer as "
           "several results";
  }
  void runOnOperation() override {
    bool refused = false;
    getOperation().walk([&](func::ReturnOp ret) {
      llvm::SmallPtrSet<Value, 4> seen;
      for (Value operand : ret.getOperands())
        if (isa<BaseMemRefType>(operand.getType()) &&
            !seen.insert(operand).second) {
          ret.emitOpError()
              << "not supported yet: one buffer returned as several results "
                 "from host code around flash.attention (each further result "
                 "would be a copy in host code)";
          refused = true;
          return;
        }
    });
    if (refused)
      signalPassFailure();
  }
};
} // namespace

/// Upstream passes from the host function (tensors, runtime calls) to the
/// LLVM dialect. buffer-results-to-out-params with hoist-static-allocs makes
/// a returned buffer the caller's (device) buffer instead of a copy in host
/// code; memref.alloc/dealloc become the generic allocation functions.
static constexpr const char *kHostBufferize =
    "canonicalize,cse,"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map}";
static constexpr const char *kHostOutParams =
    "buffer-results-to-out-params{hoist-static-allocs modify-public-functions},"
    "canonicalize,"
    "buffer-deallocation-pipeline,"
    "convert-bufferization-to-memref,canonicalize";
static constexpr const char *kHostToLLVM =
    "expand-strided-metadata,lower-affine,convert-scf-to-cf,"
    "finalize-memref-to-llvm{use-generic-functions},convert-to-llvm,"
    "reconcile-unrealized-casts";

void mlir::flash::buildHostToLLVMPipeline(OpPassManager &pm) {
  pm.addPass(std::make_unique<FlashAttentionToRuntimeCallsPass>());
  if (failed(parsePassPipeline(kHostBufferize, pm, llvm::errs())))
    llvm::report_fatal_error("flash-host-to-llvm: bad upstream pipeline");
  pm.addPass(std::make_unique<FlashCheckHostReturnsPass>());
  if (failed(parsePassPipeline(kHostOutParams, pm, llvm::errs())))
    llvm::report_fatal_error("flash-host-to-llvm: bad upstream pipeline");
  pm.addPass(std::make_unique<FlashCheckHostCodePass>());
  if (failed(parsePassPipeline(kHostToLLVM, pm, llvm::errs())))
    llvm::report_fatal_error("flash-host-to-llvm: bad upstream pipeline");
  pm.addPass(createFlashCheckLoweredToLLVMPass("--flash-host-to-llvm"));
}

void mlir::flash::registerFlashHostPasses() {
  PassRegistration<FlashAttentionToRuntimeCallsPass>();
  PassRegistration<FlashExtractAttentionKernelsPass>();
  PassRegistration<FlashCheckHostCodePass>();
  PassRegistration<FlashCheckHostReturnsPass>();
  PassPipelineRegistration<>(
      "flash-host-to-llvm",
      "Lower a host function holding flash.attention among other ops to the "
      "LLVM dialect: each attention a call of the runtime "
      "(flash-attention-to-runtime-calls), bufferized, returned buffers "
      "made out-parameters, checked (flash-check-host-code), upstream "
      "lowering; the kernels come from flash-extract-attention-kernels",
      buildHostToLLVMPipeline);
}
