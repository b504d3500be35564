//===- Epilogue.cpp - sm_90a TMA-store epilogue ---------------------------===//
//
// A warpgroup's 64 output rows through shared memory and TMA stores: the
// swizzled writes, the fence + warpgroup barrier + leader's stores, and the
// leader's wait for the stores' reads (Epilogue.h).
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/SM90/Epilogue.h"
#include "flash/Conversion/FlashToNVGPU/SM90/SharedLayout.h"
#include "flash/Conversion/FlashToNVGPU/SM90/TMA.h"
#include "flash/Conversion/FlashToNVGPU/SM90/Warpgroups.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::sm90;

void sm90::writeSwizzledOutput(KernelMath &km, const SharedBase &smem,
                               ArrayRef<OutputWord> words,
                               ArrayRef<Value> boxes, Value tileRow0,
                               Value warpgroup, Value quadLane) {
  Value firstRow = km.add(tileRow0, km.mul(warpgroup, km.i32(64)));
  writeSwizzledOutput(km, smem, AccumulatorLayout::mmaQuad(1, 1), words,
                      boxes, firstRow, quadLane);
}

void sm90::writeSwizzledOutput(KernelMath &km, const SharedBase &smem,
                               const AccumulatorLayout &layout,
                               ArrayRef<OutputWord> words,
                               ArrayRef<Value> boxes, Value firstRow,
                               Value quadLane) {
  for (const OutputWord &w : words) {
    // Element (r, c) of a 128B-swizzled box: row r, 16-byte chunk
    // (c % 64) / 8 XOR (r % 8), then 2 bytes per element. The word's 8-column
    // tile and its 4-byte place in the chunk come from the layout.
    int64_t columnTile =
        layout.isMmaQuad() ? w.columnTile : w.columnTile / 4;
    Value local = km.sub(w.row, firstRow);
    Value chunk = km.xori(km.i32(columnTile % 8), km.andi(local, km.i32(7)));
    Value offset = km.add(
        boxes[columnTile / 8],
        km.add(km.add(km.mul(local, km.i32(kSwizzleBytes)),
                      km.mul(chunk, km.i32(16))),
               layout.isMmaQuad() ? km.mul(quadLane, km.i32(4))
                                  : km.i32(4 * (w.columnTile % 4))));
    LLVM::StoreOp::create(km.b, km.loc, w.word, smem.at(km, offset),
                          /*alignment=*/4);
  }
}

void sm90::storeOutputTma(KernelMath &km, const SharedBase &smem,
                          Value tensorMap, int64_t columns, Value tid,
                          Value warpgroup, int64_t firstBarrierId,
                          Value tileRow0, TmaHead head,
                          function_ref<Value(int64_t)> boxOffset) {
  storeOutputTma(
      km, smem, tensorMap, columns, tid, warpgroup, firstBarrierId,
      [&] { return km.add(tileRow0, km.mul(warpgroup, km.i32(64))); }, head,
      boxOffset);
}

void sm90::storeOutputTma(KernelMath &km, const SharedBase &smem,
                          Value tensorMap, int64_t columns, Value tid,
                          Value barrierIndex, int64_t firstBarrierId,
                          function_ref<Value()> rows, TmaHead head,
                          function_ref<Value(int64_t)> boxOffset) {
  using P = arith::CmpIPredicate;
  OpBuilder &b = km.b;
  // Generic-proxy writes become visible to the TMA unit (async proxy) after
  // the fence and the group's barrier.
  fenceAsyncShared(km);
  namedBarrierSync(km, barrierIndex, firstBarrierId, /*threads=*/128);
  Value localTid = km.andi(tid, km.i32(127));
  auto leader =
      scf::IfOp::create(b, km.loc, km.cmp(P::eq, localTid, km.i32(0)), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(leader.thenBlock()->getTerminator());
  tmaStoreBoxes(km, smem, tensorMap, columns, boxOffset, rows(), head);
}

void sm90::waitOutputRead(KernelMath &km, Value tid,
                          function_ref<void()> release) {
  using P = arith::CmpIPredicate;
  OpBuilder &b = km.b;
  Value localTid = km.andi(tid, km.i32(127));
  auto leader =
      scf::IfOp::create(b, km.loc, km.cmp(P::eq, localTid, km.i32(0)), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(leader.thenBlock()->getTerminator());
  tmaWaitStoresRead(km);
  release();
}
