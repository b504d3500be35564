//===- Flash.cpp - C API of the flash dialect and passes ------------------===//
//
// include/flash-c/Dialect.h and include/flash-c/Passes.h.
//
//===----------------------------------------------------------------------===//

#include "flash-c/Dialect.h"
#include "flash-c/Passes.h"

#include "flash/Dialect/Flash/IR/Flash.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"
#include "flash/InitFlash.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Flash, flash, mlir::flash::FlashDialect)

bool mlirOperationIsAFlashAttention(MlirOperation op) {
  return llvm::isa<mlir::flash::AttentionOp>(unwrap(op));
}

void mlirRegisterFlashPasses(void) { mlir::flash::registerAllFlashPasses(); }

MlirPass mlirCreateFlashRaiseAttention(void) {
  return wrap(mlir::flash::createFlashRaiseAttention().release());
}
