//===- LowerToNVGPU.cpp - tiled attention (L1) into GPU kernels (L2) ------===//
//
// Builds each tiled attention's kernel from its #flash.kernel descriptor alone
// (what to compute, the schedule and the form; KernelForm.h), with the
// per-arch builder, into a gpu.module. A descriptor without a form gets the
// arch policy's `auto` form. The host function is replaced by the kernel and
// its launch contract, recorded in the module attribute `flash.kernels`,
// which flash-write-bundle turns into JSON for the runtime.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"
#include "flash/Conversion/FlashToNVGPU/KernelForm.h"
#include "flash/Conversion/FlashToNVGPU/SM80/BackwardKernel.h"
#include "flash/Conversion/FlashToNVGPU/SM90/BackwardKernel.h"
#include "flash/Conversion/FlashToNVGPU/SM90/TMA.h"
#include "flash/Conversion/FlashToNVGPU/SM90/Warpgroups.h"
#include "flash/Conversion/Passes.h"
#include "flash/Dialect/Flash/Transforms/Schedule.h"
#include "flash/Target/SplitKV.h"
#include "flash/Target/TargetModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir {
namespace flash {
#define GEN_PASS_DEF_FLASHLOWERTONVGPU
#include "flash/Conversion/Passes.h.inc"
} // namespace flash
} // namespace mlir

using namespace mlir;
using namespace mlir::flash;

