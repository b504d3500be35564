//===- TCGen05.cpp - sm_100a tensor memory and tcgen05.mma ----------------===//
//
// The Blackwell building blocks (TCGen05.h): TMEM allocation, row loads and
// stores, fences, commits, descriptors and the MMA issue, all as MLIR 22
// NVVM ops, and the static check of a kernel's TMEM allocations.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/SM100/TCGen05.h"
#include "flash/Conversion/FlashToNVGPU/SM90/SharedLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::sm100;

int64_t sm100::allocationColumns(int64_t needed) {
  return std::max<int64_t>(32, llvm::PowerOf2Ceil(needed));
}

void sm100::allocate(KernelMath &km, Value slot, int64_t columns) {
  NVVM::Tcgen05AllocOp::create(km.b, km.loc, slot, km.i32(columns));
  NVVM::Tcgen05RelinquishAllocPermitOp::create(km.b, km.loc);
}

void sm100::deallocate(KernelMath &km, Value base, int64_t columns) {
  Value addr = LLVM::IntToPtrOp::create(
      km.b, km.loc, LLVM::LLVMPointerType::get(km.b.getContext(), 6), base);
  NVVM::Tcgen05DeallocOp::create(km.b, km.loc, addr, km.i32(columns));
}

Value sm100::address(KernelMath &km, Value base, Value lane, Value column) {
  Value offset =
      km.add(arith::ShLIOp::create(km.b, km.loc, lane, km.i32(16)), column);
  return LLVM::IntToPtrOp::create(
      km.b, km.loc, LLVM::LLVMPointerType::get(km.b.getContext(), 6),
      km.add(base, offset));
}

SmallVector<Value> sm100::loadRow(KernelMath &km, Value addr,
                                  int64_t columns) {
  OpBuilder &b = km.b;
  Type i32 = b.getI32Type();
  Type type = columns == 1 ? i32 : Type(VectorType::get({columns}, i32));
  Value loaded = NVVM::Tcgen05LdOp::create(
      b, km.loc, type, /*pack=*/false, NVVM::Tcgen05LdStShape::SHAPE_32X32B,
      addr, Value());
  SmallVector<Value> row;
  for (int64_t c = 0; c < columns; ++c) {
    Value word = columns == 1 ? loaded
                              : vector::ExtractOp::create(
                                    b, km.loc, loaded, ArrayRef<int64_t>{c});
    row.push_back(arith::BitcastOp::create(b, km.loc, b.getF32Type(), word));
  }
  return row;
}

void sm100::storeRow(KernelMath &km, Value addr, ArrayRef<Value> words) {
  OpBuilder &b = km.b;
  Value value = words.front();
  if (words.size() > 1)
    value = vector::FromElementsOp::create(
        b, km.loc,
        VectorType::get({int64_t(words.size())}, b.getI32Type()), words);
  NVVM::Tcgen05StOp::create(b, km.loc, /*unpack=*/false,
                            NVVM::Tcgen05LdStShape::SHAPE_32X32B, addr, value,
                            Value());
}

void sm100::waitLoads(KernelMath &km) {
  NVVM::Tcgen05WaitOp::create(km.b, km.loc, NVVM::Tcgen05WaitKind::LOAD);
}

void sm100::waitStores(KernelMath &km) {
  NVVM::Tcgen05WaitOp::create(km.b, km.loc, NVVM::Tcgen05WaitKind::STORE);
}

