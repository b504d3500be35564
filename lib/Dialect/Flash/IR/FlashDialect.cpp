//===- FlashDialect.cpp - flash dialect registration ----------------------===//
//
// Registers the flash dialect's ops and attributes, and verifies
// #flash.schedule, #flash.kernel and #flash.sm90_form.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/Flash.h"
#include "flash/InitFlash.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::flash;

#include "flash/Dialect/Flash/IR/FlashOpsDialect.cpp.inc"

#include "flash/Dialect/Flash/IR/FlashEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "flash/Dialect/Flash/IR/FlashAttrs.cpp.inc"

void FlashDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "flash/Dialect/Flash/IR/FlashOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "flash/Dialect/Flash/IR/FlashAttrs.cpp.inc"
      >();
}

void mlir::flash::registerFlashDialect(DialectRegistry &registry) {
  registry.insert<FlashDialect>();
}

LogicalResult
ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     StringRef arch, int64_t blockQ, int64_t blockKV,
                     int64_t stages, int64_t warps, int64_t maxSplits) {
  if (arch != "sm_80" && arch != "sm_90a" && arch != "sm_100a")
    return emitError() << "unknown arch '" << arch
                       << "' in #flash.schedule; expected sm_80, sm_90a or "
                          "sm_100a";
  if (blockQ < 1)
    return emitError() << "block_q must be positive, got " << blockQ;
  if (blockKV < 1)
    return emitError() << "block_kv must be positive, got " << blockKV;
  if (stages < 1)
    return emitError() << "stages must be positive, got " << stages;
  if (warps < 1)
    return emitError() << "warps must be positive, got " << warps;
  if (maxSplits < 0)
    return emitError() << "max_splits must be non-negative (0: no split-KV), "
                          "got "
                       << maxSplits;
  return success();
}

LogicalResult SM90FormAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, bool persistent,
    int64_t qBuffers, OutputStaging outputStaging, int64_t blocksPerSM,
    bool pingPong, Rescale rescale, FirstTileMask firstTileMask,
    TileOrder tileOrder, int64_t tileGroupBytes, StoreWait storeWait,
    KVRangeMode kvRange) {
  // `auto` is an option's value, never a chosen form.
  if (rescale == Rescale::Auto || firstTileMask == FirstTileMask::Auto ||
      tileOrder == TileOrder::Auto || storeWait == StoreWait::Auto ||
      kvRange == KVRangeMode::Auto)
    return emitError() << "#flash.sm90_form holds chosen forms, not 'auto'";
  if (qBuffers != 1 && qBuffers != 2)
    return emitError() << "q_buffers must be 1 or 2, got " << qBuffers;
  if (qBuffers == 2 && !persistent)
    return emitError() << "q_buffers = 2 needs a persistent grid";
  if (blocksPerSM != 1 && blocksPerSM != 2)
    return emitError() << "blocks_per_sm must be 1 or 2, got " << blocksPerSM;
  if (outputStaging == OutputStaging::KVRing && (!persistent || qBuffers != 1))
    return emitError() << "output_staging = kv_ring needs a persistent grid "
                          "with one Q buffer";
  if ((tileOrder == TileOrder::Grouped) != (tileGroupBytes > 0))
    return emitError() << "tile_group_bytes must be positive exactly when "
                          "tile_order = grouped, got "
                       << tileGroupBytes;
  if (storeWait == StoreWait::Deferred && !persistent)
    return emitError() << "store_wait = deferred needs a persistent grid";
  return success();
}

LogicalResult KernelAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, KernelKind kind,
    Type elementType, int64_t batch, int64_t qHeads, int64_t kvHeads,
    int64_t seqQ, int64_t seqKV, int64_t headDim, int64_t valueDim,
    bool causal, bool lse, FloatAttr scale, ScheduleAttr schedule,
    bool deterministic, int64_t pageSize, int64_t maxSplits, Attribute form) {
  if (!elementType.isF32() && !elementType.isF16() && !elementType.isBF16())
    return emitError() << "element_type must be f32, f16 or bf16, got "
                       << elementType;
  if (batch < 1 || qHeads < 1 || kvHeads < 1 || seqQ < 1 || seqKV < 0 ||
      headDim < 1 || valueDim < 1)
    return emitError() << "sizes must be positive (seq_kv may be 0)";
  if (qHeads % kvHeads != 0)
    return emitError() << "kv_heads (" << kvHeads << ") must divide q_heads ("
                       << qHeads << ")";
  if (!scale || !scale.getType().isF32() ||
      !std::isfinite(scale.getValueAsDouble()) ||
      scale.getValueAsDouble() == 0.0)
    return emitError() << "scale must be a finite, non-zero f32";
  if (!schedule)
    return emitError() << "schedule must be a #flash.schedule";
  if (deterministic && kind != KernelKind::Backward)
    return emitError() << "deterministic applies to backward kernels only";
  if (kind == KernelKind::Backward && lse)
    return emitError() << "a backward kernel reads LSE; lse must be false";
  if ((kind == KernelKind::Paged) != (pageSize != 0))
    return emitError() << "page_size must be positive for a paged kernel "
                          "and absent otherwise, got "
                       << pageSize;
  if (pageSize < 0)
    return emitError() << "page_size must be positive, got " << pageSize;
  bool split = kind == KernelKind::SplitKV || kind == KernelKind::Paged;
  if (split ? maxSplits < 1 : maxSplits != 0)
    return emitError() << "max_splits must be at least 1 for split_kv and "
                          "paged kernels and absent otherwise, got "
                       << maxSplits;
  if (split && schedule.getMaxSplits() != 0 &&
      schedule.getMaxSplits() != maxSplits)
    return emitError() << "max_splits (" << maxSplits
                       << ") must match the schedule's ("
                       << schedule.getMaxSplits() << ")";
  if (!split && schedule.isSplitKV())
    return emitError() << "a split-KV schedule (max_splits = "
                       << schedule.getMaxSplits() << ") on a "
                       << stringifyKernelKind(kind) << " kernel";
  if (kind == KernelKind::Paged && seqKV % pageSize != 0)
    return emitError() << "seq_kv (" << seqKV
                       << ") of a paged kernel must be a whole number of "
                          "pages of "
                       << pageSize;
  if (form && !isa<SM90FormAttr>(form))
    return emitError() << "form must be a target's form attribute "
                          "(#flash.sm90_form), got "
                       << form;
  if (isa_and_nonnull<SM90FormAttr>(form) && schedule.getArch() != "sm_90a")
    return emitError() << "#flash.sm90_form on a schedule for "
                       << schedule.getArch();
  return success();
}

KernelAttr KernelAttr::withForm(Attribute form) const {
  return KernelAttr::get(getContext(), getKind(), getElementType(), getBatch(),
                         getQHeads(), getKvHeads(), getSeqQ(), getSeqKv(),
                         getHeadDim(), getValueDim(), getCausal(), getLse(),
                         getScale(), getSchedule(), getDeterministic(),
                         getPageSize(), getMaxSplits(), form);
}