namespace {
/// The largest page size fused-page-sizes takes (slots).
constexpr int64_t kMaxFusedPageSize = 1 << 16;
/// The tiling's stage loops beside the loop that carries the descriptor are
/// tagged flash.stage (Flash.h's kStageAttrName): a split-KV attention's
/// merge loop, the backward's preprocess and dQ conversion.
bool isMergeLoop(Operation *op) {
  auto stage = op->getAttrOfType<StringAttr>(kStageAttrName);
  return isa<scf::ForallOp>(op) && stage && stage.getValue() == "merge";
}

/// The tiled attention of `func`: null when the function holds none, failure
/// (diagnosed) when it holds one the GPU lowering cannot take. A forward
/// function takes Q, K, V and returns the loop's results. A split-KV
/// attention (kinds split_kv and paged) is two loops: the split loop, which
/// carries the descriptor, and the merge loop (`flash.stage = "merge"`),
/// whose results the function returns. A backward one takes Q, K, V, O, dO,
/// LSE; beside the descriptor's loop it may hold the tiling's stage loops
/// (flash.stage = "preprocess" and "dq_convert", whose work the GPU kernels
/// do themselves: their bodies are not read) and returns dQ, dK, dV: either
/// the descriptor loop's three results (dQ, dK, dV), or, as flash-tile
/// builds it, the dq_convert loop's result and the descriptor loop's first
/// two (dK, dV; its third is the f32 dQ workspace).
FailureOr<scf::ForallOp> findTiledAttention(func::FuncOp func) {
  bool hasAttention = false;
  func.walk([&](scf::ForallOp forall) {
    hasAttention |= forall->hasAttr(kKernelDescriptorAttrName);
  });
  if (!hasAttention)
    return scf::ForallOp();
  scf::ForallOp attention, merge, convert;
  SmallVector<scf::ForallOp> stages;
  for (Operation &op : func.getBody().front()) {
    if (auto forall = dyn_cast<scf::ForallOp>(op);
        forall && forall->hasAttr(kKernelDescriptorAttrName)) {
      if (attention)
        return mlir::emitError(func.getLoc())
               << "not supported yet: more than one attention in one "
                  "function lowered to GPU kernels";
      attention = forall;
      continue;
    }
    if (isMergeLoop(&op)) {
      if (merge)
        return mlir::emitError(op.getLoc())
               << "not supported yet: more than one merge loop in one "
                  "function lowered to GPU kernels";
      merge = cast<scf::ForallOp>(op);
      continue;
    }
    if (auto forall = dyn_cast<scf::ForallOp>(op);
        forall && forall->hasAttr(kStageAttrName)) {
      auto stage = forall->getAttrOfType<StringAttr>(kStageAttrName);
      if (!stage || (stage.getValue() != kPreprocessStage &&
                     stage.getValue() != kDQConvertStage))
        return mlir::emitError(forall.getLoc())
               << "not supported yet: a loop of " << kStageAttrName << " = "
               << forall->getAttr(kStageAttrName)
               << " (the backward's GPU lowering rebuilds the \"preprocess\" "
                  "and \"dq_convert\" stages)";
      if (stage.getValue() == kDQConvertStage)
        convert = forall;
      stages.push_back(forall);
      continue;
    }
    if (isa<tensor::EmptyOp, func::ReturnOp, arith::ConstantOp>(op))
      continue;
    return mlir::emitError(op.getLoc())
           << "not supported yet: host code around the attention in a "
              "function lowered to a GPU kernel (the function must compute "
              "the attention of its arguments and return it)";
  }
  if (!attention)
    return mlir::emitError(func.getLoc())
           << "not supported yet: an attention nested in "
              "other control flow";
  auto kernel = attention->getAttrOfType<KernelAttr>(kKernelDescriptorAttrName);
  KernelKind kind = kernel ? kernel.getKind() : KernelKind::Forward;
  bool split = kind == KernelKind::SplitKV || kind == KernelKind::Paged;
  bool backward = kind == KernelKind::Backward;
  if (split && !merge)
    return mlir::emitError(attention.getLoc())
           << "not supported yet: a " << stringifyKernelKind(kind)
           << " attention without its merge loop (an scf.forall tagged "
              "flash.stage = \"merge\")";
  if (!split && merge)
    return mlir::emitError(merge.getLoc())
           << "not supported yet: a merge loop beside a "
           << stringifyKernelKind(kind) << " attention";
  if (!backward && !stages.empty())
    return mlir::emitError(stages.front().getLoc())
           << "not supported yet: a stage loop around a "
           << stringifyKernelKind(kind)
           << " attention (preprocess and dq_convert loops belong to the "
              "backward)";
  // The kernels take the tensors at run time: the function's arguments.
  if (kind == KernelKind::Paged) {
    if (func.getNumArguments() != 5)
      return mlir::emitError(func.getLoc())
             << "not supported yet: a paged kernel function must take "
                "exactly Q, the K and V caches, the block table and the "
                "sequence lengths";
  } else if (backward) {
    if (func.getNumArguments() != 6)
      return mlir::emitError(func.getLoc())
             << "not supported yet: a backward kernel function must take "
                "exactly Q, K, V, O, dO and LSE";
  } else if (func.getNumArguments() != 3) {
    return mlir::emitError(func.getLoc())
           << "not supported yet: a kernel function must take "
              "exactly Q, K and V";
  }
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  ValueRange results = (merge ? merge : attention).getResults();
  bool returnsLoop = ret.getOperands() == results;
  bool returnsStages = backward && convert && ret.getNumOperands() == 3 &&
                       results.size() == 3 && convert->getNumResults() == 1 &&
                       ret.getOperand(0) == convert->getResult(0) &&
                       ret.getOperand(1) == results[0] &&
                       ret.getOperand(2) == results[1];
  if (!returnsLoop && !returnsStages)
    return mlir::emitError(ret.getLoc())
           << "not supported yet: the function must return "
              "exactly the attention's results"
           << (backward ? " (dQ, dK, dV of the descriptor's loop, or the "
                          "dq_convert loop's dQ and the descriptor loop's dK, "
                          "dV)"
                        : "");
  return attention;
}

/// The launch-contract fields every kernel kind records (name, arch, element
/// type, D, causal, scale, tiles, threads, shared memory); each describer
/// adds its own. Dictionaries sort their entries, so order does not matter.
SmallVector<NamedAttribute> commonKernelFields(Builder &b, const KernelConfig &c) {
  std::string elementType;
  llvm::raw_string_ostream os(elementType);
  os << c.elementType;
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  return {
      b.getNamedAttr("kernel", b.getStringAttr(c.name)),
      b.getNamedAttr("arch", b.getStringAttr(c.arch)),
      b.getNamedAttr("element_type", b.getStringAttr(elementType)),
      b.getNamedAttr("head_dim", i64(c.headDim)),
      b.getNamedAttr("value_dim", i64(c.headDim)),
      b.getNamedAttr("causal", b.getBoolAttr(c.causal)),
      b.getNamedAttr("scale", b.getF32FloatAttr(c.scale)),
      b.getNamedAttr("block_q", i64(c.blockQ)),
      b.getNamedAttr("block_kv", i64(c.blockKV)),
      b.getNamedAttr("stages", i64(c.stages)),
      b.getNamedAttr("warps", i64(c.warps)),
      b.getNamedAttr("threads", i64(c.threads())),
      b.getNamedAttr("dynamic_shared_memory", i64(c.sharedBytes)),
  };
}

/// The backward's launch contract: the kernels of sm80::backwardLaunches,
/// in order, each with its grid and arguments, and the plan's workspaces
/// (the runtime sizes them from the formulas).
DictionaryAttr describeBackward(Builder &b, const KernelConfig &c,
                                ScheduleAttr schedule) {
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  auto strings = [&](ArrayRef<std::string> values) {
    SmallVector<StringRef> refs(values.begin(), values.end());
    return b.getStrArrayAttr(refs);
  };
  // The preprocess and convert kernels are the same on every arch; the main
  // kernel is the arch's own (sm_90a's takes tensor maps, described here).
  bool sm90 = c.arch == "sm_90a";
  SmallVector<Attribute> launches;
  for (const sm80::BackwardLaunch &l : sm90 ? sm90::backwardLaunches(c)
                                            : sm80::backwardLaunches(c)) {
    SmallVector<NamedAttribute> fields = {
        b.getNamedAttr("kernel", b.getStringAttr(l.name)),
        b.getNamedAttr("grid", strings(l.grid)),
        b.getNamedAttr("args", strings(l.args)),
        b.getNamedAttr("threads", i64(l.threads)),
        b.getNamedAttr("dynamic_shared_memory", i64(l.sharedBytes))};
    if (sm90 && l.role == sm80::BackwardLaunch::Role::Main)
      llvm::append_range(fields, sm90::describeBackwardMain(b, c));
    // Launched behind the kernel before it with programmatic dependent
    // launch (sm_90a's main kernel and convert; docs/launch-plan.md).
    if (l.programmaticDependentLaunch)
      fields.push_back(
          b.getNamedAttr("programmatic_dependent_launch", b.getBoolAttr(true)));
    launches.push_back(b.getDictionaryAttr(fields));
  }
  SmallVector<Attribute> workspaces;
  for (const sm80::BackwardWorkspace &w : sm90 ? sm90::backwardWorkspaces(c)
                                               : sm80::backwardWorkspaces(c))
    workspaces.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("name", b.getStringAttr(w.name)),
         b.getNamedAttr("bytes", b.getStringAttr(w.bytes))}));
  SmallVector<NamedAttribute> fields = commonKernelFields(b, c);
  fields.append({
      b.getNamedAttr("op", b.getStringAttr("attention_backward")),
      b.getNamedAttr("deterministic", b.getBoolAttr(c.deterministic)),
      b.getNamedAttr("compiled_shape",
                     b.getI64ArrayAttr({c.batch, c.queryHeads, c.kvHeads,
                                        c.seqQ, c.seqKV})),
      b.getNamedAttr("schedule", schedule),
      b.getNamedAttr("launches", b.getArrayAttr(launches)),
      b.getNamedAttr("workspaces", b.getArrayAttr(workspaces)),
  });
  return b.getDictionaryAttr(fields);
}

