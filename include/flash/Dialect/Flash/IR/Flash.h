//===- Flash.h - The flash dialect ------------------------------*- C++ -*-===//
//
// Dialect, attributes and ops of the flash dialect.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_IR_FLASH_H
#define FLASH_DIALECT_FLASH_IR_FLASH_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "flash/Dialect/Flash/IR/FlashOpsDialect.h.inc"

#include "flash/Dialect/Flash/IR/FlashEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "flash/Dialect/Flash/IR/FlashAttrs.h.inc"

namespace mlir {
namespace flash {
/// The discardable attribute holding a loop nest's #flash.kernel descriptor.
constexpr llvm::StringLiteral kKernelDescriptorAttrName = "flash.kernel";
/// The discardable string attribute naming the stage a loop nest is:
/// - of a tiled flash.attention_backward: the preprocess (D = rowsum(dO ∘ O),
///   dQ workspace zeroed) before the main loop nest, which carries the
///   #flash.kernel descriptor, and the dQ conversion after it;
/// - of a split-KV kernel: kSplitStage (the scf.forall that carries the
///   descriptor and writes the partials) or kMergeStage (the scf.forall that
///   merges them).
constexpr llvm::StringLiteral kStageAttrName = "flash.stage";
constexpr llvm::StringLiteral kPreprocessStage = "preprocess";
constexpr llvm::StringLiteral kDQConvertStage = "dq_convert";
constexpr llvm::StringLiteral kSplitStage = "split";
constexpr llvm::StringLiteral kMergeStage = "merge";
} // namespace flash
} // namespace mlir

#define GET_OP_CLASSES
#include "flash/Dialect/Flash/IR/FlashOps.h.inc"

#endif // FLASH_DIALECT_FLASH_IR_FLASH_H
