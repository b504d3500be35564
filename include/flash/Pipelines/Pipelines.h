//===- Pipelines.h - flash-opt pass pipelines -------------------*- C++ -*-===//
//
// Named pipelines built from the flash passes and upstream lowering passes.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_PIPELINES_PIPELINES_H
#define FLASH_PIPELINES_PIPELINES_H

#include "flash/Conversion/FlashToNVGPU/KernelForm.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
class Pass;
namespace flash {

struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  PassOptions::Option<bool> reference{
      *this, "reference",
      llvm::cl::desc("Run the naive reference lowering instead of the tiled "
                     "algorithm"),
      llvm::cl::init(false)};
  PassOptions::Option<int64_t> blockQ{
      *this, "block-q",
      llvm::cl::desc("Query rows per tile (0: chosen by the sm_80 model)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> blockKV{
      *this, "block-kv",
      llvm::cl::desc("Key/value rows per tile (0: chosen by the sm_80 model)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> splitKV{
      *this, "split-kv",
      llvm::cl::desc("Compute flash.attention with few query rows in the "
                     "split-KV form (flash.paged_attention always is)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> maxSplits{
      *this, "max-splits",
      llvm::cl::desc("Split-KV workspace capacity (0: the sm_80 model's SM "
                     "count)"),
      llvm::cl::init(0)};
};

struct ToPTXPipelineOptions : public PassPipelineOptions<ToPTXPipelineOptions> {
  PassOptions::Option<std::string> arch{
      *this, "arch", llvm::cl::desc("Target: sm_80, sm_90a or sm_100a"),
      llvm::cl::init("sm_80")};
  PassOptions::Option<int64_t> blockQ{
      *this, "block-q",
      llvm::cl::desc("Query rows per tile (0: chosen by the target model)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> blockKV{
      *this, "block-kv",
      llvm::cl::desc("Key/value rows per tile (0: chosen by the target model)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> warps{
      *this, "warps", llvm::cl::desc("Warps per block (0: chosen)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> stages{
      *this, "stages",
      llvm::cl::desc("K/V stages in shared memory (0: chosen by the target "
                     "model)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> splitKV{
      *this, "split-kv",
      llvm::cl::desc("Compute flash.attention with few query rows in the "
                     "split-KV form (false: the forward kernel)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> maxSplits{
      *this, "max-splits",
      llvm::cl::desc("Split-KV kernels: the most parts a sequence is cut "
                     "into, the workspace's capacity (0: the target's SM "
                     "count)"),
      llvm::cl::init(0)};
  PassOptions::Option<::mlir::flash::Toggle> persistent{
      *this, "persistent",
      llvm::cl::desc("sm_90a: persistent grid (blocks drawing tiles from a "
                     "global counter): auto, yes or no"),
      llvm::cl::init(::mlir::flash::Toggle::Auto), FLASH_TOGGLE_VALUES};
  PassOptions::Option<::mlir::flash::Toggle> pingPong{
      *this, "ping-pong",
      llvm::cl::desc("sm_90a: consumer warpgroups take turns issuing their "
                     "GEMMs (named barriers): auto, yes or no"),
      llvm::cl::init(::mlir::flash::Toggle::Auto), FLASH_TOGGLE_VALUES};
  PassOptions::Option<::mlir::flash::Rescale> rescale{
      *this, "rescale",
      llvm::cl::desc("sm_90a: the accumulator's rescale in the online "
                     "softmax: auto, eager, lazy or lazy-late"),
      llvm::cl::init(::mlir::flash::Rescale::Auto), FLASH_RESCALE_VALUES};
  PassOptions::Option<::mlir::flash::FirstTileMask> firstTileMask{
      *this, "first-tile-mask",
      llvm::cl::desc("sm_90a: mask a Q tile's first K/V tile always, or "
                     "only when ragged or diagonal (branch): auto, always or "
                     "branch"),
      llvm::cl::init(::mlir::flash::FirstTileMask::Auto), FLASH_FIRST_TILE_MASK_VALUES};
  PassOptions::Option<::mlir::flash::TileOrder> tileOrder{
      *this, "tile-order",
      llvm::cl::desc("sm_90a, causal: hand out Q tiles head by head, or "
                     "longest first across a group of heads (grouped): auto, "
                     "head or grouped"),
      llvm::cl::init(::mlir::flash::TileOrder::Auto), FLASH_TILE_ORDER_VALUES};
  PassOptions::Option<::mlir::flash::StoreWait> storeWait{
      *this, "store-wait",
      llvm::cl::desc("sm_90a, persistent: the O store's wait right after "
                     "the store, or after the next tile's first softmax "
                     "(deferred): auto, immediate or deferred"),
      llvm::cl::init(::mlir::flash::StoreWait::Auto), FLASH_STORE_WAIT_VALUES};
  PassOptions::Option<::mlir::flash::KVRangeMode> kvRange{
      *this, "kv-range",
      llvm::cl::desc("sm_90a, causal: each consumer warpgroup visits the "
                     "block's K/V tiles, or only those its rows see "
                     "(warpgroup): auto, block or warpgroup"),
      llvm::cl::init(::mlir::flash::KVRangeMode::Auto), FLASH_KV_RANGE_VALUES};
  PassOptions::Option<bool> batchMaps{
      *this, "batch-maps",
      llvm::cl::desc("sm_90a: rank-4 tensor maps over (D, N, H, B), so a "
                     "tensor's batch has its own stride (B×N×H×D views of "
                     "any B in one launch)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> strides{
      *this, "strides",
      llvm::cl::desc("sm_80 forward and backward: the kernels take the "
                     "strides of the tensors they address as arguments "
                     "(strided views without a copy)"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> fusedPageSizes{
      *this, "fused-page-sizes",
      llvm::cl::desc("flash.paged_attention: the page sizes S for which the "
                     "plan carries a fused split kernel with S a constant, "
                     "launched on calls of that S: auto (sm_90a 16,64; "
                     "sm_80 none), none or S,S,..."),
      llvm::cl::init("auto")};
  PassOptions::Option<int64_t> sharedMemoryPerBlock{
      *this, "shared-memory-per-block",
      llvm::cl::desc("Bytes of shared memory one block may opt in to on the "
                     "devices the plan is for (0: the target model's; sm_80: "
                     "an A100's 163 KB). The runtime chooses, among plans of "
                     "one key, the one using the most shared memory that the "
                     "device has (docs/launch-plan.md, Selection)"),
      llvm::cl::init(0)};
  PassOptions::Option<std::string> bundleDir{
      *this, "bundle-dir",
      llvm::cl::desc("If set, write each kernel's bundle (PTX, cubin, JSON) "
                     "into this directory"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> cubinArchs{
      *this, "cubin-archs",
      llvm::cl::desc("ptxas targets of the bundle's cubins (default: arch)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> seqRange{
      *this, "seq-range",
      llvm::cl::desc("The lengths max(Nq, Nk) the bundle's launch plan is "
                     "chosen for: MIN:MAX or MIN: (default: every length)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> variant{
      *this, "variant",
      llvm::cl::desc("The launch plan's variant name (default: none, the "
                     "model's form, which the runtime chooses by default)"),
      llvm::cl::init("")};
};

/// flash.attention, flash.paged_attention and flash.attention_backward ->
/// gpu.binary holding PTX: select-schedule, tile,
/// select-kernel-form, lower-to-nvgpu, upstream gpu-lower-to-nvvm-pipeline
/// (format isa), a check that no flash op or gpu.module is left, and
/// flash-write-bundle when bundle-dir is set.
void buildToPTXPipeline(OpPassManager &pm, const ToPTXPipelineOptions &options);

/// flash.attention on tensors -> LLVM dialect that mlir-runner executes:
/// a check that tensors sit only in func.func ops of builtin.modules (others
/// are refused as "not supported yet"), (select-schedule, tile, decompose |
/// reference), then bufferize, loops and LLVM on each builtin.module,
/// innermost first, and a check that nothing but the LLVM dialect is left.
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

/// The L0 -> L1 stage shared by every target: schedule and tile.
void buildTilingPipeline(OpPassManager &pm, StringRef arch, int64_t blockQ,
                         int64_t blockKV, bool splitKV = true,
                         int64_t maxSplits = 0);

void registerFlashPipelines();

/// --flash-host-to-llvm: a host function holding flash.attention among other
/// ops, each attention a call of the runtime (lib/Pipelines/HostCalls.cpp,
/// docs/embedding.md), bufferized and lowered to the LLVM dialect.
void buildHostToLLVMPipeline(OpPassManager &pm);
/// flash-attention-to-runtime-calls, flash-extract-attention-kernels,
/// flash-check-host-code and --flash-host-to-llvm (registerFlashPipelines
/// calls it).
void registerFlashHostPasses();
/// The end of a lowering to LLVM: any op left outside the LLVM dialect is a
/// located error naming `pipeline`.
std::unique_ptr<Pass> createFlashCheckLoweredToLLVMPass(
    StringRef pipeline = "--flash-cpu-pipeline");

} // namespace flash
} // namespace mlir

#endif // FLASH_PIPELINES_PIPELINES_H
