//===- HarnessDeclaration.h - what the CPU harness passes share -*- C++ -*-===//
//
// The test passes that build kernel code for the CPU (TestKernelMath.cpp,
// TestDecodePages.cpp, TestDecodeMerge.cpp) each give a body to one
// function the module declares; these check that declaration and parse the
// element-type option the same way in each.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_TEST_LIB_HARNESSDECLARATION_H
#define FLASH_TEST_LIB_HARNESSDECLARATION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::flash {

/// The declaration of @`name` with type `expected` in `module`, or null with
/// `error` saying what is missing or wrong.
inline func::FuncOp harnessDeclaration(ModuleOp module, StringRef name,
                                       FunctionType expected,
                                       std::string &error) {
  auto func = module.lookupSymbol<func::FuncOp>(name);
  if (!func || !func.isDeclaration()) {
    error = ("the module must declare @" + name).str();
    return {};
  }
  if (func.getFunctionType() != expected) {
    std::string type;
    llvm::raw_string_ostream(type) << expected;
    error = ("@" + name + " must have type " + type).str();
    return {};
  }
  return func;
}

/// The 16-bit element type named by an `element-type` option (f16, bf16),
/// or null.
inline Type harnessElementType(MLIRContext *ctx, StringRef name) {
  if (name == "bf16")
    return BFloat16Type::get(ctx);
  if (name == "f16")
    return Float16Type::get(ctx);
  return {};
}

} // namespace mlir::flash

#endif // FLASH_TEST_LIB_HARNESSDECLARATION_H
