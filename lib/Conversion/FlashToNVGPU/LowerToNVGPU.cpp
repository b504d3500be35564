//===- LowerToNVGPU.cpp - tiled attention (L1) into GPU kernels (L2) ------===//
//
// Reads what a kernel must compute off the L1 loop nest that flash-tile made
// (schedule, element type, head dimension, causal, scale, LSE), checks that
// the target's lowering supports it, and has the per-arch builder emit the
// kernel into a gpu.module. The host function is replaced by the kernel and
// its launch contract, recorded in the module attribute `flash.kernels`,
// which flash-write-bundle turns into JSON for the runtime.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"
#include "flash/Conversion/Passes.h"
#include "flash/Dialect/Flash/Transforms/Schedule.h"
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
/// The tiled attention of `func`: null when the function holds none, failure
/// (diagnosed) when it holds one the GPU lowering cannot take.
FailureOr<scf::ForallOp> findTiledAttention(func::FuncOp func) {
  bool hasAttention = false;
  func.walk([&](scf::ForallOp forall) {
    hasAttention |= forall->hasAttr("flash.schedule");
  });
  if (!hasAttention)
    return scf::ForallOp();
  scf::ForallOp attention;
  for (Operation &op : func.getBody().front()) {
    if (auto forall = dyn_cast<scf::ForallOp>(op);
        forall && forall->hasAttr("flash.schedule")) {
      if (attention)
        return mlir::emitError(func.getLoc())
               << "not supported yet: more than one attention in one "
                  "function lowered to GPU kernels";
      attention = forall;
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
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  if (ret.getOperands() != ValueRange(attention.getResults()))
    return mlir::emitError(ret.getLoc())
           << "not supported yet: the function must return "
              "exactly the attention's results";
  return attention;
}

/// The sm_90a kernel's constraints (SM90.cpp): 64 rows per consumer
/// warpgroup, one producer warpgroup, TMA boxes of 64 columns and at most
/// 256 rows, wgmma N a multiple of 16 up to 256.
FailureOr<KernelConfig> analyzeSM90(scf::ForallOp forall,
                                    const TargetModel &target, KernelConfig c) {
  auto unsupported = [&](const Twine &what) -> FailureOr<KernelConfig> {
    return mlir::emitError(forall.getLoc())
           << "not supported yet: " << what << " on " << target.arch;
  };
  if (c.blockQ % 64 != 0 || c.blockQ < 64 || c.blockQ > 192)
    return unsupported("block_q = " + Twine(c.blockQ) +
                       " (one to three consumer warpgroups of 64 rows)");
  c.consumers = c.blockQ / 64;
  if (c.warps != 4 * (c.consumers + 1))
    return unsupported(Twine(c.warps) + " warps for " + Twine(c.consumers) +
                       " consumer warpgroups (expected " +
                       Twine(4 * (c.consumers + 1)) + ")");
  if (c.blockKV % 16 != 0 || c.blockKV < 16 || c.blockKV > 256)
    return unsupported("block_kv = " + Twine(c.blockKV) +
                       " (a multiple of 16 up to 256)");
  if (c.stages < 2)
    return unsupported(Twine(c.stages) +
                       " K/V stage (the producer/consumer pipeline needs two)");
  // A persistent block double-buffers Q where shared memory allows.
  c.qBuffers = c.persistent ? 2 : 1;
  c.sharedBytes = sm90SharedBytes(c);
  if (c.qBuffers == 2 && c.sharedBytes > target.sharedMemPerBlock) {
    c.qBuffers = 1;
    c.sharedBytes = sm90SharedBytes(c);
  }
  if (c.sharedBytes > target.sharedMemPerBlock)
    return unsupported(Twine(c.sharedBytes) + " bytes of shared memory (" +
                       Twine(target.sharedMemPerBlock) + " per block)");
  // With one Q buffer, a persistent block stages O in one K/V slot (its K
  // and V halves) where O's 64-row boxes fit there.
  c.outputInRing =
      c.persistent && c.qBuffers == 1 && sm90OutputFitsInRing(c);
  // Two blocks per SM where both fit: one consumer warpgroup, twice the
  // shared memory plus the 1 KB the hardware reserves per block, and D ≤ 128:
  // ptxas allocates the whole kernel under the launch cap (128 registers per
  // thread for two blocks of 256 threads), and the m64n256 P·V wgmma of
  // D = 256 alone needs 158 ("Insufficient registers", C7602).
  c.blocksPerSM = c.consumers == 1 && c.headDim <= 128 &&
                          2 * (c.sharedBytes + 1024) <= target.sharedMemPerSM
                      ? 2
                      : 1;
  // setmaxnreg: each block launches with its share of the register file
  // (a multiple of 8 per thread, at most 255); the producer drops to 24
  // (32 with three consumers) and the consumers split the rest in steps of 8.
  int64_t threads = 128 * (c.consumers + 1);
  int64_t perThread = std::min<int64_t>(
      target.registersPerSM / (c.blocksPerSM * threads) / 8 * 8, 248);
  c.producerRegisters = c.consumers <= 2 ? 24 : 32;
  c.consumerRegisters = std::min<int64_t>(
      (perThread * threads - 128 * c.producerRegisters) / (128 * c.consumers) /
          8 * 8,
      240);
  return c;
}

/// The pass's choices between kernel forms (each "auto" or a named form).
struct LoweringChoices {
  StringRef persistent, pingPong, rescale, firstTileMask, tileOrder, storeWait,
      kvRange;
};

/// Reads the kernel configuration off the L1 loop nest and checks it against
/// what the target's lowering supports.
FailureOr<KernelConfig> analyze(func::FuncOp func, scf::ForallOp forall,
                                const TargetModel &target,
                                const LoweringChoices &choices) {
  auto [persistent, pingPong, rescale, firstTileMask, tileOrder, storeWait,
        kvRange] = choices;
  KernelConfig c;
  auto schedule = forall->getAttrOfType<ScheduleAttr>("flash.schedule");
  if (!schedule)
    return mlir::emitError(forall.getLoc())
           << "flash.schedule is not a #flash.schedule";
  c.name = func.getSymName().str();
  c.arch = target.arch.str();
  c.blockQ = schedule.getBlockQ();
  c.blockKV = schedule.getBlockKv();
  c.warps = schedule.getWarps();
  c.stages = schedule.getStages();
  c.writesLse = forall.getNumResults() == 2;

  // The tile ops: Q/K/V loads in order, the score op, masks.
  SmallVector<LoadTileOp> loads;
  QKOp qk;
  forall.walk([&](Operation *op) {
    if (auto load = dyn_cast<LoadTileOp>(op))
      loads.push_back(load);
    else if (auto s = dyn_cast<QKOp>(op))
      qk = s;
    else if (auto mask = dyn_cast<MaskOp>(op))
      c.causal |= static_cast<bool>(mask.getCausalOffsetAttr());
  });
  if (loads.size() < 3 || !qk)
    return mlir::emitError(forall.getLoc())
           << "is not the L1 form of flash-tile "
              "(expected flash.load_tile and flash.qk)";
  auto argType = [&](unsigned i) {
    return cast<RankedTensorType>(func.getArgument(i).getType());
  };
  if (func.getNumArguments() != 3)
    return mlir::emitError(func.getLoc())
           << "not supported yet: a kernel function must take "
              "exactly Q, K and V";
  auto q = argType(0), k = argType(1), v = argType(2);
  AttentionShape shape = getAttentionShape(q, k, v);
  c.elementType = q.getElementType();
  c.batch = shape.batch;
  c.queryHeads = shape.queryHeads;
  c.seqQ = shape.seqQ;
  c.headDim = shape.headDim;
  c.kvHeads = shape.kvHeads;
  c.seqKV = shape.seqKV;
  int64_t valueDim = shape.valueDim;
  c.scale = qk.getScale().convertToFloat();
  // flash-tile always emits the masked K/V loop, so a causal attention
  // always has a flash.mask with a causal offset.

  auto unsupported = [&](const Twine &what) -> FailureOr<KernelConfig> {
    return mlir::emitError(forall.getLoc())
           << "not supported yet: " << what << " on " << target.arch;
  };
  // What every GPU lowering needs: 16-bit operands, D = Dv in {64, 128, 256}
  // (whole 128-byte rows of 64 columns), and a positive scale (the softmax
  // folds it into exp2 after the row max).
  if (!c.elementType.isF16() && !c.elementType.isBF16())
    return unsupported(
        "element type f32 (GPU kernels take f16 or bf16; f32 runs on the CPU)");
  if (valueDim != c.headDim)
    return unsupported("Dv = " + Twine(valueDim) + " != D = " +
                       Twine(c.headDim));
  if (c.headDim != 64 && c.headDim != 128 && c.headDim != 256)
    return unsupported("head dimension " + Twine(c.headDim) +
                       " (supported: 64, 128, 256)");
  if (!(c.scale > 0.0f))
    return unsupported("a negative scale");

  if (target.arch == "sm_90a") {
    // auto: persistent where it measured faster (docs/benchmarks.md).
    c.persistent =
        persistent == "yes" || (persistent == "auto" && c.headDim <= 128);
    FailureOr<KernelConfig> sm90 = analyzeSM90(forall, target, c);
    if (failed(sm90))
      return failure();
    if (pingPong == "yes" && sm90->consumers < 2)
      return mlir::emitError(forall.getLoc())
             << "not supported yet: ping-pong with one consumer warpgroup "
                "(block_q = 64); it needs two or more";
    // auto: on with two or more consumers (measured, docs/benchmarks.md).
    sm90->pingPong =
        pingPong == "yes" || (pingPong == "auto" && sm90->consumers >= 2);
    // auto: the form measured fastest per D (docs/benchmarks.md, fourth
    // session): the lazy rescale saves D/2 multiplies per thread and K/V
    // tile, which pays at D >= 128 and non-causal D = 64; causal D = 64 (the
    // short-sequence rows) measured 3-5% slower with it.
    using R = KernelConfig::Rescale;
    if (rescale == "eager")
      sm90->rescale = R::Eager;
    else if (rescale == "lazy")
      sm90->rescale = R::Lazy;
    else if (rescale == "lazy-late")
      sm90->rescale = R::LazyLate;
    else
      sm90->rescale = sm90->headDim == 128 ? R::LazyLate
                      : sm90->headDim == 64 && sm90->causal ? R::Eager
                                                            : R::Lazy;
    // auto: the branch where it measured faster (docs/benchmarks.md, fifth
    // session): short sequences gain most, where tile 0 is a large share of
    // the tiles; non-causal D >= 128 measured 1-3% slower with it at long
    // sequences, where tile 0 is a small share.
    sm90->branchFirstTileMask =
        firstTileMask == "branch" ||
        (firstTileMask == "auto" && (sm90->causal || sm90->headDim == 64));
    // auto: grouped for causal D = 64 and 256 compiled for 16 or more Q
    // tiles per head, where it measured 2-7% faster on the H200 (D = 64 from
    // N = 4096, eighth session; D = 256, sixth and eighth); at D = 128 it
    // measured -5 to +2%. Kernels compiled for short sequences lost up to 7%
    // to the extra code even where it keeps the order by head (sixth
    // session): flash_mlir.compile gives the grouped form a range of lengths
    // of its own (docs/benchmarks.md).
    bool grouped =
        tileOrder == "grouped" ||
        (tileOrder == "auto" &&
         (sm90->headDim == 256 || sm90->headDim == 64) &&
         sm90->seqQ >= KernelConfig::kMinGroupedQTiles * sm90->blockQ);
    if (sm90->causal && grouped)
      sm90->tileGroupBytes = target.tileGroupBytes;
    // auto: deferred where the tiles are pipelined, except non-causal D = 64,
    // where it measured 2-4% slower from N = 1024 on the H200; elsewhere it
    // measured 0-4% faster, 3% at D = 64 causal N <= 1024 (docs/benchmarks.md,
    // seventh session).
    if (storeWait == "deferred" && !sm90->pipelinesTiles())
      return mlir::emitError(forall.getLoc())
             << "store-wait=deferred needs a persistent grid whose tiles are "
                "pipelined (a block of one tile has no next tile to overlap "
                "the wait with)";
    sm90->deferStoreWait =
        sm90->pipelinesTiles() &&
        (storeWait == "deferred" ||
         (storeWait == "auto" && (sm90->causal || sm90->headDim != 64)));
    // Only causal warpgroups of one block see different K/V tiles. auto:
    // per warpgroup at D = 256 without a persistent grid, where K/V tiles of
    // 64 or 80 columns leave the first warpgroup one tile at the diagonal
    // that it does not see; it measured 2-6% faster there (N = 512-8192;
    // -0.5% at 16384), and 1-5% slower at D = 64 and 128, whose 128-column
    // tiles leave it none (docs/benchmarks.md, eighth session). D = 256's
    // persistent form spills with it (36-120 bytes).
    bool rowsDiffer = sm90->causal && sm90->consumers >= 2;
    if (kvRange == "warpgroup" && !rowsDiffer)
      return mlir::emitError(forall.getLoc())
             << "kv-range=warpgroup needs causal attention and two or more "
                "consumer warpgroups (otherwise every warpgroup's rows see "
                "the block's K/V tiles)";
    sm90->warpgroupRanges =
        kvRange == "warpgroup" ||
        (kvRange == "auto" && rowsDiffer && sm90->headDim == 256 &&
         !sm90->persistent);
    return sm90;
  }
  if (persistent == "yes")
    return mlir::emitError(forall.getLoc())
           << "not supported yet: a persistent grid on " << target.arch;
  if (pingPong == "yes")
    return mlir::emitError(forall.getLoc())
           << "not supported yet: ping-pong on " << target.arch;
  // sm_90a's other forms, each with what the sm_80 kernel does instead.
  struct OnlySM90 {
    StringRef option, form, chosen, instead;
  };
  for (const OnlySM90 &only :
       {OnlySM90{"first-tile-mask", "branch", firstTileMask,
                 "it masks the first K/V tile always"},
        OnlySM90{"tile-order", "grouped", tileOrder,
                 "its blocks take Q tiles head by head"},
        OnlySM90{"store-wait", "deferred", storeWait,
                 "its output leaves by plain stores"},
        OnlySM90{"kv-range", "warpgroup", kvRange,
                 "its warps visit the block's K/V tiles"}})
    if (only.chosen == only.form)
      return mlir::emitError(forall.getLoc())
             << "not supported yet: " << only.option << "=" << only.form
             << " on " << target.arch << " (" << only.instead << ")";
  if (rescale != "auto" && rescale != "eager")
    return mlir::emitError(forall.getLoc())
           << "not supported yet: rescale=" << rescale << " on " << target.arch
           << " (it rescales eagerly)";
  if (c.warps < 1 || c.blockQ % (16 * c.warps) != 0)
    return unsupported("block_q = " + Twine(c.blockQ) +
                       " that is not a multiple of 16 rows per warp (" +
                       Twine(c.warps) + " warps)");
  if (c.blockKV % 16 != 0)
    return unsupported("block_kv = " + Twine(c.blockKV) +
                       " that is not a multiple of 16");
  // Copies move 16-byte chunks in passes of threads/chunksPerRow rows; the
  // swizzle phase of a pass must repeat within 8 rows.
  int64_t chunksPerRow = c.headDim / 8;
  int64_t rowsPerPass = c.threads() / chunksPerRow;
  if (rowsPerPass < 1 || (c.blockQ * chunksPerRow) % c.threads() != 0 ||
      (c.blockKV * chunksPerRow) % c.threads() != 0 ||
      (rowsPerPass % 8 != 0 && 8 % rowsPerPass != 0))
    return unsupported("tiles " + Twine(c.blockQ) + "x" + Twine(c.blockKV) +
                       " that " + Twine(c.threads()) +
                       " threads cannot copy in whole 16-byte passes of 8 rows");
  if (c.stages != 2)
    return unsupported(Twine(c.stages) +
                       " K/V stages (the sm_80 kernel double-buffers)");
  int64_t elementBytes = c.elementType.getIntOrFloatBitWidth() / 8;
  c.sharedBytes = elementBytes * c.headDim * (c.blockQ + 4 * c.blockKV);
  if (c.sharedBytes > target.sharedMemPerBlock)
    return unsupported(Twine(c.sharedBytes) + " bytes of shared memory (" +
                       Twine(target.sharedMemPerBlock) + " per block)");
  return c;
}

DictionaryAttr describeKernel(Builder &b, const KernelConfig &c,
                              ScheduleAttr schedule) {
  std::string elementType;
  llvm::raw_string_ostream os(elementType);
  os << c.elementType;
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("kernel", b.getStringAttr(c.name)),
      b.getNamedAttr("arch", b.getStringAttr(c.arch)),
      b.getNamedAttr("element_type", b.getStringAttr(elementType)),
      b.getNamedAttr("head_dim", i64(c.headDim)),
      b.getNamedAttr("value_dim", i64(c.headDim)),
      b.getNamedAttr("causal", b.getBoolAttr(c.causal)),
      b.getNamedAttr("writes_lse", b.getBoolAttr(c.writesLse)),
      b.getNamedAttr("scale", b.getF32FloatAttr(c.scale)),
      b.getNamedAttr("block_q", i64(c.blockQ)),
      b.getNamedAttr("block_kv", i64(c.blockKV)),
      b.getNamedAttr("stages", i64(c.stages)),
      b.getNamedAttr("warps", i64(c.warps)),
      b.getNamedAttr("threads", i64(c.threads())),
      b.getNamedAttr("dynamic_shared_memory", i64(c.sharedBytes)),
      b.getNamedAttr("persistent", b.getBoolAttr(c.persistent)),
      b.getNamedAttr("blocks_per_sm", i64(c.blocksPerSM)),
      b.getNamedAttr("ping_pong", b.getBoolAttr(c.pingPong)),
      b.getNamedAttr("q_buffers", i64(c.qBuffers)),
      b.getNamedAttr("grid",
                     c.persistent
                         ? b.getStrArrayAttr({"min(blocks_per_sm*SMs, ceildiv(Nq, block_q)*Hq*B)",
                                              "1", "1"})
                         : b.getStrArrayAttr({"ceildiv(Nq, block_q)", "Hq", "B"})),
      b.getNamedAttr("compiled_shape",
                     b.getI64ArrayAttr({c.batch, c.queryHeads, c.kvHeads,
                                        c.seqQ, c.seqKV})),
      b.getNamedAttr("schedule", schedule),
  };
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
    if (c.persistent)
      args.push_back("counter:ptr");
    fields.push_back(b.getNamedAttr("args", b.getStrArrayAttr(args)));
    static constexpr const char *kRescaleNames[] = {"eager", "lazy",
                                                    "lazy-late"};
    fields.push_back(b.getNamedAttr(
        "rescale", b.getStringAttr(kRescaleNames[int(c.rescale)])));
    fields.push_back(b.getNamedAttr(
        "first_tile_mask",
        b.getStringAttr(c.branchFirstTileMask ? "branch" : "always")));
    fields.push_back(b.getNamedAttr(
        "tile_order",
        b.getStringAttr(c.tileGroupBytes > 0 ? "grouped" : "head")));
    if (c.tileGroupBytes > 0)
      fields.push_back(b.getNamedAttr(
          "tile_group_bytes", b.getI64IntegerAttr(c.tileGroupBytes)));
    // When the leader waits for O's TMA store to have read shared memory.
    fields.push_back(b.getNamedAttr(
        "store_wait",
        b.getStringAttr(c.deferStoreWait ? "deferred" : "immediate")));
    // Which K/V tiles each consumer warpgroup visits.
    fields.push_back(b.getNamedAttr(
        "kv_range",
        b.getStringAttr(c.warpgroupRanges ? "warpgroup" : "block")));
    // Where O waits in shared memory for its TMA store.
    fields.push_back(b.getNamedAttr(
        "output_staging",
        b.getStringAttr(c.outputInRing ? "kv_ring" : "q_buffer")));
    auto map = [&](StringRef tensor, int64_t rows) {
      return b.getDictionaryAttr(
          {b.getNamedAttr("tensor", b.getStringAttr(tensor)),
           b.getNamedAttr("dims", b.getStrArrayAttr({"D", "N", "B*H"})),
           b.getNamedAttr("box", b.getI64ArrayAttr({64, rows, 1})),
           b.getNamedAttr("swizzle", b.getStringAttr("128B"))});
    };
    fields.push_back(b.getNamedAttr(
        "tensor_maps",
        b.getArrayAttr({map("q", c.blockQ), map("k", c.blockKV),
                        map("v", c.blockKV), map("o", 64)})));
    fields.push_back(b.getNamedAttr("consumer_warpgroups", i64(c.consumers)));
    fields.push_back(
        b.getNamedAttr("producer_registers", i64(c.producerRegisters)));
    fields.push_back(
        b.getNamedAttr("consumer_registers", i64(c.consumerRegisters)));
  } else {
    fields.push_back(b.getNamedAttr(
        "args", b.getStrArrayAttr({"q:ptr", "k:ptr", "v:ptr", "o:ptr",
                                   "lse:ptr", "B:i32", "Hq:i32", "Hkv:i32",
                                   "Nq:i32", "Nk:i32", "scale:f32"})));
  }
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
    if (isa<scf::ForallOp>(op) && op->hasAttr("flash.schedule")) {
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
    if (isa_and_nonnull<FlashDialect>(op->getDialect()) &&
        !isa<AttentionOp>(op)) {
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
    const TargetModel *target = lookupTargetModel(arch);
    if (!target) {
      mlir::emitError(module.getLoc())
          << "flash-lower-to-nvgpu: unknown arch '" << arch
          << "'; expected one of " << llvm::join(knownArchs(), ", ");
      return signalPassFailure();
    }
    // The string options and the values each takes ("must be a, b or c").
    struct Choice {
      StringRef name, value;
      SmallVector<StringRef> allowed;
    };
    for (const Choice &option :
         {Choice{"persistent", persistent, {"auto", "yes", "no"}},
          Choice{"ping-pong", pingPong, {"auto", "yes", "no"}},
          Choice{"first-tile-mask", firstTileMask, {"auto", "always", "branch"}},
          Choice{"tile-order", tileOrder, {"auto", "head", "grouped"}},
          Choice{"store-wait", storeWait, {"auto", "immediate", "deferred"}},
          Choice{"kv-range", kvRange, {"auto", "block", "warpgroup"}},
          Choice{"rescale", rescale, {"auto", "eager", "lazy", "lazy-late"}}}) {
      if (llvm::is_contained(option.allowed, option.value))
        continue;
      ArrayRef<StringRef> allowed(option.allowed);
      mlir::emitError(module.getLoc())
          << "flash-lower-to-nvgpu: " << option.name << " must be "
          << llvm::join(allowed.drop_back(), ", ") << " or " << allowed.back()
          << ", got '" << option.value << "'";
      return signalPassFailure();
    }
    if (target->arch == "sm_100a") {
      mlir::emitError(module.getLoc())
          << "flash-lower-to-nvgpu: not supported yet: arch " << arch
          << " (GPU lowerings exist for sm_80 and sm_90a)";
      return signalPassFailure();
    }

    if (failed(refuseUnsupportedPlacement(module)))
      return signalPassFailure();

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
    module.walk([&](AttentionOp op) {
      op.emitOpError() << "must be tiled (flash-tile) before "
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
      FailureOr<KernelConfig> config = analyze(
          func, forall, *target,
          {persistent, pingPong, rescale, firstTileMask, tileOrder, storeWait,
           kvRange});
      if (failed(config))
        return signalPassFailure();
      auto schedule = forall->getAttrOfType<ScheduleAttr>("flash.schedule");
      b.setInsertionPointToEnd(module.getBody());
      auto gpuModule =
          gpu::GPUModuleOp::create(b, func.getLoc(), config->name + "_module");
      b.setInsertionPointToStart(gpuModule.getBody());
      LogicalResult built = target->arch == "sm_90a"
                                ? buildSM90Kernel(b, func.getLoc(), *config)
                                : buildSM80Kernel(b, func.getLoc(), *config);
      if (failed(built))
        return signalPassFailure();
      kernels.push_back(describeKernel(b, *config, schedule));
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
