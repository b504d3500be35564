//===- KernelBuilder.cpp - what every attention kernel shares -------------===//
//
// Arch-independent pieces of the GPU kernels, on the accumulator layouts
// described in KernelBuilder.h (the Fragment's AccumulatorLayout; on MmaQuad
// the ops emitted are exactly those of the kernels' original quad code, in
// the same order: the shipped PTX is pinned): K/V tile ranges, masking, the online
// softmax, packing P, the epilogue. sm_80 and sm_90a both call these, and
// so does the CPU harness of the kernel math (flash-test-kernel-math), with
// KernelMath in host-lanes mode: every warp-level operation below goes
// through KernelMath, so the same code runs a whole warp on the host.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"
#include "flash/Dialect/Flash/Transforms/VisibleKV.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::flash;

//===----------------------------------------------------------------------===//
// KernelMath
//===----------------------------------------------------------------------===//

Type KernelMath::laneType(Type scalar) {
  if (!onHost())
    return scalar;
  return VectorType::get({hostLanes}, scalar);
}

/// A constant: the scalar on the GPU, splat over the lanes on the host.
static Value laneConstant(KernelMath &km, TypedAttr scalar) {
  if (!km.onHost())
    return arith::ConstantOp::create(km.b, km.loc, scalar);
  auto type = cast<VectorType>(km.laneType(scalar.getType()));
  return arith::ConstantOp::create(km.b, km.loc,
                                   DenseElementsAttr::get(type, scalar));
}

Value KernelMath::i32(int64_t v) {
  return laneConstant(*this, b.getI32IntegerAttr(v));
}
Value KernelMath::index(int64_t v) {
  if (!onHost())
    return arith::ConstantIndexOp::create(b, loc, v);
  return laneConstant(*this, b.getIndexAttr(v));
}
Value KernelMath::f32(double v) {
  return laneConstant(*this, b.getF32FloatAttr(v));
}
Value KernelMath::add(Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}
Value KernelMath::sub(Value x, Value y) {
  return arith::SubIOp::create(b, loc, x, y);
}
Value KernelMath::mul(Value x, Value y) {
  return arith::MulIOp::create(b, loc, x, y);
}
Value KernelMath::divu(Value x, Value y) {
  return arith::DivUIOp::create(b, loc, x, y);
}
Value KernelMath::divs(Value x, Value y) {
  return arith::DivSIOp::create(b, loc, x, y);
}
Value KernelMath::andi(Value x, Value y) {
  return arith::AndIOp::create(b, loc, x, y);
}
Value KernelMath::xori(Value x, Value y) {
  return arith::XOrIOp::create(b, loc, x, y);
}
Value KernelMath::shru(Value x, Value y) {
  return arith::ShRUIOp::create(b, loc, x, y);
}
Value KernelMath::minsi(Value x, Value y) {
  return arith::MinSIOp::create(b, loc, x, y);
}
Value KernelMath::maxsi(Value x, Value y) {
  return arith::MaxSIOp::create(b, loc, x, y);
}
Value KernelMath::cmp(arith::CmpIPredicate p, Value x, Value y) {
  return arith::CmpIOp::create(b, loc, p, x, y);
}
Value KernelMath::select(Value c, Value x, Value y) {
  return arith::SelectOp::create(b, loc, c, x, y);
}
Value KernelMath::toIndex(Value v) {
  return arith::IndexCastUIOp::create(b, loc, laneType(b.getIndexType()), v);
}

// Transcendentals go straight to the NVPTX intrinsics of single PTX
// instructions (fma.rn.f32, ex2.approx.ftz.f32, lg2.approx.ftz.f32): the math
// dialect would lower them to libdevice calls, which gpu-module-to-binary
// links only when it finds a CUDA toolkit through the environment, and which
// are slower. Flushing denormals is harmless here: P and l are sums of
// exponentials of non-positive numbers. On the host, the LLVM intrinsics
// (correctly rounded up to libm; ex2.approx is within 2 ulp of them).
Value KernelMath::fma(Value a, Value bValue, Value c) {
  return LLVM::FMAOp::create(b, loc, a, bValue, c);
}

