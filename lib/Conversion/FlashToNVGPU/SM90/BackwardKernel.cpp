//===- BackwardKernel.cpp - the sm_90a backward attention kernel ----------===//
//
// The main kernel of FlashAttention's backward pass on sm_90a (FA3-style),
// composed of the Hopper building blocks of this folder (SharedArena,
// Barriers, TMA, WGMMA, Warpgroups, Epilogue) and the backward math of
// KernelBuilder.cpp (P recomputed from the forward's LSE, dS, the mask of
// the transposed scores), which the sm_80 backward shares:
// - one block per K/V tile of Bc = 64·C rows of one (batch, kv-head):
//   warpgroup 0 produces, warpgroups 1..C consume, each owning 64 K/V rows;
//   K_j and V_j stay in shared memory for the whole block;
// - the producer's first thread streams, for each q-head of the kv-head's
//   group and each Q tile i that sees K/V tile j (VisibleKV.h's
//   visibleQTiles), Q_i and dO_i (TMA tiles) and the Br rows of the shift
//   LSE·log2(e) and of Δ (bulk copies) into a ring of `stages` slots, one
//   full mbarrier per slot for all four; consumers release a slot on its
//   empty mbarrier;
// - per (head, Q tile), each consumer warpgroup w computes on its 64 rows
//     Sᵀ  = K_w·Q_iᵀ              wgmma SS, both K-major
//     dPᵀ = V_w·dO_iᵀ             wgmma SS, both K-major
//     Pᵀ  = exp2(Sᵀ·c − shift)    c = scale·log2(e), shift per column; masked
//                                 where a key is past Nk or (causal) above
//                                 the diagonal of the query
//     dV += Pᵀ·dO_i               wgmma RS (Pᵀ from registers, dO MN-major)
//     dSᵀ = Pᵀ∘(dPᵀ − Δ)
//     dK += dSᵀ·Q_i               wgmma RS (Q MN-major)
//   and writes dSᵀ to shared memory (two buffers); one step later, once
//   every other consumer has arrived on its named barrier for that step,
//     dQ_i = dS·K_j               wgmma SS, dS and K both MN-major
//   (split between the warpgroups by columns of D when Br = 64, or by rows
//   of Q when Br = 64·C), staged in shared memory as the Br × D f32 tile
//   (whole rows of the accumulator, 16-byte chunks xor-swizzled by row:
//   no bank conflicts; at D = 128 16-byte stores of paired columns,
//   pairedDQ), once the previous tile has been read;
// - the dQ writer, one thread of the producer warpgroup, adds each staged
//   tile to the f32 dQ accumulator with one bulk reduction
//   (cp.reduce.async.bulk .add.f32 of its rows before Nq, contiguous there
//   as in shared memory) and frees the tile once the reduction has read it
//   (dQ full / dQ empty mbarriers), so that the consumers never wait for a
//   reduction; the convert kernel undoes the chunk swizzle;
// - at the end dV and dK·scale leave as 16-bit tiles through the TMA-store
//   epilogue, staged over the V and K rows they belong to.
// D = 256 (the consumers share the K/V rows and split D's columns:
// splitsColumns): no staged tile and no writer; each consumer warp stages
// its dQ in 16 × 32 f32 slices that its lane 0 adds with one 2 KB bulk
// reduction each, into an accumulator laid out in such slices (blockedDQ).
// In one block (splitsRoles) the two consumers split the step by roles,
// consumer 0 Sᵀ, Pᵀ and dV over all of D, consumer 1 dPᵀ, dSᵀ and dK (Pᵀ
// handed over in shared memory through mbarriers), instead of both computing
// Sᵀ and dPᵀ (buildRoleConsumer).
// The cluster's dQ (D = 256, clusterBlocks = 2): two blocks of neighbouring
// K/V tiles in a cluster add their dQ of the Q tiles both visit through
// distributed shared memory, each reducing half of the slices (exchangeDQ;
// correct, and slower than the one-block form on the H200: docs/gpu.md).
// Deterministic: every block visits its Q tiles from the last, and the
// writer adds Q tile i's dQ only after the K/V tiles before its own, which
// have counted theirs on the tile's semaphore (buildDQWriter).
// Non-causal atomic at D = 128: every block visits its Q tiles from tile
// j mod numTiles on, wrapping around (heads of at most
// kBackwardRotateMaxQTiles tiles; rotatesQTiles), so that the blocks of a
// head running together reduce into different dQ tiles.
// Padding rows of a Q tile past Nq are zero-filled by the TMA unit and have
// shift = +inf and Δ = 0 (the preprocess pads them), so they contribute
// nothing; their dQ rows are not reduced. Keys past Nk are masked, and their
// dK, dV rows are clipped by the store.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/SM90/BackwardKernel.h"
#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"
#include "flash/Conversion/FlashToNVGPU/SM90/Barriers.h"
#include "flash/Conversion/FlashToNVGPU/SM90/Epilogue.h"
#include "flash/Conversion/FlashToNVGPU/SM90/SharedLayout.h"
#include "flash/Conversion/FlashToNVGPU/SM90/TMA.h"
#include "flash/Conversion/FlashToNVGPU/SM90/WGMMA.h"
#include "flash/Conversion/FlashToNVGPU/SM90/Warpgroups.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cmath>
#include <string>

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::sm90;

namespace {

/// How the consumer warpgroups share the dQ tile (Br × D): by 64-row slices
/// of Q when Br = 64·C, else (Br = 64) by D/C columns, a whole number of
/// 64-column blocks.
struct DQSplit {
  bool byRows = false;
  int64_t columns = 0; ///< columns of dQ per warpgroup
};

DQSplit dqSplit(const KernelConfig &c) {
  int64_t consumers = c.sm90.consumers;
  if (c.blockQ == 64 * consumers)
    return {true, c.headDim};
  return {false, c.headDim / consumers};
}

/// Whether the consumer warpgroups share the K/V tile's rows (Bc = 64, two
/// or more consumers) and split the columns of dK and dV (D/C each) instead
/// of owning 64 rows each: D = 256, whose dK and dV of 64 rows over all of
/// D take 256 f32 registers per thread. Each consumer then computes Sᵀ and
/// dPᵀ of all 64 rows (the same values in every consumer: seven GEMMs'
/// work per step instead of five, but no exchange of P or dS between the
/// warpgroups), and adds its dQ columns itself, each warp through a 16 ×
/// 32 f32 slice in shared memory that one lane adds with a bulk reduction
/// (blockedDQ): the f32 dQ tile of the staged form (Br × 256 × 4 bytes)
/// does not fit shared memory beside two stages of Q and dO.
bool splitsColumns(const KernelConfig &c) {
  return c.blockKV < 64 * c.sm90.consumers;
}

/// dQ staged with 16-byte stores (D = 128; D = 64 keeps its 8-byte ones,
/// not measured): a thread's column pairs of column tiles 2k and 2k + 1
/// (columns 2t, 2t + 1, 8 + 2t, 9 + 2t of 16-column group G) form chunk
/// 4G + t of the row, placed at chunk (4G + t) ^ f, f = (r & 1)·4 + (r mod
/// 8) / 2 for row r; the accumulator's layout too
/// (BackwardLaunch::pairedAccumulator).
bool pairedDQ(const KernelConfig &c) {
  return !splitsColumns(c) && c.headDim == 128;
}

/// The convert overlaps the main kernel's last wave (atomic plans whose dQ
/// writer adds every tile: D = 64 and 128): the main kernel's blocks count
/// each q-head's dQ as complete on an i32 per (batch, q-head) (`dq_done`,
/// zeroed by the preprocess) once their last reduction has completed, and
/// trigger the convert (griddepcontrol.launch_dependents, once the
/// preprocess is complete); the convert, launched behind the main kernel
/// with programmatic dependent launch, waits per block for its head's
/// count instead of the whole grid (sm80::BackwardLaunch::
/// waitsForHeadsOfKVRows; kBackwardConvertOverlapsMain).
static bool convertOverlapsMain(const KernelConfig &c) {
  return kBackwardConvertOverlapsMain && !c.deterministic &&
         c.sm90.clusterBlocks == 1 &&
         !(c.blockKV < 64 * c.sm90.consumers);
}

/// The first step's dQ GEMM (of a previous step it does not have) is not
/// issued: the step's tail (its dQ GEMM, the waits, the staging) sits in a
/// branch on the step having a previous one, the first step's copy without
/// them (D = 128; the two copies share the stores of dSᵀ, no value leaves
/// the branch, only dK's wgmma is in flight across it). It saves one of a
/// K/V tile's 5·steps GEMMs: 2.5% of the tensor work of a block of 8 steps
/// (N = 512), 0.6% at 32; on the H200 0.979-0.992 of main's time at
/// N ≤ 1k (docs/benchmarks.md, twenty-second session). Elsewhere the GEMM
/// is issued at the first step too, on whatever the dSᵀ buffer holds, and
/// its result dropped: at D = 64 (128×128, consumers near their 240
/// registers) the branch spills 4-8 bytes; a predicated wgmma (`@p`) or a
/// branch around the GEMM alone, whose results leave it, spill 184-1,088
/// bytes at D = 128 (ptxas keeps the accumulators of a wgmma that may not
/// run).
bool skipsFirstDQ(const KernelConfig &c) {
  return !splitsColumns(c) && c.headDim == 128;
}

/// Split columns: a warpgroup's dQ columns are computed and added in parts
/// of this many columns (BackwardKernel::issueDQ), each staged by its warps
/// in slices of 16 rows × kDQSliceColumns f32 (BackwardKernel::addDQ).
constexpr int64_t kDQPartColumns = 64;
constexpr int64_t kDQSliceColumns = 32;
constexpr int64_t kDQSliceBytes = 16 * kDQSliceColumns * 4;

/// Split columns: the accumulator's layout in which a warp's staged slice
/// is contiguous, so that one lane adds it with one bulk reduction of
/// kDQSliceBytes (16 rows of 128 bytes) instead of 16 lanes one row each:
/// blocks of 16 rows over the padded rows (B×Hq×paddedQ), each block a run
/// of D / kDQSliceColumns slices, each slice its 16 rows of 32 columns with
/// chunk c of row r at c ^ (r mod 8), as the slice is staged
/// (BackwardLaunch::blockedAccumulator). Where each of 16 lanes issued a
/// 128-byte reduction, the step's time grew by about 0.47 µs per 16 KB of
/// dQ (docs/benchmarks.md, thirteenth session): 512 bulk operations per
/// block and step, 32 of them this way.
bool blockedDQ(const KernelConfig &c) { return splitsColumns(c); }

/// Split columns in one block (D = 256): the consumers split the step's
/// work by roles instead of duplicating Sᵀ and dPᵀ. Consumer 0 computes Sᵀ
/// and Pᵀ and owns dV (64 rows × D), consumer 1 computes dPᵀ and dSᵀ (Pᵀ
/// handed over through shared memory in f32, pFull / pEmpty) and owns dK;
/// each adds its D/C columns of dQ as before. Five GEMMs' work per step
/// instead of seven (docs/benchmarks.md, nineteenth session). The cluster's
/// exchange (not in the model) keeps the duplicated form.
/// Checked on the H200 (nineteenth session, docs/benchmarks.md: racecheck
/// clean with the mbarrier hand-over) and 1.07-1.16× cuDNN, 1.10-1.26× the
/// duplicated form's speed there.
bool splitsRoles(const KernelConfig &c) {
  return splitsColumns(c) && c.sm90.clusterBlocks != 2;
}

/// Split columns: each warp's slices go through a ring of this many
/// buffers (one block, by roles: 2, a step's 4 slices then use each twice),
/// so that a warp writes a slice while the reduction of the one before it
/// may still read its own (cp.async.bulk.wait_group.read n − 1); the
/// cluster's form keeps one buffer per warp (exchangeDQ writes the
/// partner's).
int64_t dqSliceBuffers(const KernelConfig &c) {
  return splitsRoles(c) ? 2 : 1;
}

/// dO's ring slots: one where the dQ slices have a ring (its second slot's
/// 32 KB hold the rings), released by the consumers once their dV GEMMs of
/// the step have read it; else `stages`, with Q.
int64_t doSlots(const KernelConfig &c) {
  return dqSliceBuffers(c) > 1 ? 1 : c.stages;
}

/// The main kernel's shared memory (byte offsets from the aligned base):
///   K[Bc][D] | V[Bc][D] | Q[stages][Br][D] | dO[stages][Br][D] |
///   dSᵀ[2][Bc][Br] | dQ tile [Br][D] f32 |
///   shift[stages][Br] f32 | Δ[stages][Br] f32 |
///   mbarriers: K/V full, full[stages], empty[stages], dQ full, dQ empty
/// The 16-bit tiles are 64-column blocks of 128B-swizzled rows (TMA.h),
/// 1024-byte aligned. The dQ tile's rows are whole rows of the accumulator
/// (D f32 each, 16-byte chunk c of row r at chunk c ^ (r mod 8), or at
/// D = 128 pairedDQ's chunks; the accumulator's own layout: dqChunk), so
/// that one bulk reduction adds the tile. Split columns (D = 256): no tile
/// but the consumer warps' dQ slices (dqSliceBuffers each), and in one
/// block dO[1] (doSlots) with two more mbarriers, dO full and dO empty.
struct BackwardLayout {
  int64_t kvBytes, qBytes, dsBytes, dqBytes, rowBytes;
  int64_t offK, offV, offQ, offDO, offDS, offDQ, offShift, offDelta, total;
  /// Roles (splitsRoles): Pᵀ of a step, f32, in fragment order (thread t of
  /// the warpgroup: its values 4q..4q+3 at (q·128 + t)·16).
  int64_t offP = 0;
  MBarrierRing kvFull, full, empty, dqFull, dqEmpty;
  /// dO in one slot (doSlots = 1): the producer's expect_tx, and every
  /// consumer thread once its dV GEMM has read the slot.
  MBarrierRing doFull, doEmpty;
  /// A cluster of two blocks (clusterBlocks = 2): per consumer warp, its
  /// slice buffer holds the partner's part of a slice (dqArrived, 32
  /// arrivals of the partner warp's lanes), and the partner's buffer may
  /// take this warp's next part (dqTaken, 32 arrivals of the partner's
  /// lanes once its reductions have read it).
  MBarrierRing dqArrived, dqTaken;
  /// Roles: Pᵀ written (consumer 0's 128 threads arrive), read (consumer
  /// 1's 128 threads arrive).
  MBarrierRing pFull, pEmpty;

