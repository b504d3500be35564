//===- VerifierUtils.h - helpers of the flash op verifiers ------*- C++ -*-===//
//
// Shape formatting and the checks that several op verifiers share (the L0
// ops in FlashOps.cpp and PagedAttentionOps.cpp, the L1 tile ops).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_LIB_DIALECT_FLASH_IR_VERIFIERUTILS_H
#define FLASH_LIB_DIALECT_FLASH_IR_VERIFIERUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir {
namespace flash {
namespace detail {

/// "2x8x?x64": a shape in the form the tensor types print.
inline std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << "?";
        else
          os << d;
      },
      "x");
  return text;
}

inline bool isSupportedElementType(Type t) {
  return t.isF32() || t.isF16() || t.isBF16();
}

/// Two dimensions disagree only when both are known.
inline bool dimsConflict(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

inline LogicalResult verifyStaticRank(Operation *op, StringRef name,
                                      RankedTensorType type, int64_t rank) {
  if (type.getRank() != rank)
    return op->emitOpError() << name << " must have rank " << rank
                             << ", got " << type.getRank();
  if (!type.hasStaticShape())
    return op->emitOpError() << name << " must have a static shape, got "
                             << formatShape(type.getShape());
  return success();
}

inline LogicalResult verifyF32(Operation *op, StringRef name,
                               RankedTensorType type) {
  if (!type.getElementType().isF32())
    return op->emitOpError() << name << " must be f32, got "
                             << type.getElementType();
  return success();
}

/// Running statistics (m, l, rescale) are one f32 per tile row.
inline LogicalResult verifyRowVector(Operation *op, StringRef name,
                                     RankedTensorType type, int64_t rows) {
  if (failed(verifyStaticRank(op, name, type, 1)) ||
      failed(verifyF32(op, name, type)))
    return failure();
  if (type.getShape()[0] != rows)
    return op->emitOpError() << name << " must have " << rows
                             << " rows (one per tile row), got "
                             << type.getShape()[0];
  return success();
}

} // namespace detail
} // namespace flash
} // namespace mlir

#endif // FLASH_LIB_DIALECT_FLASH_IR_VERIFIERUTILS_H
