//===- FormPolicy.cpp - the sm_90a kernel's form and its policy -----------===//
//
// What the sm_90a forward kernel (SM90/ForwardKernel.cpp) supports, the resources a form
// takes (shared memory, blocks per SM, the setmaxnreg split), and the rules
// by which `auto` picks each form. Every rule was measured on the H200; the
// comment over each says where (docs/benchmarks.md). A policy change here
// changes which kernel is built, never how a form is built.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/KernelForm.h"
#include "flash/Conversion/FlashToNVGPU/SM90/BackwardKernel.h"

using namespace mlir;
using namespace mlir::flash;

namespace {
/// setmaxnreg: each block of `c` (c.blocksPerSM per SM) launches with its
/// share of the register file (a multiple of 8 per thread, at most 255); the
/// producer drops to 24 (32 with three consumers) and the consumers split
/// the rest in steps of 8. The forward's and the backward's kernels alike.
void setRegisterSplit(KernelConfig &c, const TargetModel &target) {
  int64_t threads = 128 * (c.sm90.consumers + 1);
  int64_t perThread = std::min<int64_t>(
      target.registersPerSM / (c.blocksPerSM * threads) / 8 * 8, 248);
  c.sm90.producerRegisters = c.sm90.consumers <= 2 ? 24 : 32;
  c.sm90.consumerRegisters = std::min<int64_t>(
      (perThread * threads - 128 * c.sm90.producerRegisters) / (128 * c.sm90.consumers) /
          8 * 8,
      240);
}

/// The resources of an sm_90a kernel with `c.sm90.persistent` set: consumer
/// warpgroups of 64 rows, one producer warpgroup, TMA boxes of 64 columns
/// and at most 256 rows, wgmma N a multiple of 16 up to 256. With `form`,
/// its Q buffers, output staging and blocks per SM are checked; without, they
/// are chosen (two Q buffers and two blocks per SM where they fit).
FailureOr<KernelConfig> sm90Resources(KernelConfig c, const TargetModel &target,
                                      Location loc,
                                      SM90FormAttr form = nullptr) {
  auto unsupported = [&](const Twine &what) -> FailureOr<KernelConfig> {
    return mlir::emitError(loc)
           << "not supported yet: " << what << " on " << target.arch;
  };
  if (c.blockQ % 64 != 0 || c.blockQ < 64 || c.blockQ > 192)
    return unsupported("block_q = " + Twine(c.blockQ) +
                       " (one to three consumer warpgroups of 64 rows)");
  c.sm90.consumers = c.blockQ / 64;
  if (c.warps != 4 * (c.sm90.consumers + 1))
    return unsupported(Twine(c.warps) + " warps for " + Twine(c.sm90.consumers) +
                       " consumer warpgroups (expected " +
                       Twine(4 * (c.sm90.consumers + 1)) + ")");
  if (c.blockKV % 16 != 0 || c.blockKV < 16 || c.blockKV > 256)
    return unsupported("block_kv = " + Twine(c.blockKV) +
                       " (a multiple of 16 up to 256)");
  if (c.stages < 2)
    return unsupported(Twine(c.stages) +
                       " K/V stage (the producer/consumer pipeline needs two)");
  if (form) {
    c.sm90.qBuffers = form.getQBuffers();
    c.sharedBytes = sm90SharedBytes(c);
  } else {
    // A persistent block double-buffers Q where shared memory allows.
    c.sm90.qBuffers = c.sm90.persistent ? 2 : 1;
    c.sharedBytes = sm90SharedBytes(c);
    if (c.sm90.qBuffers == 2 && c.sharedBytes > target.sharedMemPerBlock) {
      c.sm90.qBuffers = 1;
      c.sharedBytes = sm90SharedBytes(c);
    }
  }
  if (c.sharedBytes > target.sharedMemPerBlock)
    return unsupported(Twine(c.sharedBytes) + " bytes of shared memory (" +
                       Twine(target.sharedMemPerBlock) + " per block)");
  // With one Q buffer, a persistent block stages O in one K/V slot (its K
  // and V halves) where O's 64-row boxes fit there.
  bool ringFits = c.sm90.persistent && c.sm90.qBuffers == 1 && sm90OutputFitsInRing(c);
  if (form) {
    c.sm90.outputInRing = form.getOutputStaging() == OutputStaging::KVRing;
    if (c.sm90.outputInRing && !ringFits)
      return unsupported("output_staging = kv_ring where O's boxes do not fit "
                         "a K/V slot");
  } else {
    c.sm90.outputInRing = ringFits;
  }
  // Two blocks per SM where both fit: one consumer warpgroup, twice the
  // shared memory plus the 1 KB the hardware reserves per block, and D ≤ 128:
  // ptxas allocates the whole kernel under the launch cap (128 registers per
  // thread for two blocks of 256 threads), and the m64n256 P·V wgmma of
  // D = 256 alone needs 158 ("Insufficient registers", C7602).
  int64_t fitBlocks = c.sm90.consumers == 1 && c.headDim <= 128 &&
                              2 * (c.sharedBytes + 1024) <= target.sharedMemPerSM
                          ? 2
                          : 1;
  c.blocksPerSM = form ? form.getBlocksPerSm() : fitBlocks;
  if (c.blocksPerSM > fitBlocks)
    return unsupported("blocks_per_sm = " + Twine(c.blocksPerSM) +
                       " (at most " + Twine(fitBlocks) + " fit)");
  setRegisterSplit(c, target);
  return c;
}

/// Checks that the form's choices fit the kernel's resources.
LogicalResult checkChoices(const KernelConfig &c, bool pingPong,
                           bool deferStoreWait, bool warpgroupRanges,
                           Location loc) {
  if (pingPong && c.sm90.consumers < 2)
    return mlir::emitError(loc)
           << "not supported yet: ping-pong with one consumer warpgroup "
              "(block_q = 64); it needs two or more";
  if (deferStoreWait && !c.sm90.pipelinesTiles())
    return mlir::emitError(loc)
           << "store-wait=deferred needs a persistent grid whose tiles are "
              "pipelined (a block of one tile has no next tile to overlap "
              "the wait with)";
  if (warpgroupRanges && !(c.causal && c.sm90.consumers >= 2))
    return mlir::emitError(loc)
           << "kv-range=warpgroup needs causal attention and two or more "
              "consumer warpgroups (otherwise every warpgroup's rows see "
              "the block's K/V tiles)";
  return success();
}
} // namespace

