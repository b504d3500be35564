//===- DecodePages.cpp - Page arithmetic of the paged decode kernels ------===//
//
// The rows a paged split kernel's threads copy (SM80/DecodePages.h), written
// once for the kernels (SM80/DecodeKernel.cpp) and the CPU harness
// (test/lib/TestDecodePages.cpp).
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/SM80/DecodePages.h"
#include "flash/Target/SplitKV.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::sm80;

namespace {
constexpr int64_t kBlockKV = kSplitKVBlockKV;
} // namespace

DecodePageRows::DecodePageRows(OpBuilder &b, Location loc, int64_t headDim,
                               int64_t threads, int64_t constantPageSize,
                               bool groupedStart, int64_t tableWindow)
    : km{b, loc}, D(headDim), threads(threads),
      constantPageSize(constantPageSize), tableWindow(tableWindow),
      groupedStart(groupedStart) {
  assert(tableWindow % threads == 0 && "a window of whole rounds");
}

void DecodePageRows::setPageSize(Value S, Value batch, Value M) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  pageSize = constantPageSize ? km.i32(constantPageSize) : S;
  tableRow = km.mul(batch, M);
  // S = 2^k: k is the exponent field of S as an f32 (exact below 2^24).
  pagePow2 = km.cmp(arith::CmpIPredicate::eq,
                    km.andi(pageSize, km.sub(pageSize, km.i32(1))), km.i32(0));
  Value asFloat = arith::BitcastOp::create(
      b, loc, b.getI32Type(),
      arith::UIToFPOp::create(b, loc, b.getF32Type(), pageSize));
  pageShift = km.sub(km.shru(asFloat, km.i32(23)), km.i32(127));
  if (groupedStart)
    fastPages = arith::AndIOp::create(
        b, loc, pagePow2,
        km.cmp(arith::CmpIPredicate::sge, pageSize, km.i32(16)));
}

void DecodePageRows::setPartLastKey() {
  partLastKey = km.sub(km.minsi(km.mul(tileEnd, km.i32(kBlockKV)), length),
                       km.i32(1));
}