Value KernelMath::exp2(Value x) {
  if (onHost())
    return LLVM::Exp2Op::create(b, loc, x);
  return LLVM::CallIntrinsicOp::create(b, loc, x.getType(),
                                       b.getStringAttr(
                                           "llvm.nvvm.ex2.approx.ftz.f"),
                                       ValueRange{x})
      .getResult(0);
}

Value KernelMath::exp2Polynomial(Value x) {
  Type word = laneType(b.getI32Type());
  // x ≥ -127, so that j + 127 ≥ 0 below; NaN stays NaN (arith.maximumf).
  x = arith::MaximumFOp::create(b, loc, x, f32(-127.0));
  // t = x + 1.5·2^23 rounds x to the integer j in t's low mantissa bits
  // (|x| < 2^22); t − 1.5·2^23 = j and f = x − j are exact.
  Value magic = f32(12582912.0);
  Value t = arith::AddFOp::create(b, loc, x, magic);
  Value j = arith::SubFOp::create(b, loc, t, magic);
  Value f = arith::SubFOp::create(b, loc, x, j);
  Value p = fma(f, f32(kExp2Polynomial[2]), f32(kExp2Polynomial[1]));
  p = fma(f, p, f32(kExp2Polynomial[0]));
  p = fma(f, p, f32(1.0));
  // 2^j from its bits (j + 127) << 23: t's bits are 0x4B400000 + j, of
  // which a shift by 23 keeps j << 23; plus the bits of 1.0. j = -127
  // gives +0 (so -inf and x ≤ -127 give +0), j = 128 gives +inf.
  Value jBits = arith::ShLIOp::create(
      b, loc, arith::BitcastOp::create(b, loc, word, t), i32(23));
  Value scale = arith::BitcastOp::create(
      b, loc, laneType(b.getF32Type()),
      arith::AddIOp::create(b, loc, jBits, i32(0x3F800000)));
  return arith::MulFOp::create(b, loc, p, scale);
}

Value KernelMath::log2(Value x) {
  if (onHost())
    return LLVM::Log2Op::create(b, loc, x);
  return LLVM::CallIntrinsicOp::create(b, loc, x.getType(),
                                       b.getStringAttr(
                                           "llvm.nvvm.lg2.approx.ftz.f"),
                                       ValueRange{x})
      .getResult(0);
}

Value KernelMath::shuffleXor(Value v, int64_t offset) {
  if (onHost()) {
    SmallVector<int64_t> lanes;
    for (int64_t l = 0; l < hostLanes; ++l)
      lanes.push_back(l ^ offset);
    return vector::ShuffleOp::create(b, loc, v, v, lanes);
  }
  auto shuffle = gpu::ShuffleOp::create(b, loc, v, i32(offset), i32(32),
                                        gpu::ShuffleMode::XOR);
  return shuffle.getShuffleResult();
}

Value KernelMath::warpAny(Value predicate) {
  if (onHost())
    return vector::ReductionOp::create(b, loc, vector::CombiningKind::OR,
                                       predicate);
  return NVVM::VoteSyncOp::create(b, loc, b.getI1Type(), i32(-1), predicate,
                                  NVVM::VoteSyncKind::any);
}

Value KernelMath::packPair(Value x, Value y, Type elementType) {
  if (onHost()) {
    // Interleave the lanes' pairs: x0 y0 x1 y1 ...
    SmallVector<int64_t> pairs;
    for (int64_t l = 0; l < hostLanes; ++l)
      pairs.append({l, hostLanes + l});
    Value pair = vector::ShuffleOp::create(b, loc, x, y, pairs);
    return arith::TruncFOp::create(
        b, loc, VectorType::get({2 * hostLanes}, elementType), pair);
  }
  auto f32x2 = VectorType::get({2}, b.getF32Type());
  Value pair = vector::FromElementsOp::create(b, loc, f32x2,
                                              ValueRange{x, y});
  return arith::TruncFOp::create(b, loc,
                                 VectorType::get({2}, elementType), pair);
}

Value KernelMath::pairWord(Value pair) {
  if (onHost())
    return vector::BitCastOp::create(
        b, loc, VectorType::get({hostLanes}, b.getI32Type()), pair);
  Value word = vector::BitCastOp::create(
      b, loc, VectorType::get({1}, b.getI32Type()), pair);
  return vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0});
}