FailureOr<SM90FormAttr>
mlir::flash::selectSM90Form(const KernelConfig &common,
                            const TargetModel &target,
                            const FormChoices &choices, Location loc) {
  KernelConfig c = common;
  // auto: persistent where it measured faster (docs/benchmarks.md).
  c.sm90.persistent = choices.persistent == Toggle::Yes ||
                 (choices.persistent == Toggle::Auto && c.headDim <= 128);
  FailureOr<KernelConfig> sm90 = sm90Resources(c, target, loc);
  if (failed(sm90))
    return failure();
  if (choices.pingPong == Toggle::Yes && sm90->sm90.consumers < 2)
    return mlir::emitError(loc)
           << "not supported yet: ping-pong with one consumer warpgroup "
              "(block_q = 64); it needs two or more";
  // auto: on with two or more consumers (measured, docs/benchmarks.md).
  bool pingPong = choices.pingPong == Toggle::Yes ||
                  (choices.pingPong == Toggle::Auto && sm90->sm90.consumers >= 2);
  // auto: the form measured fastest per D (docs/benchmarks.md, fourth
  // session): the lazy rescale saves D/2 multiplies per thread and K/V
  // tile, which pays at D >= 128 and non-causal D = 64; causal D = 64 (the
  // short-sequence rows) measured 3-5% slower with it.
  Rescale rescale = choices.rescale;
  if (rescale == Rescale::Auto)
    rescale = sm90->headDim == 128                   ? Rescale::LazyLate
              : sm90->headDim == 64 && sm90->causal ? Rescale::Eager
                                                     : Rescale::Lazy;
  // auto: the branch where it measured faster (docs/benchmarks.md, fifth
  // session): short sequences gain most, where tile 0 is a large share of
  // the tiles; non-causal D >= 128 measured 1-3% slower with it at long
  // sequences, where tile 0 is a small share.
  FirstTileMask firstTileMask = choices.firstTileMask;
  if (firstTileMask == FirstTileMask::Auto)
    firstTileMask = sm90->causal || sm90->headDim == 64
                        ? FirstTileMask::Branch
                        : FirstTileMask::Always;
  // auto: grouped for causal D = 64 and 256 compiled for 16 or more Q
  // tiles per head, where it measured 2-7% faster on the H200 (D = 64 from
  // N = 4096, eighth session; D = 256, sixth and eighth); at D = 128 it
  // measured -5 to +2%. Kernels compiled for short sequences lost up to 7%
  // to the extra code even where it keeps the order by head (sixth
  // session): flash_mlir.compile gives the grouped form a range of lengths
  // of its own (docs/benchmarks.md). Non-causal tiles are all alike and keep
  // the order by head.
  bool grouped =
      choices.tileOrder == TileOrder::Grouped ||
      (choices.tileOrder == TileOrder::Auto &&
       (sm90->headDim == 256 || sm90->headDim == 64) &&
       sm90->seqQ >= SM90Config::kMinGroupedQTiles * sm90->blockQ);
  int64_t tileGroupBytes =
      sm90->causal && grouped ? target.tileGroupBytes : 0;
  TileOrder tileOrder = tileGroupBytes > 0 ? TileOrder::Grouped
                                           : TileOrder::Head;
  // auto: deferred where the tiles are pipelined, except non-causal D = 64,
  // where it measured 2-4% slower from N = 1024 on the H200; elsewhere it
  // measured 0-4% faster, 3% at D = 64 causal N <= 1024 (docs/benchmarks.md,
  // seventh session).
  if (choices.storeWait == StoreWait::Deferred && !sm90->sm90.pipelinesTiles())
    return mlir::emitError(loc)
           << "store-wait=deferred needs a persistent grid whose tiles are "
              "pipelined (a block of one tile has no next tile to overlap "
              "the wait with)";
  bool deferStoreWait =
      sm90->sm90.pipelinesTiles() &&
      (choices.storeWait == StoreWait::Deferred ||
       (choices.storeWait == StoreWait::Auto &&
        (sm90->causal || sm90->headDim != 64)));
  // Only causal warpgroups of one block see different K/V tiles. auto:
  // per warpgroup at D = 256 without a persistent grid, where K/V tiles of
  // 64 or 80 columns leave the first warpgroup one tile at the diagonal
  // that it does not see; it measured 2-6% faster there (N = 512-8192;
  // -0.5% at 16384), and 1-5% slower at D = 64 and 128, whose 128-column
  // tiles leave it none (docs/benchmarks.md, eighth session). D = 256's
  // persistent form spills with it (36-120 bytes).
  bool rowsDiffer = sm90->causal && sm90->sm90.consumers >= 2;
  if (choices.kvRange == KVRangeMode::Warpgroup && !rowsDiffer)
    return mlir::emitError(loc)
           << "kv-range=warpgroup needs causal attention and two or more "
              "consumer warpgroups (otherwise every warpgroup's rows see "
              "the block's K/V tiles)";
  bool warpgroupRanges =
      choices.kvRange == KVRangeMode::Warpgroup ||
      (choices.kvRange == KVRangeMode::Auto && rowsDiffer &&
       sm90->headDim == 256 && !sm90->sm90.persistent);
  return SM90FormAttr::get(
      loc.getContext(), sm90->sm90.persistent, sm90->sm90.qBuffers,
      sm90->sm90.outputInRing ? OutputStaging::KVRing : OutputStaging::QBuffer,
      sm90->blocksPerSM, pingPong, rescale, firstTileMask, tileOrder,
      tileGroupBytes,
      deferStoreWait ? StoreWait::Deferred : StoreWait::Immediate,
      warpgroupRanges ? KVRangeMode::Warpgroup : KVRangeMode::Block);
}

