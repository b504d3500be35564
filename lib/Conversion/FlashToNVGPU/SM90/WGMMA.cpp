//===- WGMMA.cpp - sm_90a warpgroup MMA (SS and RS forms) -----------------===//
//
// Matrix descriptors, the SS wgmma through nvvm.wgmma.mma_async, the RS
// wgmma through inline PTX (A from registers: nvvm.wgmma.mma_async takes A
// from shared memory only, and nvvm.inline_ptx miswires tied read-write
// operands), and the register keep-alive for RS operands (WGMMA.h).
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/SM90/WGMMA.h"
#include "flash/Conversion/FlashToNVGPU/SM90/SharedLayout.h"
#include "flash/Conversion/FlashToNVGPU/SM90/TMA.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include <string>

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::sm90;

static Value i64(KernelMath &km, int64_t v) {
  return arith::ConstantOp::create(km.b, km.loc, km.b.getI64IntegerAttr(v));
}

static Type f32Struct(OpBuilder &b, int64_t n) {
  SmallVector<Type> fields(n, b.getF32Type());
  return LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
}

Value sm90::wgmmaDescriptor(KernelMath &km, const SharedBase &smem,
                            Value byteOffset, int64_t leadingBytes) {
  int64_t fields = (int64_t(1) << 62) | (int64_t(1024 >> 4) << 32) |
                   (int64_t(leadingBytes >> 4) << 16);
  Value address = km.shru(km.add(smem.addr32, byteOffset), km.i32(4));
  // The 14-bit start address field (a block's rank above bit 24 would land
  // in the leading byte offset).
  if (smem.rankBits)
    address = km.andi(address, km.i32(0x3fff));
  Value wide = arith::ExtUIOp::create(km.b, km.loc, km.b.getI64Type(), address);
  return arith::OrIOp::create(km.b, km.loc, wide, i64(km, fields));
}

Value sm90::advanceDescriptor(KernelMath &km, Value descriptor,
                              int64_t bytes) {
  return bytes ? arith::AddIOp::create(km.b, km.loc, descriptor,
                                       i64(km, bytes >> 4))
               : descriptor;
}

void sm90::wgmmaFence(KernelMath &km) {
  NVVM::WgmmaFenceAlignedOp::create(km.b, km.loc);
}

void sm90::wgmmaCommit(KernelMath &km) {
  NVVM::WgmmaGroupSyncAlignedOp::create(km.b, km.loc);
}

void sm90::wgmmaWait(KernelMath &km, int64_t pending) {
  NVVM::WgmmaWaitGroupSyncOp::create(km.b, km.loc, pending);
}

int64_t WgmmaOperand::sliceOffset(int64_t kk) const {
  if (mnMajor)
    return kk * 16 * kSwizzleBytes;
  // k-slice kk: column block kk/4, 32 bytes further per 16 columns.
  return (kk / 4) * blockRows * kSwizzleBytes + (kk % 4) * 32;
}

Fragment sm90::wgmmaSS(KernelMath &km, Type elementType, const WgmmaOperand &a,
                       const WgmmaOperand &bOperand, int64_t n, int64_t k) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  Type resultType = f32Struct(b, n / 2);
  Value acc = LLVM::UndefOp::create(b, loc, resultType); // scale-d = 0 first
  auto wgmmaType =
      elementType.isF16() ? NVVM::WGMMATypes::f16 : NVVM::WGMMATypes::bf16;
  // Row-major A and column-major B are the K-major forms (no transpose).
  NVVM::MMALayout layoutA = a.mnMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row;
  NVVM::MMALayout layoutB =
      bOperand.mnMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col;
  for (int64_t kk = 0; kk < k / 16; ++kk) {
    acc = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, resultType, acc,
        advanceDescriptor(km, a.descriptor, a.sliceOffset(kk)),
        advanceDescriptor(km, bOperand.descriptor, bOperand.sliceOffset(kk)),
        NVVM::MMAShapeAttr::get(b.getContext(), 64, n, 16), wgmmaType,
        wgmmaType, NVVM::WGMMATypes::f32,
        kk == 0 ? NVVM::WGMMAScaleOut::zero : NVVM::WGMMAScaleOut::one,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, layoutA, layoutB,
        NVVM::MMAIntOverflowAttr());
  }
  Fragment result(1, n / 8, Value());
  for (int64_t i = 0; i < n / 2; ++i)
    result.regs[i] =
        LLVM::ExtractValueOp::create(b, loc, acc, ArrayRef<int64_t>{i});
  return result;
}

