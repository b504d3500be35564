//===- HarnessDeclaration.h - what the CPU harness passes share -*- C++ -*-===//
//
// The test passes that build kernel code for the CPU (TestKernelMath.cpp,
// TestDecodePages.cpp, TestDecodeMerge.cpp, TestDecodeCombine.cpp,
// TestDecodeCounts.cpp, TestDecodeResult.cpp, TestDecodeCopies.cpp) each
// give a body to one function the module declares; these check that
// declaration and parse the element-type option (and the decode harnesses'
// head-dim and m-tiles) the same way in each, give them one loop form, and
// give the scalar-form harnesses the host's ex2/lg2 and one guarded-step
// form.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_TEST_LIB_HARNESSDECLARATION_H
#define FLASH_TEST_LIB_HARNESSDECLARATION_H

#include "flash/Target/SplitKV.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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

/// The decode harnesses' head-dim and m-tiles options as the split-KV
/// kernels take them: what is wrong, or empty.
inline std::string decodeTileOptionError(int64_t headDim, int64_t mTiles = 1) {
  if (headDim != 64 && headDim != 128 && headDim != 256)
    return "head-dim must be 64, 128 or 256 (the decode kernels')";
  if (mTiles < 1 || mTiles > splitKVMaxRowTiles(headDim))
    return ("m-tiles must be 1 to " + Twine(splitKVMaxRowTiles(headDim)) +
            " at head-dim " + Twine(headDim))
        .str();
  return {};
}

/// scf.for over [lb, ub) (i32, step 1), `body` built at the start of its
/// body from the induction variable: the harnesses' loops over the lanes,
/// threads, warps and rows that run one after another on the host.
inline void harnessLoop(OpBuilder &b, Location loc, Value lb, Value ub,
                        function_ref<void(Value)> body) {
  Value one = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
  auto loop = scf::ForOp::create(b, loc, lb, ub, one);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  body(loop.getInductionVar());
}

/// scf.if `condition` with no else, `body` built in its then block: the
/// scalar harnesses' guarded steps.
inline void harnessIf(OpBuilder &b, Location loc, Value condition,
                      function_ref<void()> body) {
  auto op = scf::IfOp::create(b, loc, condition, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(op.thenBlock()->getTerminator());
  body();
}

/// Replaces the NVVM operations of kernel code built in the kernels' scalar
/// form (one lane or thread at a time) by their host forms: ex2.approx and
/// lg2.approx by LLVM's exp2 and log2, __syncwarp by nothing (the lanes run
/// one after another). Any other device operation is an error naming
/// `pass` (failure).
inline LogicalResult replaceScalarDeviceOps(func::FuncOp func,
                                            StringRef pass) {
  SmallVector<Operation *> device;
  func.walk([&](Operation *op) {
    if (isa_and_present<NVVM::NVVMDialect>(op->getDialect()) ||
        isa<LLVM::CallIntrinsicOp, LLVM::InlineAsmOp>(op))
      device.push_back(op);
  });
  bool unknown = false;
  for (Operation *op : device) {
    if (isa<NVVM::SyncWarpOp>(op)) {
      op->erase();
      continue;
    }
    Value host;
    if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
      OpBuilder at(op);
      if (call.getIntrin() == "llvm.nvvm.ex2.approx.ftz.f")
        host = LLVM::Exp2Op::create(at, op->getLoc(), call.getOperand(0));
      else if (call.getIntrin() == "llvm.nvvm.lg2.approx.ftz.f")
        host = LLVM::Log2Op::create(at, op->getLoc(), call.getOperand(0));
    }
    if (!host) {
      op->emitError(pass) << ": no host form for " << *op;
      unknown = true;
      continue;
    }
    op->getResult(0).replaceAllUsesWith(host);
    op->erase();
  }
  return failure(unknown);
}

} // namespace mlir::flash

#endif // FLASH_TEST_LIB_HARNESSDECLARATION_H
