//===- TMA.cpp - sm_90a tensor-memory-accelerator tiles -------------------===//
//
// TMA loads of whole tiles (one box per 64 columns, completing on an
// mbarrier), TMA stores of staged boxes, and the proxy fence and bulk-group
// wait around the stores (TMA.h).
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/SM90/TMA.h"
#include "flash/Conversion/FlashToNVGPU/SM90/SharedLayout.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <string>

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::sm90;

DictionaryAttr sm90::describeTensorMap(Builder &b, StringRef tensor,
                                       int64_t boxRows, bool batchMaps) {
  return b.getDictionaryAttr(
      {b.getNamedAttr("tensor", b.getStringAttr(tensor)),
       b.getNamedAttr("dims",
                      batchMaps ? b.getStrArrayAttr({"D", "N", "H", "B"})
                                : b.getStrArrayAttr({"D", "N", "B*H"})),
       b.getNamedAttr("box",
                      batchMaps
                          ? b.getI64ArrayAttr({kAtomColumns, boxRows, 1, 1})
                          : b.getI64ArrayAttr({kAtomColumns, boxRows, 1})),
       b.getNamedAttr("swizzle", b.getStringAttr("128B"))});
}

void sm90::tmaLoadTile(KernelMath &km, const SharedBase &smem,
                       const TmaBox &tile, Value barrier, Value byteOffset,
                       Value row0, TmaHead head) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  auto clusterPtr = LLVM::LLVMPointerType::get(b.getContext(), 7);
  for (int64_t block = 0; block < tile.boxes(); ++block) {
    Value dst = LLVM::AddrSpaceCastOp::create(
        b, loc, clusterPtr,
        smem.at(km, km.add(byteOffset,
                           km.i32(block * tile.rows * kSwizzleBytes))));
    SmallVector<Value, 4> coords{km.i32(block * kAtomColumns), row0,
                                 head.head};
    if (head.batch)
      coords.push_back(head.batch);
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        b, loc, dst, tile.tensorMap, coords, barrier,
        ValueRange{}, Value(), Value(), NVVM::TMALoadMode::TILE,
        /*isCTAOnly=*/false, NVVM::CTAGroupKindAttr(), Value());
  }
}

void sm90::refillKVSlot(KernelMath &km, const SharedBase &smem,
                        ArrayRef<RingHalf> halves, int64_t rows,
                        int64_t columns, int64_t tileBytes, Value stage,
                        Value reused, Value previousParity, Value row0,
                        TmaHead head,
                        function_ref<void(const RingHalf &)> afterLoad) {
  OpBuilder &b = km.b;
  for (const RingHalf &half : halves) {
    auto ifReused = scf::IfOp::create(b, km.loc, reused, false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(ifReused.thenBlock()->getTerminator());
      mbarrierWait(km, half.empty.address(km, smem, stage), previousParity);
    }
    Value fullBar = half.full.address(km, smem, stage);
    mbarrierExpectTx(km, fullBar, tileBytes);
    tmaLoadTile(km, smem, TmaBox{half.tensorMap, rows, columns}, fullBar,
                km.add(km.i32(half.base), km.mul(stage, km.i32(tileBytes))),
                row0, head);
    if (afterLoad)
      afterLoad(half);
  }
}

void sm90::tmaStoreBoxes(KernelMath &km, const SharedBase &smem,
                         Value tensorMap, int64_t columns,
                         function_ref<Value(int64_t)> boxOffset, Value row0,
                         TmaHead head, Value firstColumn) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  for (int64_t block = 0; block < columns / kAtomColumns; ++block) {
    Value src = smem.at(km, boxOffset(block));
    Value column = km.i32(block * kAtomColumns);
    if (firstColumn)
      column = km.add(firstColumn, column);
    SmallVector<Value, 4> coords{column, row0, head.head};
    if (head.batch)
      coords.push_back(head.batch);
    NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
        b, loc, tensorMap, src, coords, Value(),
        NVVM::TMAStoreMode::TILE, Value());
  }
  NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
}

void sm90::fenceAsyncShared(KernelMath &km) {
  NVVM::FenceProxyOp::create(
      km.b, km.loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(km.b.getContext(),
                                 NVVM::SharedSpace::shared_cta));
}

void sm90::tmaWaitStoresRead(KernelMath &km) {
  // The bulk async-group is the calling thread's own: it issued the stores.
  NVVM::CpAsyncBulkWaitGroupOp::create(km.b, km.loc, 0, km.b.getUnitAttr());
}

