//===- MMA.cpp - sm_80 ldmatrix and mma.sync m16n8k16 ---------------------===//
//
// ldmatrix x4 and mma.sync m16n8k16 with f32 accumulators, f16 or bf16
// operands (MMA.h).
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/SM80/MMA.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::sm80;

Pairs sm80::loadMatrixX4(KernelMath &km, Type elementType, Value shared,
                         Value offset, bool transpose) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  auto type = VectorType::get({4, 2}, elementType);
  Value tiles = nvgpu::LdMatrixOp::create(b, loc, type, shared,
                                          ValueRange{km.toIndex(offset)},
                                          transpose, /*numTiles=*/4);
  Pairs pairs;
  for (int64_t i = 0; i < 4; ++i)
    pairs.push_back(
        vector::ExtractOp::create(b, loc, tiles, ArrayRef<int64_t>{i}));
  return pairs;
}

SmallVector<Value, 4> sm80::mmaSync(KernelMath &km, Type elementType,
                                    ArrayRef<Value> a, ArrayRef<Value> bPairs,
                                    ArrayRef<Value> c) {
  OpBuilder &b = km.b;
  Location loc = km.loc;
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  auto resultType = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
  // bf16 operands travel as i32 words (TOOLCHAIN.md: nvgpu.mma.sync cannot
  // take bf16); f16 as vector<2xf16>, as NVVM expects.
  auto asOperand = [&](Value pair) -> Value {
    if (elementType.isF16())
      return pair;
    Value word = vector::BitCastOp::create(
        b, loc, VectorType::get({1}, b.getI32Type()), pair);
    return vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0});
  };
  SmallVector<Value> aOps, bOps;
  for (Value v : a)
    aOps.push_back(asOperand(v));
  for (Value v : bPairs)
    bOps.push_back(asOperand(v));
  NVVM::MMATypes ptxType = elementType.isF16() ? NVVM::MMATypes::f16
                                               : NVVM::MMATypes::bf16;
  auto op = NVVM::MmaOp::create(
      b, loc, resultType, aOps, bOps, c, ArrayRef<int64_t>{16, 8, 16},
      std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value, 4> d;
  for (int64_t i = 0; i < 4; ++i)
    d.push_back(LLVM::ExtractValueOp::create(b, loc, op.getResult(),
                                             ArrayRef<int64_t>{i}));
  return d;
}

void sm80::mmaSyncInto(KernelMath &km, Type elementType, Fragment &acc,
                       int64_t mt, int64_t nt, ArrayRef<Value> a,
                       ArrayRef<Value> bPairs) {
  SmallVector<Value> c;
  for (int64_t i = 0; i < 4; ++i)
    c.push_back(acc.at(mt, nt, i));
  SmallVector<Value, 4> d = mmaSync(km, elementType, a, bPairs, c);
  for (int64_t i = 0; i < 4; ++i)
    acc.at(mt, nt, i) = d[i];
}
