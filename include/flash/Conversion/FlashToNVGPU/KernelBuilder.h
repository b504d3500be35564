//===- KernelBuilder.h - what every attention kernel shares ----*- C++ -*-===//
//
// The arch-independent half of the GPU lowering. Tensor-core accumulators of
// mma.sync (sm_80) and, per warp, of wgmma (sm_90a) share one register
// layout (AccumulatorLayout::Kind::MmaQuad): a warp owns 16·k rows; element
// i of the 8-column tile nt of the 16-row tile mt sits in lane (g, t) =
// (lane / 4, lane % 4) at
//   row = mt·16 + 8·(i / 2) + g,  col = nt·8 + 2·t + (i % 2).
// sm_100a's tcgen05.ld (32x32b) gives each thread whole rows instead
// (Kind::RowPerThread: thread t of a warpgroup holds row t, all columns).
// On either layout (carried by the Fragment) this file writes, once, the K/V
// tile range of a Q tile (causal skipping), the mask, the online softmax
// (row statistics reduced over the lanes that share a row: the four lanes
// of a quad, or none), the packing of P as 16-bit pairs, and the epilogue
// (O = acc / l, LSE). The per-arch files add the memory movement and the
// MMA.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_FLASHTONVGPU_KERNELBUILDER_H
#define FLASH_CONVERSION_FLASHTONVGPU_KERNELBUILDER_H

#include "flash/Dialect/Flash/IR/Flash.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

#include <string>

namespace mlir {
namespace flash {

/// The sm_90a part of a kernel's configuration: its form (#flash.sm90_form)
/// and the resources that form takes (SM90/FormPolicy.cpp fills it).
struct SM90Config {
  /// Consumer warpgroups (64 rows each) and the register split of
  /// setmaxnreg between the producer warpgroup and the consumers.
  int64_t consumers = 0, producerRegisters = 0, consumerRegisters = 0;
  /// One block per SM looping over tiles (grid from the runtime).
  bool persistent = false;
  /// Consumer warpgroups issue their GEMMs in turn (named barriers).
  bool pingPong = false;
  /// Q tiles in shared memory; with 2, a persistent block loads the next
  /// tile's Q while it computes this one.
  int64_t qBuffers = 1;
  /// Persistent with one Q buffer: O is staged in a slot of the K/V ring
  /// instead of over Q, so that the next tile's Q loads as soon as this
  /// tile's last Q·Kᵀ has completed (SM90/ForwardKernel.cpp, "O in the K/V
  /// ring").
  bool outputInRing = false;
  /// Tile 0 of a Q tile is masked only when it is ragged or crosses the
  /// diagonal (a uniform branch over the mask and the first softmax);
  /// otherwise it is always masked (the `first-tile-mask` option).
  bool branchFirstTileMask = false;
  /// Causal: Q tiles are handed out longest first across groups of heads
  /// whose K/V take at most this many bytes, once a head has at least
  /// kMinGroupedQTiles Q tiles (the `tile-order` option; 0: head by head).
  int64_t tileGroupBytes = 0;
  static constexpr int64_t kMinGroupedQTiles = 16;
  /// A persistent block with two Q buffers, or one and O in the K/V ring,
  /// runs its tiles as one pipeline (the next tile's first Q·Kᵀ is issued
  /// before this tile's O is stored).
  bool pipelinesTiles() const {
    return persistent && (qBuffers == 2 || outputInRing);
  }
  /// Pipelined tiles: the warpgroup leader waits for the TMA store of O to
  /// have read shared memory (and releases it) after the next tile's first
  /// softmax instead of right after issuing the store, so that its warp does
  /// not hold up the warpgroup there (the `store-wait` option).
  bool deferStoreWait = false;
  /// Causal, two or more consumer warpgroups: each warpgroup visits only the
  /// K/V tiles its own 64 rows see, not the whole block's range; the
  /// producer arrives on the empty barriers of the tiles a warpgroup skips,
  /// and the warpgroup takes their ping-pong turns without GEMMs (the
  /// `kv-range` option).
  bool warpgroupRanges = false;
  /// The backward at D = 256: blocks per cluster along the K/V tiles (1 or
  /// 2; schedule block_kv = 64 · clusterBlocks). With 2, the two blocks of a
  /// cluster take neighbouring K/V tiles of one (batch, kv-head) and add
  /// their dQ of a Q tile through distributed shared memory before the
  /// reductions into the accumulator, each reducing half of the slices
  /// (SM90/BackwardKernel.cpp, "the cluster's dQ").
  int64_t clusterBlocks = 1;

