//===- SplitKV.h - how many parts Flash-Decoding cuts a K/V sequence into -===//
//
// Split-KV attention (flash.paged_attention, and flash.attention with few
// query rows) cuts each sequence's keys into parts computed by different
// blocks and merged by their log-sum-exp. How many parts is decided per call
// from the sequence's real length (a run-time value: in a paged cache it is
// seq_lens[b], on the device, changing between CUDA-graph replays), the
// number of blocks one part of every sequence already makes, and the SM
// count. Everything that needs the count computes it with this one formula,
// written once over an arithmetic domain (as VisibleKV.h does for the K/V
// range): the GPU kernels emit it as i32 ops on run-time values (the split
// kernel to find its keys, the merge to know how many partials to read), and
// host code and tests evaluate it on integers. No host ever reads a length.
//
// For a sequence whose rows visit `numTiles` K/V tiles, with `workUnits`
// blocks per part over the whole call (B × Hkv × row tiles) on `numSMs` SMs,
// by a kernel of `blocksPerSM` = splitKVBlocksPerSM(its K/V stages, the
// bytes of a K row):
//   wanted        = floor(blocksPerSM · SMs / workUnits)         parts that fill the GPU
//                                                                in one wave
//   byLength      = max(floor(numTiles / kMinTilesPerSplit), 1)  parts that stay long
//   parts         = clamp(min(wanted, byLength), 1, maxSplits),
//                   or 1 when the work units alone fill nearly every SM:
//                   16 · workUnits >= 15 · SMs                (no merge)
//   tilesPerSplit = max(ceil(numTiles / parts), 1)
//   numSplits     = ceil(numTiles / tilesPerSplit)               no empty part
// Part s (s < numSplits) visits tiles [s·tilesPerSplit, min((s+1)·tilesPerSplit,
// numTiles)). A sequence with no tile (length 0) has 0 parts: its rows are
// O = 0, LSE = −inf. With one part the split kernel writes O (and LSE)
// itself and the merge leaves the rows alone.
//
// Why the floor: the call's blocks are workUnits · parts, and the rule wants
// blocksPerSM · SMs of them at once; with the ceiling (the rule until the
// eleventh session, at two blocks an SM) every workUnits that does not
// divide 2·SMs made a second, nearly empty wave (B = 8, GQA 32/8 on 132 SMs:
// 64 work units, 5 parts, 320 blocks for 264 slots). Measured on the H200
// (docs/benchmarks.md, eleventh session): B=8 L=32k GQA 32/8 +12%
// (contiguous) and +20% (paged),
// GQA 8/1 B=64 L=8k +14% / +19%, B=128 L=2k +8% / +13%.
//
// Why one part when the work units nearly fill the SMs: then `wanted` is
// at most 2 (two blocks an SM over two parts where the kernel aims at two),
// and the second part's gain (a second
// block streaming on each SM) is smaller than what the split costs: the
// partials' writes, the fence and the count, and the merge after the last
// part. Measured on the H200 (docs/benchmarks.md, fifteenth session): GQA
// 8/1 B = 128 L = 2k (128 work units on 132 SMs) 38.0 -> 35.9 us contiguous,
// 39.6 -> 38.3 paged S = 16, with a rule that took one part from 89 work
// units up. The threshold is 15/16 of the SMs, not lower, because one block
// an SM keeps only its own stages in flight: far fewer blocks than SMs
// (89 of 132) would read well below the bandwidth (not measured).
//
// The users, all of this one function:
// - the GPU decode kernel (lib/Conversion/FlashToNVGPU/SM80/DecodeKernel.cpp)
//   on i32 values from seq_lens[b], with workUnits = B·Hkv·(its row tiles);
//   its launch plan sizes the partials' workspaces with splitKVMaxSplits
//   below, the most parts the rule gives a sequence of any length, and the
//   grid's split dimension with splitKVGridParts, no more than a sequence of
//   the cache's capacity has, as formulas of the call's sizes
//   (LowerToNVGPU.cpp); the blocks past a shorter sequence's parts exit;
// - flash-tile's split-KV form (TileSplitKV.cpp) on index values from the
//   same run-time length, with numTiles from visibleKVTiles and workUnits
//   = splitKVWorkUnits(B, Hkv, Q tiles), so that the CPU path cuts sequences
//   exactly as the kernels do (the split stage and the merge each compute it);
// - the split-KV IO model (SplitKVSchedule.cpp) and flash-test-split-kv on
//   integers.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_TARGET_SPLITKV_H
#define FLASH_TARGET_SPLITKV_H

