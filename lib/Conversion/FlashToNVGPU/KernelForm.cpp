//===- KernelForm.cpp - from a #flash.kernel descriptor to a kernel config ===//
//
// The arch-independent half of choosing a kernel's form: the checks every
// GPU lowering shares (16-bit operands, D = Dv in {64, 128, 256}, a positive
// scale), the dispatch to the per-arch policy (SM90/FormPolicy.cpp,
// SM80/FormPolicy.cpp), and two passes:
//   flash-select-kernel-form  records the form in each loop nest's
//                             #flash.kernel descriptor;
//   flash-kernel-forms        reports, for each flash.attention, the ranges
//                             of sequence lengths over which its schedule and
//                             form stay the same (what flash_mlir.compile
//                             asks to decide which bundles to build).
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/KernelForm.h"
#include "flash/Conversion/FlashToNVGPU/SM90/BackwardKernel.h"
#include "flash/Conversion/Passes.h"
#include "flash/Dialect/Flash/Transforms/Schedule.h"
#include "flash/Target/SplitKV.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {
namespace flash {
#define GEN_PASS_DEF_FLASHSELECTKERNELFORM
#define GEN_PASS_DEF_FLASHKERNELFORMS
#include "flash/Conversion/Passes.h.inc"
} // namespace flash
} // namespace mlir

using namespace mlir;
using namespace mlir::flash;

std::string mlir::flash::formOptionValue(Rescale r) {
  return r == Rescale::LazyLate ? "lazy-late" : stringifyRescale(r).str();
}

namespace {
/// The configuration fields every arch shares, read off the descriptor, and
/// the checks every GPU lowering makes.
FailureOr<KernelConfig> commonConfig(KernelAttr kernel, StringRef name,
                                     const TargetModel &target, Location loc) {
  KernelConfig c;
  ScheduleAttr schedule = kernel.getSchedule();
  c.name = name.str();
  c.arch = target.arch.str();
  c.elementType = kernel.getElementType();
  c.blockQ = schedule.getBlockQ();
  c.blockKV = schedule.getBlockKv();
  c.warps = schedule.getWarps();
  c.stages = schedule.getStages();
  c.writesLse = kernel.getLse();
  c.causal = kernel.getCausal();
  c.batch = kernel.getBatch();
  c.queryHeads = kernel.getQHeads();
  c.kvHeads = kernel.getKvHeads();
  c.seqQ = kernel.getSeqQ();
  c.seqKV = kernel.getSeqKv();
  c.headDim = kernel.getHeadDim();
  c.scale = static_cast<float>(kernel.getScale().getValueAsDouble());
  auto unsupported = [&](const Twine &what) -> FailureOr<KernelConfig> {
    return mlir::emitError(loc)
           << "not supported yet: " << what << " on " << target.arch;
  };
  c.kind = kernel.getKind();
  c.deterministic = kernel.getDeterministic();
  // The backward has sm_80 (SM80/BackwardKernel) and sm_90a
  // (SM90/BackwardKernel) kernels.
  if (c.kind == KernelKind::Backward && target.arch != "sm_80" &&
      target.arch != "sm_90a")
    return unsupported("kernel kind " + stringifyKernelKind(kernel.getKind()));
  if (schedule.getArch() != target.arch)
    return mlir::emitError(loc)
           << "the kernel's schedule is for " << schedule.getArch()
           << ", not " << target.arch << " (select the schedule for "
           << target.arch << ")";
  // What every GPU lowering needs: 16-bit operands, D = Dv in {64, 128, 256}
  // (whole 128-byte rows of 64 columns), and a positive scale (the softmax
  // folds it into exp2 after the row max).
  if (!c.elementType.isF16() && !c.elementType.isBF16())
    return unsupported(
        "element type f32 (GPU kernels take f16 or bf16; f32 runs on the CPU)");
  if (kernel.getValueDim() != c.headDim)
    return unsupported("Dv = " + Twine(kernel.getValueDim()) +
                       " != D = " + Twine(c.headDim));
  if (c.headDim != 64 && c.headDim != 128 && c.headDim != 256)
    return unsupported("head dimension " + Twine(c.headDim) +
                       " (supported: 64, 128, 256)");
  if (!(c.scale > 0.0f))
    return unsupported("a negative scale");
  // sm_100a has its forward kernel only (SM100/ForwardKernel.cpp).
  if (target.arch == "sm_100a" && c.kind != KernelKind::Forward)
    return unsupported("kernel kind " + stringifyKernelKind(c.kind) +
                       " (sm_100a has a forward kernel only)");
  return c;
}
} // namespace