  explicit BackwardLayout(const KernelConfig &c) {
    kvBytes = c.blockKV * c.headDim * 2;
    qBytes = c.blockQ * c.headDim * 2;
    dsBytes = c.blockKV * c.blockQ * 2;
    // Split columns: no tile; per consumer warp dqSliceBuffers 16-row ×
    // 32-column f32 slices, each added whole (BackwardKernel::addDQ).
    dqBytes = splitsColumns(c)
                  ? c.sm90.consumers * 4 * dqSliceBuffers(c) * kDQSliceBytes
                  : c.blockQ * c.headDim * 4;
    rowBytes = c.blockQ * 4;
    SharedArena arena;
    offK = arena.carve(kvBytes);
    offV = arena.carve(kvBytes);
    offQ = arena.carve(c.stages * qBytes);
    offDO = arena.carve(doSlots(c) * qBytes);
    offDS = arena.carve(2 * dsBytes);
    offDQ = arena.carve(dqBytes);
    if (splitsRoles(c))
      offP = arena.carve(c.blockKV * c.blockQ * 4);
    offShift = arena.carve(c.stages * rowBytes);
    offDelta = arena.carve(c.stages * rowBytes);
    kvFull = arena.carveRing(1);
    full = arena.carveRing(c.stages);
    empty = arena.carveRing(c.stages);
    dqFull = arena.carveRing(1);
    dqEmpty = arena.carveRing(1);
    if (doSlots(c) == 1) {
      doFull = arena.carveRing(1);
      doEmpty = arena.carveRing(1);
    }
    if (splitsRoles(c)) {
      pFull = arena.carveRing(1);
      pEmpty = arena.carveRing(1);
    }
    if (c.sm90.clusterBlocks == 2) {
      dqArrived = arena.carveRing(c.sm90.consumers * 4);
      dqTaken = arena.carveRing(c.sm90.consumers * 4);
    }
    total = arena.used + 1024; // + slack to align the base
  }
};

class BackwardKernel {
public:
  BackwardKernel(OpBuilder &b, Location loc, const KernelConfig &config)
      : b(b), loc(loc), km{b, loc}, config(config), layout(config),
        et(config.elementType), D(config.headDim), Br(config.blockQ),
        Bc(config.blockKV), S(config.stages), C(config.sm90.consumers),
        split(dqSplit(config)), columnSplit(splitsColumns(config)),
        ownColumns(columnSplit ? D / C : D),
        clusterDQ(config.sm90.clusterBlocks == 2),
        pairedStage(pairedDQ(config)), roles(splitsRoles(config)) {}

  void build(LLVM::LLVMFuncOp func);

  /// The launch's sm80::BackwardLaunch::programmaticDependentLaunch: the
  /// kernel may start while the preprocess runs (waitForPreprocess).
  bool waitsForPreprocess = false;
  /// convertOverlapsMain: the dq_done argument after dq_accum; the writer
  /// triggers the convert and counts each q-head's dQ once complete.
  bool countsHeadsDone = false;

private:
  /// griddepcontrol.wait when the kernel is launched behind the preprocess
  /// with programmatic dependent launch: once it returns, the preprocess's
  /// grid has completed and its writes (Δ, the shift, the zeroed dQ
  /// accumulator and semaphores) are visible to this thread. Executed by
  /// every thread that touches them, before it does: the producer's first
  /// thread after its K_j, V_j loads, the dQ writer, the consumers.
  void waitForPreprocess() {
    if (waitsForPreprocess)
      NVVM::GriddepcontrolOp::create(b, loc, NVVM::GridDepActionKind::wait);
  }
  void buildProducer();
  /// The dQ writer (one thread of the producer warpgroup): per step, once
  /// the consumers have staged its dQ tile, one bulk reduction of the tile
  /// into the accumulator; the tile is free again once the reduction has
  /// read it. Deterministic: the reduction waits until the K/V tiles before
  /// this one in the Q tile's order have added theirs, and counts its own
  /// once complete.
  void buildDQWriter();
  void buildConsumer();
  /// The state a consumer carries from step to step: dK and dV.
  struct StepState {
    Fragment dK, dV;
  };
  /// One (head, Q tile) step of a consumer warpgroup at ring position
  /// `ring`: Sᵀ, dPᵀ, dV, dK of this step and dQ of the previous one
  /// (whose dSᵀ every consumer has written by then), staged for the dQ
  /// writer, and this step's dSᵀ to shared memory.
  void consumerStep(Value ring, Value qStart, bool masked, StepState &state);
  /// dQ = dS·K_j of the step at ring position `ring` (uncommitted), once
  /// every other consumer has written its rows of that step's dSᵀ.
  /// With `valid` (i1), the wait for the others is skipped where it is
  /// false (the GEMM is issued anyway, on whatever the buffer holds, and its
  /// result dropped: cheaper than a branch whose results keep registers).
  /// With `part` ≥ 0 (split columns), only that 64-column part of this
  /// warpgroup's dQ columns, one part at a time (dQ of 64 × 128 would
  /// spill beside dK and dV); the wait is part 0's.
  Fragment issueDQ(Value ring, Value valid = Value(), int64_t part = -1);
  /// Named barriers: consumer w's rows of dSᵀ of a step of parity p are
  /// written (w arrives, the others sync: 128·C threads), ids 1 + 2w + p
  /// (two per consumer, so that a consumer one step ahead cannot complete
  /// the barrier the others have yet to wait on); then the per-warpgroup
  /// barriers of the TMA-store epilogue; then one for all consumers.
  Value dsBarrier(Value consumerIndex, Value ring) {
    return km.add(km.mul(consumerIndex, km.i32(2)), km.andi(ring, km.i32(1)));
  }
  int64_t storeBarrierId() const { return 1 + 2 * C; }
  int64_t consumersBarrierId() const { return 1 + 3 * C; }
  /// Byte offset of the dSᵀ buffer of the step at ring position `ring`.
  Value dsBufferOf(Value ring) {
    return km.add(km.i32(layout.offDS),
                  km.mul(km.andi(ring, km.i32(1)), km.i32(layout.dsBytes)));
  }
  /// The stage's Br values of a per-row workspace (at `base`) for the
  /// columns of this thread's Sᵀ fragment: column c holds query
  /// (c / 2)·8 + 2·t + c % 2 of the tile.
  SmallVector<Value> columnValues(int64_t base, Value stage);
  /// Packed 16-bit pairs of a 64-row fragment as the 32-bit words of a
  /// wgmma A operand (k-slice kk: column tiles 2kk and 2kk + 1).
  SmallVector<Value> operandWords(const Fragment &values);
  /// The (row, column tile, word) of each packed pair of a 64-row fragment
  /// of this warpgroup's rows (rows counted from the K/V tile's first).
  SmallVector<OutputWord> fragmentWords(const Fragment &values,
                                        Value multiplier);
  /// The dQ tile of step `step` (its ring position) out of registers into
  /// the shared dQ tile, once the writer has read the previous one; then
  /// this thread's arrival for the writer.
  void stageDQ(const Fragment &dq, Value step);
  /// The epilogue: dV and dK·scale through shared memory and TMA stores.
  void storeGradients(const Fragment &dK, const Fragment &dV);
  /// Its stores where each warpgroup owns 64 rows of the tile.
  void storeOwnRows(const Fragment &dK, const Fragment &dV);
  /// The dQ of the last step (at ring position `last`), after the loops.
  void drainDQ(Value last);
  /// A consumer's walk over the group's q-heads and, per head, its Q tiles
  /// (masked tiles first: they are the ones on the diagonal; deterministic:
  /// by steps k, tile tileAt(k), the unmasked tiles first), carrying `inits`
  /// through `step(ring, qStart, masked, carried)` (which returns what the
  /// step carries on), then the last step's dQ (drainDQ). Returns what the
  /// walk carried out. Shared by the duplicated and the roles consumers.
  SmallVector<Value>
  walkSteps(Value tilesPerHead, ValueRange inits,
            function_ref<SmallVector<Value>(Value, Value, bool, ValueRange)>
                step);
  /// Split columns: where a step's dQ goes: its q-head and first query,
  /// and (deterministic) the Q tile's semaphore, which beginDQ waits on
  /// (the K/V tiles before this one have added theirs) and endDQ counts on
  /// once every consumer's reductions are complete.
  struct DQTarget {
    Value headQ, qStart, semaphore;
    /// With a ring of slice buffers: the buffer of the step's first slice
    /// (step mod 3: a step's 4 slices advance the ring by one; addDQ).
    Value firstBuffer;
  };
  DQTarget beginDQ(Value step);
  /// This warpgroup's columns of dQ part `part` added to the accumulator
  /// through each warp's slice buffer and bulk reductions (whole slices,
  /// in the accumulator's chunk order: dqChunk).
  void addDQ(const Fragment &dq, const DQTarget &target, int64_t part);
  /// The lane that adds a warp's staged slice (blockedDQ): lane 0.
  Value sliceIssuer();
  /// The warp's staged slice at `buffer` (its 16 rows of the step's Q tile,
  /// the 32 columns from `column`) added to the accumulator by the issuing
  /// lane with one bulk reduction (blockedDQ's layout), committed.
  void reduceSlice(const DQTarget &target, Value buffer, Value column);
  void endDQ(const DQTarget &target);
  /// A cluster of two blocks: dQ part `part` of a Q tile that both blocks
  /// visit, summed through distributed shared memory: this warp stores the
  /// partner's slice of the part (slice 1 − rank) into the partner's slice
  /// buffer, waits for the partner's part of its own slice (slice rank) in
  /// its buffer, adds its own values there and reduces the sum; first it
  /// tells the partner that this buffer's previous reductions have read it.
  void exchangeDQ(const Fragment &dq, const DQTarget &target, int64_t part);
  /// The shared base read afresh (reloadSharedBase), marked as a cluster's
  /// (SharedBase::rankBits).
  SharedBase sharedBase() {
    SharedBase base = reloadSharedBase(km);
    base.rankBits = clusterDQ;
    return base;
  }
  /// This block's rank in the cluster (0, 1: its K/V tile's parity) and
  /// whether the partner block has a K/V tile (not past Nk).
  Value clusterRank() {
    return km.andi(km.shru(kvStart, km.i32(6)), km.i32(1));
  }
  Value partnerHasTile() {
    return km.cmp(arith::CmpIPredicate::slt, km.xori(kvStart, km.i32(Bc)),
                  seqKV);
  }
  /// Split columns: dQ of step `step` (its ring position), part by part:
  /// issued, waited for, added.
  void addDQParts(Value step);
  /// The first of this warpgroup's K/V rows in the tile (0 when the
  /// consumers share the rows).
  Value firstOwnRow() {
    return columnSplit ? km.i32(0) : km.mul(consumer, km.i32(64));
  }
  /// Byte offset of this warpgroup's first column block within a tile of
  /// 64-column blocks of `blockRows` rows (0 unless the columns are split).
  Value ownColumnBlocks(int64_t blockRows) {
    return km.mul(consumer,
                  km.i32(ownColumns / kAtomColumns * blockRows * kSwizzleBytes));
  }

  /// Step `k` of a head's Q tiles: tile tiles.firstTile + k, in increasing
  /// order; deterministic, tile tiles.numTiles − 1 − k, from the last (every
  /// K/V tile that sees a Q tile then reaches it at the same step, so that
  /// the reductions ordered by K/V tile follow each other closely;
  /// buildDQWriter); rotated (rotatesQTiles), tile (k + rotation) mod
  /// numTiles.
  Value tileAt(Value k) {
    if (rotatesQTiles())
      return arith::RemUIOp::create(b, loc, km.add(k, rotation),
                                    tiles.numTiles)
          .getResult();
    return config.deterministic
               ? km.sub(km.sub(tiles.numTiles, km.i32(1)), k)
               : km.add(tiles.firstTile, k);
  }
  /// Whether the steps visit the Q tiles from a block-dependent tile on
  /// (kBackwardRotateMaxQTiles): D = 128, non-causal (every Q tile sees the
  /// K/V tile, all of them masked or none: the order does not change a
  /// step's mask) and atomic. At D = 64 and 256 any form of the change
  /// measured slower on the long rows even where it does not rotate (the
  /// code around the steps, not the order; docs/benchmarks.md, twenty-fourth
  /// session), so they keep main's kernels. The cluster form pairs its
  /// blocks' steps by Q tile and keeps the order from tile 0.
  bool rotatesQTiles() const {
    return kBackwardRotateMaxQTiles > 0 && config.headDim == 128 &&
           !config.deterministic && !config.causal &&
           config.sm90.clusterBlocks == 1;
  }
  /// Whether the loops run by steps k with tile tileAt(k) (deterministic or
  /// rotated) rather than by tile.
  bool bySteps() const { return config.deterministic || rotatesQTiles(); }