  /// The tensor maps are rank 4 over (D, N, H, B) and the kernels address
  /// boxes at (column, row, head, batch entry), so a tensor's batch has its
  /// own stride (B×N×H×D views of any B in one launch); otherwise rank 3
  /// over (D, N, B·H) (the `batch-maps` option of flash-lower-to-nvgpu).
  bool batchMaps = false;
};

/// The split-KV (Flash-Decoding) kernel's own part, for descriptors of kind
/// split_kv and paged (SM80/DecodeKernel.cpp, both arches): a block computes
/// one row tile (the GQA group's q-heads × Nq rows of one (batch, kv-head),
/// at most 16·mTiles of them) against one part of the sequence's keys, its
/// warps splitting every K/V tile of blockKV keys by 16 keys each; the
/// block that finishes a row tile's last part merges the parts by their LSE.
struct DecodeConfig {
  /// K/V through a block table from pages (paged) or contiguous B×Hkv×Nk×D.
  bool paged = false;
  /// The descriptor's page size (the compiled shape; the kernel takes S at
  /// run time from the cache's shape).
  int64_t pageSize = 0;
  /// Paged: the page sizes for which the plan carries a fused split kernel
  /// of its own (`<name>_s<S>`, S a constant), beside the one that takes any
  /// S (flash-lower-to-nvgpu's fused-page-sizes; decodeDefaultFusedPageSizes).
  SmallVector<int64_t> fusedPageSizes;
  /// The kernel being built takes pages of this many slots only (a
  /// constant; 0: S is its argument).
  int64_t constantPageSize = 0;
  /// Parts of a sequence at most: the grid's x extent and the workspace.
  int64_t maxSplits = 0;
  /// Blocks an SM the split count aims at: splitKVBlocksPerSM of the
  /// stages and the K row bytes (Target/SplitKV.h), for the kernels' own
  /// count and the launch plan's grid alike.
  int64_t blocksPerSM = 0;
  /// Paged: block-table entries the block copies into shared memory
  /// (decodeTableWindow, SM80/DecodePages.h); 0 when contiguous.
  int64_t tableWindow = 0;
  /// 16-row MMA tiles of the row tile (blockQ = 16·mTiles).
  int64_t mTiles = 0;
};

/// Which of a row's exponentials of P the online softmax computes with
/// KernelMath::exp2Polynomial (FMA units) rather than ex2.approx (MUFU):
/// register column c when c % period < polynomial. {0, 1}: none.
struct Exp2Split {
  int64_t polynomial = 0;
  int64_t period = 1;
  bool onFmaUnits(int64_t column) const {
    return column % period < polynomial;
  }
};

/// What one attention kernel computes and how, from its #flash.kernel
/// descriptor (kernelConfigFromDescriptor, KernelForm.h): the part every
/// arch shares, and each arch's own part.
struct KernelConfig {
  std::string name;       ///< gpu.func symbol
  std::string arch;       ///< sm_80, ...
  Type elementType;       ///< f16 or bf16
  int64_t headDim = 0;    ///< D (= Dv for now)
  int64_t blockQ = 0;     ///< Br
  int64_t blockKV = 0;    ///< Bc
  int64_t warps = 0;
  int64_t stages = 0;
  bool causal = false;
  bool writesLse = false;
  float scale = 1.0f;     ///< scale of the op (the kernel takes it as an argument)
  int64_t sharedBytes = 0;
  /// The shapes the op had (the kernel takes B, H, N at run time).
  int64_t batch = 0, queryHeads = 0, kvHeads = 0, seqQ = 0, seqKV = 0;
  /// Blocks resident per SM (nvvm.minctasm): 2 where shared memory and the
  /// register file hold two, so one block's prologue and epilogue overlap
  /// the other's main loop.
  int64_t blocksPerSM = 1;
  /// How the O accumulator is rescaled (the `rescale` form; sm_80: Eager):
  /// Eager at every new row max; Lazy and LazyLate keep a row's max until a
  /// tile exceeds it by kLazyRescaleLog2 (buildOnlineSoftmax) and skip the
  /// rescale in warps that need none, after the P·V that precedes it or
  /// just before the next P·V.
  enum class Rescale { Eager, Lazy, LazyLate };
  Rescale rescale = Rescale::Eager;
  /// The share of P's exponentials on the FMA units (sm_100a: the form
  /// policy's, from the target model; none elsewhere).
  Exp2Split exp2Split;
  static constexpr double kLazyRescaleLog2 = 8.0; ///< P ≤ 2^8
  double lazyThreshold() const {
    return rescale == Rescale::Eager ? -1.0 : kLazyRescaleLog2;
  }
  /// The sm_90a kernel's own part (its #flash.sm90_form and the resources it
  /// implies); default-initialised on other arches.
  SM90Config sm90;
  /// What the kernel computes (forward, split_kv, paged, or the backward's
  /// preprocess, main and dQ kernels in one plan).
  KernelKind kind = KernelKind::Forward;
  /// The split-KV kernels' part (kinds split_kv and paged).
  DecodeConfig decode;
  bool isDecode() const {
    return kind == KernelKind::SplitKV || kind == KernelKind::Paged;
  }
  /// Backward: no order-dependent floating-point reductions (dQ by its own
  /// kernel over Q tiles instead of f32 atomics).
  bool deterministic = false;
  /// sm_80 forward: q, k, v and O addressed through the stride arguments
  /// `<tensor>_stride0..2` (elements of B, H, N; the runtime binds a call's
  /// strides), so strided views (B×N×H×D transposed) need no copy; otherwise
  /// rows of D elements, heads N·D apart (the `strides` option of
  /// flash-lower-to-nvgpu). sm_80 backward: the main and dQ kernels the
  /// same for q, k, v, dO, dK, dV and dQ (the preprocess and convert kernels
  /// take strides in either form).
  bool strided = false;