FailureOr<KernelConfig>
mlir::flash::sm90ConfigFromForm(KernelConfig c, SM90FormAttr form,
                                const TargetModel &target, Location loc) {
  c.sm90.persistent = form.getPersistent();
  FailureOr<KernelConfig> sm90 = sm90Resources(c, target, loc, form);
  if (failed(sm90))
    return failure();
  sm90->sm90.pingPong = form.getPingPong();
  using R = KernelConfig::Rescale;
  switch (form.getRescale()) {
  case Rescale::Lazy:
    sm90->rescale = R::Lazy;
    break;
  case Rescale::LazyLate:
    sm90->rescale = R::LazyLate;
    break;
  default:
    sm90->rescale = R::Eager;
    break;
  }
  sm90->sm90.branchFirstTileMask =
      form.getFirstTileMask() == FirstTileMask::Branch;
  // The grouped order only changes causal kernels.
  sm90->sm90.tileGroupBytes = sm90->causal ? form.getTileGroupBytes() : 0;
  sm90->sm90.deferStoreWait = form.getStoreWait() == StoreWait::Deferred;
  sm90->sm90.warpgroupRanges = form.getKvRange() == KVRangeMode::Warpgroup;
  if (failed(checkChoices(*sm90, sm90->sm90.pingPong, sm90->sm90.deferStoreWait,
                          sm90->sm90.warpgroupRanges, loc)))
    return failure();
  return sm90;
}

