/*===- flash-c/Passes.h - C API of the FlashMLIR passes -----------*- C -*-===*\
|*                                                                            *|
|* Registration of every FlashMLIR pass and pipeline, so that                 *|
|* mlirParsePassPipeline / mlirOpPassManagerAddPipeline find them by name     *|
|* ("flash-raise-attention", "flash-cpu-pipeline", "flash-to-ptx{arch=...}"), *|
|* and the raise pass as an object for mlirPassManagerAddOwnedPass.           *|
|* Library: FlashMLIR::CAPI (libFlashCAPI.a).                                 *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FLASH_C_PASSES_H
#define FLASH_C_PASSES_H

#include "mlir-c/Pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every FlashMLIR pass and named pipeline, in the global pass registry.
 * flash-cpu-pipeline runs upstream passes by name: register those too
 * (mlirRegisterAllPasses, mlir-c/RegisterEverything.h), or it fails with a
 * located error naming the first one missing. */
MLIR_CAPI_EXPORTED void mlirRegisterFlashPasses(void);

/* A new flash-raise-attention pass (owned by the caller until added to a
 * pass manager). It runs on any op; add it to a module's pass manager. */
MLIR_CAPI_EXPORTED MlirPass mlirCreateFlashRaiseAttention(void);

#ifdef __cplusplus
}
#endif

#endif /* FLASH_C_PASSES_H */