  int64_t threads() const { return 32 * warps; }
  /// 16-row MMA tiles per warp.
  int64_t mTilesPerWarp() const { return blockQ / (16 * warps); }
};

/// Scalar arithmetic on one builder and location (i32 unless named).
///
/// Two modes. On the GPU (hostLanes = 0) a value is one thread's scalar.
/// In host-lanes mode (hostLanes = 32, the CPU harness of the kernel math,
/// test/lib/TestKernelMath.cpp) every per-thread value is a
/// vector<32 x T>, element l holding lane l's value, so that the builder
/// functions below run one whole warp under mlir-runner: arith ops work
/// elementwise unchanged, and the few warp-level operations (xor shuffles,
/// the vote, ex2/lg2, the predicated stores) are the members below, which
/// emit the GPU op or its host equivalent. In GPU mode they emit exactly
/// the ops the kernels always had (the shipped PTX is pinned).
/// The coefficients c1, c2, c3 of KernelMath::exp2Polynomial: a minimax
/// fit (Lawson's iteration, relative error, c0 fixed at 1) of 2^f on
/// [-1/2, 1/2], rounded to f32. python/tests/test_exp2_polynomial.py reads
/// them from this line and measures the error of the f32 evaluation.
inline constexpr float kExp2Polynomial[3] = {0x1.62f5fap-1f, 0x1.f00bfep-3f,
                                             0x1.c2a15cp-5f};

struct KernelMath {
  OpBuilder &b;
  Location loc;
  /// 0 on the GPU; otherwise the lanes of the simulated warp (32).
  int64_t hostLanes = 0;
  /// Host lanes: the lane masks of the enclosing ifLanes regions.
  SmallVector<Value, 2> laneMasks = {};

  bool onHost() const { return hostLanes != 0; }
  /// `scalar` on the GPU, vector<hostLanes x scalar> on the host.
  Type laneType(Type scalar);

  Value i32(int64_t v);
  Value index(int64_t v);
  Value f32(double v);
  Value add(Value x, Value y);
  Value sub(Value x, Value y);
  Value mul(Value x, Value y);
  Value divu(Value x, Value y);
  Value divs(Value x, Value y);
  Value andi(Value x, Value y);
  Value xori(Value x, Value y);
  Value shru(Value x, Value y);
  Value minsi(Value x, Value y);
  Value maxsi(Value x, Value y);
  Value cmp(arith::CmpIPredicate p, Value x, Value y);
  Value select(Value c, Value x, Value y);
  Value toIndex(Value i32Value); ///< unsigned i32 -> index

