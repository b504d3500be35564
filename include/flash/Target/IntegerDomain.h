//===- IntegerDomain.h - Integers for the shared models ---------*- C++ -*-===//
//
// The shared integer models (Dialect/Flash/Transforms/VisibleKV.h: the K/V
// range a tile visits; Target/SplitKV.h: the parts a sequence is cut into)
// are written once over an arithmetic domain. This is their domain of plain
// integers, for host code: the IO model, the schedule objective, the split-KV
// schedule and the tests. The GPU kernels instantiate the same models on i32
// values (KernelI32Domain, Conversion/FlashToNVGPU/KernelBuilder.h) and the
// tiling passes on index values (IndexDomain, Dialect/Flash/Transforms).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_TARGET_INTEGERDOMAIN_H
#define FLASH_TARGET_INTEGERDOMAIN_H

#include <algorithm>
#include <cstdint>

namespace mlir {
namespace flash {

struct IntegerDomain {
  using Value = int64_t;
  Value constant(int64_t v) { return v; }
  Value add(Value x, Value y) { return x + y; }
  Value sub(Value x, Value y) { return x - y; }
  Value mul(Value x, Value y) { return x * y; }
  Value min(Value x, Value y) { return std::min(x, y); }
  Value max(Value x, Value y) { return std::max(x, y); }
  Value floorDiv(Value x, Value y) { return x / y; }
};

} // namespace flash
} // namespace mlir

#endif // FLASH_TARGET_INTEGERDOMAIN_H
