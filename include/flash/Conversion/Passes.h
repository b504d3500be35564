//===- Passes.h - flash -> GPU conversion passes ----------------*- C++ -*-===//
#ifndef FLASH_CONVERSION_PASSES_H
#define FLASH_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include "flash/Conversion/FlashToNVGPU/KernelForm.h"
#include "flash/Dialect/Flash/IR/Flash.h"

namespace mlir {
namespace flash {

#define GEN_PASS_DECL
#include "flash/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "flash/Conversion/Passes.h.inc"

} // namespace flash
} // namespace mlir

#endif // FLASH_CONVERSION_PASSES_H
