//===- TestKernelMath.cpp - the GPU kernels' math, run on the CPU ---------===//
//
// flash-test-kernel-math gives a body to the function @flash_kernel_math that
// the module declares,
//
//   func.func private @flash_kernel_math(
//       %q: memref<?xT>, %k: memref<?xT>, %v: memref<?xT>,
//       %o: memref<?xi32>, %lse: memref<?xf32>,
//       %batch: i32, %hq: i32, %hkv: i32, %nq: i32, %nk: i32, %scale: f32)
//
// (the GPU kernels' arguments; O as 32-bit words holding 16-bit pairs), which
// computes attention the way the GPU kernels do, on the CPU: it walks the Q
// tiles of every (batch, head) and, for each warp of a tile, runs the math
// the kernels share with the SAME builder functions (KernelBuilder.cpp) on a
// KernelMath in host-lanes mode, where one warp is vector<32 x T> values:
// buildKVRange, buildFragmentMask, buildOnlineSoftmax (with the lazy
// threshold), buildRescale / buildRescaleIfNeeded, the P packing to 16 bits,
// and buildEpilogue (O = acc / l as 16-bit pairs, LSE). What stays out is
// the hardware's: the MMAs. S = Q·Kᵀ and P·V are computed here in f32 from
// 16-bit operands into scratch tiles (rows past Nq and keys past Nk read as
// zeros, as the kernels' zero-filled copies do) and moved in and out of the
// accumulator layout of KernelBuilder.h with gathers and scatters.
//
// `form` picks the order of the kernel's K/V loop: sm80 (an unmasked loop,
// then a masked one; rescale, then P·V, per tile) or sm90a (tile 0 masked in
// the prologue, or under the first-tile-mask branch; the loop adds the
// previous tile's P·V and then rescales by this tile's α, or with lazy-late
// rescales just before the next P·V; a drain adds the last P·V), and
// `output` how O leaves: direct (sm_80's stores of valid rows) or staged
// (sm_90a's words for every row, clipped to Nq when copied out), and
// `exp2-polynomial-period` = k computes one column of P in k with
// KernelMath::exp2Polynomial (sm_100a's share on the FMA units), and
// `layout` the accumulator layout (AccumulatorLayout): quad (the m16n8 C
// fragment of mma.sync / wgmma, row statistics reduced over quads) or row
// (sm_100a's tcgen05.ld 32x32b: lane l holds row l of its warp's 32 rows,
// every column, no cross-lane reduction).
//
// python/tests/test_kernel_math.py runs it on random problems under
// mlir-runner against the float64 oracle.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"
#include "HarnessDeclaration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <array>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::flash;

namespace {

constexpr int64_t kLanes = 32;

/// The harness: one function, scalar driver code around host-lanes math.
class KernelMathHarness {
public:
  enum class Form { SM80, SM90a };

  KernelMathHarness(OpBuilder &b, Location loc, const KernelConfig &config,
                    Form form, bool stagedOutput, bool rowLayout)
      : b(b), loc(loc), km{b, loc, kLanes}, config(config), form(form),
        stagedOutput(stagedOutput), rowLayout(rowLayout),
        et(config.elementType), D(config.headDim), Br(config.blockQ),
        Bc(config.blockKV) {
    if (rowLayout) {
      warps = Br / kLanes; // a row per lane
      Mw = 0;
      rows = kLanes;
      return;
    }
    if (form == Form::SM90a) {
      warps = Br / 16; // four warps per 64-row consumer warpgroup
      Mw = 1;
    } else {
      warps = config.warps;
      Mw = config.mTilesPerWarp();
    }
    rows = 16 * Mw;
  }

  void build(func::FuncOp func);

private:
  /// The accumulator layouts of S (Bc columns) and O (D columns).
  AccumulatorLayout layoutOf(int64_t width) const {
    return rowLayout ? AccumulatorLayout::rowPerThread(1, width)
                     : AccumulatorLayout::mmaQuad(Mw, width / 8);
  }
  /// Row statistics (m, l, α) per lane, and packed P pairs per lane.
  int64_t numStats() const { return layoutOf(Bc).rowsPerThread; }
  int64_t numProbs() const { return layoutOf(Bc).numRegisters() / 2; }
  int64_t numAcc() const { return layoutOf(D).numRegisters(); }

