/*===- driver.c - runs host code compiled by FlashMLIR on device buffers ---===//
 *
 * The embedder's side of docs/embedding.md ("runtime ABI from lowered host
 * code"): block.o is examples/embedding/block.mlir lowered by
 * --flash-host-to-llvm, mlir-translate and llc; its functions take memref
 * descriptors (llvm.emit_c_interface) of device buffers, and each attention
 * in them calls the runtime. This driver
 *   - opens the bundle directory and binds it and a stream to the thread
 *     (flash_host_bind),
 *   - routes the host code's allocations to device memory
 *     (_mlir_memref_to_llvm_alloc/free, upstream's generic allocation
 *     functions, to flash_device_alloc/free),
 *   - calls @forward (the raised attention alone) and @block (the function
 *     with the attention among other ops) on device buffers whose outputs are
 *     poisoned with NaN first, and checks flash_host_status.
 *
 *   driver BUNDLES IN OUT   q.bin, k.bin, v.bin (bf16, 1×H×N×D) from IN;
 *                           forward.bin (1×H×N×D) and block.bin (1×1×N×D) to OUT
 *   driver --dry BUNDLES    no GPU: host memory stands in for device memory;
 *                           the first runtime call selects and plans, then
 *                           fails where it needs the driver (CI)
 *
 * libcuda is dlopened (as the runtime does), so the driver builds and runs
 * its dry mode on machines without one. H, N, D are the compiled shapes.
 *===----------------------------------------------------------------------===*/

#include "flash/Runtime/flash_runtime.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef H
#define H 2
#endif
#ifndef N
#define N 1024
#endif
#ifndef D
#define D 64
#endif
#define N2 (N / 2)

/* The compiled host code (block.o): MLIR's C interface of @forward and
 * @block after buffer-results-to-out-params (the result is the last
 * argument). */
void _mlir_ciface_forward(flash_memref_4d *q, flash_memref_4d *k,
                          flash_memref_4d *v, flash_memref_4d *out);
void _mlir_ciface_block(flash_memref_4d *q, flash_memref_4d *k,
                        flash_memref_4d *v, flash_memref_4d *out);

/* --- the CUDA driver, dlopened ------------------------------------------ */
typedef int CUresult_;
static struct {
  CUresult_ (*init)(unsigned);
  CUresult_ (*deviceGet)(int *, int);
  CUresult_ (*primaryCtxRetain)(void **, int);
  CUresult_ (*ctxSetCurrent)(void *);
  CUresult_ (*memAlloc)(uint64_t *, size_t);
  CUresult_ (*memFree)(uint64_t);
  CUresult_ (*memcpyHtoD)(uint64_t, const void *, size_t);
  CUresult_ (*memcpyDtoH)(void *, uint64_t, size_t);
  CUresult_ (*memsetD16)(uint64_t, unsigned short, size_t);
  CUresult_ (*streamCreate)(void **, unsigned);
  CUresult_ (*streamSynchronize)(void *);
} cu;
static int dry;