void KernelMath::ifLanes(Value condition, function_ref<void()> body) {
  if (onHost()) {
    Value mask = laneMasks.empty()
                     ? condition
                     : arith::AndIOp::create(b, loc, laneMasks.back(),
                                             condition);
    laneMasks.push_back(mask);
    body();
    laneMasks.pop_back();
    return;
  }
  auto ifOp = scf::IfOp::create(b, loc, condition, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body();
}

void KernelMath::store(Value value, Value memref, Value index) {
  if (!onHost()) {
    memref::StoreOp::create(b, loc, value, memref, ValueRange{index});
    return;
  }
  Value mask = laneMasks.empty() ? Value() : laneMasks.back();
  if (!mask) {
    auto maskType = VectorType::get({hostLanes}, b.getI1Type());
    mask = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(maskType, b.getBoolAttr(true)));
  }
  Value base = arith::ConstantIndexOp::create(b, loc, 0);
  vector::ScatterOp::create(b, loc, /*resultType=*/Type(), memref,
                            ValueRange{base}, index, mask, value);
}

//===----------------------------------------------------------------------===//
// Tile ranges and masking
//===----------------------------------------------------------------------===//

KVRange mlir::flash::buildKVRange(KernelMath &km, Value qStart, Value seqQ,
                                  Value seqKV, int64_t blockQ, int64_t blockKV,
                                  bool causal) {
  // The bounds of flash-tile's K/V loop, from the one model of VisibleKV.h.
  KernelI32Domain domain{km};
  VisibleKVTiles<Value> tiles =
      visibleKVTiles(domain, qStart, seqQ, seqKV, blockQ, blockKV, causal);
  return {tiles.numTiles, tiles.numUnmasked};
}

QTileRange mlir::flash::buildQTileRange(KernelMath &km, Value kvStart,
                                        Value seqQ, Value seqKV,
                                        int64_t blockKV, int64_t blockQ,
                                        bool causal) {
  // The backward's question of the same model (VisibleKV.h).
  KernelI32Domain domain{km};
  VisibleQTiles<Value> tiles =
      visibleQTiles(domain, kvStart, seqQ, seqKV, blockQ, blockKV, causal);
  return {tiles.first, tiles.firstUnmasked, tiles.numTiles};
}

void mlir::flash::buildFragmentMask(KernelMath &km, Fragment &scores,
                                    LaneCoords lane, Value kvStart, Value seqQ,
                                    Value seqKV, Value rowBase, bool causal) {
  using P = arith::CmpIPredicate;
  OpBuilder &b = km.b;
  Value negInf = km.f32(-std::numeric_limits<double>::infinity());
  // Column (nt·8 + e) of this lane holds key kvStart + 2t + nt·8 + e. It is
  // visible iff nt·8 + e <= limit − (kvStart + 2t), where the limit is the
  // last key of the sequence and, for causal, the row's diagonal
  // row + Nk − Nq. Keeping the loop-variant kvStart inside `relative`
  // stops LICM from hoisting one limit per row into registers.
  // (RowPerThread: the thread's columns start at kvStart.)
  const AccumulatorLayout &layout = scores.layout;
  Value col0 = layout.isMmaQuad()
                   ? km.add(kvStart, km.mul(lane.quadLane,
                                            km.i32(layout.columnLaneStride())))
                   : kvStart;
  Value relativeTail = km.sub(km.sub(seqKV, km.i32(1)), col0);
  Value relativeDiag;
  if (causal)
    relativeDiag = km.sub(
        km.add(km.add(rowBase, km.sub(seqKV, seqQ)), lane.group), col0);
  for (int64_t r = 0; r < layout.rowsPerThread; ++r) {
    Value relative = relativeTail;
    if (causal)
      relative = km.minsi(relative,
                          km.add(relativeDiag, km.i32(layout.rowOffset(r))));
    for (int64_t c = 0; c < layout.columnsPerRow; ++c) {
      Value visible = km.cmp(P::sle, km.i32(layout.columnOffset(c)), relative);
      Value &s = scores.reg(r, c);
      s = arith::SelectOp::create(b, km.loc, visible, s, negInf);
    }
  }
}