  // Scalar (uniform) arithmetic of the driver.
  Value ci32(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  }
  Value cidx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value asIndex(Value i32Value) {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), i32Value);
  }
  Value asI32(Value indexValue) {
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), indexValue);
  }
  Value addi(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value muli(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  /// The uniform scalar `v` on every lane.
  Value splat(Value v) {
    return vector::BroadcastOp::create(
        b, loc, cast<VectorType>(km.laneType(v.getType())), v);
  }
  /// Lane 0 of a uniform lane vector.
  Value uniform(Value lanes) {
    return vector::ExtractOp::create(b, loc, lanes, ArrayRef<int64_t>{0});
  }
  Value constantI32s(ArrayRef<int32_t> values) {
    auto type = VectorType::get({int64_t(values.size())}, b.getI32Type());
    return arith::ConstantOp::create(b, loc,
                                     DenseElementsAttr::get(type, values));
  }
  Value allLanes(int64_t n) {
    auto type = VectorType::get({n}, b.getI1Type());
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, b.getBoolAttr(true)));
  }
  /// Element (r, c) of an m16n8 C fragment (MmaQuad): its 16-row tile mt,
  /// 8-row half, row g in the half, 8-column tile nt, lane column pair t and
  /// element e of the pair (KernelBuilder.h's layout).
  std::array<Value, 6> quadCoords(Value r, Value c) {
    auto div = [&](Value x, int64_t d) {
      return arith::DivUIOp::create(b, loc, x, cidx(d)).getResult();
    };
    auto rem = [&](Value x, int64_t d) {
      return arith::RemUIOp::create(b, loc, x, cidx(d)).getResult();
    };
    Value mt = div(r, 16), half = rem(div(r, 8), 2), g = rem(r, 8);
    Value nt = div(c, 8), t = rem(div(c, 2), 4), e = rem(c, 2);
    return {mt, half, g, nt, t, e};
  }
  /// Where element (r, c) of a tile `width` wide goes in the accumulator
  /// layout of KernelBuilder.h, stored register-major: element (mt, nt, i)
  /// of lane (g, t) holds row mt·16 + 8·(i / 2) + g, column nt·8 + 2t +
  /// i % 2, and sits at ((mt·width/8 + nt)·4 + i)·32 + 4g + t, so that each
  /// register of the fragment is one contiguous vector<32> load.
  /// With the row layout, element (r, c) is register c of lane r: c·32 + r.
  Value fragmentPosition(Value r, Value c, int64_t width) {
    if (rowLayout)
      return addi(muli(c, cidx(kLanes)), r);
    auto [mt, half, g, nt, t, e] = quadCoords(r, c);
    Value i = addi(muli(half, cidx(2)), e);
    Value reg = addi(muli(addi(muli(mt, cidx(width / 8)), nt), cidx(4)), i);
    return addi(muli(reg, cidx(kLanes)), addi(muli(g, cidx(4)), t));
  }
  /// Where element (r, c) of P goes when its pairs are stored as they come
  /// out of buildOnlineSoftmax: pair (mt, nt, half), element 2·lane + e.
  /// (Row layout: pair c / 2 of lane r.)
  Value pairPosition(Value r, Value c) {
    if (rowLayout) {
      Value pair = arith::DivUIOp::create(b, loc, c, cidx(2));
      Value e = arith::RemUIOp::create(b, loc, c, cidx(2));
      return addi(muli(pair, cidx(2 * kLanes)), addi(muli(r, cidx(2)), e));
    }
    auto [mt, half, g, nt, t, e] = quadCoords(r, c);
    Value pair = addi(muli(addi(muli(mt, cidx(Bc / 8)), nt), cidx(2)), half);
    Value lane = addi(muli(g, cidx(4)), t);
    return addi(muli(pair, cidx(2 * kLanes)), addi(muli(lane, cidx(2)), e));
  }
  /// Register `reg` of a fragment stored register-major.
  Value loadRegister(Value tile, int64_t reg) {
    return vector::LoadOp::create(
        b, loc, VectorType::get({kLanes}, b.getF32Type()), tile,
        ValueRange{cidx(reg * kLanes)});
  }

  using Body = function_ref<SmallVector<Value>(Value iv, ValueRange args)>;
  SmallVector<Value> forLoop(Value lb, Value ub, ValueRange inits, Body body,
                             Value step = Value());
  void forLoop(Value lb, Value ub, function_ref<void(Value iv)> body) {
    forLoop(lb, ub, ValueRange{}, [&](Value iv, ValueRange) {
      body(iv);
      return SmallVector<Value>{};
    });
  }

  /// S = Q·Kᵀ of this warp's rows and the keys from kvStart, in f32 from
  /// 16-bit operands (zeros past Nq and Nk), in the accumulator layout.
  Fragment scores(Value rowBase, Value kvStart);
  /// acc += P·V of the keys from kvStart (V past Nk reads as zeros); P is
  /// the packed 16-bit pairs of buildOnlineSoftmax.
  void accumulate(Fragment &acc, ArrayRef<Value> probs, Value kvStart);
  /// One warp of a Q tile, from the K/V range to the epilogue.
  void warpTile(Value rowBase, Value numTiles, Value numUnmasked);
  SmallVector<Value> loopSM80(Value lb, Value ub, ValueRange state,
                              Value rowBase, bool masked);
  SmallVector<Value> loopSM90(Value lb, Value ub, ValueRange state,
                              Value rowBase, bool masked);

  OpBuilder &b;
  Location loc;
  KernelMath km;
  const KernelConfig &config;
  Form form;
  bool stagedOutput;
  bool rowLayout;
  Type et;
  int64_t D, Br, Bc, warps = 0, Mw = 0, rows = 0;

  // Function arguments and per-head values.
  Value q, k, v, o, lse, seqQ, seqKV, scale;
  Value seqQLanes, seqKVLanes, scaleLanes, scaleLog2eLanes;
  LaneCoords coords;
  Value qBase, kvBase, lseBase; // index
  // Scratch tiles: S, P, P·V, and the staged O words of one warp.
  Value scoreTile, probTile, productTile, stagingTile;
};

