//===- IndexDomain.h - index arithmetic for the tiling passes ---*- C++ -*-===//
//
// The index-value domain in which the tiling passes instantiate the shared
// integer models (VisibleKV.h, Target/SplitKV.h): each operation is one arith
// op on index values, folded where its operands are constants, so that what
// does not depend on run-time values folds away.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_TRANSFORMS_INDEXDOMAIN_H
#define FLASH_DIALECT_FLASH_TRANSFORMS_INDEXDOMAIN_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace flash {

struct IndexDomain {
  using Value = mlir::Value;
  OpBuilder &b;
  Location loc;
  Value constant(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return b.createOrFold<arith::AddIOp>(loc, x, y); }
  Value sub(Value x, Value y) { return b.createOrFold<arith::SubIOp>(loc, x, y); }
  Value mul(Value x, Value y) { return b.createOrFold<arith::MulIOp>(loc, x, y); }
  Value min(Value x, Value y) {
    return b.createOrFold<arith::MinSIOp>(loc, x, y);
  }
  Value max(Value x, Value y) {
    return b.createOrFold<arith::MaxSIOp>(loc, x, y);
  }
  Value floorDiv(Value x, Value y) {
    return b.createOrFold<arith::DivSIOp>(loc, x, y);
  }
};

} // namespace flash
} // namespace mlir

#endif // FLASH_DIALECT_FLASH_TRANSFORMS_INDEXDOMAIN_H