FailureOr<Attribute> mlir::flash::selectKernelForm(KernelAttr kernel,
                                                   const TargetModel &target,
                                                   const FormChoices &choices,
                                                   Location loc) {
  FailureOr<KernelConfig> common = commonConfig(kernel, "", target, loc);
  if (failed(common))
    return failure();
  // The split-KV kernels and the sm_90a backward have one form per arch (no
  // form attribute).
  const bool sm90Backward =
      target.arch == "sm_90a" && common->kind == KernelKind::Backward;
  if (common->isDecode() || sm90Backward) {
    FormChoices automatic;
    if (choices.persistent != automatic.persistent ||
        choices.pingPong != automatic.pingPong ||
        choices.rescale != automatic.rescale ||
        choices.firstTileMask != automatic.firstTileMask ||
        choices.tileOrder != automatic.tileOrder ||
        choices.storeWait != automatic.storeWait ||
        choices.kvRange != automatic.kvRange)
      return mlir::emitError(loc)
             << "not supported yet: form options for a "
             << stringifyKernelKind(common->kind) << " kernel on "
             << target.arch << " (it has one form)";
    if (sm90Backward
            ? failed(sm90BackwardConfig(*common, target, loc))
            : failed(decodeConfigFromDescriptor(*common, kernel, target, loc)))
      return failure();
    return Attribute();
  }
  if (target.arch == "sm_100a") {
    if (failed(checkSM100Choices(choices, target, loc)) ||
        failed(sm100ConfigFromSchedule(*common, target, loc)))
      return failure();
    return Attribute();
  }
  if (target.arch == "sm_90a") {
    FailureOr<SM90FormAttr> form =
        selectSM90Form(*common, target, choices, loc);
    if (failed(form))
      return failure();
    return Attribute(*form);
  }
  if (failed(checkSM80Choices(choices, target, loc)))
    return failure();
  if (common->kind == KernelKind::Backward
          ? failed(sm80BackwardConfigFromSchedule(*common, target, loc))
          : failed(sm80ConfigFromSchedule(*common, target, loc)))
    return failure();
  return Attribute();
}

FailureOr<KernelConfig>
mlir::flash::kernelConfigFromDescriptor(KernelAttr kernel, StringRef name,
                                        const TargetModel &target,
                                        Location loc) {
  FailureOr<KernelConfig> common = commonConfig(kernel, name, target, loc);
  if (failed(common))
    return failure();
  if (common->isDecode() ||
      (target.arch == "sm_90a" && common->kind == KernelKind::Backward)) {
    if (kernel.getForm())
      return mlir::emitError(loc)
             << "the " << stringifyKernelKind(common->kind)
             << " kernels have no form choices, got " << kernel.getForm();
    if (common->isDecode())
      return decodeConfigFromDescriptor(*common, kernel, target, loc);
    return sm90BackwardConfig(*common, target, loc);
  }
  if (target.arch == "sm_90a") {
    auto form = dyn_cast_or_null<SM90FormAttr>(kernel.getForm());
    if (!form)
      return mlir::emitError(loc)
             << "the #flash.kernel descriptor has no sm_90a form; run "
                "flash-select-kernel-form first";
    return sm90ConfigFromForm(*common, form, target, loc);
  }
  if (kernel.getForm())
    return mlir::emitError(loc) << "the " << target.arch
                                << " kernel has no form choices, got "
                                << kernel.getForm();
  if (target.arch == "sm_100a")
    return sm100ConfigFromSchedule(*common, target, loc);
  if (common->kind == KernelKind::Backward)
    return sm80BackwardConfigFromSchedule(*common, target, loc);
  return sm80ConfigFromSchedule(*common, target, loc);
}