#include "flash/Target/IntegerDomain.h"

#include <cstdint>

namespace mlir {
namespace flash {

/// The split count aims at one block an SM for a kernel of at least
/// kSplitKVStagesPerSM K/V stages whose K rows are at least
/// kSplitKVOneBlockRowBytes bytes (sm_90a's D = 128 plans: 3 stages of
/// 256-byte rows), and at two otherwise (two blocks an SM keep more loads in
/// flight while one of them merges its warps): splitKVBlocksPerSM. Until
/// the forty-fourth session it aimed at two for every kernel. Measured on
/// an H100 (docs/benchmarks.md, forty-fourth session), one block an SM
/// against two, two processes with the slots swapped each:
/// - sm_90a D = 128 (3 stages): GQA 8/1 B = 64 L = 1k 0.91-0.96x the time,
///   GQA 32/8 B = 1 L = 8k 0.92-0.99x, GQA 8/1 B = 8 L = 32k and GQA 32/8
///   B = 1 L = 32k 0.97-1.00x, GQA 8/1 B = 64 L = 8k 0.99-1.00x; paged GQA
///   32/8 B = 8 L = 32k 1.00-1.01x (S = 16) and B = 1 L = 128k up to 1.007x
///   (S = 64) are slower; rows of one work unit or of at least 15/16 of the
///   SMs keep their parts;
/// - sm_80 D = 128 (2 stages, run on the H100): paged GQA 8/1 B = 64
///   L = 8k 1.06x, GQA 32/8 B = 8 L = 32k 1.05-1.09x: one block an SM with
///   two stages keeps too few loads in flight;
/// - D = 64 (128-byte rows; sm_90a 6 stages, sm_80 4): paged GQA 32/8 B = 8
///   L = 32k S = 16 1.10-1.11x on both (a page's rows of one kv-head are 128
///   bytes, 1 KiB apart), sm_80's paged GQA 8/1 B = 1 L = 128k 1.06-1.07x.
///
/// It aims at one block an SM as well where two blocks do not fit one
/// (`twoBlocksFit`, splitKVTwoBlocksFit below: the kernels of 512-byte rows,
/// D = 256 in 16-bit elements, whose 2 stages take 136 KiB): aiming at two
/// there cut a call into twice the parts one wave of its resident blocks
/// runs. Until the fiftieth session it aimed at two for them. Measured on an
/// H100 (docs/benchmarks.md, fiftieth session), sm_90a bf16 D = 256, three
/// processes with each build in the first slot once: GQA 8/1 B = 64 L = 1k
/// 0.809-0.844x the time, GQA 32/8 B = 1 L = 8k 0.905-0.974x, L = 32k
/// 0.955-0.995x, GQA 8/1 B = 8 L = 32k and B = 64 L = 8k 0.966-0.982x,
/// GQA 32/8 B = 1 L = 128k 0.980-0.993x, the other rows 0.987-1.006x
/// (sm_80's, fifty-first session: 0.74-0.97x on six rows, 0.975-1.018x on
/// the others).
constexpr int64_t kSplitKVStagesPerSM = 3;
constexpr int64_t kSplitKVOneBlockRowBytes = 256;

/// Blocks per SM the split count aims at for a kernel of `stages` K/V stages
/// and K rows of `rowBytes` bytes (D · element bytes), two of which fit an SM
/// or not (`twoBlocksFit`, splitKVTwoBlocksFit).
inline int64_t splitKVBlocksPerSM(int64_t stages, int64_t rowBytes,
                                  bool twoBlocksFit) {
  if (!twoBlocksFit)
    return 1;
  return stages >= kSplitKVStagesPerSM && rowBytes >= kSplitKVOneBlockRowBytes
             ? 1
             : 2;
}

/// A part visits at least this many K/V tiles (below that the partials'
/// writes and the merge cost more than the parallelism brings). 2 since the
/// thirty-third session, 4 before: on the H200 the calls it cuts finer
/// (short sequences, few work units) run 0.82-0.91x the time on sm_90a;
/// sm_80's plans are as fast or faster but at GQA 8/1 B = 1 L = 4k, where
/// one block merges 32 parts instead of 16 (1.05-1.07x; docs/benchmarks.md).
constexpr int64_t kSplitKVMinTilesPerSplit = 2;
/// A call of at least kSplitKVWholeNum / kSplitKVWholeDen work units an SM
/// (one block each already nearly fills the GPU) is not cut: one part, no
/// merge.
constexpr int64_t kSplitKVWholeNum = 15;
constexpr int64_t kSplitKVWholeDen = 16;

/// The kernels' merge (SM80/DecodeKernel.cpp): up to kSplitKVMergeDirect
/// parts the block that finishes last merges them all; more are merged in
/// two levels, groups of about kSplitKVMergeGroup consecutive parts first
/// (each by the block that finishes the group), then the groups. The
/// launch plan sizes the counters with it: per work unit
/// 2·⌈parts / kSplitKVMergeGroup⌉ words (one for the groups, one per group).
constexpr int64_t kSplitKVMergeDirect = 32;
constexpr int64_t kSplitKVMergeGroup = 16;

/// The separate merge (sm_90a, docs/benchmarks.md nineteenth and
/// twentieth sessions): a call of at most kSplitKVSeparateMergeMaxWorkUnits
/// work units (B · Hkv · row tiles) on a target with programmatic dependent
/// launch does not merge at the end of the split kernel (one block per row
/// tile merges there) but in a second kernel of a block per (output row,
/// kSplitKVMergeSlice columns), launched behind the split kernel with
/// programmatic dependent launch. Such a call runs the separate merge's own
/// split kernel (`<name>_separate`: no count, no merge; it triggers its
/// dependents with griddepcontrol.launch_dependents after its K/V loop), the
/// merge kernel waits (griddepcontrol.wait) before it reads the partials;
/// a call of more work units runs the split kernel `<name>` with the fused
/// merge alone (the same code as on sm_80). Measured on the H200:
/// - nineteenth session (trigger at the split kernel's start): 1 work unit
///   0.73-0.93× the fused merge's time;
/// - twentieth session (bound 8, trigger after the K/V loop, against main's
///   bound 1): 2 work units 0.75-0.77×, 4 0.87-0.88×, 8 0.91-0.99× (GQA
///   8/1 B = 8 L = 32k 36.80 against 38.41 µs, cuDNN 37.6), 1 work unit
///   0.96-1.00×, every row of more than 8 work units unchanged (the same
///   kernel); the separate merge at 16 work units 1.01-1.02×, 32
///   1.005-1.007×, 64 1.14-1.15× (9 to 15 not measured).
/// The condition depends on the shapes only (never on a length), so the
/// launch plan sizes the three kernels' grids with it (zero blocks for the
/// path a call does not take) and both kernels compute the part count the
/// same way; the merge kernel leaves rows of a sequence of fewer than two
/// parts alone (the split kernel writes them).
constexpr int64_t kSplitKVSeparateMergeMaxWorkUnits = 8;
/// Columns of an output row one merge block takes (4 a thread, float4).
constexpr int64_t kSplitKVMergeSlice = 32;
/// Threads of a merge block: kSplitKVMergeSlice / 4 across the columns
/// times kSplitKVMergeThreads · 4 / kSplitKVMergeSlice groups of parts.
constexpr int64_t kSplitKVMergeThreads = 128;
/// Shared memory of a merge block: (max, sum, 4 O sums) a thread, f32.
constexpr int64_t kSplitKVMergeSharedBytes = kSplitKVMergeThreads * 6 * 4;

/// The bound of the separate merge on a target: 0 (never) without
/// programmatic dependent launch (sm_80), kSplitKVSeparateMergeMaxWorkUnits
/// on sm_90a.
inline int64_t splitKVSeparateMergeBound(bool programmaticDependentLaunch) {
  return programmaticDependentLaunch ? kSplitKVSeparateMergeMaxWorkUnits : 0;
}

/// Whether a call of `workUnits` merges in the separate kernel: workUnits
/// <= bound (the launch plan's le(B*Hkv*row_tiles, bound)).
inline bool splitKVSeparateMerge(int64_t workUnits, int64_t bound) {
  return workUnits <= bound;
}

template <typename V>
struct SplitKVCount {
  V numSplits;     ///< parts the sequence is cut into (0 when it has no tile)
  V tilesPerSplit; ///< K/V tiles of every part but the last
};

/// The split of one sequence. A domain provides Value, constant(int64_t),
/// add, sub, mul, min, max (signed) and floorDiv (of non-negative values).
/// `numTiles` >= 0, `workUnits` >= 1, `numSMs` >= 1, `blocksPerSM` >= 1
/// (splitKVBlocksPerSM of the kernel).
template <typename Domain>
SplitKVCount<typename Domain::Value>
splitKVCount(Domain &d, typename Domain::Value numTiles,
             typename Domain::Value workUnits, typename Domain::Value numSMs,
             int64_t maxSplits, int64_t blocksPerSM) {
  using V = typename Domain::Value;
  auto ceilDiv = [&](V x, V y) {
    return d.floorDiv(d.sub(d.add(x, y), d.constant(1)), y);
  };
  V one = d.constant(1);
  V wanted =
      d.floorDiv(d.mul(d.constant(blocksPerSM), numSMs), workUnits);
  V byLength = d.max(d.floorDiv(numTiles, d.constant(kSplitKVMinTilesPerSplit)),
                     one);
  V parts = d.max(d.min(d.min(wanted, byLength), d.constant(maxSplits)), one);
  // 1 while Den · workUnits < Num · SMs (cut as above), else 0 (one part).
  V cut = d.min(d.max(d.sub(d.mul(d.constant(kSplitKVWholeNum), numSMs),
                            d.mul(d.constant(kSplitKVWholeDen), workUnits)),
                      d.constant(0)),
                one);
  parts = d.max(d.mul(parts, cut), one);
  V tilesPerSplit = d.max(ceilDiv(numTiles, parts), one);
  V numSplits = ceilDiv(numTiles, tilesPerSplit);
  return {numSplits, tilesPerSplit};
}

/// The most parts splitKVCount gives a sequence of any length in a call of
/// `workUnits` work units on `numSMs` SMs: max(min(wanted, maxSplits), 1),
/// or 1 when the work units nearly fill the SMs (numSplits never exceeds
/// it, and a sequence of maxParts · kSplitKVMinTilesPerSplit tiles reaches
/// it). The launch plan sizes the partials' workspaces with it, and the
/// grid's split dimension with splitKVGridParts (no more than this).
///
/// Why not more (until the twenty-sixth session the grid took the ceiling
/// of 2·SMs / workUnits, and more than 1 for a call that is not cut): the
/// blocks past a sequence's parts exit at once, but the block scheduler
/// hands out the grid in order, so those empty blocks, one in every few,
/// leave some SMs with two working blocks and others with none. Measured
/// on the H200 (docs/benchmarks.md, twenty-sixth session, two processes):
/// GQA 8/1 B = 64 L = 1k (5 blocks a work unit for 4 parts) 0.958-0.962×
/// the time contiguous, 0.90-0.91× paged; B = 128 L = 2k (3 for 1)
/// 0.962-0.965× contiguous, 0.95-0.96× paged; every other row of the
/// issue's table within noise.
template <typename Domain>
typename Domain::Value splitKVMaxSplits(Domain &d,
                                        typename Domain::Value workUnits,
                                        typename Domain::Value numSMs,
                                        typename Domain::Value maxSplits,
                                        int64_t blocksPerSM) {
  using V = typename Domain::Value;
  V one = d.constant(1);
  V wanted =
      d.floorDiv(d.mul(d.constant(blocksPerSM), numSMs), workUnits);
  V parts = d.max(d.min(wanted, maxSplits), one);
  V cut = d.min(d.max(d.sub(d.mul(d.constant(kSplitKVWholeNum), numSMs),
                            d.mul(d.constant(kSplitKVWholeDen), workUnits)),
                      d.constant(0)),
                one);
  return d.max(d.mul(parts, cut), one);
}

/// The launch's split dimension (the grid's x) for a call whose sequences
/// are at most `capacityTiles` K/V tiles long (ceil(capacity / block_kv):
/// the contiguous op's Nk, a paged cache's M·S, to which the kernels clamp
/// seq_lens): splitKVMaxSplits, and no more than the parts splitKVCount
/// gives a sequence of that many tiles, max(floor(capacityTiles /
/// kSplitKVMinTilesPerSplit), 1). A sequence's parts never exceed that bound
/// of its own tiles, which grows with the tiles, so no sequence the call can
/// hold has more parts than the grid; the capacity is a shape,
/// so a captured CUDA graph still replays correctly while the lengths
/// change. Until the fifty-seventh session the grid was splitKVMaxSplits
/// alone, and a call of short sequences launched blocks that only exit
/// (GQA 8/1 B = 1 L = 8k: 64 parts of 2 tiles, 128 blocks on sm_90a).
/// Measured on an H100 (docs/benchmarks.md, fifty-seventh session, two
/// processes with the slots swapped and one cold; the kernels unchanged):
/// sm_90a GQA 8/1 B = 1 L = 1k-8k 0.89-0.99x the time warm, 0.94-0.99x
/// cold, B = 4 L = 2k 0.96-0.98x, GQA 32/8 B = 1 L = 1k 0.98-0.99x; sm_80
/// (sm_90 cubins) GQA 8/1 B = 4 L = 2k 0.82-0.85x, GQA 32/8 B = 1 L = 1k
/// and 2k 0.86-0.90x; the calls whose grid it leaves as it was within
/// noise.
template <typename Domain>
typename Domain::Value
splitKVGridParts(Domain &d, typename Domain::Value workUnits,
                 typename Domain::Value numSMs, typename Domain::Value maxSplits,
                 int64_t blocksPerSM, typename Domain::Value capacityTiles) {
  typename Domain::Value byCapacity =
      d.max(d.floorDiv(capacityTiles, d.constant(kSplitKVMinTilesPerSplit)),
            d.constant(1));
  return d.min(splitKVMaxSplits(d, workUnits, numSMs, maxSplits, blocksPerSM),
               byCapacity);
}

/// The blocks one part of every sequence makes over a call: B · Hkv · row
/// tiles (the `workUnits` of splitKVCount), in the order the kernels emit it.
template <typename Domain>
typename Domain::Value splitKVWorkUnits(Domain &d, typename Domain::Value batch,
                                        typename Domain::Value kvHeads,
                                        typename Domain::Value rowTiles) {
  return d.mul(d.mul(batch, kvHeads), rowTiles);
}

/// The tiles of the split-KV kernels (SM80/DecodeKernel.cpp, the same code
/// on sm_80 and sm_90a), which the split-KV schedule records
/// (chooseSplitKVSchedule, SplitKVSchedule.cpp) and the lowering checks, so
/// that flash-tile's CPU form and the kernels cut a sequence into the same
/// K/V tiles, row tiles and parts (the inputs of splitKVCount):
///   blockKV = 64 keys: 4 warps of 16 keys (mma.sync m16n8k16)
///   blockQ  = 16·m rows, m = clamp(ceil(rows / 16), 1, max(256 / D, 1)): the
///             packed rows of a kv-head (G·Nq) up to what the accumulators
///             hold (m·Dv/2 ≤ 128 registers a thread); more rows take
///             several row tiles
///   stages  = the K/V stages that fit in half an SM's shared memory (two
///             resident blocks keep loads in flight while one combines or
///             exits), less 1 KiB, next to the Q tile; 2 to 8 (2 where
///             not even 2 fit that half: then one block is resident, and
///             the split count aims at one, splitKVTwoBlocksFit)
constexpr int64_t kSplitKVWarps = 4;
constexpr int64_t kSplitKVKeysPerWarp = 16;
constexpr int64_t kSplitKVBlockKV = kSplitKVWarps * kSplitKVKeysPerWarp;
constexpr int64_t kSplitKVMinStages = 2;
constexpr int64_t kSplitKVMaxStages = 8;

/// Row tiles of 16 rows the accumulators of a thread hold at head dimension
/// `valueDim` (m·Dv/2 ≤ 128 registers).
inline int64_t splitKVMaxRowTiles(int64_t valueDim) {
  return valueDim >= 256 ? 1 : 256 / valueDim;
}

/// The shared memory the split-KV kernels' tiles take: the Q tile of
/// `blockQ` rows and `stages` K/V stages of kSplitKVBlockKV keys (the
/// paged kernels add their block-table window, SM80/DecodePages.h).
inline int64_t splitKVTileBytes(int64_t blockQ, int64_t headDim,
                                int64_t valueDim, int64_t elementBytes,
                                int64_t stages) {
  return elementBytes * (blockQ * headDim +
                         stages * kSplitKVBlockKV * (headDim + valueDim));
}

/// The shared memory a split-KV kernel may take for two of its blocks to be
/// resident on an SM of `sharedMemPerSM` bytes: half of it, less 1 KiB (a
/// block's reserved shared memory).
inline int64_t splitKVTwoBlockBudget(int64_t sharedMemPerSM) {
  return sharedMemPerSM / 2 - 1024;
}

struct SplitKVTileShape {
  int64_t blockQ, blockKV, warps, stages;
  int64_t sharedBytes; ///< the Q tile and the K/V stages
};

/// The split-KV kernels' tiles for `rows` packed rows of a kv-head (G·Nq),
/// D and Dv, `elementBytes` per element, on an SM of `sharedMemPerSM` bytes.
inline SplitKVTileShape splitKVTileShape(int64_t rows, int64_t headDim,
                                         int64_t valueDim, int64_t elementBytes,
                                         int64_t sharedMemPerSM) {
  SplitKVTileShape t{};
  int64_t rowTiles = (rows + 15) / 16;
  int64_t maxRowTiles = splitKVMaxRowTiles(valueDim);
  rowTiles = rowTiles < 1 ? 1 : rowTiles > maxRowTiles ? maxRowTiles : rowTiles;
  t.blockQ = 16 * rowTiles;
  t.blockKV = kSplitKVBlockKV;
  t.warps = kSplitKVWarps;
  const int64_t queryBytes = splitKVTileBytes(t.blockQ, headDim, valueDim,
                                              elementBytes, /*stages=*/0);
  const int64_t stageBytes = elementBytes * t.blockKV * (headDim + valueDim);
  int64_t stages =
      (splitKVTwoBlockBudget(sharedMemPerSM) - queryBytes) / stageBytes;
  t.stages = stages < kSplitKVMinStages   ? kSplitKVMinStages
             : stages > kSplitKVMaxStages ? kSplitKVMaxStages
                                          : stages;
  t.sharedBytes = splitKVTileBytes(t.blockQ, headDim, valueDim, elementBytes,
                                   t.stages);
  return t;
}

/// Whether two blocks of a split-KV kernel whose Q tile and K/V stages take
/// `tileBytes` (splitKVTileBytes) fit an SM of `sharedMemPerSM` bytes: the
/// half SM splitKVTileShape sizes the stages for. Only the floor of 2 stages
/// exceeds it: 512-byte rows on every target we model (D = 256 in 16-bit
/// elements: 8 KiB of Q and 2 stages of 64 KiB, one block an SM).
inline bool splitKVTwoBlocksFit(int64_t tileBytes, int64_t sharedMemPerSM) {
  return tileBytes <= splitKVTwoBlockBudget(sharedMemPerSM);
}

/// The blocks an SM the split count aims at for a split-KV kernel of
/// `stages` K/V stages under a Q tile of `blockQ` rows (splitKVBlocksPerSM
/// with splitKVTwoBlocksFit of its tiles' bytes on an SM of
/// `sharedMemPerSM`): what the decode kernels, flash-tile's split-KV form,
/// the IO model and flash-kernel-forms all count with.
inline int64_t splitKVKernelBlocksPerSM(int64_t blockQ, int64_t headDim,
                                        int64_t valueDim, int64_t elementBytes,
                                        int64_t stages,
                                        int64_t sharedMemPerSM) {
  return splitKVBlocksPerSM(
      stages, headDim * elementBytes,
      splitKVTwoBlocksFit(splitKVTileBytes(blockQ, headDim, valueDim,
                                           elementBytes, stages),
                          sharedMemPerSM));
}

/// splitKVMaxSplits on integers.
inline int64_t splitKVMaxSplits(int64_t workUnits, int64_t numSMs,
                                int64_t maxSplits, int64_t blocksPerSM) {
  IntegerDomain d;
  return splitKVMaxSplits(d, workUnits, numSMs, maxSplits, blocksPerSM);
}

/// splitKVGridParts on integers.
inline int64_t splitKVGridParts(int64_t workUnits, int64_t numSMs,
                                int64_t maxSplits, int64_t blocksPerSM,
                                int64_t capacityTiles) {
  IntegerDomain d;
  return splitKVGridParts(d, workUnits, numSMs, maxSplits, blocksPerSM,
                          capacityTiles);
}

/// splitKVCount on integers.
inline SplitKVCount<int64_t> splitKVCount(int64_t numTiles, int64_t workUnits,
                                          int64_t numSMs, int64_t maxSplits,
                                          int64_t blocksPerSM) {
  IntegerDomain d;
  return splitKVCount(d, numTiles, workUnits, numSMs, maxSplits, blocksPerSM);
}

} // namespace flash
} // namespace mlir

#endif // FLASH_TARGET_SPLITKV_H