void sm90::bulkWaitRead(KernelMath &km, int64_t pending) {
  NVVM::CpAsyncBulkWaitGroupOp::create(km.b, km.loc, pending,
                                       km.b.getUnitAttr());
}

void sm90::bulkWaitComplete(KernelMath &km) {
  NVVM::CpAsyncBulkWaitGroupOp::create(km.b, km.loc, 0, UnitAttr());
}

void sm90::fenceAsyncGlobal(KernelMath &km) {
  NVVM::FenceProxyOp::create(km.b, km.loc, NVVM::ProxyKind::async_global,
                             NVVM::SharedSpaceAttr());
}

void sm90::bulkLoad(KernelMath &km, const SharedBase &smem, Value globalAddress,
                    Value byteOffset, int64_t bytes, Value barrier) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  auto clusterPtr = LLVM::LLVMPointerType::get(b.getContext(), 7);
  Value dst = LLVM::AddrSpaceCastOp::create(b, loc, clusterPtr,
                                            smem.at(km, byteOffset));
  NVVM::CpAsyncBulkGlobalToSharedClusterOp::create(
      b, loc, dst, globalAddress, barrier, km.i32(bytes), Value(), Value());
}

void sm90::bulkReduceAddF32(KernelMath &km, Value globalAddress,
                            Value sharedAddress, int64_t bytes) {
  // No NVVM op for the non-tensor bulk reduction: inline PTX (no results).
  OpBuilder &b = km.b;
  LLVM::InlineAsmOp::create(
      b, km.loc, TypeRange{}, ValueRange{globalAddress, sharedAddress},
      b.getStringAttr(
          "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], "
          "[$1], " +
          std::to_string(bytes) + ";"),
      b.getStringAttr("l,r,~{memory}"), /*has_side_effects=*/b.getUnitAttr(),
      UnitAttr(),
      LLVM::TailCallKindAttr::get(b.getContext(), LLVM::TailCallKind::None),
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      ArrayAttr());
}

void sm90::bulkReduceAddF32(KernelMath &km, Value globalAddress,
                            Value sharedAddress, Value bytes) {
  OpBuilder &b = km.b;
  LLVM::InlineAsmOp::create(
      b, km.loc, TypeRange{}, ValueRange{globalAddress, sharedAddress, bytes},
      b.getStringAttr("cp.reduce.async.bulk.global.shared::cta.bulk_group.add."
                      "f32 [$0], [$1], $2;"),
      b.getStringAttr("l,r,r,~{memory}"), /*has_side_effects=*/b.getUnitAttr(),
      UnitAttr(),
      LLVM::TailCallKindAttr::get(b.getContext(), LLVM::TailCallKind::None),
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      ArrayAttr());
}

void sm90::bulkCommit(KernelMath &km) {
  NVVM::CpAsyncBulkCommitGroupOp::create(km.b, km.loc);
}

LLVM::LLVMFuncOp sm90::declareTensorMapKernel(OpBuilder &b, Location loc,
                                              StringRef name,
                                              unsigned numTensorMaps,
                                              ArrayRef<Type> params,
                                              int32_t threads,
                                              int32_t minBlocksPerSM) {
  MLIRContext *ctx = b.getContext();
  // The shared-memory window every kernel of the module addresses.
  LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                         /*isConstant=*/false, LLVM::Linkage::External,
                         "flash_smem", Attribute(), /*alignment=*/16,
                         /*addrSpace=*/3);
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> types(numTensorMaps, ptr);
  llvm::append_range(types, params);
  auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), types);
  auto func = LLVM::LLVMFuncOp::create(b, loc, name, type);
  func->setAttr("nvvm.kernel", b.getUnitAttr());
  func->setAttr("nvvm.maxntid", b.getDenseI32ArrayAttr({threads, 1, 1}));
  func->setAttr("nvvm.minctasm", b.getI32IntegerAttr(minBlocksPerSM));
  auto tensorMapType =
      LLVM::LLVMArrayType::get(b.getI64Type(), 16); // sizeof(CUtensorMap) = 128
  for (unsigned i = 0; i < numTensorMaps; ++i) {
    func.setArgAttr(i, "llvm.byval", TypeAttr::get(tensorMapType));
    func.setArgAttr(i, "llvm.align", b.getI64IntegerAttr(64));
    func.setArgAttr(i, "nvvm.grid_constant", b.getUnitAttr());
  }
  return func;
}
