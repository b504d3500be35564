/*===- flash-c/Dialect.h - C API of the flash dialect -------------*- C -*-===*\
|*                                                                            *|
|* For compilers written in C or in languages that bind C: the dialect handle *|
|* (load it with mlirDialectHandleRegisterDialect or                          *|
|* mlirDialectHandleLoadDialect, as any upstream dialect's).                  *|
|* Library: FlashMLIR::CAPI (libFlashCAPI.a).                                 *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FLASH_C_DIALECT_H
#define FLASH_C_DIALECT_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MlirDialectHandle mlirGetDialectHandle__flash__(void); */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Flash, flash);

/* True if `op` is a flash.attention. */
MLIR_CAPI_EXPORTED bool mlirOperationIsAFlashAttention(MlirOperation op);

#ifdef __cplusplus
}
#endif

#endif /* FLASH_C_DIALECT_H */