//===----------------------------------------------------------------------===//
// Online softmax on fragments
//===----------------------------------------------------------------------===//

Value mlir::flash::buildFma(KernelMath &km, Value a, Value b, Value c) {
  return km.fma(a, b, c);
}

Value mlir::flash::buildExp2(KernelMath &km, Value x) { return km.exp2(x); }

Value mlir::flash::buildLog2(KernelMath &km, Value x) { return km.log2(x); }

Value mlir::flash::buildNaturalLog(KernelMath &km, Value x) {
  return arith::MulFOp::create(km.b, km.loc, km.log2(x), km.f32(M_LN2));
}

Value mlir::flash::buildRowLse(KernelMath &km, Value rowMax, Value scale,
                               Value rowSum, Value empty, Value negInf) {
  Value lse = km.fma(rowMax, scale, buildNaturalLog(km, rowSum));
  return km.select(empty, negInf, lse);
}

Value mlir::flash::buildQuadSum(KernelMath &km, Value v) {
  for (int64_t offset : {1, 2})
    v = arith::AddFOp::create(km.b, km.loc, v, km.shuffleXor(v, offset));
  return v;
}

Value mlir::flash::buildQuadMax(KernelMath &km, Value v) {
  for (int64_t offset : {1, 2})
    v = arith::MaxNumFOp::create(km.b, km.loc, v, km.shuffleXor(v, offset));
  return v;
}

Value mlir::flash::buildRowSum(KernelMath &km,
                               const AccumulatorLayout &layout, Value v) {
  for (int64_t offset : layout.reductionOffsets())
    v = arith::AddFOp::create(km.b, km.loc, v, km.shuffleXor(v, offset));
  return v;
}

Value mlir::flash::buildRowMax(KernelMath &km,
                               const AccumulatorLayout &layout, Value v) {
  for (int64_t offset : layout.reductionOffsets())
    v = arith::MaxNumFOp::create(km.b, km.loc, v, km.shuffleXor(v, offset));
  return v;
}

Value mlir::flash::buildPackPair(KernelMath &km, Value x, Value y,
                                 Type elementType) {
  return km.packPair(x, y, elementType);
}

OnlineSoftmaxState mlir::flash::buildOnlineSoftmaxLoop(
    KernelMath &km, Value lb, Value ub, const OnlineSoftmaxState &init,
    function_ref<OnlineSoftmaxState(Value j, const OnlineSoftmaxState &)>
        body) {
  OpBuilder &b = km.b;
  const size_t numRows = init.runningMax.size();
  auto pack = [](const OnlineSoftmaxState &s) {
    SmallVector<Value> values(s.runningMax);
    values.append(s.runningSum.begin(), s.runningSum.end());
    values.append(s.acc.regs.begin(), s.acc.regs.end());
    return values;
  };
  auto unpack = [&](ValueRange values) {
    OnlineSoftmaxState s{SmallVector<Value>(values.take_front(numRows)),
                         SmallVector<Value>(values.slice(numRows, numRows)),
                         init.acc};
    s.acc.regs.assign(values.begin() + 2 * numRows, values.end());
    return s;
  };
  auto loop = scf::ForOp::create(b, km.loc, lb, ub, km.i32(1), pack(init));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    OnlineSoftmaxState next =
        body(loop.getInductionVar(), unpack(loop.getRegionIterArgs()));
    scf::YieldOp::create(b, km.loc, pack(next));
  }
  return unpack(loop.getResults());
}