  /// f32 a·b + c, 2^x, log2(x): single PTX instructions on the GPU
  /// (fma.rn.f32, ex2.approx.ftz.f32, lg2.approx.ftz.f32), the LLVM
  /// intrinsics on host vectors.
  Value fma(Value a, Value bValue, Value c);
  Value exp2(Value x);
  Value log2(Value x);
  /// 2^x on the FMA units instead of the MUFU (ex2.approx), for x < 127.5:
  /// x = j + f with j = round(x) (the 1.5·2^23 rounding trick, exact),
  /// 2^f ≈ 1 + f·(c1 + f·(c2 + f·c3)) on f ∈ [-1/2, 1/2]
  /// (kExp2Polynomial, three fma), times 2^j built from its exponent bits
  /// ((j + 127) << 23). x is clamped to -127 first (NaN kept), so that -inf
  /// (masked scores) and x ≤ -127 give +0 exactly, as ex2.approx.ftz does,
  /// and NaN gives NaN; +inf gives NaN (the softmax never passes it: x ≤ τ).
  /// Max relative error 2^-13.27 where 2^x is a normal number
  /// (python/tests/test_exp2_polynomial.py), below half an ulp of f16
  /// (2^-11) and bf16 (2^-8), the types P is rounded to.
  Value exp2Polynomial(Value x);
  /// The value of lane (lane ^ offset) of the warp (gpu.shuffle xor on the
  /// GPU, a vector.shuffle of the lanes on the host).
  Value shuffleXor(Value v, int64_t offset);
  /// Whether `predicate` holds on any lane of the warp, as a uniform i1
  /// (vote.sync.any on the GPU, an or-reduction over the lanes on the host).
  Value warpAny(Value predicate);
  /// Two f32 -> one 16-bit pair: vector<2 x elementType> on the GPU,
  /// vector<2·lanes x elementType> (lane l's pair at 2l, 2l + 1) on the host.
  Value packPair(Value x, Value y, Type elementType);
  /// A pair as the 32-bit word that holds it (element 0 in the low half).
  Value pairWord(Value pair);
  /// Runs `body` for the lanes where `condition` holds: an scf.if on the
  /// GPU; on the host the body runs for the whole warp and the stores in it
  /// (store below) are masked to those lanes.
  void ifLanes(Value condition, function_ref<void()> body);
  /// memref[index] = value (a masked vector.scatter on the host).
  void store(Value value, Value memref, Value index);
};

/// The i32 domain of the shared integer models (VisibleKV.h, SplitKV.h) in
/// the kernels: run-time sizes as i32 values, one KernelMath op each (the
/// host code's IntegerDomain, Target/IntegerDomain.h, on integers).
struct KernelI32Domain {
  using Value = mlir::Value;
  KernelMath &km;
  Value constant(int64_t v) { return km.i32(v); }
  Value add(Value x, Value y) { return km.add(x, y); }
  Value sub(Value x, Value y) { return km.sub(x, y); }
  Value mul(Value x, Value y) { return km.mul(x, y); }
  Value min(Value x, Value y) { return km.minsi(x, y); }
  Value max(Value x, Value y) { return km.maxsi(x, y); }
  Value floorDiv(Value x, Value y) { return km.divu(x, y); }
};

/// Which thread holds which accumulator element: the static half of the
/// layout (the per-thread half is LaneCoords). A thread holds
/// rowsPerThread rows of columnsPerRow columns; its row r is the row
///   rowBase + rowLane + rowOffset(r)
/// of the sequence and its column c the column
///   columnLane·columnLaneStride() + columnOffset(c)
/// of the tile, where (rowLane, columnLane) are LaneCoords (group,
/// quadLane). A row statistic (max, sum) is reduced over the lanes that
/// share the row by xor shuffles of reductionOffsets().
///   MmaQuad (mma.sync C, a warp of wgmma): rows r = mt·2 + half, columns
///     c = nt·2 + e; rowLane = g, columnLane = t; the four lanes of a quad
///     share a row (offsets 1, 2); lane t = 0 writes its statistics.
///   RowPerThread (tcgen05.ld 32x32b): rowLane = the thread's row, no
///     columnLane (null; column c is c); no lane shares a row, so there is
///     no shuffle and every thread writes its statistics.
struct AccumulatorLayout {
  enum class Kind { MmaQuad, RowPerThread };
  Kind kind = Kind::MmaQuad;
  int64_t rowsPerThread = 0, columnsPerRow = 0;

  /// mTiles 16-row tiles by nTiles 8-column tiles of the m16n8 C fragment.
  static AccumulatorLayout mmaQuad(int64_t mTiles, int64_t nTiles) {
    return {Kind::MmaQuad, 2 * mTiles, 2 * nTiles};
  }
  /// `rows` whole rows of `columns` columns per thread.
  static AccumulatorLayout rowPerThread(int64_t rows, int64_t columns) {
    return {Kind::RowPerThread, rows, columns};
  }

  bool isMmaQuad() const { return kind == Kind::MmaQuad; }
  int64_t numRegisters() const { return rowsPerThread * columnsPerRow; }
  /// The register holding this thread's row r, column c.
  int64_t registerOf(int64_t r, int64_t c) const {
    if (!isMmaQuad())
      return r * columnsPerRow + c;
    return ((r / 2) * (columnsPerRow / 2) + c / 2) * 4 + 2 * (r % 2) + c % 2;
  }
  /// This thread's row that register `reg` belongs to.
  int64_t rowOfRegister(int64_t reg) const {
    if (!isMmaQuad())
      return reg / columnsPerRow;
    return (reg / (2 * columnsPerRow)) * 2 + (reg % 4) / 2;
  }
  /// Row r relative to the thread's first row (rowBase + rowLane).
  int64_t rowOffset(int64_t r) const {
    return isMmaQuad() ? (r / 2) * 16 + 8 * (r % 2) : r;
  }
  /// Column c relative to columnLane·columnLaneStride().
  int64_t columnOffset(int64_t c) const {
    return isMmaQuad() ? (c / 2) * 8 + c % 2 : c;
  }
  /// Columns between the column bases of neighbouring columnLanes.
  int64_t columnLaneStride() const { return isMmaQuad() ? 2 : 0; }
  /// P is packed by pairs of columns (2c, 2c + 1): the index of pair cp of
  /// row r among SoftmaxStep::probs (MmaQuad: (mt·nTiles + nt)·2 + half).
  int64_t pairIndex(int64_t r, int64_t cp) const {
    if (!isMmaQuad())
      return r * (columnsPerRow / 2) + cp;
    return ((r / 2) * (columnsPerRow / 2) + cp) * 2 + r % 2;
  }
  /// Xor-shuffle offsets that combine the lanes sharing a row.
  ArrayRef<int64_t> reductionOffsets() const {
    static constexpr int64_t quad[] = {1, 2};
    return isMmaQuad() ? ArrayRef<int64_t>(quad) : ArrayRef<int64_t>();
  }
  /// Whether one lane writes a row's statistics for the lanes sharing it
  /// (lane t = 0 of a quad); otherwise every thread writes its own.
  bool oneWriterPerRow() const { return isMmaQuad(); }
};

/// Accumulator registers of one thread. In the default (MmaQuad) layout:
/// [mTiles][nTiles][4] f32; in any layout, `reg(r, c)` is row r, column c.
struct Fragment {
  int64_t mTiles = 0, nTiles = 0;
  AccumulatorLayout layout;
  SmallVector<Value> regs;