DictionaryAttr describeKernel(Builder &b, const KernelConfig &c,
                              ScheduleAttr schedule) {
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  SmallVector<NamedAttribute> fields = commonKernelFields(b, c);
  fields.append({
      b.getNamedAttr("writes_lse", b.getBoolAttr(c.writesLse)),
      b.getNamedAttr("persistent", b.getBoolAttr(c.sm90.persistent)),
      b.getNamedAttr("blocks_per_sm", i64(c.blocksPerSM)),
      b.getNamedAttr("ping_pong", b.getBoolAttr(c.sm90.pingPong)),
      b.getNamedAttr("q_buffers", i64(c.sm90.qBuffers)),
      b.getNamedAttr("grid",
                     c.sm90.persistent
                         ? b.getStrArrayAttr({"min(blocks_per_sm*SMs, ceildiv(Nq, block_q)*Hq*B)",
                                              "1", "1"})
                         : b.getStrArrayAttr({"ceildiv(Nq, block_q)", "Hq", "B"})),
      b.getNamedAttr("compiled_shape",
                     b.getI64ArrayAttr({c.batch, c.queryHeads, c.kvHeads,
                                        c.seqQ, c.seqKV})),
      b.getNamedAttr("schedule", schedule),
  });
  if (c.arch == "sm_90a") {
    // Q, K, V and O travel as CUtensorMaps (by value): rank 3 over
    // (D, N, B·H), 128-byte swizzle, zero fill out of bounds, boxes of 64
    // columns (O: 64 rows, one consumer warpgroup's TMA store).
    // A persistent grid also takes its tile counter: an i32 in global
    // memory that is 0 before the launch and is 0 again after it (the
    // kernel resets it), so one zeroed counter per stream serves every
    // launch on that stream.
    SmallVector<StringRef> args = {"q:tensormap", "k:tensormap", "v:tensormap",
                                   "o:tensormap", "lse:ptr",     "B:i32",
                                   "Hq:i32",      "Hkv:i32",     "Nq:i32",
                                   "Nk:i32",      "scale:f32"};
    if (c.sm90.persistent)
      args.push_back("counter:ptr");
    fields.push_back(b.getNamedAttr("args", b.getStrArrayAttr(args)));
    static constexpr const char *kRescaleNames[] = {"eager", "lazy",
                                                    "lazy-late"};
    fields.push_back(b.getNamedAttr(
        "rescale", b.getStringAttr(kRescaleNames[int(c.rescale)])));
    fields.push_back(b.getNamedAttr(
        "first_tile_mask",
        b.getStringAttr(c.sm90.branchFirstTileMask ? "branch" : "always")));
    fields.push_back(b.getNamedAttr(
        "tile_order",
        b.getStringAttr(c.sm90.tileGroupBytes > 0 ? "grouped" : "head")));
    if (c.sm90.tileGroupBytes > 0)
      fields.push_back(b.getNamedAttr(
          "tile_group_bytes", b.getI64IntegerAttr(c.sm90.tileGroupBytes)));
    // When the leader waits for O's TMA store to have read shared memory.
    fields.push_back(b.getNamedAttr(
        "store_wait",
        b.getStringAttr(c.sm90.deferStoreWait ? "deferred" : "immediate")));
    // Which K/V tiles each consumer warpgroup visits.
    fields.push_back(b.getNamedAttr(
        "kv_range",
        b.getStringAttr(c.sm90.warpgroupRanges ? "warpgroup" : "block")));
    // Where O waits in shared memory for its TMA store.
    fields.push_back(b.getNamedAttr(
        "output_staging",
        b.getStringAttr(c.sm90.outputInRing ? "kv_ring" : "q_buffer")));
    auto map = [&](StringRef tensor, int64_t rows) {
      return sm90::describeTensorMap(b, tensor, rows, c.sm90.batchMaps);
    };
    fields.push_back(b.getNamedAttr(
        "tensor_maps",
        b.getArrayAttr({map("q", c.blockQ), map("k", c.blockKV),
                        map("v", c.blockKV), map("o", 64)})));
    llvm::append_range(fields, sm90::describeWarpgroups(b, c));
  } else if (c.arch == "sm_100a") {
    // Q, K, V and O travel as CUtensorMaps as on sm_90a (the same maps;
    // O's boxes are a 128-row tile's: the TMA-store epilogue).
    fields.push_back(b.getNamedAttr(
        "args", b.getStrArrayAttr({"q:tensormap", "k:tensormap",
                                   "v:tensormap", "o:tensormap", "lse:ptr",
                                   "B:i32",
                                   "Hq:i32", "Hkv:i32", "Nq:i32", "Nk:i32",
                                   "scale:f32"})));
    fields.push_back(b.getNamedAttr("rescale", b.getStringAttr("lazy")));
    // One column of P in `period` by the polynomial exp2 on the FMA units.
    fields.push_back(b.getNamedAttr(
        "exp2_polynomial",
        b.getStringAttr(Twine(c.exp2Split.polynomial) + "/" +
                        Twine(c.exp2Split.period))));
    fields.push_back(b.getNamedAttr(
        "tensor_memory_columns", b.getI64IntegerAttr(sm100TensorMemoryColumns(c))));
    // 128-row Q tiles per block, and with two the correction warpgroup and
    // the setmaxnreg split (softmax warpgroups, the correction warpgroup,
    // the TMA and MMA warps' warpgroup).
    SM100Roles roles = sm100Roles(c);
    fields.push_back(b.getNamedAttr("q_tiles", i64(roles.qTiles)));
    fields.push_back(b.getNamedAttr(
        "correction_warpgroup", b.getBoolAttr(roles.hasCorrection())));
    if (roles.softmaxRegisters)
      fields.push_back(b.getNamedAttr(
          "setmaxnreg", b.getI64ArrayAttr({roles.softmaxRegisters,
                                           roles.correctionRegisters,
                                           roles.otherRegisters})));
    auto map = [&](StringRef tensor, int64_t rows) {
      return sm90::describeTensorMap(b, tensor, rows);
    };
    fields.push_back(b.getNamedAttr(
        "tensor_maps", b.getArrayAttr({map("q", c.blockQ), map("k", c.blockKV),
                                       map("v", c.blockKV), map("o", 128)})));
  } else {
    // sm_80: pointers (buildSM80Kernel's order), and in the strided form the
    // strides of q, k, v, o (elements of B, H, N), which the runtime binds.
    SmallVector<StringRef> args = {"q:ptr",  "k:ptr",  "v:ptr",  "o:ptr",
                                   "lse:ptr", "B:i32", "Hq:i32", "Hkv:i32",
                                   "Nq:i32", "Nk:i32", "scale:f32"};
    if (c.strided)
      args.append({"q_stride0:i32", "q_stride1:i32", "q_stride2:i32",
                   "k_stride0:i32", "k_stride1:i32", "k_stride2:i32",
                   "v_stride0:i32", "v_stride1:i32", "v_stride2:i32",
                   "o_stride0:i32", "o_stride1:i32", "o_stride2:i32"});
    fields.push_back(b.getNamedAttr("args", b.getStrArrayAttr(args)));
  }
  return b.getDictionaryAttr(fields);
}