SoftmaxStep mlir::flash::buildOnlineSoftmax(KernelMath &km, Fragment &scores,
                                            ArrayRef<Value> runningMax,
                                            ArrayRef<Value> runningSum,
                                            Value scaleLog2e,
                                            Type elementType,
                                            double lazyRescale,
                                            Exp2Split exp2Split) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  Value negInf = km.f32(-std::numeric_limits<double>::infinity());
  Value zero = km.f32(0.0);
  const AccumulatorLayout &layout = scores.layout;
  SoftmaxStep step;
  step.probs.resize(layout.numRegisters() / 2);
  for (int64_t row = 0; row < layout.rowsPerThread; ++row) {
    // m' = max(m, rowmax S), the row spread over the lanes sharing it
    // (a quad's four lanes, or this thread alone).
    Value tileMax;
    for (int64_t c = 0; c < layout.columnsPerRow; ++c) {
      Value s = scores.reg(row, c);
      tileMax = tileMax ? arith::MaxNumFOp::create(b, loc, tileMax, s) : s;
    }
    tileMax = buildRowMax(km, layout, tileMax);
    Value newMax =
        arith::MaxNumFOp::create(b, loc, runningMax[row], tileMax);
    // Lazy: grow m only past the threshold. A row that has seen no key
    // (m = -inf) grows on its first finite score ((+inf) > τ); a row
    // still without keys compares NaN and keeps m = -inf.
    Value grows;
    if (lazyRescale >= 0.0) {
      Value rise = arith::MulFOp::create(
          b, loc, arith::SubFOp::create(b, loc, newMax, runningMax[row]),
          scaleLog2e);
      grows = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                    rise, km.f32(lazyRescale));
      newMax = km.select(grows, newMax, runningMax[row]);
    }
    // shift = m'·c, or 0 for a row that has seen no key yet.
    Value empty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                        newMax, negInf);
    Value shift = km.select(
        empty, zero, arith::MulFOp::create(b, loc, newMax, scaleLog2e));
    Value negShift = arith::NegFOp::create(b, loc, shift);
    // α = exp2(m·c − shift)
    Value rescale = buildExp2(
        km, buildFma(km, runningMax[row], scaleLog2e, negShift));
    if (grows)
      rescale = km.select(grows, rescale, km.f32(1.0));
    // P = exp2(S·c − shift), summed per lane, packed to 16-bit pairs.
    Value rowSum;
    for (int64_t cp = 0; cp < layout.columnsPerRow / 2; ++cp) {
      Value p[2];
      for (int64_t e = 0; e < 2; ++e) {
        Value s = scores.reg(row, 2 * cp + e);
        Value x = buildFma(km, s, scaleLog2e, negShift);
        p[e] = exp2Split.onFmaUnits(2 * cp + e) ? km.exp2Polynomial(x)
                                                : buildExp2(km, x);
        rowSum = rowSum ? arith::AddFOp::create(b, loc, rowSum, p[e])
                        : p[e];
      }
      step.probs[layout.pairIndex(row, cp)] =
          buildPackPair(km, p[0], p[1], elementType);
    }
    // l' = α·l + rowsum(P) (lane-partial; the sum over the lanes sharing
    // the row is taken once, at the end, since α is the same on them).
    step.newSum.push_back(buildFma(km, runningSum[row], rescale, rowSum));
    step.newMax.push_back(newMax);
    step.rescale.push_back(rescale);
  }
  return step;
}

void mlir::flash::buildRescale(KernelMath &km, Fragment &acc,
                               ArrayRef<Value> rescale) {
  // Register order (MmaQuad: mt, nt, i), each by the α of its row.
  for (int64_t reg = 0; reg < int64_t(acc.regs.size()); ++reg) {
    Value &a = acc.regs[reg];
    a = arith::MulFOp::create(km.b, km.loc, a,
                              rescale[acc.layout.rowOfRegister(reg)]);
  }
}

void mlir::flash::buildRescaleIfNeeded(KernelMath &km, Fragment &acc,
                                       ArrayRef<Value> rescale) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  Value needed;
  for (Value alpha : rescale) {
    // Unordered: a NaN α rescales, as the plain path would.
    Value differs = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE,
                                          alpha, km.f32(1.0));
    needed = needed ? arith::OrIOp::create(b, loc, needed, differs) : differs;
  }
  Value anyLane = km.warpAny(needed);
  SmallVector<Type> types(acc.regs.size(), km.laneType(b.getF32Type()));
  auto ifOp = scf::IfOp::create(b, loc, types, anyLane, true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Fragment scaled = acc;
    buildRescale(km, scaled, rescale);
    scf::YieldOp::create(b, loc, scaled.regs);
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, acc.regs);
  }
  acc.regs.assign(ifOp.getResults().begin(), ifOp.getResults().end());
}