SmallVector<Value> KernelMathHarness::forLoop(Value lb, Value ub,
                                              ValueRange inits, Body body,
                                              Value step) {
  if (!step)
    step = lb.getType().isIndex() ? cidx(1) : ci32(1);
  auto loop = scf::ForOp::create(b, loc, lb, ub, step, inits);
  OpBuilder::InsertionGuard guard(b);
  if (inits.empty()) {
    b.setInsertionPoint(loop.getBody()->getTerminator());
    body(loop.getInductionVar(), {});
    return {};
  }
  b.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> yields =
      body(loop.getInductionVar(), loop.getRegionIterArgs());
  scf::YieldOp::create(b, loc, yields);
  return SmallVector<Value>(loop.getResults());
}

Fragment KernelMathHarness::scores(Value rowBase, Value kvStart) {
  Type f32 = b.getF32Type();
  forLoop(cidx(0), cidx(rows), [&](Value r) {
    Value row = addi(rowBase, asI32(r));
    forLoop(cidx(0), cidx(Bc), [&](Value c) {
      Value key = addi(kvStart, asI32(c));
      Value valid = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, row, seqQ),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, key,
                                seqKV));
      auto ifValid = scf::IfOp::create(b, loc, TypeRange{f32}, valid, true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifValid.thenBlock());
        Value qRow = addi(qBase, muli(asIndex(row), cidx(D)));
        Value kRow = addi(kvBase, muli(asIndex(key), cidx(D)));
        SmallVector<Value> dot = forLoop(
            cidx(0), cidx(D),
            ValueRange{arith::ConstantOp::create(b, loc,
                                                 b.getF32FloatAttr(0.0))
                           .getResult()},
            [&](Value d, ValueRange sum) {
              Value x = arith::ExtFOp::create(
                  b, loc, f32,
                  memref::LoadOp::create(b, loc, q, ValueRange{addi(qRow, d)})
                      .getResult());
              Value y = arith::ExtFOp::create(
                  b, loc, f32,
                  memref::LoadOp::create(b, loc, k, ValueRange{addi(kRow, d)})
                      .getResult());
              return SmallVector<Value>{arith::AddFOp::create(
                  b, loc, sum[0], arith::MulFOp::create(b, loc, x, y))};
            });
        scf::YieldOp::create(b, loc, dot);
        b.setInsertionPointToStart(ifValid.elseBlock());
        scf::YieldOp::create(
            b, loc,
            ValueRange{arith::ConstantOp::create(b, loc,
                                                 b.getF32FloatAttr(0.0))
                           .getResult()});
      }
      memref::StoreOp::create(b, loc, ifValid.getResult(0), scoreTile,
                              ValueRange{fragmentPosition(r, c, Bc)});
    });
  });
  Fragment s(layoutOf(Bc), Value());
  for (int64_t reg = 0; reg < int64_t(s.regs.size()); ++reg)
    s.regs[reg] = loadRegister(scoreTile, reg);
  return s;
}