void sm100::fenceBeforeSync(KernelMath &km) {
  NVVM::Tcgen05FenceOp::create(km.b, km.loc,
                               NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
}

void sm100::fenceAfterSync(KernelMath &km) {
  NVVM::Tcgen05FenceOp::create(km.b, km.loc,
                               NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
}

void sm100::commit(KernelMath &km, Value barrier) {
  NVVM::Tcgen05CommitOp::create(km.b, km.loc, barrier, Value());
}

Value sm100::sharedDescriptor(KernelMath &km, const sm90::SharedBase &smem,
                              Value byteOffset, int64_t leadingBytes) {
  Value wgmma = sm90::wgmmaDescriptor(km, smem, byteOffset, leadingBytes);
  Value version = arith::ConstantOp::create(
      km.b, km.loc, km.b.getI64IntegerAttr(int64_t(1) << 46));
  return arith::OrIOp::create(km.b, km.loc, wgmma, version);
}

uint32_t sm100::instructionDescriptor(Type elementType, int64_t m, int64_t n,
                                      bool aMnMajor, bool bMnMajor) {
  uint32_t format = elementType.isBF16() ? 1 : 0;
  uint32_t d = 0;
  d |= 1u << 4;        // D: f32
  d |= format << 7;    // A
  d |= format << 10;   // B
  d |= uint32_t(aMnMajor) << 15;
  d |= uint32_t(bMnMajor) << 16;
  d |= uint32_t(n >> 3) << 17;
  d |= uint32_t(m >> 4) << 24;
  return d;
}

void sm100::mma(KernelMath &km, Type elementType, Value d,
                const sm90::WgmmaOperand *aShared, Value aTmem,
                const sm90::WgmmaOperand &bShared, int64_t n, int64_t k,
                Value accumulate) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  Value idesc = km.i32(int32_t(instructionDescriptor(
      elementType, kTensorMemoryLanes, n, aShared && aShared->mnMajor,
      bShared.mnMajor)));
  Value yes = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  auto tmemPtr = LLVM::LLVMPointerType::get(b.getContext(), 6);
  Value dAddr = LLVM::IntToPtrOp::create(b, loc, tmemPtr, d);
  for (int64_t kk = 0; kk < k / 16; ++kk) {
    Value a;
    if (aShared) {
      a = sm90::advanceDescriptor(km, aShared->descriptor,
                                  aShared->sliceOffset(kk));
    } else {
      // 16 elements of k = 8 packed columns.
      a = LLVM::IntToPtrOp::create(b, loc, tmemPtr,
                                   km.add(aTmem, km.i32(kk * 8)));
    }
    Value bDesc = sm90::advanceDescriptor(km, bShared.descriptor,
                                          bShared.sliceOffset(kk));
    NVVM::Tcgen05MMAOp::create(
        b, loc, NVVM::Tcgen05MMAKind::F16, NVVM::CTAGroupKind::CTA_1,
        NVVM::Tcgen05MMACollectorOp::DISCARD, /*aShift=*/false, dAddr, a, bDesc,
        idesc, kk == 0 ? accumulate : yes, Value(), Value());
  }
}

/// The op of `op`'s ancestors (or `op`) that sits in `block`.
static Operation *ancestorIn(Operation *op, Block *block) {
  while (op && op->getBlock() != block)
    op = op->getParentOp();
  return op;
}

/// The condition under which `top` (an op of the kernel's body) runs its
/// direct child `op`: null when `op` is `top`; the i1 of an scf.if whose
/// then-block holds `op` directly; failure for anything deeper.
static FailureOr<Value> guardOf(Operation *top, Operation *op) {
  if (top == op)
    return Value();
  auto ifOp = dyn_cast<scf::IfOp>(top);
  if (!ifOp || op->getBlock() != ifOp.thenBlock())
    return failure();
  return ifOp.getCondition();
}

static std::optional<int64_t> constantColumns(Value v) {
  IntegerAttr attr;
  if (auto c = v.getDefiningOp<arith::ConstantOp>())
    attr = dyn_cast<IntegerAttr>(c.getValue());
  else if (auto c = v.getDefiningOp<LLVM::ConstantOp>())
    attr = dyn_cast<IntegerAttr>(c.getValue());
  if (!attr)
    return std::nullopt;
  return attr.getInt();
}

LogicalResult sm100::checkTensorMemory(Operation *kernel,
                                       int64_t columnsPerSM,
                                       int64_t blocksPerSM) {
  Region &body = kernel->getRegion(0);
  if (!body.hasOneBlock())
    return kernel->emitError()
           << "tensor-memory check: expected a kernel body of one block";
  Block *top = &body.front();
  SmallVector<NVVM::Tcgen05DeallocOp> deallocs;
  kernel->walk([&](NVVM::Tcgen05DeallocOp op) { deallocs.push_back(op); });
  int64_t total = 0;
  WalkResult result = kernel->walk([&](NVVM::Tcgen05AllocOp alloc) {
    std::optional<int64_t> columns = constantColumns(alloc.getNCols());
    if (!columns || *columns < 32 || *columns > kTensorMemoryColumns ||
        !llvm::isPowerOf2_64(*columns)) {
      alloc.emitError() << "tensor-memory check: tcgen05.alloc must ask for "
                           "a constant power of two of 32..512 columns";
      return WalkResult::interrupt();
    }
    total += *columns;
    Operation *allocTop = ancestorIn(alloc, top);
    FailureOr<Value> allocGuard = guardOf(allocTop, alloc);
    if (failed(allocGuard)) {
      alloc.emitError() << "tensor-memory check: tcgen05.alloc must run in "
                           "the kernel's body or directly under one scf.if";
      return WalkResult::interrupt();
    }
    for (NVVM::Tcgen05DeallocOp dealloc : deallocs) {
      Operation *deallocTop = ancestorIn(dealloc, top);
      FailureOr<Value> deallocGuard = guardOf(deallocTop, dealloc);
      if (failed(deallocGuard) || *deallocGuard != *allocGuard ||
          !allocTop->isBeforeInBlock(deallocTop) ||
          constantColumns(dealloc.getNCols()) != columns)
        continue;
      // Nothing between them leaves the body early.
      bool exits = false;
      for (Operation *op = allocTop->getNextNode(); op != deallocTop;
           op = op->getNextNode())
        exits |= op->hasTrait<OpTrait::IsTerminator>();
      if (!exits)
        return WalkResult::advance();
    }
    alloc.emitError()
        << "tensor-memory check: tcgen05.alloc of " << *columns
        << " columns has no tcgen05.dealloc of as many under the same "
           "condition later in the kernel's body";
    return WalkResult::interrupt();
  });
  if (result.wasInterrupted())
    return failure();
  if (total * blocksPerSM > columnsPerSM)
    return kernel->emitError()
           << "tensor-memory check: " << total << " columns × " << blocksPerSM
           << " resident blocks exceed the " << columnsPerSM
           << " columns of an SM";
  return success();
}