//===----------------------------------------------------------------------===//
// Global memory and the epilogue
//===----------------------------------------------------------------------===//

/// Static extent of the flat global memrefs; bounds come from the shapes.
static constexpr int64_t kFlatExtent = int64_t(1) << 40;

Value mlir::flash::buildFlatGlobalMemref(KernelMath &km, Value pointer,
                                         Type elementType) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  MLIRContext *ctx = b.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(ctx, 1);
  auto i64 = b.getI64Type();
  auto arrayType = LLVM::LLVMArrayType::get(i64, 1);
  auto descriptorType = LLVM::LLVMStructType::getLiteral(
      ctx, {ptrType, ptrType, i64, arrayType, arrayType});
  auto c64 = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  // A 1-D memref descriptor {allocated, aligned, offset 0, [size], [1]}.
  Value d = LLVM::PoisonOp::create(b, loc, descriptorType);
  d = LLVM::InsertValueOp::create(b, loc, d, pointer, ArrayRef<int64_t>{0});
  d = LLVM::InsertValueOp::create(b, loc, d, pointer, ArrayRef<int64_t>{1});
  d = LLVM::InsertValueOp::create(b, loc, d, c64(0), ArrayRef<int64_t>{2});
  d = LLVM::InsertValueOp::create(b, loc, d, c64(kFlatExtent),
                                  ArrayRef<int64_t>{3, 0});
  d = LLVM::InsertValueOp::create(b, loc, d, c64(1), ArrayRef<int64_t>{4, 0});
  auto memrefType = MemRefType::get({kFlatExtent}, elementType, AffineMap(),
                                    b.getI64IntegerAttr(1));
  return UnrealizedConversionCastOp::create(b, loc, memrefType, d)
      .getResult(0);
}

Value mlir::flash::inlinePtx(KernelMath &km, Type result, ValueRange operands,
                             StringRef text, StringRef constraints,
                             ArrayAttr operandAttrs) {
  OpBuilder &b = km.b;
  auto op = LLVM::InlineAsmOp::create(
      b, km.loc, result ? TypeRange{result} : TypeRange{}, operands,
      b.getStringAttr(text), b.getStringAttr(constraints),
      /*has_side_effects=*/b.getUnitAttr(), UnitAttr(),
      LLVM::TailCallKindAttr::get(b.getContext(), LLVM::TailCallKind::None),
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      operandAttrs);
  return result ? op.getResult(0) : Value();
}