void KernelMathHarness::accumulate(Fragment &acc, ArrayRef<Value> probs,
                                   Value kvStart) {
  Type f32 = b.getF32Type();
  // P as it comes: pair (mt, nt, half) of lane (g, t) holds row
  // mt·16 + 8·half + g, columns nt·8 + 2t + {0, 1} (pairPosition).
  for (int64_t pair = 0; pair < int64_t(probs.size()); ++pair)
    vector::StoreOp::create(b, loc, probs[pair], probTile,
                            ValueRange{cidx(pair * 2 * kLanes)});
  // P·V in f32 from the 16-bit P and V.
  Value lastKey = arith::SubIOp::create(b, loc, seqKV, ci32(1));
  forLoop(cidx(0), cidx(rows), [&](Value r) {
    forLoop(cidx(0), cidx(D), [&](Value c) {
      SmallVector<Value> dot = forLoop(
          cidx(0), cidx(Bc),
          ValueRange{arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0))
                         .getResult()},
          [&](Value kk, ValueRange sum) {
            Value key = addi(kvStart, asI32(kk));
            Value inSeq = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::slt, key, seqKV);
            Value clamped = arith::MinSIOp::create(b, loc, key, lastKey);
            Value vIndex =
                addi(addi(kvBase, muli(asIndex(clamped), cidx(D))), c);
            Value vValue = arith::ExtFOp::create(
                b, loc, f32,
                memref::LoadOp::create(b, loc, v, ValueRange{vIndex})
                    .getResult());
            vValue = arith::SelectOp::create(
                b, loc, inSeq, vValue,
                arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0)));
            Value p = arith::ExtFOp::create(
                b, loc, f32,
                memref::LoadOp::create(
                    b, loc, probTile, ValueRange{pairPosition(r, kk)})
                    .getResult());
            return SmallVector<Value>{arith::AddFOp::create(
                b, loc, sum[0], arith::MulFOp::create(b, loc, p, vValue))};
          });
      memref::StoreOp::create(b, loc, dot[0], productTile,
                              ValueRange{fragmentPosition(r, c, D)});
    });
  });
  for (int64_t reg = 0; reg < int64_t(acc.regs.size()); ++reg)
    acc.regs[reg] = arith::AddFOp::create(b, loc, acc.regs[reg],
                                          loadRegister(productTile, reg));
}

// State of a K/V loop: m, l (2·Mw each), acc (Mw·D/2), then for sm90a the
// packed P of the previous tile (Bc/4 pairs) and the pending α (2).
SmallVector<Value> KernelMathHarness::loopSM80(Value lb, Value ub,
                                               ValueRange state, Value rowBase,
                                               bool masked) {
  int64_t n = numStats();
  return forLoop(lb, ub, state, [&](Value j, ValueRange args) {
    SmallVector<Value> runningMax(args.take_front(n));
    SmallVector<Value> runningSum(args.slice(n, n));
    Fragment acc(layoutOf(D), Value());
    acc.regs.assign(args.begin() + 2 * n, args.end());
    Value kvStart = muli(j, ci32(Bc));
    Fragment s = scores(rowBase, kvStart);
    if (masked)
      buildFragmentMask(km, s, coords, splat(kvStart), seqQLanes, seqKVLanes,
                        splat(rowBase), config.causal);
    SoftmaxStep step = buildOnlineSoftmax(km, s, runningMax, runningSum,
                                          scaleLog2eLanes, et,
                                          config.lazyThreshold(),
                                          config.exp2Split);
    buildRescale(km, acc, step.rescale);
    accumulate(acc, step.probs, kvStart);
    SmallVector<Value> yields(step.newMax);
    llvm::append_range(yields, step.newSum);
    llvm::append_range(yields, acc.regs);
    return yields;
  });
}

