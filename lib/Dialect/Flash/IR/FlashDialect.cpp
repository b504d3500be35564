//===- FlashDialect.cpp - flash dialect registration ----------------------===//
//
// Registers the flash dialect's ops and attributes, and verifies
// #flash.schedule.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/Flash.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::flash;

#include "flash/Dialect/Flash/IR/FlashOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "flash/Dialect/Flash/IR/FlashAttrs.cpp.inc"

void FlashDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "flash/Dialect/Flash/IR/FlashOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "flash/Dialect/Flash/IR/FlashAttrs.cpp.inc"
      >();
}

LogicalResult
ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     StringRef arch, int64_t blockQ, int64_t blockKV,
                     int64_t stages, int64_t warps) {
  if (arch != "sm_80" && arch != "sm_90a" && arch != "sm_100a")
    return emitError() << "unknown arch '" << arch
                       << "' in #flash.schedule; expected sm_80, sm_90a or "
                          "sm_100a";
  if (blockQ < 1)
    return emitError() << "block_q must be positive, got " << blockQ;
  if (blockKV < 1)
    return emitError() << "block_kv must be positive, got " << blockKV;
  if (stages < 1)
    return emitError() << "stages must be positive, got " << stages;
  if (warps < 1)
    return emitError() << "warps must be positive, got " << warps;
  return success();
}