void mlir::flash::buildEpilogue(KernelMath &km, const KernelConfig &config,
                                Fragment &acc, ArrayRef<Value> runningMax,
                                ArrayRef<Value> runningSum, LaneCoords lane,
                                Value rowBase, Value seqQ, Value scale,
                                Value outMemref, Value outBase,
                                Value lseMemref, Value lseBase,
                                StoreOutputWord storeWord,
                                Value outRowStride) {
  using P = arith::CmpIPredicate;
  OpBuilder &b = km.b;
  Location loc = km.loc;
  Value zero = km.f32(0.0), one = km.f32(1.0);
  Value negInf = km.f32(-std::numeric_limits<double>::infinity());
  const int64_t headDim = config.headDim;
  const AccumulatorLayout &layout = acc.layout;
  const int64_t numPairs = layout.columnsPerRow / 2;
  for (int64_t r = 0; r < layout.rowsPerThread; ++r) {
    Value rowSum = buildRowSum(km, layout, runningSum[r]);
    Value empty =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, rowSum, zero);
    Value inverse =
        km.select(empty, zero, arith::DivFOp::create(b, loc, one, rowSum));
    Value row =
        km.add(rowBase, km.add(lane.group, km.i32(layout.rowOffset(r))));
    // Column pair cp of the row (MmaQuad: column tile nt).
    auto wordOf = [&](int64_t cp) -> Value {
      Value x = arith::MulFOp::create(b, loc, acc.reg(r, 2 * cp), inverse);
      Value y =
          arith::MulFOp::create(b, loc, acc.reg(r, 2 * cp + 1), inverse);
      Value pair = buildPackPair(km, x, y, config.elementType);
      // One 32-bit store per pair.
      return km.pairWord(pair);
    };
    // Words for a staging buffer go out for every row: whoever copies the
    // buffer to global memory clips the rows past Nq (sm_90a's TMA store).
    if (storeWord)
      for (int64_t cp = 0; cp < numPairs; ++cp)
        storeWord(row, cp, wordOf(cp));
    if (storeWord && !lseMemref)
      continue;
    km.ifLanes(km.cmp(P::slt, row, seqQ), [&] {
      if (!storeWord) {
        // Element offset of this lane's first column pair in the row.
        auto rowStart = [&] {
          return km.mul(row, outRowStride ? outRowStride : km.i32(headDim));
        };
        Value rowOffset = arith::AddIOp::create(
            b, loc, outBase,
            km.toIndex(
                layout.isMmaQuad()
                    ? km.add(rowStart(),
                             km.mul(lane.quadLane,
                                    km.i32(layout.columnLaneStride())))
                    : rowStart()));
        for (int64_t cp = 0; cp < numPairs; ++cp) {
          Value word = wordOf(cp);
          Value wordIndex = arith::ShRUIOp::create(
              b, loc,
              arith::AddIOp::create(b, loc, rowOffset,
                                    km.index(layout.columnOffset(2 * cp))),
              km.index(1));
          km.store(word, outMemref, wordIndex);
        }
      }
      if (!lseMemref)
        return;
      // LSE = m·scale + ln(l) in natural-log units (-inf for empty rows),
      // written by the first lane of the quad (by every thread that holds
      // a whole row).
      auto writeLse = [&] {
        Value lse =
            buildRowLse(km, runningMax[r], scale, rowSum, empty, negInf);
        Value index =
            arith::AddIOp::create(b, loc, lseBase, km.toIndex(row));
        km.store(lse, lseMemref, index);
      };
      if (layout.oneWriterPerRow())
        km.ifLanes(km.cmp(P::eq, lane.quadLane, km.i32(0)), writeLse);
      else
        writeLse();
    });
  }
}

//===----------------------------------------------------------------------===//
// The backward pass's math
//===----------------------------------------------------------------------===//

void mlir::flash::buildKeyRowMask(KernelMath &km, Fragment &scores,
                                  LaneCoords lane, Value keyRowBase,
                                  Value qStart, Value seqQ, Value seqKV,
                                  bool causal) {
  using P = arith::CmpIPredicate;
  OpBuilder &b = km.b;
  Value negInf = km.f32(-std::numeric_limits<double>::infinity());
  const AccumulatorLayout &layout = scores.layout;
  // Column c of this lane holds query col0 + columnOffset(c). Key k of row r
  // is visible iff k < Nk and, causal, columnOffset(c) >= k − (Nk − Nq) −
  // col0 (the query's diagonal, as in buildFragmentMask).
  Value col0 = layout.isMmaQuad()
                   ? km.add(qStart, km.mul(lane.quadLane,
                                           km.i32(layout.columnLaneStride())))
                   : qStart;
  Value firstKey = km.add(keyRowBase, lane.group);
  Value diagonalShift;
  if (causal)
    diagonalShift = km.add(km.sub(seqKV, seqQ), col0);
  for (int64_t r = 0; r < layout.rowsPerThread; ++r) {
    Value key = km.add(firstKey, km.i32(layout.rowOffset(r)));
    Value inSequence = km.cmp(P::slt, key, seqKV);
    Value firstVisibleColumn;
    if (causal)
      firstVisibleColumn = km.sub(key, diagonalShift);
    for (int64_t c = 0; c < layout.columnsPerRow; ++c) {
      Value visible = inSequence;
      if (causal)
        visible = km.andi(visible,
                          km.cmp(P::sle, firstVisibleColumn,
                                 km.i32(layout.columnOffset(c))));
      Value &s = scores.reg(r, c);
      s = arith::SelectOp::create(b, km.loc, visible, s, negInf);
    }
  }
}