SmallVector<Value> KernelMathHarness::loopSM90(Value lb, Value ub,
                                               ValueRange state, Value rowBase,
                                               bool masked) {
  bool late = config.rescale == KernelConfig::Rescale::LazyLate;
  int64_t n = numStats(), nAcc = numAcc();
  return forLoop(lb, ub, state, [&](Value j, ValueRange args) {
    SmallVector<Value> runningMax(args.slice(0, n)),
        runningSum(args.slice(n, n));
    Fragment acc(layoutOf(D), Value());
    acc.regs.assign(args.begin() + 2 * n, args.begin() + 2 * n + nAcc);
    SmallVector<Value> probs(args.drop_front(2 * n + nAcc).drop_back(n));
    SmallVector<Value> pending(args.take_back(n));
    Value kvStart = muli(j, ci32(Bc));
    Fragment s = scores(rowBase, kvStart);
    // P_{j-1}·V_{j-1}, after the pending α of lazy-late.
    if (late)
      buildRescaleIfNeeded(km, acc, pending);
    accumulate(acc, probs, arith::SubIOp::create(b, loc, kvStart, ci32(Bc)));
    if (masked)
      buildFragmentMask(km, s, coords, splat(kvStart), seqQLanes, seqKVLanes,
                        splat(rowBase), config.causal);
    SoftmaxStep step = buildOnlineSoftmax(km, s, runningMax, runningSum,
                                          scaleLog2eLanes, et,
                                          config.lazyThreshold(),
                                          config.exp2Split);
    if (config.rescale == KernelConfig::Rescale::Lazy)
      buildRescaleIfNeeded(km, acc, step.rescale);
    else if (config.rescale == KernelConfig::Rescale::Eager)
      buildRescale(km, acc, step.rescale);
    SmallVector<Value> yields(step.newMax);
    llvm::append_range(yields, step.newSum);
    llvm::append_range(yields, acc.regs);
    llvm::append_range(yields, step.probs);
    if (late)
      llvm::append_range(yields, step.rescale);
    else
      llvm::append_range(yields, pending);
    return yields;
  });
}

