//===- Passes.h - kernel bundles (launch plans) -----------------*- C++ -*-===//
#ifndef FLASH_BUNDLE_PASSES_H
#define FLASH_BUNDLE_PASSES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace flash {

#define GEN_PASS_DECL
#include "flash/Bundle/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "flash/Bundle/Passes.h.inc"

} // namespace flash
} // namespace mlir

#endif // FLASH_BUNDLE_PASSES_H