Fragment mlir::flash::buildRecomputedProbs(KernelMath &km,
                                           const Fragment &scores,
                                           ArrayRef<Value> shifts,
                                           bool perColumn, Value scaleLog2e) {
  const AccumulatorLayout &layout = scores.layout;
  Fragment probs = scores;
  for (int64_t r = 0; r < layout.rowsPerThread; ++r)
    for (int64_t c = 0; c < layout.columnsPerRow; ++c) {
      // P = exp2(S·c − shift): −inf (masked, or shift = +inf) gives 0.
      Value negShift =
          arith::NegFOp::create(km.b, km.loc, perColumn ? shifts[c] : shifts[r]);
      Value &p = probs.reg(r, c);
      p = buildExp2(km, buildFma(km, p, scaleLog2e, negShift));
    }
  return probs;
}

Fragment mlir::flash::buildScoreGradient(KernelMath &km, const Fragment &probs,
                                         const Fragment &probsGradient,
                                         ArrayRef<Value> delta,
                                         bool perColumn) {
  const AccumulatorLayout &layout = probs.layout;
  Fragment grad = probs;
  for (int64_t r = 0; r < layout.rowsPerThread; ++r)
    for (int64_t c = 0; c < layout.columnsPerRow; ++c) {
      int64_t reg = layout.registerOf(r, c);
      Value centred =
          delta.empty()
              ? probsGradient.regs[reg]
              : arith::SubFOp::create(km.b, km.loc, probsGradient.regs[reg],
                                      perColumn ? delta[c] : delta[r]);
      grad.regs[reg] =
          arith::MulFOp::create(km.b, km.loc, probs.regs[reg], centred);
    }
  return grad;
}

SmallVector<Value> mlir::flash::buildPackFragment(KernelMath &km,
                                                  const Fragment &values,
                                                  Type elementType) {
  const AccumulatorLayout &layout = values.layout;
  SmallVector<Value> pairs(layout.numRegisters() / 2);
  for (int64_t r = 0; r < layout.rowsPerThread; ++r)
    for (int64_t cp = 0; cp < layout.columnsPerRow / 2; ++cp)
      pairs[layout.pairIndex(r, cp)] = buildPackPair(
          km, values.regs[layout.registerOf(r, 2 * cp)],
          values.regs[layout.registerOf(r, 2 * cp + 1)], elementType);
  return pairs;
}

void mlir::flash::buildStoreFragment(KernelMath &km, const Fragment &values,
                                     Value multiplier, Type elementType,
                                     LaneCoords lane, Value rowBase,
                                     Value validRows, int64_t rowLength,
                                     Value wordMemref, Value base,
                                     Value rowStride) {
  using P = arith::CmpIPredicate;
  OpBuilder &b = km.b;
  Location loc = km.loc;
  const AccumulatorLayout &layout = values.layout;
  auto scaled = [&](int64_t r, int64_t c) -> Value {
    Value v = values.regs[layout.registerOf(r, c)];
    return multiplier ? arith::MulFOp::create(b, loc, v, multiplier) : v;
  };
  for (int64_t r = 0; r < layout.rowsPerThread; ++r) {
    Value row =
        km.add(rowBase, km.add(lane.group, km.i32(layout.rowOffset(r))));
    km.ifLanes(km.cmp(P::slt, row, validRows), [&] {
      Value rowOffset = arith::AddIOp::create(
          b, loc, base,
          km.toIndex(layout.isMmaQuad()
                         ? km.add(km.mul(row, rowStride ? rowStride
                                                        : km.i32(rowLength)),
                                  km.mul(lane.quadLane,
                                         km.i32(layout.columnLaneStride())))
                         : km.mul(row, rowStride ? rowStride
                                                 : km.i32(rowLength))));
      for (int64_t cp = 0; cp < layout.columnsPerRow / 2; ++cp) {
        Value pair = buildPackPair(km, scaled(r, 2 * cp), scaled(r, 2 * cp + 1),
                                   elementType);
        Value wordIndex = arith::ShRUIOp::create(
            b, loc,
            arith::AddIOp::create(b, loc, rowOffset,
                                  km.index(layout.columnOffset(2 * cp))),
            km.index(1));
        km.store(km.pairWord(pair), wordMemref, wordIndex);
      }
    });
  }
}
