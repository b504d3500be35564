//===- Passes.h - flash dialect passes --------------------------*- C++ -*-===//
//
// Declarations and registration of the flash dialect's passes.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_TRANSFORMS_PASSES_H
#define FLASH_DIALECT_FLASH_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace flash {

#define GEN_PASS_DECL
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"

} // namespace flash
} // namespace mlir

#endif // FLASH_DIALECT_FLASH_TRANSFORMS_PASSES_H