  Fragment() = default;
  Fragment(int64_t m, int64_t n, Value init)
      : mTiles(m), nTiles(n), layout(AccumulatorLayout::mmaQuad(m, n)),
        regs(m * n * 4, init) {}
  Fragment(AccumulatorLayout layout, Value init)
      : layout(layout), regs(layout.numRegisters(), init) {
    if (layout.isMmaQuad()) {
      mTiles = layout.rowsPerThread / 2;
      nTiles = layout.columnsPerRow / 2;
    }
  }
  /// MmaQuad only: element i of tile (mt, nt).
  Value &at(int64_t mt, int64_t nt, int64_t i) {
    return regs[(mt * nTiles + nt) * 4 + i];
  }
  Value &reg(int64_t r, int64_t c) { return regs[layout.registerOf(r, c)]; }
  /// Row statistics (m, l): one value per row of the thread (2·mTiles for
  /// MmaQuad).
  int64_t numRows() const { return layout.rowsPerThread; }
};

/// K/V tiles a Q tile visits: [0, numUnmasked) need no mask,
/// [numUnmasked, numTiles) cross the diagonal or the end of the sequence.
struct KVRange {
  Value numTiles, numUnmasked;
};
KVRange buildKVRange(KernelMath &km, Value qStart, Value seqQ, Value seqKV,
                     int64_t blockQ, int64_t blockKV, bool causal);

/// Q tiles that see the K/V rows [kvStart, kvStart + blockKV) (the
/// backward): [firstTile, firstUnmasked) need a mask, [firstUnmasked,
/// numTiles) see every key of the block (VisibleKV.h's visibleQTiles).
struct QTileRange {
  Value firstTile, firstUnmasked, numTiles;
};
QTileRange buildQTileRange(KernelMath &km, Value kvStart, Value seqQ,
                           Value seqKV, int64_t blockKV, int64_t blockQ,
                           bool causal);

/// Lane coordinates within the accumulator layout (the per-thread half of
/// AccumulatorLayout).
struct LaneCoords {
  /// The thread's row offset: MmaQuad g = lane / 4 (row within an 8-row
  /// half); RowPerThread the thread's row among the warp's rows.
  Value group;
  /// The thread's column lane: MmaQuad t = lane % 4 (column pair);
  /// RowPerThread null (the thread holds every column).
  Value quadLane;
};

/// S[.., col] = -inf where the key kvStart + col is past seqKV or (causal)
/// above the diagonal of its row. `rowBase` is the first row of the warp
/// within the sequence (qStart + warp·rows).
void buildFragmentMask(KernelMath &km, Fragment &scores, LaneCoords lane,
                       Value kvStart, Value seqQ, Value seqKV, Value rowBase,
                       bool causal);

/// The online-softmax step on a score fragment, in the exp2 domain:
///   m' = max(m, rowmax S)               (max over the quad's lanes)
///   P  = exp2(S·c − m'·c), c = scale·log2(e); 0 where S = -inf
///   α  = exp2(m·c − m'·c);  l' = α·l + rowsum(P)   (l stays lane-partial)
/// A row with m' = -inf uses a shift of 0, so it yields P = 0, α = 0.
/// P is returned packed as 16-bit pairs at AccumulatorLayout::pairIndex
/// (MmaQuad: [mt][nt][half], the A-operand registers of the next MMA).
///
/// With `lazyRescale` (τ ≥ 0, in the exp2 domain), a row keeps its running
/// max unless the tile's max exceeds it by more than τ: (max(m, rowmax S) −
/// m)·c > τ. A kept row has α = 1 exactly and P ≤ 2^τ. O = acc / l and the
/// LSE are unchanged in exact arithmetic, because P, l and acc all use the
/// same shift; the gain is that most tiles need no rescale of acc at all
/// (the first tile of a row sets m, later tiles rarely exceed it by τ).
/// A negative τ is the plain update above.
///
/// `exp2Split` picks the register columns of P computed by
/// KernelMath::exp2Polynomial on the FMA units instead of ex2.approx (α
/// always by ex2.approx); the default, none, is every kernel but sm_100a's.
struct SoftmaxStep {
  SmallVector<Value> newMax, newSum, rescale;
  SmallVector<Value> probs; ///< vector<2 x elementType>, (mt·nTiles + nt)·2 + half
};
SoftmaxStep buildOnlineSoftmax(KernelMath &km, Fragment &scores,
                               ArrayRef<Value> runningMax,
                               ArrayRef<Value> runningSum,
                               Value scaleLog2e, Type elementType,
                               double lazyRescale = -1.0,
                               Exp2Split exp2Split = {});

/// The online softmax's state across a K/V loop, per thread: the running
/// max and sum of each of its rows, and the O accumulator.
struct OnlineSoftmaxState {
  SmallVector<Value> runningMax, runningSum;
  Fragment acc;
};

/// scf.for j in [lb, ub) (i32, step 1) carrying `init`: its iter_args are
/// the running maxima, then the sums, then the accumulator's registers.
/// `body` builds one iteration at the start of the loop's body from j and
/// the carried state and returns the state to yield; the loop's results
/// come back in the same form (the sm_80 forward's and split-KV kernels'
/// K/V loops).
OnlineSoftmaxState buildOnlineSoftmaxLoop(
    KernelMath &km, Value lb, Value ub, const OnlineSoftmaxState &init,
    function_ref<OnlineSoftmaxState(Value j, const OnlineSoftmaxState &)> body);

/// acc[.., i] *= rescale[row of i].
void buildRescale(KernelMath &km, Fragment &acc, ArrayRef<Value> rescale);
/// The same, skipped by a warp none of whose rows has α ≠ 1 (a warp vote,
/// so the branch is uniform): with lazy rescaling most K/V tiles need none.
void buildRescaleIfNeeded(KernelMath &km, Fragment &acc,
                          ArrayRef<Value> rescale);

//===----------------------------------------------------------------------===//
// The backward pass's math (FlashAttention-2's backward): P recomputed from
// the forward's LSE, dS = P∘(dP − Δ), and masks on either orientation of
// the score fragment (rows of queries, or rows of keys when a kernel
// computes Sᵀ = K·Qᵀ so that Pᵀ and dSᵀ are A operands of dV and dK).
//===----------------------------------------------------------------------===//

/// Sᵀ[.., col] = -inf where the fragment's key row is past seqKV or
/// (causal) sees the query of the column from above the diagonal: key
/// keyRowBase + rowOffset(r) + group against query qStart + columnLane·2 +
/// columnOffset(c); key k is visible to query q iff k < Nk and, causal,
/// k <= q + Nk − Nq (bottom-right, as buildFragmentMask).
void buildKeyRowMask(KernelMath &km, Fragment &scores, LaneCoords lane,
                     Value keyRowBase, Value qStart, Value seqQ, Value seqKV,
                     bool causal);

/// The probabilities of the forward recomputed from its LSE, in the exp2
/// domain: P = exp2(S·c − shift), c = scale·log2(e), shift = LSE·log2(e)
/// of the score's query. A query that saw no key (LSE = −inf) has shift =
/// +inf, so that its P is 0 (never NaN, masked scores included); so do the
/// padding rows past Nq. `shifts` holds one value per row of the fragment
/// (queries along rows) or, with `perColumn`, one per column (Sᵀ).
Fragment buildRecomputedProbs(KernelMath &km, const Fragment &scores,
                              ArrayRef<Value> shifts, bool perColumn,
                              Value scaleLog2e);

/// dS = P∘(dP − Δ), Δ = rowsum(dO∘O) of the element's query (per row, or
/// per column with `perColumn`). An empty `delta`: `probsGradient` holds
/// dP − Δ already (its product accumulated onto −Δ), dS = P∘probsGradient.
Fragment buildScoreGradient(KernelMath &km, const Fragment &probs,
                            const Fragment &probsGradient,
                            ArrayRef<Value> delta, bool perColumn);

/// A fragment as 16-bit pairs at AccumulatorLayout::pairIndex (MmaQuad:
/// [mt][nt][half], the A-operand registers of the next MMA).
SmallVector<Value> buildPackFragment(KernelMath &km, const Fragment &values,
                                     Type elementType);

/// Writes `values`·multiplier (no multiply when null) as 16-bit pairs into
/// the rows of `wordMemref` (32-bit words) at element offset `base` (index)
/// with `rowLength` elements per row (or `rowStride` (i32) where given: a
/// strided tensor's rows): the fragment's row r is row rowBase + group +
/// rowOffset(r), written only below `validRows`.
void buildStoreFragment(KernelMath &km, const Fragment &values,
                        Value multiplier, Type elementType, LaneCoords lane,
                        Value rowBase, Value validRows, int64_t rowLength,
                        Value wordMemref, Value base,
                        Value rowStride = Value());

/// f32 a·b + c, 2^x, log2(x) as single PTX instructions (no libdevice);
/// KernelMath::fma, exp2, log2.
Value buildFma(KernelMath &km, Value a, Value b, Value c);
Value buildExp2(KernelMath &km, Value x);
Value buildLog2(KernelMath &km, Value x);
/// ln(x) as the kernels take it: log2(x)·ln 2.
Value buildNaturalLog(KernelMath &km, Value x);
/// A row's log-sum-exp in natural-log units from its running maximum m (a
/// raw score), the softmax scale and its row sum l of exp2((s − m)·scale·
/// log2 e): m·scale + ln l (one fma), `negInf` (the caller's −inf
/// constant) where `empty` (l = 0: the row saw no key). The forward
/// epilogue's, and a split part's, LSE.
Value buildRowLse(KernelMath &km, Value rowMax, Value scale, Value rowSum,
                  Value empty, Value negInf);

/// Sum over the four lanes of a quad (xor shuffles 1 and 2).
Value buildQuadSum(KernelMath &km, Value v);
Value buildQuadMax(KernelMath &km, Value v);
/// Sum / max of a row statistic over the lanes of `layout` that share the
/// row (the quad for MmaQuad; `v` itself for RowPerThread).
Value buildRowSum(KernelMath &km, const AccumulatorLayout &layout, Value v);
Value buildRowMax(KernelMath &km, const AccumulatorLayout &layout, Value v);

/// Two f32 -> vector<2 x elementType> (KernelMath::packPair): P is rounded
/// to 16 bits here, before P·V.
Value buildPackPair(KernelMath &km, Value x, Value y, Type elementType);

/// Global tensors seen as flat memrefs over the raw kernel pointers.
Value buildFlatGlobalMemref(KernelMath &km, Value pointer, Type elementType);

/// Inline PTX with side effects (llvm.inline_asm, AT&T dialect): for the
/// instructions and forms no NVVM op spells (the .acquire/.release forms at
/// GPU scope, cache-policy operands). `result` null: no result.
/// `operandAttrs`: one dictionary per operand (an indirect memory operand's
/// "elementtype"), or null.
Value inlinePtx(KernelMath &km, Type result, ValueRange operands,
                StringRef text, StringRef constraints,
                ArrayAttr operandAttrs = {});

/// Where the epilogue puts one packed pair of O: (row in the sequence,
/// column pair cp of the thread's row (MmaQuad: the column tile nt), the
/// 32-bit word).
using StoreOutputWord = function_ref<void(Value row, int64_t nt, Value word)>;

/// Epilogue: O = acc / l (0 for a row that saw no key) as 16-bit pairs,
/// written to `outMemref` at `outBase` for valid rows only, or handed to
/// `storeWord` for every row (a staging buffer whose copy to global memory
/// clips rows past Nq), outside any region; LSE = m·scale + ln(l) (-inf when
/// l = 0) by lane t = 0 of each quad (by every thread for RowPerThread), for
/// valid rows, when `lseMemref` is set. O's rows are `outRowStride` (i32)
/// elements apart (a strided O), or D when it is null.
void buildEpilogue(KernelMath &km, const KernelConfig &config, Fragment &acc,
                   ArrayRef<Value> runningMax, ArrayRef<Value> runningSum,
                   LaneCoords lane, Value rowBase, Value seqQ, Value scale,
                   Value outMemref, Value outBase, Value lseMemref,
                   Value lseBase, StoreOutputWord storeWord = nullptr,
                   Value outRowStride = Value());

/// Emits the sm_80 kernel (cp.async, ldmatrix, mma.sync) of `config` as a
/// gpu.func at the builder's insertion point (inside a gpu.module).
LogicalResult buildSM80Kernel(OpBuilder &b, Location loc,
                              const KernelConfig &config);

/// Emits the split-KV kernel of `config` (kind split_kv or paged), which
/// also merges the parts, as a gpu.func at the builder's insertion point
/// (inside a gpu.module). The same code serves sm_80 and sm_90a (per-arch
/// pipeline depth in the config).
LogicalResult buildDecodeKernels(OpBuilder &b, Location loc,
                                 const KernelConfig &config);
/// The split-KV kernel's arguments ("name:type", in order), paged or over a
/// contiguous cache: what the launch plan fills each with.
SmallVector<StringRef> decodeSplitKernelArgs(bool paged);
/// The separate merge's bound (Target/SplitKV.h) for `config`'s target:
/// a call of at most this many work units merges in the second kernel
/// (`config.name` + "_merge", programmatic dependent launch), 0 (never, no
/// merge kernel built) on targets without programmatic dependent launch.
int64_t decodeSeparateMergeBound(const KernelConfig &config);
/// The same for a target by its name (kSplitKVSeparateMergeMaxWorkUnits on
/// "sm_90a", 0 elsewhere).
int64_t decodeSeparateMergeBound(llvm::StringRef arch);
/// Whether `config`'s fused split kernels (not the separate merge's) merge
/// a row tile's two parts in a cluster of their two blocks through
/// distributed shared memory when launched so (the pair merge: grid x = 2
/// and the plan's "cluster" x = 2; otherwise, or launched without clusters,
/// they merge through global memory as before): sm_90a.
bool decodeClusterPairs(const KernelConfig &config);
/// The split kernels' K/V copies carry an L2 policy (sm80::copyWithL2Policy;
/// Q, the lengths and the block table none): evict-first in a call whose K
/// and V hold more than the returned bytes (B · capacity · Hkv · 2D
/// elements, the capacity M·S or Nk: what the call may read), evict-unchanged
/// (sm80::l2EvictUnchangedPolicy: the priority without a policy) otherwise;
/// 0: no policy. sm_90a: the L2 of its target model. A call
/// reads each K/V byte once, and K/V larger than the L2 cannot stay there
/// until the next call anyway; K/V that fit stay, for a next call on them
/// (a benchmark's repeat, or attention over a shared prefix).
/// Measured on an H100 against the kernels without a policy
/// (docs/benchmarks.md, fifty-third, fifty-fourth and fifty-sixth sessions).
int64_t decodeKVEvictFirstBytes(const KernelConfig &config);
/// Parts the fused merge (the block that finishes a row tile's last part)
/// loads together at value dimension `valueDim` (their LSEs and O rows in
/// flight at once): merging more parts than this at one level takes more
/// than one round trip a row, rescaling the sums when a batch raises the
/// maximum.
int64_t decodeMergeBatch(int64_t valueDim);
/// The merge kernel's name for `config` (the same arguments as the split
/// kernel's).
std::string decodeMergeKernelName(const KernelConfig &config);
/// The split kernel of the separate merge (`config.name` + "_separate"):
/// the split kernel less its count and merge, with the trigger of its
/// dependents after its K/V loop. It is launched with programmatic dependent
/// launch behind the kernel before it in the stream and waits for it
/// (griddepcontrol.wait) before its first global memory access, so that the
/// launch and the blocks' start of a call of few work units (latency-bound)
/// overlap the end of whatever ran before it (RoPE or the cache append in a
/// decode step, the previous call's merge); so do its kernels for one page
/// size. Measured on an H100 (docs/benchmarks.md, forty-first session): GQA
/// 8/1 B = 1 0.95-0.97x the time behind a torch kernel at L = 8k and 32k,
/// 0.99x at 128k, GQA 32/8 B = 1 0.96-1.00x; the fused merge's kernels so
/// launched 0.996-1.028x on rows of 64-128 work units, so they are not (and
/// no kernel triggers the next call's early). The split kernel `config.name`
/// (the fused merge) is the same code as on targets without the separate
/// merge.
std::string decodeSeparateSplitKernelName(const KernelConfig &config);
/// The page sizes for which a paged plan with the separate merge carries a
/// separate merge's split kernel with S a constant: those of
/// `config.decode.fusedPageSizes` that are powers of two of at least 16:
/// one page lookup a tile (S >= 64, a tile's keys in one page) or per 16
/// keys (docs/benchmarks.md, thirty-fifth and thirty-seventh sessions).
SmallVector<int64_t> decodeSeparatePageSizes(const KernelConfig &config);
/// That kernel's name (`config.name` + "_separate_s<S>"), launched instead of
/// the separate merge's split kernel for calls of that S.
std::string decodeSeparatePageKernelName(const KernelConfig &config,
                                         int64_t pageSize);
/// The page sizes for which a paged plan carries a fused split kernel with S
/// a constant, by default, on `config`'s target: 16 and 64 on sm_90a, none on
/// sm_80 (docs/benchmarks.md, thirtieth and thirty-first sessions).
ArrayRef<int64_t> decodeDefaultFusedPageSizes(const KernelConfig &config);
/// The fused split kernel for pages of `pageSize` slots (`config.name` +
/// "_s<S>"): the split kernel `config.name` with S a constant, launched
/// instead of it for calls of that S.
std::string decodeFusedPageKernelName(const KernelConfig &config,
                                      int64_t pageSize);

/// Emits the sm_80 backward kernels of `config` (kind = backward) as
/// gpu.funcs at the builder's insertion point (inside a gpu.module), one per
/// launch of sm80::backwardLaunches (SM80/BackwardKernel.h), in their order.
LogicalResult buildSM80BackwardKernels(OpBuilder &b, Location loc,
                                       const KernelConfig &config);

/// Emits the sm_90a kernel (TMA, mbarrier, wgmma, warp specialisation) of
/// `config` as an llvm.func kernel at the builder's insertion point (inside a
/// gpu.module): its tensor maps are __grid_constant__ parameters, which only
/// llvm.func arguments can carry.
LogicalResult buildSM90Kernel(OpBuilder &b, Location loc,
                              const KernelConfig &config);

/// Emits the sm_100a forward kernel (TMA, mbarrier, tcgen05.mma with its
/// accumulators in tensor memory) of `config` as an llvm.func kernel at the
/// builder's insertion point (inside a gpu.module), and checks its tensor
/// memory (sm100::checkTensorMemory).
LogicalResult buildSM100Kernel(OpBuilder &b, Location loc,
                               const KernelConfig &config);
/// Shared-memory bytes and tensor-memory columns (the allocation: a power
/// of two) the sm_100a forward kernel of `config` takes.
int64_t sm100SharedBytes(const KernelConfig &config);
int64_t sm100TensorMemoryColumns(const KernelConfig &config);

/// Shared-memory bytes the sm_90a kernel of `config` asks for.
int64_t sm90SharedBytes(const KernelConfig &config);
/// Whether O's 64-row, 128-byte-wide boxes fit in the K and V halves of one
/// K/V slot of the sm_90a kernel of `config`.
bool sm90OutputFitsInRing(const KernelConfig &config);

} // namespace flash
} // namespace mlir

#endif // FLASH_CONVERSION_FLASHTONVGPU_KERNELBUILDER_H