FailureOr<KernelConfig>
mlir::flash::sm90BackwardConfig(KernelConfig c, const TargetModel &target,
                                Location loc) {
  auto unsupported = [&](const Twine &what) -> FailureOr<KernelConfig> {
    return mlir::emitError(loc)
           << "not supported yet: " << what << " on " << target.arch;
  };
  if (c.writesLse)
    return unsupported("a backward kernel that writes LSE");
  // The kernels that were built and checked on the H200 (docs/gpu.md): at
  // D = 64 and 128, two consumer warpgroups of 64 K/V rows (block_kv = 128),
  // each keeping dK and dV of its rows in registers (D/2 + D/2 f32 per
  // thread), dQ's columns split between them; at D = 256, where that would
  // take 256 registers per thread, two consumer warpgroups sharing the 64
  // rows of block_kv = 64 and splitting the columns of dK, dV and dQ (128
  // each: 64 + 64 f32 per thread; SM90/BackwardKernel.cpp, splitsColumns).
  // At D = 64 also block_q = 128, dQ split by rows (64 per warpgroup): 0
  // spills except the deterministic causal plan (4), which the target model
  // therefore does not give it; at D = 128 that split would need 288
  // registers per thread. Neither one consumer nor three were measured.
  // At D = 256 also block_kv = 128: a cluster of two such blocks of 64 K/V
  // rows that add their dQ through distributed shared memory before the
  // reductions (half the f32 bytes reduced into L2 per FLOP); the
  // deterministic plan orders the reductions by K/V tile and keeps one
  // block per tile.
  if (c.headDim == 256 && c.blockKV == 128 && c.deterministic)
    return unsupported("the deterministic backward with block_kv = 128 at "
                       "D=256 (a cluster of two blocks; the deterministic "
                       "plan takes 64)");
  if (c.headDim == 256 && c.blockKV == 128) {
    c.blockKV = 64;
    c.sm90.clusterBlocks = 2;
  }
  if (c.headDim == 256 && c.blockKV != 64)
    return unsupported("backward block_kv = " + Twine(c.blockKV) +
                       " at D=256 (two consumer warpgroups sharing 64 K/V "
                       "rows, 128 columns of dK and dV each: 64, or a "
                       "cluster of two such blocks: 128)");
  if (c.headDim != 256 && c.blockKV != 128)
    return unsupported("backward block_kv = " + Twine(c.blockKV) +
                       " (two consumer warpgroups of 64 K/V rows: 128)");
  c.sm90.consumers = 2;
  if (c.warps != 4 * (c.sm90.consumers + 1))
    return unsupported("a backward kernel of " + Twine(c.warps) + " warps for " +
                       Twine(c.sm90.consumers) +
                       " consumer warpgroups (expected " +
                       Twine(4 * (c.sm90.consumers + 1)) + ")");
  // Q tiles of 64 rows (dQ's columns split between the consumers), or of
  // 128 at D = 64 (dQ split by rows, 64 per consumer: Sᵀ and dPᵀ of 64 × 128
  // beside dK and dV of 64 × 64 fit the registers there, not at D = 128).
  if (c.blockQ != 64 && !(c.blockQ == 128 && c.headDim == 64))
    return unsupported("backward block_q = " + Twine(c.blockQ) +
                       " (Q tiles of 64 rows, or 128 at D=64)");
  if (c.stages < 2)
    return unsupported(Twine(c.stages) + " backward stage (the Q/dO ring "
                                         "needs two)");
  c.sharedBytes = sm90::backwardSharedBytes(c);
  if (c.sharedBytes > target.sharedMemPerBlock)
    return unsupported(Twine(c.sharedBytes) +
                       " bytes of shared memory in the backward (" +
                       Twine(target.sharedMemPerBlock) + " per block)");
  c.blocksPerSM = 1;
  setRegisterSplit(c, target);
  return c;
}