/// The SplitKV.h rules as launch-plan formulas (the grammar LaunchPlan.cpp
/// parses: products with `*`, and min, max, ceildiv, le, sub): the value a
/// runtime computes from the call's sizes is the one the kernels compute.
struct FormulaDomain {
  using Value = std::string;
  Value constant(int64_t v) { return std::to_string(v); }
  Value sub(const Value &x, const Value &y) {
    return "sub(" + x + ", " + y + ")";
  }
  Value mul(const Value &x, const Value &y) { return x + "*" + y; }
  Value min(const Value &x, const Value &y) {
    return "min(" + x + ", " + y + ")";
  }
  Value max(const Value &x, const Value &y) {
    return "max(" + x + ", " + y + ")";
  }
  /// ⌊x / y⌋ of x ≥ 0, y ≥ 1: ⌈(x − y + 1) / y⌉ (ceildiv is 0 at or below
  /// 0).
  Value floorDiv(const Value &x, const Value &y) {
    return "ceildiv(" + sub(x, sub(y, "1")) + ", " + y + ")";
  }
};

/// The split-KV kernel's launch contract: one kernel (it merges the parts
/// too) and its workspaces (LaunchPlan.cpp reads it).
DictionaryAttr describeDecodeKernels(Builder &b, const KernelConfig &c,
                                     ScheduleAttr schedule) {
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  auto str = [&](StringRef s) { return b.getStringAttr(s); };
  // Row tiles per (batch, kv-head), and the most parts any sequence is cut
  // into (Target/SplitKV.h), which depends on the sizes and the SM count
  // only (never on a length): the workspaces hold splitKVMaxSplits parts a
  // row, the grid's x launches splitKVGridParts, no more than a sequence of
  // the cache's capacity (Nk, or M·S for a paged cache) is cut into; blocks
  // past a sequence's parts exit.
  std::string rowTiles = "ceildiv(ceildiv(Hq*Nq, Hkv), block_q)";
  FormulaDomain formulas;
  std::string parts =
      splitKVMaxSplits(formulas, "B*Hkv*" + rowTiles, "SMs", "max_splits",
                       c.decode.blocksPerSM);
  std::string capacityTiles =
      "ceildiv(" + std::string(c.decode.paged ? "M*S" : "Nk") + ", block_kv)";
  std::string gridParts =
      splitKVGridParts(formulas, "B*Hkv*" + rowTiles, "SMs", "max_splits",
                       c.decode.blocksPerSM, capacityTiles);
  std::string grid[] = {gridParts, "Hkv*" + rowTiles, "B"};
  SmallVector<StringRef> gridRefs(std::begin(grid), std::end(grid));
  auto workspace = [&](StringRef name, StringRef bytes, bool zeroed) {
    return b.getDictionaryAttr(
        {b.getNamedAttr("name", str(name)),
         b.getNamedAttr("bytes", str(bytes)),
         b.getNamedAttr("init", str(zeroed ? "zero" : "none")),
         b.getNamedAttr("kernel_restores", b.getBoolAttr(zeroed))});
  };
  // sm_90a: the split kernel (fused merge) only for calls of more work
  // units than the separate merge's bound (its z = B·le(bound + 1, work
  // units)), the separate merge's split kernel and merge kernel for the
  // others (Target/SplitKV.h); a kernel of zero blocks is not launched.
  const int64_t bound = decodeSeparateMergeBound(c);
  std::string workUnits = "B*Hkv*" + rowTiles;
  std::string fusedZ =
      bound ? "B*le(" + std::to_string(bound + 1) + ", " + workUnits + ")"
            : grid[2];
  // A split kernel's entry (the split kernel, the separate merge's, those
  // for one page size): the grid's x and y, the block, shared memory and
  // arguments are the same, z says which calls it runs.
  // `behindPrevious`: the separate merge's split kernels, launched with
  // programmatic dependent launch behind the kernel before them in the
  // stream (they wait for it before their first global access;
  // decodeSeparateSplitKernelName).
  auto splitEntry = [&](StringRef name, const std::string &z,
                        bool behindPrevious = false) {
    SmallVector<StringRef> refs = {grid[0], grid[1], z};
    SmallVector<NamedAttribute> entry = {
        b.getNamedAttr("kernel", str(name)),
        b.getNamedAttr("grid", b.getStrArrayAttr(refs)),
        b.getNamedAttr("threads", i64(c.threads())),
        b.getNamedAttr("dynamic_shared_memory",
                       i64(decodeSplitSharedBytes(c, behindPrevious))),
        b.getNamedAttr("args", b.getStrArrayAttr(decodeSplitKernelArgs(
                                   c.decode.paged)))};
    if (behindPrevious)
      entry.push_back(b.getNamedAttr("programmatic_dependent_launch",
                                     b.getBoolAttr(true)));
    // sm_90a's fused split kernels: a call of two parts a row tile (grid x
    // = 2) runs in clusters of two blocks along x, whose pair merge takes
    // the place of the merge through global memory (decodeClusterPairs).
    else if (decodeClusterPairs(c))
      entry.push_back(b.getNamedAttr(
          "cluster", str("max(1, 2*eq(" + grid[0] + ", 2))")));
    return b.getDictionaryAttr(entry);
  };
  // Paged: a call of a page size with a fused split kernel of its own
  // (`<name>_s<S>`, listed last) runs that kernel in this one's place.
  std::string anyPageZ = fusedZ;
  for (int64_t pageSize : c.decode.fusedPageSizes)
    anyPageZ += "*sub(1, eq(S, " + std::to_string(pageSize) + "))";
  SmallVector<Attribute> kernelList = {splitEntry(c.name, anyPageZ)};
  // sm_90a: the separate merge (Target/SplitKV.h), a block per output row
  // and column slice when the call has at most `bound` work units, no block
  // otherwise (the split kernel merges); launched with programmatic
  // dependent launch behind the split kernel.
  if (bound) {
    std::string separate = "le(" + workUnits + ", " + std::to_string(bound) +
                           ")";
    // Paged: a call of a page size with a separate split kernel of its own
    // (`<name>_separate_s<S>`, listed before the merge kernel, which waits on
    // the one that runs) runs that kernel in this one's place.
    SmallVector<int64_t> separateSizes = decodeSeparatePageSizes(c);
    std::string anySeparateZ = "B*" + separate;
    for (int64_t pageSize : separateSizes)
      anySeparateZ += "*sub(1, eq(S, " + std::to_string(pageSize) + "))";
    kernelList.push_back(splitEntry(decodeSeparateSplitKernelName(c),
                                    anySeparateZ, /*behindPrevious=*/true));
    for (int64_t pageSize : separateSizes)
      kernelList.push_back(
          splitEntry(decodeSeparatePageKernelName(c, pageSize),
                     "B*" + separate + "*eq(S, " + std::to_string(pageSize) +
                         ")",
                     /*behindPrevious=*/true));
    std::string mergeGrid[] = {"B*Hq*Nq*" + separate,
                               std::to_string(c.headDim / kSplitKVMergeSlice),
                               "1"};
    SmallVector<StringRef> mergeRefs(std::begin(mergeGrid),
                                     std::end(mergeGrid));
    kernelList.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("kernel", str(decodeMergeKernelName(c))),
         b.getNamedAttr("grid", b.getStrArrayAttr(mergeRefs)),
         b.getNamedAttr("threads", i64(kSplitKVMergeThreads)),
         b.getNamedAttr("dynamic_shared_memory",
                        i64(kSplitKVMergeSharedBytes)),
         b.getNamedAttr("args", b.getStrArrayAttr(decodeSplitKernelArgs(
                                    c.decode.paged))),
         b.getNamedAttr("programmatic_dependent_launch",
                        b.getBoolAttr(true))}));
  }
  for (int64_t pageSize : c.decode.fusedPageSizes)
    kernelList.push_back(
        splitEntry(decodeFusedPageKernelName(c, pageSize),
                   fusedZ + "*eq(S, " + std::to_string(pageSize) + ")"));
  SmallVector<NamedAttribute> fields = commonKernelFields(b, c);
  fields.append({
      b.getNamedAttr("op", str(c.decode.paged ? "paged_attention"
                                              : "attention_split_kv")),
      b.getNamedAttr("writes_lse", b.getBoolAttr(c.writesLse)),
      b.getNamedAttr("max_splits", i64(c.decode.maxSplits)),
      b.getNamedAttr("page_size", i64(c.decode.pageSize)),
      b.getNamedAttr("grid", b.getStrArrayAttr(gridRefs)),
      b.getNamedAttr("kernels", b.getArrayAttr(kernelList)),
      // f32 partials, part-major: O_s of row r at (s·B·Hq·Nq + r)·Dv, for
      // the parts the grid can have (small when the batch fills the GPU);
      // counters of finished parts per row tile (2·⌈parts / merge group⌉:
      // the groups' and each group's of a two-level merge, SplitKV.h),
      // zeroed once and left zero by the kernel (the blocks that merge
      // reset them).
      b.getNamedAttr(
          "workspaces",
          b.getArrayAttr(
              {workspace("partial_o", parts + "*B*Hq*Nq*Dv*4", false),
               workspace("partial_lse", parts + "*B*Hq*Nq*4", false),
               workspace("split_counter",
                         "B*Hkv*" + rowTiles + "*2*ceildiv(" + parts + ", " +
                             std::to_string(kSplitKVMergeGroup) + ")*4",
                         true)})),
      b.getNamedAttr("compiled_shape",
                     b.getI64ArrayAttr({c.batch, c.queryHeads, c.kvHeads,
                                        c.seqQ, c.seqKV})),
      b.getNamedAttr("schedule", schedule),
  });
  // Paged: the page sizes of the fused split kernels with S a constant.
  if (c.decode.paged)
    fields.push_back(b.getNamedAttr(
        "fused_page_sizes", b.getI64ArrayAttr(c.decode.fusedPageSizes)));
  return b.getDictionaryAttr(fields);
}

