//===- MMA.h - sm_80 ldmatrix and mma.sync m16n8k16 ------------*- C++ -*-===//
//
// The Ampere tensor-core path on one warp: ldmatrix x4 loads four 8×8
// matrices of 16-bit elements from shared memory into the fragment layout
// mma.sync expects (transposed for an MN-major B operand), and mma.sync
// m16n8k16 multiplies them with f32 accumulators in KernelBuilder.h's C
// fragment layout. bf16 goes to nvvm.mma.sync as i32 words, because
// nvgpu.mma.sync cannot deduce its PTX types (TOOLCHAIN.md).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_FLASHTONVGPU_SM80_MMA_H
#define FLASH_CONVERSION_FLASHTONVGPU_SM80_MMA_H

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"

namespace mlir {
namespace flash {
namespace sm80 {

/// vector<2 x elementType> registers of an MMA operand.
using Pairs = SmallVector<Value, 4>;

/// ldmatrix x4 at element offset `offset` (i32) of `shared` (a memref of
/// `elementType` in workgroup memory): four 16-bit pairs per lane. Each lane
/// gives the address of one 16-byte row (lanes 8i..8i+7: matrix i).
Pairs loadMatrixX4(KernelMath &km, Type elementType, Value shared,
                   Value offset, bool transpose);

/// c (4 f32) + a (4 pairs, A of m16k16) · b (2 pairs, B of k16n8), one
/// mma.sync m16n8k16 with row-major A and column-major B.
SmallVector<Value, 4> mmaSync(KernelMath &km, Type elementType,
                              ArrayRef<Value> a, ArrayRef<Value> b,
                              ArrayRef<Value> c);

/// The 16×8 tile (mt, nt) of `acc` += a · b, in place.
void mmaSyncInto(KernelMath &km, Type elementType, Fragment &acc, int64_t mt,
                 int64_t nt, ArrayRef<Value> a, ArrayRef<Value> b);

} // namespace sm80
} // namespace flash
} // namespace mlir

#endif // FLASH_CONVERSION_FLASHTONVGPU_SM80_MMA_H