  /// Byte offset of Q or dO ring slot `stage` (base offQ or offDO).
  Value slotOffset(int64_t base, Value stage) {
    return km.add(km.i32(base), km.mul(stage, km.i32(layout.qBytes)));
  }
  Value rowOffset(int64_t base, Value stage) {
    return km.add(km.i32(base), km.mul(stage, km.i32(layout.rowBytes)));
  }
  /// Element `index` (i32) of the f32 array at `pointer` (global).
  Value f32Element(Value pointer, Value index) {
    return LLVM::GEPOp::create(b, loc, pointer.getType(), b.getF32Type(),
                               pointer, ValueRange{index});
  }

  OpBuilder &b;
  Location loc;
  KernelMath km;
  const KernelConfig &config;
  BackwardLayout layout;
  Type et;
  int64_t D, Br, Bc, S, C;
  DQSplit split;
  /// The consumers share the K/V tile's 64 rows and own ownColumns = D/C
  /// columns of dK, dV and dQ each (splitsColumns); otherwise each owns 64
  /// rows and all D columns.
  bool columnSplit;
  int64_t ownColumns;
  /// Two blocks per cluster add their dQ through distributed shared memory
  /// (config.sm90.clusterBlocks).
  bool clusterDQ;
  /// dQ staged with 16-byte stores (pairedDQ).
  bool pairedStage;
  /// The consumers split the step by roles (splitsRoles); `role` is the
  /// consumer whose code is being built (0: Sᵀ, Pᵀ, dV; 1: dPᵀ, dSᵀ, dK).
  bool roles;
  int64_t role = 0;
  /// Roles: one step of consumer `role` at ring position `ring`: its GEMMs
  /// of the step, the previous step's dQ (addDQParts), and (consumer 1)
  /// this step's dSᵀ to shared memory; `acc` is dV or dK.
  void roleStep(Value ring, Value qStart, bool masked, Fragment &acc);
  /// Roles: the consumer's loops over heads and Q tiles, built once per
  /// role under a branch on the consumer index.
  void buildRoleConsumer();
  /// Roles: dV (consumer 0) or dK·scale (consumer 1) through shared memory
  /// and TMA stores.
  void storeRoleGradient(const Fragment &acc);

  // Kernel-wide values.
  Value tid, seqQ, seqKV, scale, scaleLog2e, queryHeads, kvHeads;
  Value tmQ, tmK, tmV, tmDO, tmDK, tmDV, shiftPtr, deltaPtr, accumPtr;
  Value semaphorePtr; ///< deterministic: the dq_semaphore workspace
  Value donePtr;      ///< countsHeadsDone: the dq_done workspace
  Value kvTile, kvStart, headKV, firstHeadQ, groupSize, paddedQ;
  /// rotatesQTiles: kvTile, or 0 for a head of more than
  /// kBackwardRotateMaxQTiles Q tiles; step k takes tile (k + rotation) mod
  /// numTiles.
  Value rotation;
  /// Batch maps (rank 4 over (D, N, H, B)): the batch entry, the kv-head and
  /// the group's first q-head within it (null otherwise).
  Value batchEntry, kvHeadInBatch, firstHeadInBatch;
  /// The TMA head coordinates of K, V, dK, dV and of q-head h of the group
  /// (Q, dO): batch·H + head, or (head, batch) with batch maps.
  TmaHead mapKV() {
    return batchEntry ? TmaHead(kvHeadInBatch, batchEntry) : TmaHead(headKV);
  }
  TmaHead mapQ(Value headQ, Value h) {
    return batchEntry ? TmaHead(km.add(firstHeadInBatch, h), batchEntry)
                      : TmaHead(headQ);
  }
  QTileRange tiles;
  SharedBase smem;
  // Consumer-wide values.
  Value consumer, warpInGroup, lane;
  LaneCoords coords;
};
} // namespace

//===----------------------------------------------------------------------===//
// Producer
//===----------------------------------------------------------------------===//

void BackwardKernel::buildProducer() {
  using P = arith::CmpIPredicate;
  setRegisterBudget(km, config.sm90.producerRegisters, /*increase=*/false);
  if (!columnSplit) {
    // The dQ writer: the first thread of the second warp.
    auto writer =
        scf::IfOp::create(b, loc, km.cmp(P::eq, tid, km.i32(32)), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(writer.thenBlock()->getTerminator());
    buildDQWriter();
  }
  auto firstThread =
      scf::IfOp::create(b, loc, km.cmp(P::eq, tid, km.i32(0)), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(firstThread.thenBlock()->getTerminator());
  smem = sharedBase();
  // K_j and V_j, once.
  Value kvBar = layout.kvFull.address(km, smem, km.i32(0));
  mbarrierExpectTx(km, kvBar, 2 * layout.kvBytes);
  tmaLoadTile(km, smem, TmaBox{tmK, Bc, D}, kvBar, km.i32(layout.offK), kvStart,
              mapKV());
  tmaLoadTile(km, smem, TmaBox{tmV, Bc, D}, kvBar, km.i32(layout.offV), kvStart,
              mapKV());
  // Everything below reads the preprocess's results (the shift and Δ).
  waitForPreprocess();

  // For each q-head of the group and each Q tile that sees K/V tile j: Q,
  // dO, the shift and Δ into ring slot (position mod stages).
  Value tilesPerHead = km.sub(tiles.numTiles, tiles.firstTile);
  auto heads = scf::ForOp::create(b, loc, km.i32(0), groupSize, km.i32(1));
  b.setInsertionPoint(heads.getBody()->getTerminator());
  Value h = heads.getInductionVar();
  Value headQ = km.add(firstHeadQ, h);
  Value i, ring;
  if (bySteps()) {
    auto loop = scf::ForOp::create(b, loc, km.i32(0), tilesPerHead, km.i32(1));
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value k = loop.getInductionVar();
    i = tileAt(k);
    ring = km.add(km.mul(h, tilesPerHead), k);
  } else {
    auto loop = scf::ForOp::create(b, loc, tiles.firstTile, tiles.numTiles,
                                   km.i32(1));
    b.setInsertionPoint(loop.getBody()->getTerminator());
    i = loop.getInductionVar();
    ring = km.add(km.mul(h, tilesPerHead), km.sub(i, tiles.firstTile));
  }
  auto [stage, use] = layout.full.slotOf(km, ring);
  auto ifReused =
      scf::IfOp::create(b, loc, km.cmp(P::sge, ring, km.i32(S)), false);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(ifReused.thenBlock()->getTerminator());
    mbarrierWait(km, layout.empty.address(km, smem, stage),
                 releasedParity(km, use));
  }
  Value fullBar = layout.full.address(km, smem, stage);
  // (dO in its own slot: below.)
  bool doRing = doSlots(config) > 1;
  mbarrierExpectTx(km, fullBar,
                   (doRing ? 2 : 1) * layout.qBytes + 2 * layout.rowBytes);
  Value qStart = km.mul(i, km.i32(Br));
  tmaLoadTile(km, smem, TmaBox{tmQ, Br, D}, fullBar,
              slotOffset(layout.offQ, stage), qStart, mapQ(headQ, h));
  if (doRing)
    tmaLoadTile(km, smem, TmaBox{tmDO, Br, D}, fullBar,
                slotOffset(layout.offDO, stage), qStart, mapQ(headQ, h));
  // The rows of the padded per-row workspaces (16-byte aligned: the padding
  // is a multiple of Br).
  Value row = km.add(km.mul(headQ, paddedQ), qStart);
  bulkLoad(km, smem, f32Element(shiftPtr, row),
           rowOffset(layout.offShift, stage), layout.rowBytes, fullBar);
  bulkLoad(km, smem, f32Element(deltaPtr, row),
           rowOffset(layout.offDelta, stage), layout.rowBytes, fullBar);
  if (doRing)
    return;
  // dO_i into its one slot once every consumer's dV GEMM of the step before
  // has read it (use `ring` of the slot waits for the release of use ring −
  // 1).
  auto ifAfterFirst =
      scf::IfOp::create(b, loc, km.cmp(P::sge, ring, km.i32(1)), false);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(ifAfterFirst.thenBlock()->getTerminator());
    mbarrierWait(km, layout.doEmpty.address(km, smem, km.i32(0)),
                 releasedParity(km, ring));
  }
  Value doBar = layout.doFull.address(km, smem, km.i32(0));
  mbarrierExpectTx(km, doBar, layout.qBytes);
  tmaLoadTile(km, smem, TmaBox{tmDO, Br, D}, doBar, km.i32(layout.offDO),
              qStart, mapQ(headQ, h));
}