/// Where an attention can be lowered (issue 21): flash-tile's scf.forall in a
/// func.func of the top-level module, whose gpu.module the kernel joins. A
/// tiled attention anywhere else (a gpu.func, a function of a nested module,
/// whose kernels could collide by name at the top) and an L1 op outside a
/// tiled attention are refused, located, before anything changes.
static LogicalResult refuseUnsupportedPlacement(ModuleOp module) {
  bool refused = false;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    // A split-KV attention's merge loop goes with its split loop.
    if (isMergeLoop(op))
      return WalkResult::skip();
    if (isa<scf::ForallOp>(op) && op->hasAttr(kKernelDescriptorAttrName)) {
      Operation *function = op->getParentOfType<FunctionOpInterface>();
      if (!isa_and_nonnull<func::FuncOp>(function) ||
          function->getParentOp() != module.getOperation()) {
        InFlightDiagnostic diag = mlir::emitError(op->getLoc())
                                  << "not supported yet: a tiled attention ";
        if (!function)
          diag << "outside a function";
        else if (!isa<func::FuncOp>(function))
          diag << "in a '" << function->getName() << "'";
        else
          diag << "in a func.func inside a '"
               << function->getParentOp()->getName() << "'";
        diag << " (flash-lower-to-nvgpu lowers func.func ops of the "
                "top-level module)";
        refused = true;
      }
      return WalkResult::skip();
    }
    // The backward's stage loops hold its L1 ops too (findTiledAttention
    // checks where they are).
    if (isa<scf::ForallOp>(op) && op->hasAttr(kStageAttrName))
      return WalkResult::skip();
    if (isa_and_nonnull<FlashDialect>(op->getDialect()) &&
        !isa<AttentionOp, AttentionBackwardOp, PagedAttentionOp>(op)) {
      mlir::emitError(op->getLoc())
          << "not supported yet: '" << op->getName()
          << "' outside a tiled attention (flash-lower-to-nvgpu lowers the "
             "loops that flash-tile makes)";
      refused = true;
    }
    return WalkResult::advance();
  });
  return failure(refused);
}