void KernelMathHarness::warpTile(Value rowBase, Value numTiles,
                                 Value numUnmasked) {
  using P = arith::CmpIPredicate;
  Value negInf = km.f32(-std::numeric_limits<double>::infinity());
  Value zero = km.f32(0.0);
  Value rowBaseLanes = splat(rowBase);
  SmallVector<Value> runningMax, runningSum;
  Fragment acc(layoutOf(D), zero);
  const int64_t n = numStats(), nAcc = numAcc();
  if (form == Form::SM80) {
    SmallVector<Value> state(n, negInf);
    state.append(n, zero);
    llvm::append_range(state, acc.regs);
    state = loopSM80(ci32(0), numUnmasked, state, rowBase, /*masked=*/false);
    state = loopSM80(numUnmasked, numTiles, state, rowBase, /*masked=*/true);
    runningMax.assign(state.begin(), state.begin() + n);
    runningSum.assign(state.begin() + n, state.begin() + 2 * n);
    acc.regs.assign(state.begin() + 2 * n, state.end());
  } else {
    // Prologue: tile 0's softmax (masked, or under the first-tile-mask
    // branch only when no tile is unmasked); empty when there is no tile.
    auto pairType = VectorType::get({2 * kLanes}, et);
    Value zeroPair = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(pairType, b.getZeroAttr(et)));
    SmallVector<Type> prologueTypes(2 * n, km.laneType(b.getF32Type()));
    prologueTypes.append(numProbs(), pairType);
    auto firstStep = [&](bool masked) {
      Fragment s = scores(rowBase, ci32(0));
      if (masked)
        buildFragmentMask(km, s, coords, km.i32(0), seqQLanes, seqKVLanes,
                          rowBaseLanes, config.causal);
      SoftmaxStep step = buildOnlineSoftmax(
          km, s, SmallVector<Value>(n, negInf), SmallVector<Value>(n, zero),
          scaleLog2eLanes, et, config.lazyThreshold(), config.exp2Split);
      SmallVector<Value> state(step.newMax);
      llvm::append_range(state, step.newSum);
      llvm::append_range(state, step.probs);
      return state;
    };
    auto hasTiles = arith::CmpIOp::create(b, loc, P::sgt, numTiles, ci32(0));
    auto prologue = scf::IfOp::create(b, loc, prologueTypes, hasTiles, true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(prologue.thenBlock());
      if (config.sm90.branchFirstTileMask) {
        auto ifMasked = scf::IfOp::create(
            b, loc, prologueTypes,
            arith::CmpIOp::create(b, loc, P::sle, numUnmasked, ci32(0)), true);
        b.setInsertionPointToStart(ifMasked.thenBlock());
        scf::YieldOp::create(b, loc, firstStep(/*masked=*/true));
        b.setInsertionPointToStart(ifMasked.elseBlock());
        scf::YieldOp::create(b, loc, firstStep(/*masked=*/false));
        b.setInsertionPointAfter(ifMasked);
        scf::YieldOp::create(b, loc, ifMasked.getResults());
      } else {
        scf::YieldOp::create(b, loc, firstStep(/*masked=*/true));
      }
      b.setInsertionPointToStart(prologue.elseBlock());
      SmallVector<Value> empty(n, negInf);
      empty.append(n, zero);
      empty.append(numProbs(), zeroPair);
      scf::YieldOp::create(b, loc, empty);
    }
    ValueRange first = prologue.getResults();
    SmallVector<Value> state(first.take_front(2 * n));
    llvm::append_range(state, acc.regs);
    llvm::append_range(state, first.drop_front(2 * n));
    state.append(n, km.f32(1.0)); // α pending for the next P·V (lazy-late)
    Value one = ci32(1);
    state = loopSM90(one, numUnmasked, state, rowBase, /*masked=*/false);
    state = loopSM90(arith::MaxSIOp::create(b, loc, numUnmasked, one),
                     numTiles, state, rowBase, /*masked=*/true);
    runningMax.assign(state.begin(), state.begin() + n);
    runningSum.assign(state.begin() + n, state.begin() + 2 * n);
    acc.regs.assign(state.begin() + 2 * n, state.begin() + 2 * n + nAcc);
    SmallVector<Value> lastProbs(state.begin() + 2 * n + nAcc,
                                 state.end() - n);
    SmallVector<Value> lastPending(state.end() - n, state.end());
    // Drain: the last tile's P·V.
    auto drain = scf::IfOp::create(
        b, loc, SmallVector<Type>(nAcc, km.laneType(b.getF32Type())),
        hasTiles, true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(drain.thenBlock());
      Fragment drained = acc;
      if (config.rescale == KernelConfig::Rescale::LazyLate)
        buildRescaleIfNeeded(km, drained, lastPending);
      accumulate(drained, lastProbs,
                 muli(arith::SubIOp::create(b, loc, numTiles, one), ci32(Bc)));
      scf::YieldOp::create(b, loc, drained.regs);
      b.setInsertionPointToStart(drain.elseBlock());
      scf::YieldOp::create(b, loc, acc.regs);
    }
    acc.regs.assign(drain.getResults().begin(), drain.getResults().end());
  }

  // Epilogue: straight to O for valid rows, or every row's words to the
  // staging tile and the valid rows copied out.
  Value lseMemref = config.writesLse ? lse : Value();
  Value lseBaseLanes = splat(lseBase);
  if (!stagedOutput) {
    buildEpilogue(km, config, acc, runningMax, runningSum, coords,
                  rowBaseLanes, seqQLanes, scaleLanes, o, splat(qBase),
                  lseMemref, lseBaseLanes);
    return;
  }
  auto stageWord = [&](Value row, int64_t nt, Value word) {
    // Word (row − rowBase)·D/2 + nt·4 + t of the warp's rows (row layout:
    // + the pair nt).
    Value inRow = rowLayout ? km.i32(nt)
                            : km.add(km.i32(nt * 4), coords.quadLane);
    Value index =
        km.add(km.mul(km.sub(row, rowBaseLanes), km.i32(D / 2)), inRow);
    vector::ScatterOp::create(b, loc, Type(), stagingTile,
                              ValueRange{cidx(0)}, index, allLanes(kLanes),
                              word);
  };
  buildEpilogue(km, config, acc, runningMax, runningSum, coords, rowBaseLanes,
                seqQLanes, scaleLanes, Value(), Value(), lseMemref,
                lseBaseLanes, stageWord);
  // The copy out clips the rows past Nq (sm_90a's TMA store).
  forLoop(cidx(0), cidx(rows), [&](Value r) {
    Value row = addi(rowBase, asI32(r));
    auto inSeq = scf::IfOp::create(
        b, loc, arith::CmpIOp::create(b, loc, P::slt, row, seqQ), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(inSeq.thenBlock()->getTerminator());
    Value outRow = arith::ShRUIOp::create(
        b, loc, addi(qBase, muli(asIndex(row), cidx(D))), cidx(1));
    forLoop(cidx(0), cidx(D / 2), [&](Value w) {
      Value word = memref::LoadOp::create(
          b, loc, stagingTile, ValueRange{addi(muli(r, cidx(D / 2)), w)});
      memref::StoreOp::create(b, loc, word, o, ValueRange{addi(outRow, w)});
    });
  });
}

