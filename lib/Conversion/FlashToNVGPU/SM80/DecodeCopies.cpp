//===- DecodeCopies.cpp - K/V tile copies of the decode kernels ----------===//
//
// The copies of a split kernel's K/V tiles (SM80/DecodeCopies.h), written
// once for the kernels (SM80/DecodeKernel.cpp) and the CPU harness
// (test/lib/TestDecodeCopies.cpp).
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/SM80/DecodeCopies.h"
#include "flash/Target/SplitKV.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::sm80;

namespace {
constexpr int64_t kBlockKV = kSplitKVBlockKV;
} // namespace

DecodeTileCopies::DecodeTileCopies(OpBuilder &b, Location loc,
                                   int64_t headDim, int64_t threads,
                                   int64_t constantPageSize,
                                   bool groupedStart, bool paged,
                                   int64_t tableWindow)
    : DecodePageRows(b, loc, headDim, threads, constantPageSize,
                     groupedStart, tableWindow),
      paged(paged) {}

void DecodeTileCopies::setContiguousBase(Value batch, Value numKVHeads,
                                         Value kvHead, Value seqKV) {
  kvHeadBase = arith::MulIOp::create(
      km.b, km.loc, km.toIndex(km.add(km.mul(batch, numKVHeads), kvHead)),
      km.toIndex(seqKV));
}

void DecodeTileCopies::setCopyOffsets(Value tid, Value numKVHeads,
                                      Value kvHead) {
  copier = makeTileCopier(km, tid, D, threads);
  copyChunk = km.andi(tid, km.i32(D / 8 - 1));
  copyRow = copyRowOf(tid);
  if (paged) { // Hkv·D and h·D + 8·chunk fit in 32 bits
    pagedRowStride = km.toIndex(km.mul(numKVHeads, km.i32(D)));
    pagedHeadChunk = km.toIndex(km.add(km.mul(kvHead, km.i32(D)),
                                       km.mul(copyChunk, km.i32(8))));
  }
}

void DecodeTileCopies::issueTile(Value tile, Value stage,
                                 ArrayRef<Value> rows, bool plain) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  using P = arith::CmpIPredicate;
  auto tokenType = nvgpu::DeviceAsyncTokenType::get(b.getContext());
  Value stageOffset = km.mul(stage, km.i32(kBlockKV * D));
  auto destOf = [&](int64_t p) {
    int64_t r = p * rowsPerPass();
    Value dst = copier.dst.size() == 1
                    ? copier.dst[0]
                    : copier.dst[(r % 8) / rowsPerPass()];
    return km.toIndex(km.add(stageOffset, km.add(dst, km.i32(r * D))));
  };
  // K's and V's copies of one 16-byte chunk (`elements`: the zero-fill
  // operand, or none).
  auto copyKV = [&](Value dest, Value source, Value elements) {
    for (auto [global, shared] :
         {std::pair(globalK, sharedK), std::pair(globalV, sharedV)}) {
      if (emitCopy)
        emitCopy(shared, dest, global, source, elements);
      else
        nvgpu::DeviceAsyncCopyOp::create(b, loc, tokenType, shared,
                                         ValueRange{dest}, global,
                                         ValueRange{source},
                                         b.getIndexAttr(8), elements,
                                         b.getUnitAttr());
    }
  };
  // Paged: element offset of this thread's chunk of cache row `row`,
  // row·Hkv·D + (h·D + chunk·8), the second term once a block.
  auto pagedSource = [&](Value row) -> Value {
    return arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, km.toIndex(row), pagedRowStride),
        pagedHeadChunk);
  };
  OpBuilder::InsertionGuard guard(b);
  if (!paged) {
    // Contiguous, a tile wholly inside the length: one base a tile and
    // constant offsets a pass, no clamp, compare or 64-bit address math a
    // copy (a block-uniform branch; a part's last tile may take the other).
    auto full = scf::IfOp::create(
        b, loc,
        km.cmp(P::sle, km.mul(km.add(tile, km.i32(1)), km.i32(kBlockKV)),
               length),
        /*withElse=*/true);
    b.setInsertionPoint(full.thenBlock()->getTerminator());
    Value base = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(
            b, loc,
            arith::AddIOp::create(
                b, loc, kvHeadBase,
                km.toIndex(km.add(km.mul(tile, km.i32(kBlockKV)), copyRow))),
            km.index(D)),
        km.toIndex(km.mul(copyChunk, km.i32(8))));
    for (int64_t p = 0; p < passes(); ++p) {
      Value source = arith::AddIOp::create(
          b, loc, base, km.index(p * rowsPerPass() * D));
      copyKV(destOf(p), source, Value());
    }
    b.setInsertionPoint(full.elseBlock()->getTerminator());
  }
  if (paged && plain) {
    // Paged, a tile wholly inside the length: no compare and no zero-fill
    // operand (the rows are the keys' own, none clamped).
    for (int64_t p = 0; p < passes(); ++p) {
      Value source = pagedSource(rows[p]);
      copyKV(destOf(p), source, Value());
    }
    return;
  }
  // The other form: each row's address on its own, rows at or past the
  // length zero-filled (from a clamped, in-bounds row).
  Value last = km.sub(length, km.i32(1));
  for (int64_t p = 0; p < passes(); ++p) {
    Value key = keyOf(tile, p);
    Value inRange = km.cmp(P::slt, key, length);
    // Element offset of this thread's 16-byte chunk of the key's K/V row:
    // paged (pagedSource: row = page·S + slot); contiguous
    // ((b·Hkv + h)·Nk + t)·D + chunk·8.
    Value source;
    if (paged) {
      source = pagedSource(rows[p]);
    } else {
      Value key0 = km.maxsi(km.minsi(key, last), km.i32(0));
      source = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(
              b, loc,
              arith::AddIOp::create(b, loc, kvHeadBase, km.toIndex(key0)),
              km.index(D)),
          km.toIndex(km.mul(copyChunk, km.i32(8))));
    }
    Value dest = destOf(p);
    copyKV(dest, source, km.select(inRange, km.index(8), km.index(0)));
  }
}