/// For --flash-kernel-forms' constants: `value(D)` for each value dimension
/// the decode kernels are built for.
static llvm::json::Object
byDecodeDim(llvm::function_ref<int64_t(int64_t)> value) {
  llvm::json::Object byDim;
  for (int64_t d : {64, 128, 256})
    byDim[std::to_string(d)] = value(d);
  return byDim;
}

/// The split-KV kernels' K/V stages for a 16-row tile of 2-byte elements of
/// value dimension `d`.
static int64_t decodeStages(const TargetModel &target, int64_t d) {
  return splitKVTileShape(16, d, d, 2, target.sharedMemPerSM).stages;
}

namespace {
// The form options of a pass (declared once in Passes.td).
#define FLASH_FORM_CHOICES                                                     \
  FormChoices {                                                                \
    persistent, pingPong, rescale, firstTileMask, tileOrder, storeWait,        \
        kvRange                                                                \
  }

struct FlashSelectKernelFormPass
    : flash::impl::FlashSelectKernelFormBase<FlashSelectKernelFormPass> {
  using Base::Base;

  void runOnOperation() override {
    FormChoices choices = FLASH_FORM_CHOICES;
    bool failedAny = false;
    getOperation()->walk([&](Operation *op) {
      auto kernel = op->getAttrOfType<KernelAttr>(kKernelDescriptorAttrName);
      if (!kernel || (kernel.getForm() && !overwrite))
        return;
      StringRef arch = kernel.getSchedule().getArch();
      if (!lookupTargetModel(arch)) {
        op->emitError() << "unknown arch '" << arch << "'";
        failedAny = true;
        return;
      }
      // The model with the shared memory of the devices the plan is for.
      std::optional<TargetModel> target =
          lookupTargetModel(arch, sharedMemoryPerBlock);
      if (!target) {
        op->emitError() << sharedMemoryBudgetError("flash-select-kernel-form",
                                   sharedMemoryPerBlock);
        failedAny = true;
        return;
      }
      FailureOr<Attribute> form =
          selectKernelForm(kernel, *target, choices, op->getLoc());
      if (failed(form)) {
        failedAny = true;
        return;
      }
      op->setAttr(kKernelDescriptorAttrName, kernel.withForm(*form));
    });
    if (failedAny)
      signalPassFailure();
  }
};

struct FlashKernelFormsPass
    : flash::impl::FlashKernelFormsBase<FlashKernelFormsPass> {
  using Base::Base;

  void runOnOperation() override {
    const TargetModel *target = lookupTargetModel(arch);
    if (!target) {
      mlir::emitError(getOperation().getLoc())
          << "flash-kernel-forms: unknown arch '" << arch
          << "'; expected one of " << llvm::join(knownArchs(), ", ");
      return signalPassFailure();
    }
    SmallVector<int64_t> seqLens(lengths.begin(), lengths.end());
    llvm::sort(seqLens);
    if (seqLens.empty() || seqLens.front() < 1) {
      mlir::emitError(getOperation().getLoc())
          << "flash-kernel-forms: lengths must be positive, e.g. "
             "lengths=512,1024";
      return signalPassFailure();
    }
    FormChoices choices = FLASH_FORM_CHOICES;
    llvm::json::Array kernels;
    bool failedAny = false;
    getOperation()->walk([&](AttentionOp op) {
      FailureOr<AttentionShape> shape = getAttentionShape(op);
      if (failed(shape)) {
        failedAny = true;
        return;
      }
      std::string name;
      if (auto func = op->getParentOfType<FunctionOpInterface>())
        name = func.getName().str();
      llvm::json::Array ranges;
      std::string previous;
      for (int64_t n : seqLens) {
        // The op's problem at length n (queries and keys).
        AttentionShape at = *shape;
        at.seqQ = at.seqKV = n;
        std::optional<ScheduleChoice> choice = chooseSchedule(*target, at);
        if (!choice) {
          op.emitOpError() << "no schedule fits " << target->arch
                           << " at length " << n;
          failedAny = true;
          return;
        }
        auto schedule = ScheduleAttr::get(
            op.getContext(), target->arch, choice->blockQ, choice->blockKV,
            choice->stages, choice->warps);
        KernelAttr kernel = getForwardKernelDescriptor(op, at, schedule);
        FailureOr<Attribute> form =
            selectKernelForm(kernel, *target, choices, op.getLoc());
        if (failed(form)) {
          failedAny = true;
          return;
        }
        std::string text, formText;
        llvm::raw_string_ostream os(text), fos(formText);
        os << schedule;
        if (*form)
          fos << *form;
        std::string key = text + formText;
        if (key == previous) {
          auto *last = ranges.back().getAsObject();
          (*last)["max_seq_len"] = nullptr;
          continue;
        }
        if (!ranges.empty())
          (*ranges.back().getAsObject())["max_seq_len"] = n - 1;
        previous = key;
        ranges.push_back(llvm::json::Object{{"min_seq_len", n},
                                            {"max_seq_len", nullptr},
                                            {"schedule", text},
                                            {"form", formText}});
      }
      kernels.push_back(llvm::json::Object{{"function", name},
                                           {"arch", target->arch},
                                           {"ranges", std::move(ranges)}});
    });
    if (failedAny)
      return signalPassFailure();
    llvm::json::Object report{
        {"kernels", std::move(kernels)},
        // Constants of the policies and lowerings that tests reason with.
        {"constants",
         llvm::json::Object{
             {"lazy_rescale_log2", KernelConfig::kLazyRescaleLog2},
             {"min_grouped_q_tiles", SM90Config::kMinGroupedQTiles},
             {"tile_group_bytes", target->tileGroupBytes},
             {"block_kv_candidates",
              llvm::json::Array(
                  ArrayRef<int64_t>(scheduleCandidates(*target).blockKVs))},
             // The split-KV rule and merges (Target/SplitKV.h,
             // SM80/DecodeKernel.cpp), for tests that check which merge a
             // call's parts take.
             {"split_kv",
              llvm::json::Object{
                  {"min_tiles_per_split", kSplitKVMinTilesPerSplit},
                  {"merge_direct", kSplitKVMergeDirect},
                  {"merge_group", kSplitKVMergeGroup},
                  {"merge_batch", byDecodeDim(decodeMergeBatch)},
                  {"separate_merge_bound",
                   decodeSeparateMergeBound(target->arch)},
                  // The K/V stages of a 16-row tile of 2-byte elements a
                  // value dimension, and the blocks an SM the split count
                  // aims at with them (splitKVBlocksPerSM).
                  {"stages", byDecodeDim([&](int64_t d) {
                     return decodeStages(*target, d);
                   })},
                  {"blocks_per_sm", byDecodeDim([&](int64_t d) {
                     return splitKVKernelBlocksPerSM(
                         16, d, d, 2, decodeStages(*target, d),
                         target->sharedMemPerSM);
                   })}}}}}};
    std::error_code ec;
    llvm::raw_fd_ostream file(output, ec, llvm::sys::fs::OF_Text);
    if (ec) {
      mlir::emitError(getOperation().getLoc())
          << "flash-kernel-forms: cannot write '" << output
          << "': " << ec.message();
      return signalPassFailure();
    }
    file << llvm::formatv("{0:2}", llvm::json::Value(std::move(report)))
         << "\n";
  }
};
} // namespace