Fragment sm90::wgmmaSS(KernelMath &km, Type elementType, Value descA,
                       int64_t aBlockRows, Value descB, int64_t bBlockRows,
                       int64_t n, int64_t k) {
  return wgmmaSS(km, elementType, WgmmaOperand{descA, false, aBlockRows},
                 WgmmaOperand{descB, false, bBlockRows}, n, k);
}

Fragment sm90::wgmmaRS(KernelMath &km, Type elementType, Fragment acc,
                       ArrayRef<Value> aWords, Value descB, int64_t n,
                       int64_t k) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  const int64_t regs = n / 2; // accumulator registers per thread
  std::string type = elementType.isF16() ? "f16" : "bf16";
  std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n" +
                     std::to_string(n) + "k16.f32." + type + "." + type +
                     " {";
  for (int64_t i = 0; i < regs; ++i)
    text += (i ? ", $" : "$") + std::to_string(i);
  text += "}, {";
  for (int64_t i = 0; i < 4; ++i)
    text += (i ? ", $" : "$") + std::to_string(regs + i);
  // scale-d = p (accumulate), scale-a = scale-b = 1, tnspB = 1 (B MN-major).
  text += "}, $" + std::to_string(regs + 4) + ", p, 1, 1, 1;\n}";
  std::string constraints;
  for (int64_t i = 0; i < regs; ++i)
    constraints += "=f,";
  constraints += "r,r,r,r,l";
  for (int64_t i = 0; i < regs; ++i)
    constraints += "," + std::to_string(i);
  Type resultType = f32Struct(b, regs);
  for (int64_t kk = 0; kk < k / 16; ++kk) {
    SmallVector<Value> operands(aWords.slice(4 * kk, 4));
    // Slice kk of B: 16 rows (of k) of 128 bytes further.
    operands.push_back(advanceDescriptor(km, descB, kk * 16 * kSwizzleBytes));
    operands.append(acc.regs.begin(), acc.regs.end());
    auto asmOp = LLVM::InlineAsmOp::create(
        b, loc, resultType, operands, b.getStringAttr(text),
        b.getStringAttr(constraints), b.getUnitAttr(), UnitAttr(),
        LLVM::TailCallKindAttr::get(b.getContext(), LLVM::TailCallKind::None),
        LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
        ArrayAttr());
    for (int64_t i = 0; i < regs; ++i)
      acc.regs[i] = LLVM::ExtractValueOp::create(b, loc, asmOp.getResult(0),
                                                 ArrayRef<int64_t>{i});
  }
  return acc;
}

void sm90::keepAlive(KernelMath &km, ArrayRef<Value> values) {
  OpBuilder &b = km.b;
  std::string constraints;
  for (size_t i = 0; i < values.size(); ++i)
    constraints += "=r,";
  for (size_t i = 0; i < values.size(); ++i)
    constraints += (i ? "," : "") + std::to_string(i);
  SmallVector<Type> types(values.size(), b.getI32Type());
  LLVM::InlineAsmOp::create(
      b, km.loc, LLVM::LLVMStructType::getLiteral(b.getContext(), types),
      values, b.getStringAttr(""), b.getStringAttr(constraints),
      b.getUnitAttr(), UnitAttr(),
      LLVM::TailCallKindAttr::get(b.getContext(), LLVM::TailCallKind::None),
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      ArrayAttr());
}