Value DecodePageRows::setWindowBounds() {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  Value lastPage;
  if (groupedStart) {
    // Shifts when S is a power of two, divisions only when not.
    Value firstKey = km.mul(tileBegin, km.i32(kBlockKV));
    auto ifPow2 = scf::IfOp::create(
        b, loc, TypeRange{b.getI32Type(), b.getI32Type()}, pagePow2,
        /*withElse=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifPow2.thenBlock());
    scf::YieldOp::create(b, loc,
                         ValueRange{km.shru(firstKey, pageShift),
                                    km.shru(partLastKey, pageShift)});
    b.setInsertionPointToStart(ifPow2.elseBlock());
    scf::YieldOp::create(b, loc,
                         ValueRange{km.divu(firstKey, pageSize),
                                    km.divu(partLastKey, pageSize)});
    firstPage = ifPow2.getResult(0);
    lastPage = ifPow2.getResult(1);
  } else {
    auto pageOf = [&](Value key) {
      return km.select(pagePow2, km.shru(key, pageShift),
                       km.divu(key, pageSize));
    };
    firstPage = pageOf(km.mul(tileBegin, km.i32(kBlockKV)));
    lastPage = pageOf(partLastKey);
  }
  Value windowPages = km.add(km.sub(lastPage, firstPage), km.i32(1));
  windowed = km.cmp(arith::CmpIPredicate::sle, windowPages,
                    km.i32(tableWindow));
  if (windowRounds() > windowBaseRounds())
    windowPastBase = km.cmp(arith::CmpIPredicate::sgt, windowPages,
                            km.i32(kDecodeTableWindowBase));
  return windowPages;
}

Value DecodePageRows::windowEntry(Value tid, int64_t i, Value windowPages) {
  Value entry = km.minsi(km.add(tid, km.i32(i * threads)),
                         km.sub(windowPages, km.i32(1)));
  return memref::LoadOp::create(
             km.b, km.loc, globalTable,
             ValueRange{km.toIndex(km.add(tableRow, km.add(firstPage, entry)))})
      .getResult();
}

bool DecodePageRows::onePageATile(int64_t constantPageSize) {
  return constantPageSize >= kBlockKV && llvm::isPowerOf2_64(constantPageSize);
}

bool DecodePageRows::onePageA16Keys(int64_t constantPageSize) {
  return constantPageSize >= 16 && constantPageSize < kBlockKV &&
         llvm::isPowerOf2_64(constantPageSize);
}

Value DecodePageRows::copyRowOf(Value tid) {
  return km.shru(tid, km.i32(llvm::Log2_64(D / 8)));
}

int64_t DecodePageRows::passes() const { return kBlockKV * (D / 8) / threads; }

int64_t DecodePageRows::rowsPerPass() const { return threads / (D / 8); }

int64_t DecodePageRows::passesA16Keys() const {
  return std::clamp<int64_t>(16 / rowsPerPass(), 1, passes());
}

Value DecodePageRows::keyOf(Value tile, int64_t p) {
  return km.add(km.mul(tile, km.i32(kBlockKV)),
                km.add(copyRow, km.i32(p * rowsPerPass())));
}

SmallVector<Value> DecodePageRows::cacheRowsOf(Value tile, bool fromTable) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  // Page and slot of each key: shifts and masks when S is a power of two
  // (a uniform branch; serving engines use such pages), else divisions.
  // Keys are clamped to the part's last key, so that the page is one of the
  // part's (in the window, when it holds them).
  Value last = partLastKey;
  SmallVector<Value> keys;
  for (int64_t p = 0; p < passes(); ++p)
    keys.push_back(km.maxsi(km.minsi(keyOf(tile, p), last), km.i32(0)));
  // A kernel for pages of 2^k >= 64 slots (`_s64`, `_separate_s64`): a
  // tile's keys lie in one page, so one lookup a tile, the page of its
  // first key clamped like the others (a clamped key stays in that page:
  // the last key lies in the tile whenever the tile is issued, and a tile
  // past it, computed in the prologue but not issued, takes the last key's
  // page). Against a lookup a key, `_s64`: 9 global loads in the bf16
  // D = 128 kernel's PTX instead of 37, 183 registers instead of 200, and
  // 0.992-0.999x the time at S = 64 on GQA 8/1 B = 64 L = 1k and B = 128
  // L = 2k (docs/benchmarks.md, thirty-fourth and thirty-fifth sessions);
  // `_separate_s64` (no grouped form): 179 registers instead of 200,
  // 0.971-0.993x the time at S = 64 on GQA 8/1 B = 1 (thirty-fifth, run 3).
  if (onePageATile(constantPageSize)) {
    const int64_t constantS = constantPageSize;
    Value first = km.maxsi(
        km.minsi(km.mul(tile, km.i32(kBlockKV)), last), km.i32(0));
    Value page = lookupPages(
        {km.shru(first, km.i32(llvm::Log2_64(constantS)))}, fromTable)[0];
    SmallVector<Value> rows;
    for (Value key : keys)
      rows.push_back(km.add(km.mul(page, km.i32(constantS)),
                            km.andi(key, km.i32(constantS - 1))));
    return rows;
  }
  // A kernel for pages of 2^k slots, 16 <= 2^k < 64 (`_s16`,
  // `_separate_s16`): the passes of an aligned 16-key group (rowsPerPass
  // consecutive keys a pass) lie in one page, so one lookup a group, the
  // page of its first key (clamped like every key), and the others' rows at
  // fixed offsets from it. The offsets wrap into that page, so that where
  // the first key was clamped (a group at or past the part's last key) every
  // row stays in bounds, in a page of the part; rows past the length are
  // zero-filled whatever slot they name. Against a lookup a key, in the
  // separate merge's split kernel for S = 16 (`_separate_s16`, without the
  // grouped form's second copy of the loop): 0.964-0.986x the time at
  // S = 16 on GQA 8/1 B = 1 L = 8k/32k, 0.987-0.991x on GQA 32/8 B = 1
  // L = 8k; the fused `_s16` equal within noise (docs/benchmarks.md,
  // thirty-seventh session).
  if (onePageA16Keys(constantPageSize)) {
    const int64_t constantS = constantPageSize;
    const int64_t group = passesA16Keys(), rowStep = rowsPerPass();
    SmallVector<Value> pageIndex, slots;
    for (int64_t p = 0; p < passes(); p += group) {
      pageIndex.push_back(
          km.shru(keys[p], km.i32(llvm::Log2_64(constantS))));
      slots.push_back(km.andi(keys[p], km.i32(constantS - 1)));
    }
    SmallVector<Value> pages = lookupPages(pageIndex, fromTable);
    SmallVector<Value> rows;
    for (auto [g, page] : llvm::enumerate(pages)) {
      Value base = km.mul(page, km.i32(constantS));
      for (int64_t i = 0; i < group; ++i)
        rows.push_back(km.add(
            base, i == 0 ? slots[g]
                         : km.andi(km.add(slots[g], km.i32(i * rowStep)),
                                   km.i32(constantS - 1))));
    }
    return rows;
  }
  SmallVector<Type> types(2 * passes(), b.getI32Type());
  auto ifPow2 = scf::IfOp::create(b, loc, types, pagePow2, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifPow2.thenBlock());
    SmallVector<Value> out;
    Value mask = km.sub(pageSize, km.i32(1));
    for (Value key : keys)
      out.push_back(km.shru(key, pageShift));
    for (Value key : keys)
      out.push_back(km.andi(key, mask));
    scf::YieldOp::create(b, loc, out);
    b.setInsertionPointToStart(ifPow2.elseBlock());
    out.clear();
    for (Value key : keys)
      out.push_back(km.divu(key, pageSize));
    for (auto [p, key] : llvm::enumerate(keys))
      out.push_back(km.sub(key, km.mul(out[p], pageSize)));
    scf::YieldOp::create(b, loc, out);
  }
  SmallVector<Value> pageIndex(ifPow2.getResults().take_front(passes()));
  SmallVector<Value> pages = lookupPages(pageIndex, fromTable);
  SmallVector<Value> rows;
  for (int64_t p = 0; p < passes(); ++p)
    rows.push_back(
        km.add(km.mul(pages[p], pageSize), ifPow2.getResult(passes() + p)));
  return rows;
}

SmallVector<Value> DecodePageRows::lookupPages(ArrayRef<Value> pageIndex,
                                               bool fromTable) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  auto globalPages = [&] {
    SmallVector<Value> pages;
    for (Value index : pageIndex)
      pages.push_back(memref::LoadOp::create(
          b, loc, globalTable,
          ValueRange{km.toIndex(km.add(tableRow, index))}));
    return pages;
  };
  if (fromTable)
    return globalPages();
  SmallVector<Type> pageTypes(pageIndex.size(), b.getI32Type());
  auto ifWindow =
      scf::IfOp::create(b, loc, pageTypes, windowed, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifWindow.thenBlock());
    SmallVector<Value> fromWindow;
    for (Value index : pageIndex)
      fromWindow.push_back(memref::LoadOp::create(
          b, loc, window, ValueRange{km.toIndex(km.sub(index, firstPage))}));
    scf::YieldOp::create(b, loc, fromWindow);
    b.setInsertionPointToStart(ifWindow.elseBlock());
    scf::YieldOp::create(b, loc, globalPages());
  }
  return SmallVector<Value>(ifWindow.getResults());
}

Value DecodePageRows::fullTile(Value tile) {
  return km.cmp(arith::CmpIPredicate::sle,
                km.mul(km.add(tile, km.i32(1)), km.i32(kBlockKV)), length);
}

SmallVector<Value> DecodePageRows::groupedRowsOf(Value tile, bool fromTable,
                                                 bool clampKeys) {
  // Pass p holds keys 8·p + copyRow (D = 128: 8 rows a pass), so the passes
  // of an aligned group of 16 keys lie in one page when S >= 16 is a power
  // of two: the first one's page, the others' rows at fixed offsets.
  const int64_t rowStep = rowsPerPass();
  const int64_t group = passesA16Keys();
  Value mask = km.sub(pageSize, km.i32(1));
  SmallVector<Value> pageIndex, slots;
  for (int64_t p = 0; p < passes(); p += group) {
    Value key = keyOf(tile, p);
    if (clampKeys)
      key = km.minsi(key, partLastKey);
    pageIndex.push_back(km.shru(key, pageShift));
    slots.push_back(km.andi(key, mask));
  }
  SmallVector<Value> pages = lookupPages(pageIndex, fromTable);
  SmallVector<Value> rows;
  for (auto [g, page] : llvm::enumerate(pages)) {
    Value first = km.add(km.mul(page, pageSize), slots[g]);
    for (int64_t i = 0; i < group; ++i)
      rows.push_back(i == 0 ? first : km.add(first, km.i32(i * rowStep)));
  }
  return rows;
}


Value DecodePageRows::prologueFast(int64_t stages) {
  // The prologue's tiles are all wholly inside the length iff the last
  // one it issues is.
  Value lastIssued = km.sub(
      km.minsi(km.add(tileBegin, km.i32(stages - 1)), tileEnd), km.i32(1));
  Value fast = fullTile(lastIssued);
  return arith::AndIOp::create(km.b, km.loc, fastPages, fast);
}