struct FlashLowerToNVGPUPass
    : flash::impl::FlashLowerToNVGPUBase<FlashLowerToNVGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!lookupTargetModel(arch)) {
      mlir::emitError(module.getLoc())
          << "flash-lower-to-nvgpu: unknown arch '" << arch
          << "'; expected one of " << llvm::join(knownArchs(), ", ");
      return signalPassFailure();
    }
    // The model with the shared memory of the devices the kernels are for.
    std::optional<TargetModel> model =
        lookupTargetModel(arch, sharedMemoryPerBlock);
    if (!model) {
      mlir::emitError(module.getLoc())
          << sharedMemoryBudgetError("flash-lower-to-nvgpu",
                                     sharedMemoryPerBlock);
      return signalPassFailure();
    }
    const TargetModel *target = &*model;
    if (failed(refuseUnsupportedPlacement(module)))
      return signalPassFailure();
    // fused-page-sizes: auto (nullopt: the target's), none or sizes.
    std::optional<SmallVector<int64_t>> pageSizes;
    if (fusedPageSizes != "auto") {
      pageSizes.emplace();
      bool valid = !fusedPageSizes.empty();
      if (fusedPageSizes != "none")
        for (StringRef text : llvm::split(StringRef(fusedPageSizes), ',')) {
          int64_t size;
          valid = valid && !text.trim().getAsInteger(10, size) && size >= 1 &&
                  size <= kMaxFusedPageSize;
          if (valid && !llvm::is_contained(*pageSizes, size))
            pageSizes->push_back(size);
        }
      if (!valid) {
        mlir::emitError(module.getLoc())
            << "flash-lower-to-nvgpu: fused-page-sizes takes auto, none or "
               "page sizes of 1 to "
            << kMaxFusedPageSize << " slots, comma-separated; got '"
            << fusedPageSizes << "'";
        return signalPassFailure();
      }
    }

    SmallVector<std::pair<func::FuncOp, scf::ForallOp>> work;
    bool failedAny = false;
    module.walk([&](func::FuncOp func) {
      if (func.isExternal())
        return;
      FailureOr<scf::ForallOp> attention = findTiledAttention(func);
      if (failed(attention))
        failedAny = true;
      else if (*attention)
        work.push_back({func, *attention});
    });
    // Untiled attention ops cannot be lowered.
    module.walk([&](Operation *op) {
      if (!isa<AttentionOp, AttentionBackwardOp, PagedAttentionOp>(op))
        return;
      op->emitOpError() << "must be tiled (flash-tile) before "
                           "flash-lower-to-nvgpu";
      failedAny = true;
    });
    if (failedAny)
      return signalPassFailure();

    OpBuilder b(module.getContext());
    SmallVector<Attribute> kernels;
    if (auto existing = module->getAttrOfType<ArrayAttr>("flash.kernels"))
      kernels.append(existing.begin(), existing.end());
    for (auto [func, forall] : work) {
      auto kernel =
          forall->getAttrOfType<KernelAttr>(kKernelDescriptorAttrName);
      if (!kernel) {
        forall.emitError() << kKernelDescriptorAttrName
                           << " is not a #flash.kernel descriptor";
        return signalPassFailure();
      }
      if (!kernel.getForm()) {
        // The policy's auto form (flash-select-kernel-form's defaults).
        FailureOr<Attribute> form =
            selectKernelForm(kernel, *target, FormChoices{}, forall.getLoc());
        if (failed(form))
          return signalPassFailure();
        kernel = kernel.withForm(*form);
      }
      FailureOr<KernelConfig> config = kernelConfigFromDescriptor(
          kernel, func.getSymName(), *target, forall.getLoc());
      if (failed(config))
        return signalPassFailure();
      if (batchMaps) {
        // Rank-4 tensor maps: sm_90a's forward and backward main kernel.
        if (target->arch != "sm_90a" || config->isDecode()) {
          forall.emitError()
              << "not supported yet: batch-maps for " << target->arch
              << (config->isDecode() ? " split-KV/paged kernels" : " kernels")
              << " (only sm_90a's forward and backward take rank-4 tensor "
                 "maps)";
          return signalPassFailure();
        }
        // Not run on a GPU together: the cluster's dQ exchange was checked
        // with rank-3 maps only (docs/benchmarks.md, fifteenth session).
        if (config->sm90.clusterBlocks > 1) {
          forall.emitError()
              << "not supported yet: batch-maps with the sm_90a backward in "
                 "a cluster of two blocks (block_kv = 128 at D=256)";
          return signalPassFailure();
        }
        config->sm90.batchMaps = true;
      }
      if (strides) {
        // Stride arguments: sm_80's forward kernel and backward kernels.
        bool attention = config->kind == KernelKind::Forward ||
                         config->kind == KernelKind::Backward;
        if (target->arch != "sm_80" || !attention) {
          forall.emitError()
              << "not supported yet: strides for "
              << (attention ? target->arch + " " : std::string())
              << stringifyKernelKind(config->kind)
              << " kernels (only sm_80's forward and backward kernels take "
                 "stride arguments; sm_90a's tensor maps carry strides: "
                 "batch-maps)";
          return signalPassFailure();
        }
        config->strided = true;
      }
      if (config->kind == KernelKind::Paged)
        config->decode.fusedPageSizes =
            pageSizes ? *pageSizes
                      : SmallVector<int64_t>(
                            decodeDefaultFusedPageSizes(*config));
      ScheduleAttr schedule = kernel.getSchedule();
      b.setInsertionPointToEnd(module.getBody());
      auto gpuModule =
          gpu::GPUModuleOp::create(b, func.getLoc(), config->name + "_module");
      b.setInsertionPointToStart(gpuModule.getBody());
      bool backward = config->kind == KernelKind::Backward;
      LogicalResult built =
          config->isDecode() ? buildDecodeKernels(b, func.getLoc(), *config)
          : backward
              ? (target->arch == "sm_90a"
                     ? buildSM90BackwardKernels(b, func.getLoc(), *config)
                     : buildSM80BackwardKernels(b, func.getLoc(), *config))
          : target->arch == "sm_90a"
              ? buildSM90Kernel(b, func.getLoc(), *config)
          : target->arch == "sm_100a"
              ? buildSM100Kernel(b, func.getLoc(), *config)
              : buildSM80Kernel(b, func.getLoc(), *config);
      if (failed(built))
        return signalPassFailure();
      kernels.push_back(config->isDecode()
                            ? describeDecodeKernels(b, *config, schedule)
                        : backward ? describeBackward(b, *config, schedule)
                                   : describeKernel(b, *config, schedule));
      func.erase();
    }
    if (!work.empty()) {
      module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                      b.getUnitAttr());
      module->setAttr("flash.kernels", b.getArrayAttr(kernels));
    }
  }
};
} // namespace