static void die(const char *what) {
  fprintf(stderr, "driver: %s\n", what);
  exit(1);
}
#define CHECK_CU(call)                                                         \
  do {                                                                         \
    CUresult_ r_ = (call);                                                     \
    if (r_) {                                                                  \
      fprintf(stderr, "driver: %s failed: CUresult %d\n", #call, r_);          \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static void loadDriver(void) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!lib)
    die("cannot load libcuda.so.1");
#define LOAD(field, name)                                                      \
  if (!(*(void **)&cu.field = dlsym(lib, name)))                               \
    die("libcuda has no " name);
  LOAD(init, "cuInit");
  LOAD(deviceGet, "cuDeviceGet");
  LOAD(primaryCtxRetain, "cuDevicePrimaryCtxRetain");
  LOAD(ctxSetCurrent, "cuCtxSetCurrent");
  LOAD(memAlloc, "cuMemAlloc_v2");
  LOAD(memFree, "cuMemFree_v2");
  LOAD(memcpyHtoD, "cuMemcpyHtoD_v2");
  LOAD(memcpyDtoH, "cuMemcpyDtoH_v2");
  LOAD(memsetD16, "cuMemsetD16_v2");
  LOAD(streamCreate, "cuStreamCreate");
  LOAD(streamSynchronize, "cuStreamSynchronize");
#undef LOAD
}

/* --- the host code's allocations: device memory -------------------------- */
void *_mlir_memref_to_llvm_alloc(uint64_t bytes) {
  return dry ? malloc(bytes) : flash_device_alloc(bytes);
}
void *_mlir_memref_to_llvm_aligned_alloc(uint64_t alignment, uint64_t bytes) {
  /* cuMemAllocAsync's pointers are 256-byte aligned. */
  if (dry)
    return aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
  return alignment <= 256 ? flash_device_alloc(bytes) : NULL;
}
void _mlir_memref_to_llvm_free(void *pointer) {
  if (dry)
    free(pointer);
  else
    flash_device_free(pointer);
}

/* --- buffers -------------------------------------------------------------- */
static flash_memref_4d deviceBuffer(int64_t b, int64_t h, int64_t n,
                                    int64_t d) {
  size_t bytes = (size_t)(b * h * n * d) * 2;
  void *data;
  if (dry) {
    data = calloc(1, bytes);
  } else {
    uint64_t pointer;
    CHECK_CU(cu.memAlloc(&pointer, bytes));
    CHECK_CU(cu.memsetD16(pointer, 0x7FC0, bytes / 2)); /* bf16 NaN */
    data = (void *)(uintptr_t)pointer;
  }
  flash_memref_4d m = {data, data, 0, {b, h, n, d}, {h * n * d, n * d, d, 1}};
  return m;
}

static size_t bytesOf(const flash_memref_4d *m) {
  return (size_t)(m->sizes[0] * m->sizes[1] * m->sizes[2] * m->sizes[3]) * 2;
}

static void upload(flash_memref_4d *m, const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f)
    die(path);
  size_t bytes = bytesOf(m);
  void *host = malloc(bytes);
  if (fread(host, 1, bytes, f) != bytes)
    die("short input file");
  fclose(f);
  CHECK_CU(cu.memcpyHtoD((uint64_t)(uintptr_t)m->aligned, host, bytes));
  free(host);
}

static void download(const flash_memref_4d *m, const char *dir,
                     const char *name) {
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  size_t bytes = bytesOf(m);
  void *host = malloc(bytes);
  CHECK_CU(cu.memcpyDtoH(host, (uint64_t)(uintptr_t)m->aligned, bytes));
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(host, 1, bytes, f) != bytes)
    die(path);
  fclose(f);
  free(host);
}

static int report(const char *what) {
  int status = flash_host_status();
  printf("%s: flash_host_status %d%s%s\n", what, status, status ? ": " : "",
         status ? flash_last_error() : "");
  return status;
}

int main(int argc, char **argv) {
  dry = argc == 3 && !strcmp(argv[1], "--dry");
  if (!dry && argc != 4) {
    fprintf(stderr, "usage: driver BUNDLES IN OUT | driver --dry BUNDLES\n");
    return 2;
  }
  const char *bundles = argv[dry ? 2 : 1];
  void *stream = NULL;
  if (!dry) {
    void *context;
    int device;
    loadDriver();
    CHECK_CU(cu.init(0));
    CHECK_CU(cu.deviceGet(&device, 0));
    CHECK_CU(cu.primaryCtxRetain(&context, device));
    CHECK_CU(cu.ctxSetCurrent(context));
    /* A blocking stream: ordered after the uploads on the legacy stream. */
    CHECK_CU(cu.streamCreate(&stream, 0));
  }
  flash_library *library;
  if (flash_library_open(bundles, &library)) {
    fprintf(stderr, "driver: %s\n", flash_last_error());
    return 1;
  }
  printf("runtime: %s, ABI %d, %d plans in %s\n", flash_version(),
         flash_abi_version(), flash_library_plan_count(library), bundles);

  flash_memref_4d q = deviceBuffer(1, H, N, D), k = deviceBuffer(1, H, N, D),
                  v = deviceBuffer(1, H, N, D);
  flash_memref_4d forwardOut = deviceBuffer(1, H, N, D);
  flash_memref_4d blockOut = deviceBuffer(1, 1, N, D);
  if (!dry) {
    upload(&q, argv[2], "q.bin");
    upload(&k, argv[2], "k.bin");
    upload(&v, argv[2], "v.bin");
  }

  flash_host_bind(library, stream);
  _mlir_ciface_forward(&q, &k, &v, &forwardOut);
  if (!dry)
    CHECK_CU(cu.streamSynchronize(stream));
  int failed = report("forward") != 0;

  flash_host_bind(library, stream);
  _mlir_ciface_block(&q, &k, &v, &blockOut);
  if (!dry)
    CHECK_CU(cu.streamSynchronize(stream));
  failed |= report("block") != 0;

  if (!dry) {
    download(&forwardOut, argv[3], "forward.bin");
    download(&blockOut, argv[3], "block.bin");
  }
  flash_host_bind(NULL, NULL);
  flash_library_close(library);
  return failed;
}
