/*===- flash-capi-test.c - the C API, from C ------------------------------===*\
|*                                                                            *|
|* What a compiler written in C (or binding C) does with FlashMLIR: load the  *|
|* flash dialect through its handle, parse flash.attention, run a FlashMLIR   *|
|* pass and a FlashMLIR pipeline through the C pass manager, print.           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

// RUN: flash-capi-test %S/../Frontend/Inputs/sdpa_causal_f32.linalg.mlir 2>&1 | FileCheck %s
// Without upstream's passes registered, flash-cpu-pipeline is a located error,
// not a crash:
// RUN: flash-capi-test %S/../Frontend/Inputs/sdpa_causal_f32.linalg.mlir --no-upstream-passes 2>&1 | FileCheck %s --check-prefix=NO-UPSTREAM

#include "flash-c/Dialect.h"
#include "flash-c/Passes.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

static void printOp(MlirOperation op) {
  mlirOperationPrint(op, printToStdout, NULL);
  fputc('\n', stdout);
}

static char *readFile(const char *path) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *text = malloc(size + 1);
  if (fread(text, 1, size, file) != (size_t)size) {
    fclose(file);
    free(text);
    return NULL;
  }
  text[size] = 0;
  fclose(file);
  return text;
}

static int runPipeline(MlirContext ctx, MlirModule module, const char *text) {
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirLogicalResult parsed = mlirOpPassManagerAddPipeline(
      mlirPassManagerGetAsOpPassManager(pm), mlirStringRefCreateFromCString(text),
      printToStdout, NULL);
  int ok = mlirLogicalResultIsSuccess(parsed) &&
           mlirLogicalResultIsSuccess(
               mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module)));
  mlirPassManagerDestroy(pm);
  return ok;
}

// Only the flash and func dialects, loaded through their handles.
static int handwritten(void) {
  MlirContext ctx = mlirContextCreate();
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__flash__(), ctx);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__func__(), ctx);
  MlirDialect flash = mlirContextGetOrLoadDialect(
      ctx, mlirStringRefCreateFromCString("flash"));
  printf("flash dialect loaded: %d\n", !mlirDialectIsNull(flash));
  // CHECK: flash dialect loaded: 1

  const char *source =
      "func.func @attn(%q: tensor<1x2x64x32xf16>, %k: tensor<1x2x64x32xf16>,"
      "                %v: tensor<1x2x64x32xf16>) -> tensor<1x2x64x32xf16> {\n"
      "  %o = flash.attention %q, %k, %v {causal, scale = 0.125 : f32}\n"
      "      : tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16>,"
      "        tensor<1x2x64x32xf16> -> tensor<1x2x64x32xf16>\n"
      "  return %o : tensor<1x2x64x32xf16>\n"
      "}\n";
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(source));
  if (mlirModuleIsNull(module))
    return 1;
  // flash-select-schedule, found by name in the registry that
  // mlirRegisterFlashPasses filled.
  if (!runPipeline(ctx, module, "flash-select-schedule{arch=sm_90a}"))
    return 2;
  printOp(mlirModuleGetOperation(module));
  // CHECK-LABEL: func.func @attn
  // CHECK: flash.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 1.250000e-01 : f32, schedule = #flash.schedule<arch = "sm_90a"
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}

// torch-mlir's linalg for SDPA(is_causal=True): raise it with the pass object,
// then lower it for the CPU with the named pipeline.
static int frontend(const char *path) {
  char *source = readFile(path);
  if (!source) {
    fprintf(stderr, "cannot read %s\n", path);
    return 3;
  }
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__flash__(), registry);
  MlirContext ctx = mlirContextCreate();
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(source));
  free(source);
  if (mlirModuleIsNull(module))
    return 4;

  MlirPassManager pm = mlirPassManagerCreate(ctx);
  mlirPassManagerAddOwnedPass(pm, mlirCreateFlashRaiseAttention());
  MlirLogicalResult raised =
      mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
  mlirPassManagerDestroy(pm);
  if (!mlirLogicalResultIsSuccess(raised))
    return 5;
  int attentions = 0;
  MlirOperation func = mlirBlockGetFirstOperation(
      mlirModuleGetBody(module));
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    attentions += mlirOperationIsAFlashAttention(op);
  printf("raised: %d flash.attention\n", attentions);
  // CHECK: raised: 1 flash.attention
  printOp(func);
  // CHECK-LABEL: func.func @forward
  // CHECK: flash.attention %arg0, %arg1, %arg2 {causal, scale = 0.353553{{[0-9]*}} : f32}
  // CHECK-NOT: linalg.batch_matmul

  if (!runPipeline(ctx, module, "flash-cpu-pipeline")) {
    // NO-UPSTREAM: error: flash-cpu-pipeline: the upstream passes it runs are not registered
    // NO-UPSTREAM-SAME: 'canonicalize' does not refer to a registered pass
    // NO-UPSTREAM: status 6
    mlirModuleDestroy(module);
    mlirContextDestroy(ctx);
    return 6;
  }
  printOp(mlirModuleGetOperation(module));
  // CHECK: llvm.func @forward(
  // CHECK-NOT: flash.attention
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3 ||
      (argc == 3 && strcmp(argv[2], "--no-upstream-passes") != 0)) {
    fprintf(stderr, "usage: flash-capi-test FRONTEND.mlir [--no-upstream-passes]\n");
    return 1;
  }
  // Upstream's passes (flash-cpu-pipeline runs some by name), then ours.
  if (argc == 2)
    mlirRegisterAllPasses();
  mlirRegisterFlashPasses();
  int status = handwritten();
  if (status)
    return status;
  status = frontend(argv[1]);
  printf("status %d\n", status);
  fflush(stdout);
  // CHECK: status 0
  return argc == 3 ? 0 : status;
}