void BackwardKernel::buildDQWriter() {
  SharedBase entrySmem = smem;
  smem = sharedBase();
  // The accumulator (and the semaphores) as the preprocess left them.
  waitForPreprocess();
  // The convert may start once every block is here (the preprocess, which
  // zeroes the counters it waits on, is complete).
  if (countsHeadsDone)
    NVVM::GriddepcontrolOp::create(
        b, loc, NVVM::GridDepActionKind::launch_dependents);
  // The steps in the consumers' order: the group's q-heads, and per head the
  // Q tiles that see K/V tile j.
  Value tilesPerHead = km.sub(tiles.numTiles, tiles.firstTile);
  Value tilesInHead = km.divu(paddedQ, km.i32(Br));
  auto heads = scf::ForOp::create(b, loc, km.i32(0), groupSize, km.i32(1));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(heads.getBody()->getTerminator());
    Value h = heads.getInductionVar();
    Value headQ = km.add(firstHeadQ, h);
    auto loop = scf::ForOp::create(b, loc, km.i32(0), tilesPerHead, km.i32(1));
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value k = loop.getInductionVar();
    Value i = tileAt(k);
    Value step = km.add(km.mul(h, tilesPerHead), k);
    Value qStart = km.mul(i, km.i32(Br));
    Value semaphore;
    if (config.deterministic) {
      // The reductions of Q tile i's dQ, in one order, by K/V tile: the K/V
      // tiles that see it are [0, m) (VisibleKV.h: the Q tiles that see a
      // K/V tile are a suffix that shrinks as the tile index grows), so K/V
      // tile j adds after the j before it, each of which has counted its
      // reduction on the tile's semaphore once complete. They are the blocks
      // before this one in the grid, which the GPU starts first, and none
      // waits for a later one: no deadlock, also with blocks run one at a
      // time. The fence puts the bulk reduction after the acquire.
      semaphore = LLVM::GEPOp::create(
          b, loc, semaphorePtr.getType(), b.getI32Type(), semaphorePtr,
          ValueRange{km.add(km.mul(headQ, tilesInHead), i)});
      semaphoreWaitAtLeast(km, semaphore, kvTile);
      fenceAsyncGlobal(km);
    }
    // The consumers have staged the tile; its rows before Nq, whole rows of
    // the accumulator, are contiguous there and in shared memory.
    layout.dqFull.waitComplete(km, smem, {km.i32(0), step});
    Value rows = km.minsi(km.i32(Br), km.sub(seqQ, qStart));
    Value element = km.mul(km.add(km.mul(headQ, seqQ), qStart), km.i32(D));
    Value global = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(),
                                            f32Element(accumPtr, element));
    Value shared = km.add(smem.addr32, km.i32(layout.offDQ));
    bulkReduceAddF32(km, global, shared, km.mul(rows, km.i32(D * 4)));
    bulkCommit(km);
    // The tile is free once read; the next one may be staged.
    tmaWaitStoresRead(km);
    layout.dqEmpty.arrive(km, smem, km.i32(0));
    if (config.deterministic) {
      // Counted once written (the proxy fence orders the async-proxy writes
      // before the generic release).
      bulkWaitComplete(km);
      fenceAsyncGlobal(km);
      semaphoreRelease(km, semaphore);
    }
  }
  // Every reduction is complete before the block's shared memory goes.
  bulkWaitComplete(km);
  if (countsHeadsDone) {
    // This K/V tile's dQ of each q-head of the group is in the accumulator
    // (the proxy fence orders the async-proxy writes before the release).
    fenceAsyncGlobal(km);
    auto heads = scf::ForOp::create(b, loc, km.i32(0), groupSize, km.i32(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(heads.getBody()->getTerminator());
    Value headQ = km.add(firstHeadQ, heads.getInductionVar());
    semaphoreRelease(km, LLVM::GEPOp::create(b, loc, donePtr.getType(),
                                             b.getI32Type(), donePtr,
                                             ValueRange{headQ}));
  }
  smem = entrySmem;
}

//===----------------------------------------------------------------------===//
// Consumers
//===----------------------------------------------------------------------===//

SmallVector<Value> BackwardKernel::columnValues(int64_t base, Value stage) {
  auto f32x2 = VectorType::get({2}, b.getF32Type());
  Value first = km.add(rowOffset(base, stage),
                       km.mul(coords.quadLane, km.i32(8))); // 2t floats
  SmallVector<Value> values;
  for (int64_t nt = 0; nt < Br / 8; ++nt) {
    Value pair = LLVM::LoadOp::create(
        b, loc, f32x2, smem.at(km, km.add(first, km.i32(nt * 32))),
        /*alignment=*/8);
    for (int64_t e = 0; e < 2; ++e)
      values.push_back(
          vector::ExtractOp::create(b, loc, pair, ArrayRef<int64_t>{e}));
  }
  return values;
}

SmallVector<Value> BackwardKernel::operandWords(const Fragment &values) {
  SmallVector<Value> pairs = buildPackFragment(km, values, et);
  SmallVector<Value> words;
  for (int64_t kk = 0; kk < values.nTiles / 2; ++kk)
    for (int64_t nt : {2 * kk, 2 * kk + 1})
      for (int64_t half = 0; half < 2; ++half)
        words.push_back(km.pairWord(pairs[nt * 2 + half]));
  return words;
}

SmallVector<OutputWord> BackwardKernel::fragmentWords(const Fragment &values,
                                                      Value multiplier) {
  Value rowBase = km.add(firstOwnRow(),
                         km.add(km.mul(warpInGroup, km.i32(16)), coords.group));
  SmallVector<OutputWord> words;
  for (int64_t nt = 0; nt < values.nTiles; ++nt)
    for (int64_t half = 0; half < 2; ++half) {
      Value x = values.regs[nt * 4 + 2 * half];
      Value y = values.regs[nt * 4 + 2 * half + 1];
      if (multiplier) {
        x = arith::MulFOp::create(b, loc, x, multiplier);
        y = arith::MulFOp::create(b, loc, y, multiplier);
      }
      words.push_back({km.add(rowBase, km.i32(8 * half)), nt,
                       km.pairWord(buildPackPair(km, x, y, et))});
    }
  return words;
}

BackwardKernel::DQTarget BackwardKernel::beginDQ(Value step) {
  using P = arith::CmpIPredicate;
  // The step's q-head and Q tile (the consumers' order: the group's heads,
  // per head its Q tiles).
  Value tilesPerHead = km.sub(tiles.numTiles, tiles.firstTile);
  Value h = km.divu(step, tilesPerHead);
  Value i = tileAt(km.sub(step, km.mul(h, tilesPerHead)));
  DQTarget target{km.add(firstHeadQ, h), km.mul(i, km.i32(Br)), Value(),
                  Value()};
  if (int64_t buffers = dqSliceBuffers(config); buffers > 1) {
    int64_t perStep = split.columns / kDQSliceColumns;
    assert((perStep % buffers == 1 || perStep % buffers == 0) &&
           "a step's slices advance the ring by one or by whole turns");
    target.firstBuffer =
        perStep % buffers == 0
            ? km.i32(0)
            : arith::RemUIOp::create(b, loc, step, km.i32(buffers))
                  .getResult();
  }
  if (config.deterministic) {
    // The K/V tiles before this one have added their dQ of Q tile i (as the
    // writer orders its reductions: buildDQWriter); the leader's acquire,
    // then the warpgroup's barrier, puts the reductions after theirs.
    Value tilesInHead = km.divu(paddedQ, km.i32(Br));
    target.semaphore = LLVM::GEPOp::create(
        b, loc, semaphorePtr.getType(), b.getI32Type(), semaphorePtr,
        ValueRange{km.add(km.mul(target.headQ, tilesInHead), i)});
    auto leader = scf::IfOp::create(
        b, loc, km.cmp(P::eq, km.andi(tid, km.i32(127)), km.i32(0)), false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(leader.thenBlock()->getTerminator());
      semaphoreWaitAtLeast(km, target.semaphore, kvTile);
    }
    namedBarrierSync(km, consumer, storeBarrierId(), /*threads=*/128);
    fenceAsyncGlobal(km);
  }
  return target;
}

void BackwardKernel::addDQ(const Fragment &dq, const DQTarget &target,
                           int64_t part) {
  // The part's columns in slices of 32 through this warp's 16 × 32 f32
  // buffer: each thread writes its pairs of the slice, then lane 0 adds
  // the whole slice (2 KB, contiguous in the accumulator: blockedDQ) with
  // one bulk reduction, so that L2 takes whole lines, not f32 atomics one
  // by one. Column c of row r sits at 16-byte chunk c / 4 XOR (r mod 8) of
  // the slice's row (as the staged tile's of the other form), and the
  // buffer's rows hold them in that order (lane pair t / 2 of row group g
  // at chunk (2nt' + t / 2) XOR g: two wavefronts per store).
  // With a ring of buffers (dqSliceBuffers), slice n of the kernel (4 per
  // step, in order) takes buffer n mod 3 once the reduction of slice n − 3
  // has read it: the warp waits for no reduction it has just issued.
  int64_t buffers = dqSliceBuffers(config);
  Value ringBase = km.add(
      km.i32(layout.offDQ),
      km.mul(km.add(km.mul(consumer, km.i32(4)), warpInGroup),
             km.i32(buffers * kDQSliceBytes)));
  int64_t slicesPerPart = kDQPartColumns / kDQSliceColumns;
  auto bufferOf = [&](int64_t k) {
    if (buffers == 1)
      return ringBase;
    Value index = km.add(target.firstBuffer, km.i32(k % buffers));
    index = arith::SelectOp::create(
        b, loc, km.cmp(arith::CmpIPredicate::uge, index, km.i32(buffers)),
        km.sub(index, km.i32(buffers)), index);
    return km.add(ringBase, km.mul(index, km.i32(kDQSliceBytes)));
  };
  Value issuer = sliceIssuer();
  Value pairChunk = km.shru(coords.quadLane, km.i32(1));
  Value inChunk = km.mul(km.andi(coords.quadLane, km.i32(1)), km.i32(8));
  auto f32x2 = VectorType::get({2}, b.getF32Type());
  int64_t tilesPerSlice = kDQSliceColumns / 8;
  for (int64_t slice = 0; slice < dq.nTiles / tilesPerSlice; ++slice) {
    Value buffer = bufferOf(part * slicesPerPart + slice);
    // The buffer's previous slice has been read by its reduction (lane 0
    // commits one group per slice).
    {
      auto ifIssuer = scf::IfOp::create(b, loc, issuer, false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(ifIssuer.thenBlock()->getTerminator());
      if (buffers == 1)
        tmaWaitStoresRead(km);
      else
        bulkWaitRead(km, buffers - 1);
    }
    NVVM::SyncWarpOp::create(b, loc, km.i32(-1));
    for (int64_t t = 0; t < tilesPerSlice; ++t) {
      int64_t nt = slice * tilesPerSlice + t;
      for (int64_t half = 0; half < 2; ++half) {
        Value row = km.add(coords.group, km.i32(8 * half));
        Value chunk = km.xori(km.add(pairChunk, km.i32(2 * t)), coords.group);
        Value offset = km.add(
            km.add(buffer, km.mul(row, km.i32(kDQSliceColumns * 4))),
            km.add(km.mul(chunk, km.i32(16)), inChunk));
        Value pair = vector::FromElementsOp::create(
            b, loc, f32x2,
            ValueRange{dq.regs[nt * 4 + 2 * half],
                       dq.regs[nt * 4 + 2 * half + 1]});
        LLVM::StoreOp::create(b, loc, pair, smem.at(km, offset),
                              /*alignment=*/8);
      }
    }
    fenceAsyncShared(km);
    NVVM::SyncWarpOp::create(b, loc, km.i32(-1));
    int64_t firstColumn = part * kDQPartColumns + slice * kDQSliceColumns;
    reduceSlice(target, buffer,
                km.add(km.mul(consumer, km.i32(split.columns)),
                       km.i32(firstColumn)));
  }
}

Value BackwardKernel::sliceIssuer() {
  return km.cmp(arith::CmpIPredicate::eq, lane, km.i32(0));
}

void BackwardKernel::reduceSlice(const DQTarget &target, Value buffer,
                                 Value column) {
  // The warp's 16 rows start a block of the accumulator (Q tiles are 64
  // rows); rows past Nq are padding, whose dQ is zero.
  auto ifIssuer = scf::IfOp::create(b, loc, sliceIssuer(), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifIssuer.thenBlock()->getTerminator());
  Value firstRow = km.add(km.add(km.mul(target.headQ, paddedQ), target.qStart),
                          km.mul(warpInGroup, km.i32(16)));
  Value element = km.add(km.mul(firstRow, km.i32(D)),
                         km.mul(column, km.i32(16)));
  Value global = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(),
                                          f32Element(accumPtr, element));
  bulkReduceAddF32(km, global, km.add(smem.addr32, buffer), kDQSliceBytes);
  bulkCommit(km);
}

void BackwardKernel::endDQ(const DQTarget &target) {
  if (!config.deterministic)
    return;
  // Every consumer's reductions are ordered before the count: each issuing
  // lane waits for its bulk reductions to complete and fences the async
  // proxy, every thread fences, the consumers meet, one thread releases.
  {
    auto ifIssuer = scf::IfOp::create(b, loc, sliceIssuer(), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifIssuer.thenBlock()->getTerminator());
    bulkWaitComplete(km);
    fenceAsyncGlobal(km);
  }
  fenceGpu(km);
  namedBarrierSync(km, km.i32(0), consumersBarrierId(), /*threads=*/128 * C);
  auto counter = scf::IfOp::create(
      b, loc, km.cmp(arith::CmpIPredicate::eq, tid, km.i32(128)), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(counter.thenBlock()->getTerminator());
  semaphoreRelease(km, target.semaphore);
}

void BackwardKernel::addDQParts(Value step) {
  using P = arith::CmpIPredicate;
  DQTarget target = beginDQ(step);
  // A cluster: the Q tiles both blocks visit are the steps they exchange
  // their dQ in (the same (head, Q tile) order in both: per head the
  // tiles from the first either visits, increasing); the others (causal:
  // the tiles below the partner's first) each adds alone.
  Value shared;
  if (clusterDQ) {
    QTileRange partner = buildQTileRange(km, km.xori(kvStart, km.i32(Bc)),
                                         seqQ, seqKV, Bc, Br, config.causal);
    Value i = km.divu(target.qStart, km.i32(Br));
    shared = km.andi(partnerHasTile(),
                     km.andi(km.cmp(P::sge, i, partner.firstTile),
                             km.cmp(P::slt, i, partner.numTiles)));
  }
  for (int64_t part = 0; part < split.columns / kDQPartColumns; ++part) {
    wgmmaFence(km);
    Fragment dq = issueDQ(step, Value(), part);
    wgmmaCommit(km);
    wgmmaWait(km, 0);
    if (!clusterDQ) {
      addDQ(dq, target, part);
      continue;
    }
    auto ifShared = scf::IfOp::create(b, loc, shared, true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifShared.thenBlock()->getTerminator());
    exchangeDQ(dq, target, part);
    b.setInsertionPoint(ifShared.elseBlock()->getTerminator());
    addDQ(dq, target, part);
  }
  endDQ(target);
}

void BackwardKernel::exchangeDQ(const Fragment &dq, const DQTarget &target,
                                int64_t part) {
  using P = arith::CmpIPredicate;
  // Warp k of consumer w pairs with warp k of the partner's consumer w: the
  // same rows and columns of the same Q tile's dQ. Per part (two slices of
  // 32 columns) each sends one slice and adds the other; a buffer is
  // written by the partner only between this warp's signal and its wait for
  // the partner's part, so that the steps a block adds alone (before its
  // first exchange too) keep using it as addDQ does.
  Value warpIndex = km.add(km.mul(consumer, km.i32(4)), warpInGroup);
  Value buffer = km.add(km.i32(layout.offDQ),
                        km.mul(warpIndex, km.i32(kDQSliceBytes)));
  auto shared32 = [&](Value offset) { return km.add(smem.addr32, offset); };
  Value arrived = shared32(km.add(km.i32(layout.dqArrived.offset),
                                  km.mul(warpIndex, km.i32(8))));
  Value taken = shared32(km.add(km.i32(layout.dqTaken.offset),
                                km.mul(warpIndex, km.i32(8))));
  Value rank = clusterRank();
  Value partnerRank = km.xori(rank, km.i32(1));
  Value isFirst = km.cmp(P::eq, rank, km.i32(0));
  // This buffer's reductions (of exchanges and of steps added alone) have
  // read it: the partner may write its part of exchange n.
  tmaWaitStoresRead(km);
  mbarrierArriveCluster(km, clusterAddress(km, taken, partnerRank));
  // Exchanges n = 2·(exchanged steps) + part: the partner's buffer is free
  // for exchange n at phase n of dqTaken, and the partner's slice of
  // exchange n is in this buffer at phase n of dqArrived (parity part of
  // both; neither runs two phases ahead: the partner's next signal comes
  // after this warp's part of exchange n has arrived).
  mbarrierWaitCluster(km, taken, km.i32(part));
  // In the buffer as addDQ stages a slice (chunk (2t + t' / 2) XOR g).
  Value pairChunk = km.shru(coords.quadLane, km.i32(1));
  Value inChunk = km.mul(km.andi(coords.quadLane, km.i32(1)), km.i32(8));
  int64_t tilesPerSlice = kDQSliceColumns / 8;
  auto slotOf = [&](int64_t t, int64_t half) {
    Value row = km.add(coords.group, km.i32(8 * half));
    Value chunk = km.xori(km.add(pairChunk, km.i32(2 * t)), coords.group);
    return km.add(km.add(buffer, km.mul(row, km.i32(kDQSliceColumns * 4))),
                  km.add(km.mul(chunk, km.i32(16)), inChunk));
  };
  // Register e of pair (t, half) of the slice this block adds (`own`) or
  // sends.
  auto value = [&](bool own, int64_t t, int64_t half, int64_t e) {
    Value slice0 = dq.regs[t * 4 + 2 * half + e];
    Value slice1 = dq.regs[(tilesPerSlice + t) * 4 + 2 * half + e];
    // Rank 0 adds slice 0 and sends slice 1; rank 1 the other way round.
    return own ? arith::SelectOp::create(b, loc, isFirst, slice0, slice1)
                     .getResult()
               : arith::SelectOp::create(b, loc, isFirst, slice1, slice0)
                     .getResult();
  };
  Value remote = clusterAddress(km, shared32(buffer), partnerRank);
  for (int64_t t = 0; t < tilesPerSlice; ++t)
    for (int64_t half = 0; half < 2; ++half)
      storeClusterF32x2(km, km.add(remote, km.sub(slotOf(t, half), buffer)),
                        value(false, t, half, 0), value(false, t, half, 1));
  mbarrierArriveCluster(km, clusterAddress(km, arrived, partnerRank));
  mbarrierWaitCluster(km, arrived, km.i32(part));
  // The sum in place, then the slice's reduction.
  auto f32x2 = VectorType::get({2}, b.getF32Type());
  for (int64_t t = 0; t < tilesPerSlice; ++t)
    for (int64_t half = 0; half < 2; ++half) {
      Value address = smem.at(km, slotOf(t, half));
      Value theirs =
          LLVM::LoadOp::create(b, loc, f32x2, address, /*alignment=*/8);
      SmallVector<Value> sums;
      for (int64_t e = 0; e < 2; ++e)
        sums.push_back(arith::AddFOp::create(
            b, loc,
            vector::ExtractOp::create(b, loc, theirs, ArrayRef<int64_t>{e}),
            value(true, t, half, e)));
      Value pair = vector::FromElementsOp::create(b, loc, f32x2, sums);
      LLVM::StoreOp::create(b, loc, pair, address, /*alignment=*/8);
    }
  fenceAsyncShared(km);
  NVVM::SyncWarpOp::create(b, loc, km.i32(-1));
  reduceSlice(target, buffer,
              km.add(km.add(km.mul(consumer, km.i32(split.columns)),
                            km.i32(part * kDQPartColumns)),
                     km.mul(rank, km.i32(kDQSliceColumns))));
}

/// `words` (fragmentWords' order: column tile nt, then the 8-row half) of a
/// warp whose 16 rows start at `warpRow` within the boxes `boxes` (128B
/// swizzle, as writeSwizzledOutput places them), with one stmatrix .x4 per
/// two column tiles: matrix i of the four is (column tile 2k + i / 2, half
/// i % 2), each thread's word of it the i-th source; lane l gives the
/// address of row l % 8 of matrix l / 8 (its 16 bytes are one chunk).
static void writeSwizzledMatrices(KernelMath &km, const SharedBase &smem,
                                  ArrayRef<OutputWord> words,
                                  ArrayRef<Value> boxes, Value warpRow,
                                  Value lane) {
  Value matrix = km.shru(lane, km.i32(3));
  Value rowInMatrix = km.andi(lane, km.i32(7));
  Value local = km.add(
      warpRow,
      km.add(km.mul(km.andi(matrix, km.i32(1)), km.i32(8)), rowInMatrix));
  Value tileStep = km.shru(matrix, km.i32(1));
  for (size_t first = 0; first + 4 <= words.size(); first += 4) {
    int64_t tile = words[first].columnTile;
    Value chunk = km.xori(km.add(km.i32(tile % 8), tileStep), rowInMatrix);
    Value offset = km.add(
        boxes[tile / 8], km.add(km.mul(local, km.i32(kSwizzleBytes)),
                                km.mul(chunk, km.i32(16))));
    SmallVector<Value> sources;
    for (size_t i = 0; i < 4; ++i)
      sources.push_back(words[first + i].word);
    NVVM::StMatrixOp::create(
        km.b, km.loc, smem.at(km, offset), sources, NVVM::MMALayout::row,
        NVVM::LdStMatrixShapeAttr::get(km.b.getContext(), 8, 8),
        NVVM::LdStMatrixEltType::B16);
  }
}

void BackwardKernel::stageDQ(const Fragment &dq, Value step) {
  auto f32x2 = VectorType::get({2}, b.getF32Type());
  // The writer has read the previous tile: phase `step` of dqEmpty (its
  // arrivals follow one made at init).
  layout.dqEmpty.waitComplete(km, smem, {km.i32(0), step});
  // Row r of the tile is this thread's row (16 per warp, 8 per half; by
  // rows, 64 per warpgroup), r mod 8 its group; column c = first + 8nt + 2t
  // is in 16-byte chunk c / 4 at byte (c mod 4)·4. The chunk's place,
  // c / 4 XOR (r mod 8), puts the 8 rows of a store in 8 different bank
  // groups (no conflicts), as in the accumulator (dqChunk).
  Value rowBase = km.add(km.mul(warpInGroup, km.i32(16)), coords.group);
  Value firstChunk = km.i32(0);
  if (split.byRows)
    rowBase = km.add(rowBase, km.mul(consumer, km.i32(64)));
  else
    firstChunk = km.mul(consumer, km.i32(split.columns / 4));
  if (pairedStage) {
    // Column tiles 2k and 2k + 1: this thread's four columns of 16-column
    // group k (2t, 2t + 1, 8 + 2t, 9 + 2t) are one 16-byte chunk, 4k + t,
    // at (4k + t) ^ f with f = (g & 1)·4 + g / 2 (g = row mod 8): the 8
    // lanes of a quarter warp (rows g = 2p, 2p + 1) fill 8 bank groups.
    auto f32x4 = VectorType::get({4}, b.getF32Type());
    Value f = km.add(km.mul(km.andi(coords.group, km.i32(1)), km.i32(4)),
                     km.shru(coords.group, km.i32(1)));
    Value threadChunk = km.add(firstChunk, coords.quadLane);
    for (int64_t k = 0; k < dq.nTiles / 2; ++k)
      for (int64_t half = 0; half < 2; ++half) {
        Value row = km.add(rowBase, km.i32(8 * half));
        Value chunk = km.xori(km.add(threadChunk, km.i32(4 * k)), f);
        Value offset =
            km.add(km.add(km.i32(layout.offDQ), km.mul(row, km.i32(D * 4))),
                   km.mul(chunk, km.i32(16)));
        int64_t first = 2 * k * 4 + 2 * half, second = first + 4;
        Value quad = vector::FromElementsOp::create(
            b, loc, f32x4,
            ValueRange{dq.regs[first], dq.regs[first + 1], dq.regs[second],
                       dq.regs[second + 1]});
        LLVM::StoreOp::create(b, loc, quad, smem.at(km, offset),
                              /*alignment=*/16);
      }
    fenceAsyncShared(km);
    layout.dqFull.arrive(km, smem, km.i32(0));
    return;
  }
  Value pairChunk = km.add(firstChunk, km.shru(coords.quadLane, km.i32(1)));
  Value inChunk = km.mul(km.andi(coords.quadLane, km.i32(1)), km.i32(8));
  for (int64_t nt = 0; nt < dq.nTiles; ++nt)
    for (int64_t half = 0; half < 2; ++half) {
      Value row = km.add(rowBase, km.i32(8 * half));
      Value chunk = km.xori(km.add(pairChunk, km.i32(2 * nt)), coords.group);
      Value offset = km.add(
          km.add(km.i32(layout.offDQ), km.mul(row, km.i32(D * 4))),
          km.add(km.mul(chunk, km.i32(16)), inChunk));
      Value pair = vector::FromElementsOp::create(
          b, loc, f32x2,
          ValueRange{dq.regs[nt * 4 + 2 * half], dq.regs[nt * 4 + 2 * half + 1]});
      LLVM::StoreOp::create(b, loc, pair, smem.at(km, offset), /*alignment=*/8);
    }
  // The rows become visible to the bulk reduction (async proxy).
  fenceAsyncShared(km);
  layout.dqFull.arrive(km, smem, km.i32(0));
}

Fragment BackwardKernel::issueDQ(Value ring, Value valid, int64_t part) {
  // Every other consumer's rows of this step's dSᵀ are written (their
  // arrivals on their barriers of the step's parity).
  for (int64_t other = 0; other < C && part <= 0; ++other) {
    Value isOther = km.cmp(arith::CmpIPredicate::ne, consumer, km.i32(other));
    if (valid)
      isOther = km.andi(isOther, valid);
    auto ifOther = scf::IfOp::create(b, loc, isOther, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOther.thenBlock()->getTerminator());
    namedBarrierSync(km, dsBarrier(km.i32(other), ring), /*firstId=*/1,
                     /*threads=*/128 * C);
  }
  // dQ = dS·K_j: dS the MN-major A (queries along the rows of dSᵀ), K the
  // MN-major B.
  Value aOffset = dsBufferOf(ring);
  Value bOffset = km.i32(layout.offK);
  if (split.byRows) {
    aOffset = km.add(aOffset, km.mul(consumer, km.i32(Bc * kSwizzleBytes)));
  } else {
    // Column c0 = consumer·columns of K: its 64-column block, then 2 bytes
    // per column within the block's 128-byte rows.
    Value c0 = km.mul(consumer, km.i32(split.columns));
    if (part >= 0)
      c0 = km.add(c0, km.i32(part * kDQPartColumns));
    bOffset = km.add(
        bOffset,
        km.add(km.mul(km.shru(c0, km.i32(6)), km.i32(Bc * kSwizzleBytes)),
               km.mul(km.andi(c0, km.i32(kAtomColumns - 1)), km.i32(2))));
  }
  return wgmmaSS(
      km, et, {wgmmaDescriptor(km, smem, aOffset, Bc * kSwizzleBytes), true, 0},
      {wgmmaDescriptor(km, smem, bOffset, Bc * kSwizzleBytes), true, 0},
      part >= 0 ? kDQPartColumns : split.columns, Bc);
}

void BackwardKernel::consumerStep(Value ring, Value qStart, bool masked,
                                  StepState &state) {
  // The shared base read afresh: K's and V's descriptors (and their k-slice
  // advances) do not change across steps, and LLVM would otherwise keep all
  // of them live across the loop (64-bit each; the consumers spilled).
  SharedBase entrySmem = smem;
  smem = sharedBase();
  auto [stage, use] = layout.full.slotOf(km, ring);
  layout.full.waitComplete(km, smem, {stage, use});
  // (dO in one slot: its own barrier, use `ring`.)
  bool doRing = doSlots(config) > 1;
  if (!doRing)
    layout.doFull.waitComplete(km, smem, {km.i32(0), ring});
  Value qTile = slotOffset(layout.offQ, stage);
  Value doTile =
      doRing ? slotOffset(layout.offDO, stage) : km.i32(layout.offDO);
  // This warpgroup's 64 rows of K and V within each column block (all of
  // them when the consumers share the rows).
  Value ownRows = columnSplit ? km.i32(0)
                             : km.mul(consumer, km.i32(64 * kSwizzleBytes));
  WgmmaOperand kRows{wgmmaDescriptor(km, smem,
                                     km.add(km.i32(layout.offK), ownRows), 16),
                     false, Bc};
  WgmmaOperand vRows{wgmmaDescriptor(km, smem,
                                     km.add(km.i32(layout.offV), ownRows), 16),
                     false, Bc};

  // Sᵀ = K_w·Q_iᵀ and dPᵀ = V_w·dO_iᵀ: both operands K-major (rows of D).
  wgmmaFence(km);
  Fragment scores = wgmmaSS(
      km, et, kRows, {wgmmaDescriptor(km, smem, qTile, 16), false, Br}, Br, D);
  wgmmaCommit(km);
  Fragment probsGradient = wgmmaSS(
      km, et, vRows, {wgmmaDescriptor(km, smem, doTile, 16), false, Br}, Br, D);
  wgmmaCommit(km);

  // Pᵀ = exp2(Sᵀ·c − shift) once Sᵀ has landed (dPᵀ may still run).
  wgmmaWait(km, 1);
  SmallVector<Value> shifts = columnValues(layout.offShift, stage);
  if (masked) {
    Value keyRows = km.add(kvStart, km.add(firstOwnRow(),
                                           km.mul(warpInGroup, km.i32(16))));
    buildKeyRowMask(km, scores, coords, keyRows, qStart, seqQ, seqKV,
                    config.causal);
  }
  Fragment probs = buildRecomputedProbs(km, scores, shifts,
                                        /*perColumn=*/true, scaleLog2e);

  // dSᵀ = Pᵀ∘(dPᵀ − Δ) once dPᵀ has landed. Both are computed before the
  // next GEMMs are issued, so that only their packed 16-bit pairs stay live
  // while the GEMMs read them (with dK and dV, 128 registers at D = 128);
  // the other consumer warpgroup's GEMMs overlap this math.
  wgmmaWait(km, 0);
  SmallVector<Value> deltas = columnValues(layout.offDelta, stage);
  Fragment gradient = buildScoreGradient(km, probs, probsGradient, deltas,
                                         /*perColumn=*/true);
  SmallVector<Value> probWords = operandWords(probs);
  SmallVector<Value> gradientWords = operandWords(gradient);

  // dV += Pᵀ·dO_i and dK += dSᵀ·Q_i (dO and Q the MN-major B, Br queries
  // along k; this warpgroup's columns of them when the columns are split).
  if (columnSplit) {
    doTile = km.add(doTile, ownColumnBlocks(Br));
    qTile = km.add(qTile, ownColumnBlocks(Br));
  }
  wgmmaFence(km);
  state.dV = wgmmaRS(km, et, state.dV, probWords,
                     wgmmaDescriptor(km, smem, doTile, Br * kSwizzleBytes),
                     ownColumns, Br);
  wgmmaCommit(km);
  state.dK = wgmmaRS(km, et, state.dK, gradientWords,
                     wgmmaDescriptor(km, smem, qTile, Br * kSwizzleBytes),
                     ownColumns, Br);
  wgmmaCommit(km);
  // dV has read Pᵀ's registers (and dO_i: in one slot, every consumer
  // thread releases it).
  wgmmaWait(km, 1);
  keepAlive(km, probWords);
  if (!doRing)
    layout.doEmpty.arrive(km, smem, km.i32(0));

  // dQ of the previous step: one step late, so that no consumer waits for
  // the others' dSᵀ of this step (each arrives on its barrier at the end of
  // a step). At D = 128 not at the first step (skipsFirstDQ: below);
  // elsewhere issued at the first step too, on whatever the buffer holds,
  // and dropped.
  // (Split columns: after this step's dK, part by part, below.)
  using P = arith::CmpIPredicate;
  Value hasPrevious = km.cmp(P::sgt, ring, km.i32(0));
  bool branchesFirst = skipsFirstDQ(config);
  Fragment dq;
  if (!columnSplit && !branchesFirst) {
    wgmmaFence(km);
    dq = issueDQ(km.sub(ring, km.i32(1)), hasPrevious);
    wgmmaCommit(km);
  }

  // This step's dSᵀ to shared memory (buffer ring mod 2, rows of keys, one
  // box per 64 queries), while dK and dQ run. The buffer's previous use, dQ
  // two steps back, has completed in every consumer: each arrived on its
  // barrier of the last step after that GEMM, and issueDQ waited on those.
  // (Split columns: after the previous step's dQ, whose issueDQ waits
  // there.)
  auto writeGradient = [&] {
    Value dsBuffer = dsBufferOf(ring);
    SmallVector<Value> boxes;
    for (int64_t box = 0; box < Br / kAtomColumns; ++box)
      boxes.push_back(km.add(dsBuffer, km.add(km.i32(box * Bc * kSwizzleBytes),
                                              ownRows)));
    SmallVector<OutputWord> words = fragmentWords(gradient, Value());
    if (!columnSplit && D == 128) {
      // stmatrix: 4 stores per thread for 64 × 64 (experiment, branch
      // bwd-sm90-d128-stmatrix, D = 128 only: at D = 64 with 128-row Q
      // tiles it spills 4 registers; 16 scalar stores on main).
      writeSwizzledMatrices(
          km, smem, words, boxes, km.mul(warpInGroup, km.i32(16)),
          km.add(km.mul(coords.group, km.i32(4)), coords.quadLane));
    } else if (!columnSplit) {
      writeSwizzledOutput(km, smem, words, boxes, km.i32(0), consumer,
                          coords.quadLane);
    } else {
      // Every consumer holds all of dSᵀ: consumer w writes the w-th of C
      // slices of its columns (queries).
      int64_t slice = gradient.nTiles / C;
      for (int64_t w = 0; w < C; ++w) {
        auto ifOwn = scf::IfOp::create(
            b, loc, km.cmp(P::eq, consumer, km.i32(w)), false);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(ifOwn.thenBlock()->getTerminator());
        SmallVector<OutputWord> own;
        for (const OutputWord &word : words)
          if (word.columnTile / slice == w)
            own.push_back(word);
        writeSwizzledOutput(km, smem, own, boxes, km.i32(0), km.i32(0),
                            coords.quadLane);
      }
    }
    fenceAsyncShared(km);
  };
  if (branchesFirst) {
    // The step's tail with the previous step's dQ (issued, waited for,
    // staged) or, at the first step, without it.
    auto tail = [&](bool withDQ) {
      Fragment previous;
      if (withDQ) {
        wgmmaFence(km);
        previous = issueDQ(km.sub(ring, km.i32(1)));
        wgmmaCommit(km);
      }
      writeGradient();
      // dK has read dSᵀ's registers and the slot (below).
      wgmmaWait(km, withDQ ? 1 : 0);
      keepAlive(km, gradientWords);
      layout.empty.arrive(km, smem, stage);
      if (withDQ) {
        wgmmaWait(km, 0);
        stageDQ(previous, km.sub(ring, km.i32(1)));
      }
    };
    auto ifPrevious = scf::IfOp::create(b, loc, hasPrevious, true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(ifPrevious.thenBlock()->getTerminator());
      tail(true);
      b.setInsertionPoint(ifPrevious.elseBlock()->getTerminator());
      tail(false);
    }
    namedBarrierArrive(km, dsBarrier(consumer, ring), /*firstId=*/1,
                       /*threads=*/128 * C);
    smem = entrySmem;
    return;
  }
  if (!columnSplit)
    writeGradient();
  // dK has read dSᵀ's registers, and with it the slot's Q_i and dO_i: every
  // consumer thread releases the slot.
  wgmmaWait(km, columnSplit ? 0 : 1);
  keepAlive(km, gradientWords);
  layout.empty.arrive(km, smem, stage);
  // The previous dQ to the writer; then this consumer's arrival for the
  // others' dQ of this step.
  if (!columnSplit)
    wgmmaWait(km, 0);
  {
    auto ifStage = scf::IfOp::create(b, loc, hasPrevious, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifStage.thenBlock()->getTerminator());
    if (columnSplit)
      addDQParts(km.sub(ring, km.i32(1)));
    else
      stageDQ(dq, km.sub(ring, km.i32(1)));
  }
  if (columnSplit)
    writeGradient();
  namedBarrierArrive(km, dsBarrier(consumer, ring), /*firstId=*/1,
                     /*threads=*/128 * C);
  smem = entrySmem;
}

void BackwardKernel::drainDQ(Value last) {
  SharedBase entrySmem = smem;
  smem = sharedBase();
  if (columnSplit) {
    addDQParts(last);
    smem = entrySmem;
    return;
  }
  wgmmaFence(km);
  Fragment dq = issueDQ(last);
  wgmmaCommit(km);
  wgmmaWait(km, 0);
  stageDQ(dq, last);
  smem = entrySmem;
}

SmallVector<Value> BackwardKernel::walkSteps(
    Value tilesPerHead, ValueRange inits,
    function_ref<SmallVector<Value>(Value, Value, bool, ValueRange)> step) {
  auto heads = scf::ForOp::create(b, loc, km.i32(0), groupSize, km.i32(1),
                                  inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(heads.getBody());
    Value h = heads.getInductionVar();
    Value base = km.mul(h, tilesPerHead);
    bool bySteps = this->bySteps();
    auto tileLoop = [&](Value lb, Value ub, ValueRange carried, bool masked) {
      auto loop = scf::ForOp::create(b, loc, lb, ub, km.i32(1), carried);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(loop.getBody());
      Value iv = loop.getInductionVar();
      Value i = bySteps ? tileAt(iv) : iv;
      Value k = bySteps ? iv : km.sub(iv, tiles.firstTile);
      SmallVector<Value> next = step(km.add(base, k), km.mul(i, km.i32(Br)),
                                     masked, loop.getRegionIterArgs());
      scf::YieldOp::create(b, loc, next);
      return SmallVector<Value>(loop.getResults());
    };
    SmallVector<Value> state;
    if (bySteps) {
      Value unmasked = km.sub(tiles.numTiles, tiles.firstUnmasked);
      state = tileLoop(km.i32(0), unmasked, heads.getRegionIterArgs(), false);
      state = tileLoop(unmasked, tilesPerHead, state, true);
    } else {
      state = tileLoop(tiles.firstTile, tiles.firstUnmasked,
                       heads.getRegionIterArgs(), true);
      state = tileLoop(tiles.firstUnmasked, tiles.numTiles, state, false);
    }
    scf::YieldOp::create(b, loc, state);
  }
  // The last step's dQ.
  Value steps = km.mul(groupSize, tilesPerHead);
  {
    auto ifSteps = scf::IfOp::create(
        b, loc, km.cmp(arith::CmpIPredicate::sgt, steps, km.i32(0)), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifSteps.thenBlock()->getTerminator());
    drainDQ(km.sub(steps, km.i32(1)));
  }
  return SmallVector<Value>(heads.getResults());
}

void BackwardKernel::buildConsumer() {
  setRegisterBudget(km, config.sm90.consumerRegisters, /*increase=*/true);
  smem = sharedBase();
  Value warpgroup = km.shru(tid, km.i32(7));
  consumer = km.sub(warpgroup, km.i32(1));
  warpInGroup = km.shru(km.andi(tid, km.i32(127)), km.i32(5));
  lane = km.andi(tid, km.i32(31));
  coords = {km.shru(lane, km.i32(2)), km.andi(lane, km.i32(3))};
  Value zero = km.f32(0.0);

  layout.kvFull.waitComplete(km, smem, {km.i32(0), km.i32(0)});
  // (Split columns: the consumers add dQ to the accumulator themselves.
  // Otherwise they read the preprocess's results only through the
  // producer's loads; the wait costs nothing there, as the first step's
  // slot is loaded after the producer's own wait.)
  waitForPreprocess();
  if (roles) {
    buildRoleConsumer();
    return;
  }

  // dK and dV of this warpgroup's 64 rows, carried over the heads and the Q
  // tiles (masked tiles first: they are the ones on the diagonal).
  // (ownColumns of each: D, or D/C when the columns are split.)
  const int64_t N = ownColumns;
  SmallVector<Value> inits(N, zero);
  auto unpack = [&](ValueRange values) {
    StepState state;
    state.dK = Fragment(1, N / 8, Value());
    state.dV = Fragment(1, N / 8, Value());
    state.dK.regs.assign(values.begin(), values.begin() + N / 2);
    state.dV.regs.assign(values.begin() + N / 2, values.begin() + N);
    return state;
  };
  auto pack = [&](const StepState &state) {
    SmallVector<Value> values(state.dK.regs);
    values.append(state.dV.regs.begin(), state.dV.regs.end());
    return values;
  };
  Value tilesPerHead = km.sub(tiles.numTiles, tiles.firstTile);
  StepState done = unpack(walkSteps(
      tilesPerHead, inits,
      [&](Value ring, Value qStart, bool masked, ValueRange carried) {
        StepState state = unpack(carried);
        consumerStep(ring, qStart, masked, state);
        return pack(state);
      }));
  const Fragment &dK = done.dK, &dV = done.dV;
  storeGradients(dK, dV);
}

void BackwardKernel::storeGradients(const Fragment &dK, const Fragment &dV) {
  using P = arith::CmpIPredicate;
  if (columnSplit) {
    // Every consumer's GEMMs read all of K and V: once all have completed
    // theirs, dV and dK·scale go over this warpgroup's column blocks of V
    // and K (all 64 rows), and its leader stores both.
    namedBarrierSync(km, km.i32(0), consumersBarrierId(), /*threads=*/128 * C);
    auto ownBoxes = [&](int64_t base) {
      SmallVector<Value> boxes;
      for (int64_t box = 0; box < ownColumns / kAtomColumns; ++box)
        boxes.push_back(km.add(km.i32(base + box * Bc * kSwizzleBytes),
                               ownColumnBlocks(Bc)));
      return boxes;
    };
    SmallVector<Value> vBoxes = ownBoxes(layout.offV);
    SmallVector<Value> kBoxes = ownBoxes(layout.offK);
    writeSwizzledOutput(km, smem, fragmentWords(dV, Value()), vBoxes,
                        km.i32(0), km.i32(0), coords.quadLane);
    writeSwizzledOutput(km, smem, fragmentWords(dK, scale), kBoxes,
                        km.i32(0), km.i32(0), coords.quadLane);
    fenceAsyncShared(km);
    namedBarrierSync(km, consumer, storeBarrierId(), /*threads=*/128);
    {
      Value localTid = km.andi(tid, km.i32(127));
      auto leader = scf::IfOp::create(
          b, loc, km.cmp(P::eq, localTid, km.i32(0)), false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(leader.thenBlock()->getTerminator());
      Value firstColumn = km.mul(consumer, km.i32(ownColumns));
      tmaStoreBoxes(km, smem, tmDV, ownColumns,
                    [&](int64_t box) { return vBoxes[box]; }, kvStart, mapKV(),
                    firstColumn);
      tmaStoreBoxes(km, smem, tmDK, ownColumns,
                    [&](int64_t box) { return kBoxes[box]; }, kvStart, mapKV(),
                    firstColumn);
    }
  } else {
    storeOwnRows(dK, dV);
  }
  waitOutputRead(km, tid, [] {});
  // The stores are complete before the block's shared memory goes.
  auto ifIssuer = scf::IfOp::create(
      b, loc, km.cmp(P::ult, lane, km.i32(16)), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifIssuer.thenBlock()->getTerminator());
  NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, UnitAttr());
}

void BackwardKernel::storeOwnRows(const Fragment &dK, const Fragment &dV) {
  Value ownRows = km.mul(consumer, km.i32(64 * kSwizzleBytes));
  auto boxesAt = [&](int64_t base) {
    SmallVector<Value> boxes;
    for (int64_t box = 0; box < D / kAtomColumns; ++box)
      boxes.push_back(
          km.add(km.i32(base + box * Bc * kSwizzleBytes), ownRows));
    return boxes;
  };
  // dV over this warpgroup's own rows of V (only its own dPᵀ GEMMs read
  // them, and they have completed).
  SmallVector<Value> vBoxes = boxesAt(layout.offV);
  writeSwizzledOutput(km, smem, fragmentWords(dV, Value()), vBoxes, km.i32(0),
                      consumer, coords.quadLane);
  storeOutputTma(km, smem, tmDV, D, tid, consumer, storeBarrierId(),
                 kvStart, mapKV(), [&](int64_t box) { return vBoxes[box]; });
  // dK·scale over its rows of K, once every consumer's last dQ GEMM has
  // read K.
  namedBarrierSync(km, km.i32(0), consumersBarrierId(), /*threads=*/128 * C);
  SmallVector<Value> kBoxes = boxesAt(layout.offK);
  writeSwizzledOutput(km, smem, fragmentWords(dK, scale), kBoxes, km.i32(0),
                      consumer, coords.quadLane);
  storeOutputTma(km, smem, tmDK, D, tid, consumer, storeBarrierId(),
                 kvStart, mapKV(), [&](int64_t box) { return kBoxes[box]; });
}

//===----------------------------------------------------------------------===//
// Consumers by roles (splitsRoles)
//===----------------------------------------------------------------------===//

void BackwardKernel::roleStep(Value ring, Value qStart, bool masked,
                              Fragment &acc) {
  using P = arith::CmpIPredicate;
  SharedBase entrySmem = smem;
  smem = sharedBase();
  auto [stage, use] = layout.full.slotOf(km, ring);
  layout.full.waitComplete(km, smem, {stage, use});
  Value qTile = slotOffset(layout.offQ, stage);
  Value doTile = km.i32(layout.offDO);
  Value hasPrevious = km.cmp(P::sgt, ring, km.i32(0));
  // The previous step's dQ (its dSᵀ is complete), behind this step's first
  // gradient GEMM in either role.
  auto addPreviousDQ = [&] {
    auto ifPrevious = scf::IfOp::create(b, loc, hasPrevious, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifPrevious.thenBlock()->getTerminator());
    addDQParts(km.sub(ring, km.i32(1)));
  };
  // Pᵀ in fragment order (both consumers' fragments of the 64 × Br step
  // have one layout): thread t's values 4q..4q+3 at (q·128 + t)·16.
  Value localTid = km.andi(tid, km.i32(127));
  auto f32x4 = VectorType::get({4}, b.getF32Type());
  auto pSlot = [&](int64_t q) {
    return smem.at(km, km.add(km.i32(layout.offP + q * 128 * 16),
                              km.mul(localTid, km.i32(16))));
  };
  if (role == 0) {
    // Sᵀ = K·Q_iᵀ, Pᵀ, dV += Pᵀ·dO_i.
    WgmmaOperand kRows{wgmmaDescriptor(km, smem, km.i32(layout.offK), 16),
                       false, Bc};
    wgmmaFence(km);
    Fragment scores = wgmmaSS(
        km, et, kRows, {wgmmaDescriptor(km, smem, qTile, 16), false, Br}, Br,
        D);
    wgmmaCommit(km);
    wgmmaWait(km, 0);
    SmallVector<Value> shifts = columnValues(layout.offShift, stage);
    // This consumer has read Q_i and the shift.
    layout.empty.arrive(km, smem, stage);
    if (masked) {
      Value keyRows = km.add(kvStart, km.mul(warpInGroup, km.i32(16)));
      buildKeyRowMask(km, scores, coords, keyRows, qStart, seqQ, seqKV,
                      config.causal);
    }
    Fragment probs = buildRecomputedProbs(km, scores, shifts,
                                          /*perColumn=*/true, scaleLog2e);
    // Consumer 1 has read the last step's Pᵀ (use ring − 1 of pEmpty).
    {
      auto ifPrevious = scf::IfOp::create(b, loc, hasPrevious, false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(ifPrevious.thenBlock()->getTerminator());
      layout.pEmpty.waitComplete(km, smem,
                                 {km.i32(0), km.sub(ring, km.i32(1))});
    }
    for (int64_t q = 0; q < (int64_t)probs.regs.size() / 4; ++q) {
      Value quad = vector::FromElementsOp::create(
          b, loc, f32x4,
          ValueRange{probs.regs[4 * q], probs.regs[4 * q + 1],
                     probs.regs[4 * q + 2], probs.regs[4 * q + 3]});
      LLVM::StoreOp::create(b, loc, quad, pSlot(q), /*alignment=*/16);
    }
    layout.pFull.arrive(km, smem, km.i32(0));
    SmallVector<Value> probWords = operandWords(probs);
    layout.doFull.waitComplete(km, smem, {km.i32(0), ring});
    wgmmaFence(km);
    acc = wgmmaRS(km, et, acc, probWords,
                  wgmmaDescriptor(km, smem, doTile, Br * kSwizzleBytes), D, Br);
    wgmmaCommit(km);
    addPreviousDQ();
    wgmmaWait(km, 0);
    keepAlive(km, probWords);
    layout.doEmpty.arrive(km, smem, km.i32(0));
  } else {
    // dPᵀ = V·dO_iᵀ, dSᵀ = Pᵀ∘(dPᵀ − Δ), dK += dSᵀ·Q_i.
    layout.doFull.waitComplete(km, smem, {km.i32(0), ring});
    WgmmaOperand vRows{wgmmaDescriptor(km, smem, km.i32(layout.offV), 16),
                       false, Bc};
    wgmmaFence(km);
    Fragment probsGradient = wgmmaSS(
        km, et, vRows, {wgmmaDescriptor(km, smem, doTile, 16), false, Br}, Br,
        D);
    wgmmaCommit(km);
    wgmmaWait(km, 0);
    layout.doEmpty.arrive(km, smem, km.i32(0));
    layout.pFull.waitComplete(km, smem, {km.i32(0), ring});
    Fragment probs = probsGradient;
    for (int64_t q = 0; q < (int64_t)probs.regs.size() / 4; ++q) {
      Value quad = LLVM::LoadOp::create(b, loc, f32x4, pSlot(q),
                                        /*alignment=*/16);
      for (int64_t e = 0; e < 4; ++e)
        probs.regs[4 * q + e] =
            vector::ExtractOp::create(b, loc, quad, ArrayRef<int64_t>{e});
    }
    layout.pEmpty.arrive(km, smem, km.i32(0));
    SmallVector<Value> deltas = columnValues(layout.offDelta, stage);
    Fragment gradient = buildScoreGradient(km, probs, probsGradient, deltas,
                                           /*perColumn=*/true);
    SmallVector<Value> gradientWords = operandWords(gradient);
    wgmmaFence(km);
    acc = wgmmaRS(km, et, acc, gradientWords,
                  wgmmaDescriptor(km, smem, qTile, Br * kSwizzleBytes), D, Br);
    wgmmaCommit(km);
    addPreviousDQ();
    // This step's dSᵀ, all of it (buffer ring mod 2: its last readers, dQ
    // two steps back, have completed in both consumers; addDQParts waited
    // for consumer 0's arrival of the last step).
    Value dsBuffer = dsBufferOf(ring);
    SmallVector<Value> boxes;
    for (int64_t box = 0; box < Br / kAtomColumns; ++box)
      boxes.push_back(km.add(dsBuffer, km.i32(box * Bc * kSwizzleBytes)));
    writeSwizzledOutput(km, smem, fragmentWords(gradient, Value()), boxes,
                        km.i32(0), km.i32(0), coords.quadLane);
    fenceAsyncShared(km);
    wgmmaWait(km, 0);
    keepAlive(km, gradientWords);
    layout.empty.arrive(km, smem, stage);
  }
  namedBarrierArrive(km, dsBarrier(consumer, ring), /*firstId=*/1,
                     /*threads=*/128 * C);
  smem = entrySmem;
}

void BackwardKernel::buildRoleConsumer() {
  Value zero = km.f32(0.0);
  Value tilesPerHead = km.sub(tiles.numTiles, tiles.firstTile);
  auto roleBody = [&] {
    SmallVector<Value> inits(D / 2, zero);
    auto unpack = [&](ValueRange values) {
      Fragment acc(1, D / 8, Value());
      acc.regs.assign(values.begin(), values.end());
      return acc;
    };
    Fragment done = unpack(walkSteps(
        tilesPerHead, inits,
        [&](Value ring, Value qStart, bool masked, ValueRange carried) {
          Fragment acc = unpack(carried);
          roleStep(ring, qStart, masked, acc);
          return SmallVector<Value>(acc.regs);
        }));
    storeRoleGradient(done);
  };
  auto ifFirst = scf::IfOp::create(
      b, loc, km.cmp(arith::CmpIPredicate::eq, consumer, km.i32(0)), true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifFirst.thenBlock()->getTerminator());
    role = 0;
    roleBody();
    b.setInsertionPoint(ifFirst.elseBlock()->getTerminator());
    role = 1;
    roleBody();
    role = 0;
  }
}

void BackwardKernel::storeRoleGradient(const Fragment &acc) {
  using P = arith::CmpIPredicate;
  // Every consumer's GEMMs have read K and V: dV (consumer 0) over V's
  // column blocks, dK·scale (consumer 1) over K's, each stored by its
  // warpgroup's leader.
  namedBarrierSync(km, km.i32(0), consumersBarrierId(), /*threads=*/128 * C);
  int64_t base = role == 0 ? layout.offV : layout.offK;
  SmallVector<Value> boxes;
  for (int64_t box = 0; box < D / kAtomColumns; ++box)
    boxes.push_back(km.i32(base + box * Bc * kSwizzleBytes));
  writeSwizzledOutput(km, smem, fragmentWords(acc, role == 0 ? Value() : scale),
                      boxes, km.i32(0), km.i32(0), coords.quadLane);
  fenceAsyncShared(km);
  namedBarrierSync(km, consumer, storeBarrierId(), /*threads=*/128);
  {
    Value localTid = km.andi(tid, km.i32(127));
    auto leader =
        scf::IfOp::create(b, loc, km.cmp(P::eq, localTid, km.i32(0)), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(leader.thenBlock()->getTerminator());
    tmaStoreBoxes(km, smem, role == 0 ? tmDV : tmDK, D,
                  [&](int64_t box) { return boxes[box]; }, kvStart, mapKV(),
                  km.i32(0));
  }
  waitOutputRead(km, tid, [] {});
  auto ifIssuer = scf::IfOp::create(
      b, loc, km.cmp(P::ult, lane, km.i32(16)), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifIssuer.thenBlock()->getTerminator());
  NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, UnitAttr());
}


//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

void BackwardKernel::build(LLVM::LLVMFuncOp func) {
  using P = arith::CmpIPredicate;
  Block *entry = func.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  unsigned a = 0;
  tmQ = entry->getArgument(a++);
  tmK = entry->getArgument(a++);
  tmV = entry->getArgument(a++);
  tmDO = entry->getArgument(a++);
  tmDK = entry->getArgument(a++);
  tmDV = entry->getArgument(a++);
  shiftPtr = entry->getArgument(a++);
  deltaPtr = entry->getArgument(a++);
  accumPtr = entry->getArgument(a++);
  if (config.deterministic)
    semaphorePtr = entry->getArgument(a++);
  if (countsHeadsDone)
    donePtr = entry->getArgument(a++);
  a++; // B: the grid's z
  queryHeads = entry->getArgument(a++);
  kvHeads = entry->getArgument(a++);
  seqQ = entry->getArgument(a++);
  seqKV = entry->getArgument(a++);
  scale = entry->getArgument(a++);
  scaleLog2e = arith::MulFOp::create(b, loc, scale, km.f32(M_LOG2E));

  auto blockId = [&](gpu::Dimension d) -> Value {
    return arith::IndexCastUIOp::create(b, loc, b.getI32Type(),
                                        gpu::BlockIdOp::create(b, loc, d));
  };
  tid = arith::IndexCastUIOp::create(
      b, loc, b.getI32Type(),
      gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  // Block (j, kv-head, batch): K/V tile j; the q-heads of the group are
  // batch·Hq + kvHead·G + h, h < G = Hq / Hkv.
  kvTile = blockId(gpu::Dimension::x);
  Value kvHead = blockId(gpu::Dimension::y);
  Value batch = blockId(gpu::Dimension::z);
  kvStart = km.mul(kvTile, km.i32(Bc));
  headKV = km.add(km.mul(batch, kvHeads), kvHead);
  groupSize = km.divu(queryHeads, kvHeads);
  firstHeadQ = km.add(km.mul(batch, queryHeads), km.mul(kvHead, groupSize));
  if (config.sm90.batchMaps) {
    batchEntry = batch;
    kvHeadInBatch = kvHead;
    firstHeadInBatch = km.mul(kvHead, groupSize);
  }
  paddedQ = km.mul(km.divu(km.add(seqQ, km.i32(sm80::kBackwardRowBlock - 1)),
                           km.i32(sm80::kBackwardRowBlock)),
                   km.i32(sm80::kBackwardRowBlock));
  // The Q tiles that see K/V tile j: [firstTile, firstUnmasked) masked.
  tiles = buildQTileRange(km, kvStart, seqQ, seqKV, Bc, Br, config.causal);
  // Rotated: from Q tile kvTile mod numTiles on when the head has at most
  // kBackwardRotateMaxQTiles Q tiles, else from tile 0.
  if (rotatesQTiles())
    rotation = arith::SelectOp::create(
        b, loc,
        km.cmp(P::sle, tiles.numTiles, km.i32(kBackwardRotateMaxQTiles)),
        kvTile, km.i32(0));

  auto window = SymbolTable::lookupNearestSymbolFrom<LLVM::GlobalOp>(
      func, b.getStringAttr("flash_smem"));
  smem = alignSharedBase(km, window);
  smem.rankBits = clusterDQ;
  auto init = scf::IfOp::create(b, loc, km.cmp(P::eq, tid, km.i32(0)), false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(init.thenBlock()->getTerminator());
    // Full barriers: the producer's expect_tx is the one arrival. Empty:
    // every consumer thread, after its GEMMs of the step have completed.
    mbarrierInit(km, layout.kvFull.address(km, smem, km.i32(0)), km.i32(1));
    // dQ full: every consumer thread, once it has staged its part of a
    // step's dQ. dQ empty: the writer, once the reduction has read the tile;
    // one arrival now, so that the consumers' wait for the tile of step s is
    // for phase s. (Unused where the consumers add dQ themselves.)
    if (!columnSplit) {
      mbarrierInit(km, layout.dqFull.address(km, smem, km.i32(0)),
                   km.i32(128 * C));
      mbarrierInit(km, layout.dqEmpty.address(km, smem, km.i32(0)),
                   km.i32(1));
    }
    // Roles: Pᵀ written by consumer 0's threads, read by consumer 1's.
    if (roles) {
      mbarrierInit(km, layout.pFull.address(km, smem, km.i32(0)),
                   km.i32(128));
      mbarrierInit(km, layout.pEmpty.address(km, smem, km.i32(0)),
                   km.i32(128));
    }
    if (doSlots(config) == 1) {
      mbarrierInit(km, layout.doFull.address(km, smem, km.i32(0)), km.i32(1));
      mbarrierInit(km, layout.doEmpty.address(km, smem, km.i32(0)),
                   km.i32(128 * C));
    }
    for (int64_t s = 0; s < S; ++s) {
      mbarrierInit(km, layout.full.address(km, smem, km.i32(s)), km.i32(1));
      mbarrierInit(km, layout.empty.address(km, smem, km.i32(s)),
                   km.i32(128 * C));
    }
    // A cluster: per consumer warp, the 32 lanes of the partner's warp
    // arrive on dqArrived (their part is here) and on dqTaken (its buffer
    // has been read).
    for (int64_t w = 0; clusterDQ && w < 4 * C; ++w) {
      mbarrierInit(km, layout.dqArrived.address(km, smem, km.i32(w)),
                   km.i32(32));
      mbarrierInit(km, layout.dqTaken.address(km, smem, km.i32(w)),
                   km.i32(32));
    }
    NVVM::FenceMbarrierInitOp::create(b, loc);
    if (!columnSplit)
      layout.dqEmpty.arrive(km, smem, km.i32(0));
  }
  if (!clusterDQ) {
    gpu::BarrierOp::create(b, loc);
    // Warpgroup 0 produces, warpgroups 1..C consume.
    buildRoles(km, tid, [&] { buildProducer(); }, [&] { buildConsumer(); });
    LLVM::ReturnOp::create(b, loc, ValueRange{});
    return;
  }
  // A cluster: both blocks' barriers are initialised before either block
  // arrives on the other's; a block past Nk (the partner of the last K/V
  // tile when their number is odd) has no work, and its partner adds its
  // dQ alone (partnerHasTile); neither leaves before the other has stopped
  // writing its shared memory.
  clusterSync(km);
  {
    auto ifTile = scf::IfOp::create(
        b, loc, km.cmp(P::slt, kvStart, seqKV), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifTile.thenBlock()->getTerminator());
    buildRoles(km, tid, [&] { buildProducer(); }, [&] { buildConsumer(); });
  }
  clusterSync(km);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
}

//===----------------------------------------------------------------------===//
// Contract
//===----------------------------------------------------------------------===//

/// The plan's shared kernels and workspaces are those of sm_80's plan with
/// dQ through the accumulator (the deterministic one too: its order comes
/// from the semaphores, not from a dQ kernel).
static KernelConfig accumulatorPlan(const KernelConfig &c) {
  KernelConfig atomic = c;
  atomic.deterministic = false;
  return atomic;
}

int64_t sm90::dqSemaphoresPerRowBlock(const KernelConfig &c) {
  return c.deterministic
             ? sm80::kBackwardRowBlock / c.blockQ
             : 0;
}

/// The row passes whose loads a thread of the preprocess and of the dQ
/// convert issues together (sm80::BackwardLaunch::loadPasses).
static constexpr int64_t kSideKernelLoadPasses = 16;

SmallVector<sm80::BackwardLaunch>
sm90::backwardLaunches(const KernelConfig &c) {
  SmallVector<sm80::BackwardLaunch> launches =
      sm80::backwardLaunches(accumulatorPlan(c));
  using Role = sm80::BackwardLaunch::Role;
  for (sm80::BackwardLaunch &launch : launches) {
    if (launch.role == Role::Preprocess && c.deterministic) {
      auto accum = llvm::find(launch.args, "dq_accum:ptr");
      launch.args.insert(std::next(accum), "dq_semaphore:ptr");
      launch.semaphoresPerRowBlock = dqSemaphoresPerRowBlock(c);
    }
    // The main kernel's prologue overlaps the preprocess's last blocks.
    if (launch.role == Role::Preprocess)
      launch.launchesDependents = kBackwardMainOverlapsPreprocess;
    // The side kernels are bound by memory: each thread issues the loads of
    // up to 16 row passes at once (all of a row block's at D = 64 and 128;
    // two groups at D = 256) instead of one (on the H200 the preprocess 2.7
    // to 4.4 µs faster, the convert 1.6 to 4.8: docs/benchmarks.md,
    // twenty-first session; 4 or 8 passes gain less, 8 is slower at D = 256).
    if (launch.role == Role::Preprocess || launch.role == Role::Convert)
      launch.loadPasses = kSideKernelLoadPasses;
    if (convertOverlapsMain(c)) {
      if (launch.role == Role::Preprocess) {
        launch.args.push_back("dq_done:ptr");
        launch.zeroesHeadCounters = true;
      }
      if (launch.role == Role::Convert) {
        launch.args.append({"dq_done:ptr", "Nk:i32"});
        launch.waitsForHeadsOfKVRows = c.blockKV;
        launch.programmaticDependentLaunch = true;
      }
    }
    // The writer adds whole tiles in the accumulator's chunk order (dqChunk).
    if (launch.role == Role::Convert) {
      launch.swizzledAccumulator = true;
      launch.pairedAccumulator = pairedDQ(c);
      launch.blockedAccumulator = blockedDQ(c);
    }
    if (launch.role != Role::Main)
      continue;
    launch.args = {"q:tensormap",  "k:tensormap",  "v:tensormap",
                   "dout:tensormap", "dk:tensormap", "dv:tensormap",
                   "lse_log2:ptr", "delta:ptr",    "dq_accum:ptr",
                   "B:i32",        "Hq:i32",       "Hkv:i32",
                   "Nq:i32",       "Nk:i32",       "scale:f32"};
    // One block per K/V tile, heads and batches above (the kernel reads
    // blockIdx in this order; sm_80's causal grid order is its own).
    // A cluster of two: an even number of blocks along x (the last one past
    // Nk when the K/V tiles are odd in number).
    launch.grid = {"ceildiv(Nk, " + std::to_string(c.blockKV) + ")", "Hkv",
                   "B"};
    if (c.sm90.clusterBlocks == 2)
      launch.grid[0] =
          "2*ceildiv(Nk, " + std::to_string(2 * c.blockKV) + ")";
    if (c.deterministic)
      launch.args.insert(launch.args.begin() + 9, "dq_semaphore:ptr");
    if (convertOverlapsMain(c))
      launch.args.insert(launch.args.begin() + 9, "dq_done:ptr");
    launch.threads = 128 * (c.sm90.consumers + 1);
    launch.sharedBytes = backwardSharedBytes(c);
    launch.programmaticDependentLaunch = kBackwardMainOverlapsPreprocess;
  }
  return launches;
}

SmallVector<sm80::BackwardWorkspace>
sm90::backwardWorkspaces(const KernelConfig &c) {
  SmallVector<sm80::BackwardWorkspace> workspaces =
      sm80::backwardWorkspaces(accumulatorPlan(c));
  if (convertOverlapsMain(c))
    workspaces.push_back({"dq_done", "B*Hq*4"});
  if (int64_t perRowBlock = dqSemaphoresPerRowBlock(c))
    workspaces.push_back(
        {"dq_semaphore", "B*Hq*ceildiv(Nq, " +
                             std::to_string(sm80::kBackwardRowBlock) + ")*" +
                             std::to_string(perRowBlock) + "*4"});
  return workspaces;
}

int64_t sm90::backwardSharedBytes(const KernelConfig &config) {
  return BackwardLayout(config).total;
}

SmallVector<NamedAttribute>
sm90::describeBackwardMain(Builder &b, const KernelConfig &c) {
  auto map = [&](StringRef tensor, int64_t boxRows) {
    return describeTensorMap(b, tensor, boxRows, c.sm90.batchMaps);
  };
  SmallVector<NamedAttribute> fields = {b.getNamedAttr(
      "tensor_maps",
      b.getArrayAttr({map("q", c.blockQ), map("k", c.blockKV),
                      map("v", c.blockKV), map("dout", c.blockQ),
                      map("dk", 64), map("dv", 64)}))};
  llvm::append_range(fields, describeWarpgroups(b, c));
  return fields;
}

static void buildMainKernel(OpBuilder &b, Location loc,
                            const KernelConfig &config,
                            const sm80::BackwardLaunch &launch) {
  auto global = LLVM::LLVMPointerType::get(b.getContext(), 1);
  Type i32 = b.getI32Type();
  // (tmQ, tmK, tmV, tmDO, tmDK, tmDV;) shift, Δ, the dQ accumulator; B, Hq,
  // Hkv, Nq, Nk, scale
  SmallVector<Type> params = {global, global, global, i32, i32,
                              i32,    i32,    i32,    b.getF32Type()};
  if (config.deterministic) // the dq_semaphore workspace, after dq_accum
    params.insert(params.begin() + 3, global);
  if (convertOverlapsMain(config)) // the dq_done workspace, after dq_accum
    params.insert(params.begin() + 3, global);
  LLVM::LLVMFuncOp func = declareTensorMapKernel(
      b, loc, config.name, /*numTensorMaps=*/6, params,
      128 * (config.sm90.consumers + 1), /*minBlocksPerSM=*/1);
  // .reqnctapercluster: the runtime's launch forms the clusters.
  if (config.sm90.clusterBlocks > 1)
    func->setAttr("nvvm.cluster_dim",
                  b.getDenseI32ArrayAttr(
                      {static_cast<int32_t>(config.sm90.clusterBlocks), 1, 1}));
  OpBuilder::InsertionGuard guard(b);
  BackwardKernel kernel(b, loc, config);
  kernel.waitsForPreprocess = launch.programmaticDependentLaunch;
  kernel.countsHeadsDone = convertOverlapsMain(config);
  kernel.build(func);
}

LogicalResult mlir::flash::buildSM90BackwardKernels(OpBuilder &b, Location loc,
                                                    const KernelConfig &config) {
  for (const sm80::BackwardLaunch &launch : sm90::backwardLaunches(config)) {
    if (launch.role == sm80::BackwardLaunch::Role::Main)
      buildMainKernel(b, loc, config, launch);
    else
      sm80::buildBackwardKernel(b, loc, accumulatorPlan(config), launch);
  }
  return success();
}