void KernelMathHarness::build(func::FuncOp func) {
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  q = entry->getArgument(0);
  k = entry->getArgument(1);
  v = entry->getArgument(2);
  o = entry->getArgument(3);
  lse = entry->getArgument(4);
  Value batch = entry->getArgument(5), queryHeads = entry->getArgument(6),
        kvHeads = entry->getArgument(7);
  seqQ = entry->getArgument(8);
  seqKV = entry->getArgument(9);
  scale = entry->getArgument(10);

  // The kernels' entry: c = scale·log2(e) once, lanes (g, t) = (l/4, l%4).
  Value scaleLog2e = arith::MulFOp::create(
      b, loc, scale,
      arith::ConstantOp::create(b, loc, b.getF32FloatAttr(M_LOG2E)));
  seqQLanes = splat(seqQ);
  seqKVLanes = splat(seqKV);
  scaleLanes = splat(scale);
  scaleLog2eLanes = splat(scaleLog2e);
  SmallVector<int32_t> laneIds;
  for (int64_t l = 0; l < kLanes; ++l)
    laneIds.push_back(l);
  Value lane = constantI32s(laneIds);
  // Row layout: lane l holds row l of the warp's rows, every column.
  coords = rowLayout ? LaneCoords{lane, Value()}
                     : LaneCoords{km.shru(lane, km.i32(2)),
                                  km.andi(lane, km.i32(3))};

  auto tile = [&](int64_t elements, Type type) -> Value {
    return memref::AllocaOp::create(b, loc,
                                    MemRefType::get({elements}, type));
  };
  scoreTile = tile(rows * Bc, b.getF32Type());
  probTile = tile(rows * Bc, et);
  productTile = tile(rows * D, b.getF32Type());
  stagingTile = tile(rows * D / 2, b.getI32Type());

  Value heads = muli(batch, queryHeads);
  Value numQTiles = arith::DivUIOp::create(
      b, loc, addi(seqQ, ci32(Br - 1)), ci32(Br));
  forLoop(cidx(0), asIndex(heads), [&](Value headIndex) {
    Value head = asI32(headIndex);
    Value batchOf = arith::DivUIOp::create(b, loc, head, queryHeads);
    Value qHead = arith::RemUIOp::create(b, loc, head, queryHeads);
    // GQA: kv-head = h / (Hq / Hkv).
    Value kvHead = arith::DivUIOp::create(
        b, loc, qHead, arith::DivUIOp::create(b, loc, queryHeads, kvHeads));
    lseBase = muli(headIndex, asIndex(seqQ));
    qBase = muli(lseBase, cidx(D));
    kvBase = muli(muli(asIndex(addi(muli(batchOf, kvHeads), kvHead)),
                       asIndex(seqKV)),
                  cidx(D));
    forLoop(ci32(0), numQTiles, [&](Value qTile) {
      Value qStart = muli(qTile, ci32(Br));
      KVRange range = buildKVRange(km, splat(qStart), seqQLanes, seqKVLanes,
                                   Br, Bc, config.causal);
      Value numTiles = uniform(range.numTiles);
      Value numUnmasked = uniform(range.numUnmasked);
      forLoop(ci32(0), ci32(warps), [&](Value warp) {
        warpTile(addi(qStart, muli(warp, ci32(rows))), numTiles, numUnmasked);
      });
    });
  });
  func::ReturnOp::create(b, loc);
}

struct TestKernelMathPass
    : public PassWrapper<TestKernelMathPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestKernelMathPass)

  TestKernelMathPass() = default;
  TestKernelMathPass(const TestKernelMathPass &other) : PassWrapper(other) {}

  StringRef getArgument() const final { return "flash-test-kernel-math"; }
  StringRef getDescription() const final {
    return "Define @flash_kernel_math: the GPU kernels' math (KernelBuilder) "
           "on host lanes, for running under mlir-runner (test only)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, func::FuncDialect,
                    LLVM::LLVMDialect, memref::MemRefDialect, scf::SCFDialect,
                    vector::VectorDialect>();
  }

  Option<std::string> form{*this, "form",
                           llvm::cl::desc("loop order: sm80 or sm90a"),
                           llvm::cl::init("sm80")};
  Option<std::string> elementType{*this, "element-type",
                                  llvm::cl::desc("f16 or bf16"),
                                  llvm::cl::init("bf16")};
  Option<int64_t> headDim{*this, "head-dim", llvm::cl::desc("D"),
                          llvm::cl::init(64)};
  Option<int64_t> blockQ{*this, "block-q", llvm::cl::desc("Br"),
                         llvm::cl::init(64)};
  Option<int64_t> blockKV{*this, "block-kv", llvm::cl::desc("Bc"),
                          llvm::cl::init(64)};
  Option<int64_t> warps{*this, "warps",
                        llvm::cl::desc("warps per Q tile (sm80; sm90a has "
                                       "block-q / 16)"),
                        llvm::cl::init(4)};
  Option<bool> causal{*this, "causal", llvm::cl::desc("bottom-right causal"),
                      llvm::cl::init(false)};
  Option<bool> writesLse{*this, "lse", llvm::cl::desc("write the LSE"),
                         llvm::cl::init(false)};
  Option<std::string> rescale{
      *this, "rescale", llvm::cl::desc("sm90a: eager, lazy or lazy-late"),
      llvm::cl::init("eager")};
  Option<std::string> firstTileMask{
      *this, "first-tile-mask", llvm::cl::desc("sm90a: always or branch"),
      llvm::cl::init("always")};
  Option<std::string> layout{
      *this, "layout",
      llvm::cl::desc("accumulator layout: quad (mma.sync / wgmma) or row "
                     "(tcgen05.ld 32x32b: a row per lane, warps = "
                     "block-q / 32)"),
      llvm::cl::init("quad")};
  Option<std::string> output{
      *this, "output",
      llvm::cl::desc("direct (stores of valid rows) or staged (every row's "
                     "words, clipped when copied out)"),
      llvm::cl::init("direct")};

  Option<int64_t> exp2PolynomialPeriod{
      *this, "exp2-polynomial-period",
      llvm::cl::desc("one column of P in this many by the polynomial exp2 "
                     "(KernelMath::exp2Polynomial, as sm_100a); 0: none"),
      llvm::cl::init(0)};

  void runOnOperation() override;
};

void TestKernelMathPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  auto fail = [&](const Twine &message) {
    module.emitError("flash-test-kernel-math: ") << message;
    signalPassFailure();
  };
  KernelConfig config;
  config.name = "flash_kernel_math";
  config.elementType = harnessElementType(ctx, elementType);
  if (!config.elementType)
    return fail("element-type must be f16 or bf16");
  KernelMathHarness::Form harnessForm;
  if (form == "sm80")
    harnessForm = KernelMathHarness::Form::SM80;
  else if (form == "sm90a")
    harnessForm = KernelMathHarness::Form::SM90a;
  else
    return fail("form must be sm80 or sm90a");
  config.arch = form == "sm80" ? "sm_80" : "sm_90a";
  config.headDim = headDim;
  config.blockQ = blockQ;
  config.blockKV = blockKV;
  if (layout != "quad" && layout != "row")
    return fail("layout must be quad or row");
  bool rowLayout = layout == "row";
  config.warps = rowLayout ? blockQ / 32
                 : harnessForm == KernelMathHarness::Form::SM90a ? blockQ / 16
                                                                 : warps;
  config.causal = causal;
  config.writesLse = writesLse;
  if (rescale == "eager")
    config.rescale = KernelConfig::Rescale::Eager;
  else if (rescale == "lazy")
    config.rescale = KernelConfig::Rescale::Lazy;
  else if (rescale == "lazy-late")
    config.rescale = KernelConfig::Rescale::LazyLate;
  else
    return fail("rescale must be eager, lazy or lazy-late");
  if (harnessForm == KernelMathHarness::Form::SM80 &&
      config.rescale != KernelConfig::Rescale::Eager)
    return fail("sm80 rescales eagerly");
  if (firstTileMask != "always" && firstTileMask != "branch")
    return fail("first-tile-mask must be always or branch");
  config.sm90.branchFirstTileMask = firstTileMask == "branch";
  if (exp2PolynomialPeriod < 0)
    return fail("exp2-polynomial-period must be 0 or more");
  if (exp2PolynomialPeriod > 0)
    config.exp2Split = {1, exp2PolynomialPeriod};
  if (output != "direct" && output != "staged")
    return fail("output must be direct or staged");
  if (headDim <= 0 || headDim % 16 || blockKV <= 0 || blockKV % 16 ||
      blockQ <= 0 || config.warps <= 0 || blockQ % (16 * config.warps) ||
      (rowLayout && blockQ % 32))
    return fail("head-dim and block-kv must be multiples of 16, block-q of "
                "16·warps (of 32 for layout=row)");

  Type i32 = IntegerType::get(ctx, 32), f32 = Float32Type::get(ctx);
  auto flat = [&](Type element) {
    return MemRefType::get({ShapedType::kDynamic}, element);
  };
  Type et = config.elementType;
  std::string error;
  func::FuncOp func = harnessDeclaration(
      module, config.name,
      FunctionType::get(ctx,
                        {flat(et), flat(et), flat(et), flat(i32), flat(f32),
                         i32, i32, i32, i32, i32, f32},
                        {}),
      error);
  if (!func)
    return fail(error);
  OpBuilder b(ctx);
  KernelMathHarness(b, func.getLoc(), config, harnessForm,
                    output == "staged", rowLayout)
      .build(func);
}

} // namespace

namespace mlir::flash {
void registerTestKernelMathPass() { PassRegistration<TestKernelMathPass>(); }
} // namespace mlir::flash
