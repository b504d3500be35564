/*===- flash_runtime.h - the FlashMLIR runtime's C ABI ------------*- C -*-===//
 *
 * One launcher for FlashMLIR kernel bundles, used by tools/flash-runtime-check,
 * the Python package (ctypes) and any embedder. It reads launch plans
 * (docs/launch-plan.md), picks one by a typed key, plans a launch (grid,
 * block, shared memory, the packed arguments) and launches it on the CUDA
 * driver API.
 *
 * libflash_runtime.so has no MLIR/LLVM dependency and does not link libcuda:
 * it dlopens libcuda.so.1 the first time a call needs the GPU, so opening
 * bundles, selecting and planning work on a machine without a GPU.
 *
 * Conventions: functions returning int return 0 on success, FLASH_ERROR_INVALID
 * when the call does not fit (a bad bundle, no plan for a key, a tensor the
 * plan does not take) and FLASH_ERROR_DRIVER when the driver failed (no
 * libcuda, no context, a CUDA error); flash_last_error() then says why (per
 * thread). Strings returned
 * are owned by the library and live as long as the object they describe.
 *
 *===----------------------------------------------------------------------===*/

#ifndef FLASH_RUNTIME_FLASH_RUNTIME_H
#define FLASH_RUNTIME_FLASH_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI of this header (structs and functions) and the plan format read. */
/* 4: flash_key.shared_memory_per_block; 5: FLASH_MAX_KERNEL_ARGS 24 -> 40
 * (flash_launch_info.args; sm_80's strided backward main kernel takes 33) */
#define FLASH_RUNTIME_ABI_VERSION 5
#define FLASH_LAUNCH_PLAN_VERSION 1

#define FLASH_MAX_KERNEL_ARGS 40
#define FLASH_MAX_WORKSPACES 4
#define FLASH_NAME_SIZE 128

enum { FLASH_OK = 0, FLASH_ERROR_INVALID = 1, FLASH_ERROR_DRIVER = 2 };

typedef struct flash_library flash_library; /* the plans of a directory */
typedef struct flash_plan flash_plan;       /* one plan, owned by its library */

typedef enum {
  FLASH_DTYPE_NONE = 0,
  FLASH_DTYPE_BF16 = 1,
  FLASH_DTYPE_F16 = 2,
  FLASH_DTYPE_F32 = 3,
  FLASH_DTYPE_I32 = 4 /* block tables and sequence lengths */
} flash_dtype;

/* --- version and errors ------------------------------------------------- */

int flash_abi_version(void);         /* FLASH_RUNTIME_ABI_VERSION */
int flash_plan_format_version(void); /* FLASH_LAUNCH_PLAN_VERSION */
const char *flash_version(void);     /* "flash_runtime 5 (launch plan 1)" */
/* Why the last failing call of this thread failed ("" if none did). */
const char *flash_last_error(void);

/* --- bundles ------------------------------------------------------------ */

/* Reads every *.json of `dir` as a launch plan; fails on any that is not one
 * (or is of another plan version), naming the file. */
int flash_library_open(const char *dir, flash_library **out);
void flash_library_close(flash_library *library);
int flash_library_plan_count(const flash_library *library);
/* Plans in the order of their file names. */
const flash_plan *flash_library_plan(const flash_library *library, int index);

/* What a call needs; the selection key. */
typedef struct {
  /* The device's compute capability, major*10+minor (90 for an H100/H200);
   * 0: any. Only plans that can run there are chosen (a cubin for it, or
   * PTX the driver can compile for it). */
  int compute_capability;
  /* A plan arch ("sm_90a", "sm_80"); "" or NULL: the best that runs on
   * compute_capability (the newest arch). */
  const char *arch;
  int dtype;     /* flash_dtype */
  int head_dim;  /* D */
  int value_dim; /* Dv; 0 means D */
  int causal;    /* 0 or 1 */
  int lse;       /* 1: a plan that writes LSE */
  /* The call's lengths; plans are chosen by max(seq_q, seq_kv) within their
   * seq_range. */
  int64_t seq_q, seq_kv;
  /* NULL or "": the model's form (a variant only where the key has no
   * other); otherwise that variant. */
  const char *variant;
  /* What the plan computes, its "op": "attention_forward" (NULL or ""),
   * "attention_backward", "attention_split_kv" or "paged_attention". */
  const char *op;
  /* The bytes of shared memory one block may opt in to on the device
   * (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: 232448 on an
   * H100/H200, 166912 on an A100); plans whose kernels take more dynamic
   * shared memory are not chosen, and among plans of one key and length
   * range the one that takes the most is. 0: unknown; no plan is dropped
   * and the one that takes the least is chosen (it runs wherever another
   * of the key does). ABI 4. */
  int shared_memory_per_block;
} flash_key;

/* The plan for `key`: among those matching op, arch, dtype, D, Dv, causal,
 * LSE and variant that fit the device's shared memory, the one whose
 * seq_range holds max(seq_q, seq_kv) (the nearest range if none does), the
 * one taking the most shared memory where several do (the least when
 * shared_memory_per_block is 0). Fails with a message listing what was
 * compiled (and what did not fit). */
int flash_library_select(const flash_library *library, const flash_key *key,
                         const flash_plan **out);

/* --- plans ---------------------------------------------------------------- */

typedef struct {
  char name[FLASH_NAME_SIZE];
  char op[32];      /* "attention_forward" */
  char arch[16];    /* the arch the kernels were compiled for */
  char variant[64]; /* "" for the model's form */
  int dtype;        /* flash_dtype */
  int head_dim, value_dim, causal, lse;
  int64_t seq_min, seq_max; /* seq_max -1: no upper end */
  int kernel_count, workspace_count;
  char path[512];   /* the plan's JSON file */
} flash_plan_info;

int flash_plan_get_info(const flash_plan *plan, flash_plan_info *out);

typedef struct {
  char name[32];
  uint64_t bytes;
  int scope_stream;    /* 1: one per (context, stream) */
  int zero_init;       /* 1: zeroed before its first launch */
  int kernel_restores; /* 1: the kernels leave it as they found it */
} flash_workspace_info;

int flash_plan_get_workspace(const flash_plan *plan, int index,
                             flash_workspace_info *out);

/* A tensor on the device: dims and strides in elements, outermost first. */
typedef struct {
  uint64_t data; /* device address; 0: absent */
  int dtype;     /* flash_dtype */
  int rank;
  int64_t shape[4];
  int64_t strides[4];
} flash_tensor;

/* One call of a plan: the tensors it names (its "tensors" list), by name;
 * a tensor the plan does not name stays absent (data 0).
 *   attention_forward:  q B×Hq×Nq×D, k B×Hkv×Nk×D, v B×Hkv×Nk×Dv, o B×Hq×Nq×Dv,
 *                       lse B×Hq×Nq f32 (present iff the plan writes LSE).
 *   attention_backward: q, k, v, o, lse (inputs, the forward's), dout (dO,
 *                       like o); outputs dq like q, dk like k, dv like v.
 *   attention_split_kv: as attention_forward (few query rows).
 *   paged_attention:    q, k and v the caches (P×S×Hkv×D, P×S×Hkv×Dv),
 *                       block_table B×M i32, seq_lens B i32, o[, lse]. */
typedef struct {
  flash_tensor q, k, v, o, lse;
  flash_tensor dout, dq, dk, dv;
  flash_tensor block_table, seq_lens;
  float scale; /* <= 0: the plan's default, 1/sqrt(D) */
  /* Device memory for the plan's workspaces, in the plan's order; 0: the
   * runtime keeps its own (per context and stream, zeroed once). */
  uint64_t workspaces[FLASH_MAX_WORKSPACES];
} flash_attention_args;

typedef enum {
  FLASH_ARG_PTR = 1,       /* 8 bytes: a device address */
  FLASH_ARG_I32 = 2,       /* 4 bytes */
  FLASH_ARG_F32 = 3,       /* 4 bytes */
  FLASH_ARG_TENSOR_MAP = 4 /* a 128-byte CUtensorMap by value */
} flash_arg_kind;

/* One kernel argument as planned: where it lies in the packed buffer and
 * what it holds. */
typedef struct {
  char name[32];
  int kind;        /* flash_arg_kind */
  uint32_t offset; /* in the packed buffer (tensor maps 64-byte aligned) */
  uint32_t size;
  char tensor[16];    /* the tensor it comes from ("" if none) */
  int workspace;      /* the workspace it points to, -1 if none */
  uint64_t pointer;   /* PTR: the address (0: a runtime-owned workspace) */
  int64_t int_value;  /* I32 */
  float float_value;  /* F32 */
  /* TENSOR_MAP: what cuTensorMapEncodeTiled is given. */
  int map_dtype;      /* CUtensorMapDataType */
  int map_rank;
  uint64_t map_dims[5];
  uint64_t map_strides[4]; /* bytes, dims 1.. */
  uint32_t map_box[5];
  uint32_t map_element_strides[5];
  int map_interleave, map_swizzle, map_l2_promotion, map_oob_fill; /* cuda.h enums */
  uint64_t map_address;
} flash_arg_info;

typedef struct {
  char kernel[FLASH_NAME_SIZE];
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t shared_bytes;
  int persistent; /* the grid is of the "persistent" kind */
  int num_args;
  uint32_t args_bytes; /* size of the packed buffer */
  flash_arg_info args[FLASH_MAX_KERNEL_ARGS];
} flash_launch_info;

/* Plans kernel `kernel_index` of `plan` for `args` without a GPU: checks the
 * call against the plan (shapes, types, constraints), evaluates the grid for
 * a device of `sm_count` multiprocessors (0: ask the current device) and
 * lays out the arguments. */
int flash_plan_launch_info(const flash_plan *plan, int kernel_index,
                           const flash_attention_args *args, int sm_count,
                           flash_launch_info *out);

/* The blocks of a thread-block cluster along x with which kernel
 * `kernel_index` of `plan` is launched for `args` (planned as
 * flash_plan_launch_info plans it): 1 where the plan gives the kernel no
 * "cluster" or it comes to 1 for this call (docs/launch-plan.md). An embedder
 * that launches the packed arguments itself gives a value above 1 as
 * CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (x, 1, 1); the plans' kernels are
 * also right launched without clusters, only slower. On failure (a call that
 * does not fit the plan, a cluster that is not 1 to 8 dividing grid x) it
 * returns nonzero with *cluster_x = 0 and the message in flash_last_error. */
int flash_plan_launch_cluster(const flash_plan *plan, int kernel_index,
                              const flash_attention_args *args, int sm_count,
                              uint32_t *cluster_x);

/* flash_plan_launch_info, then the packed arguments into `buffer` (at least
 * args_bytes bytes, 64-byte aligned): tensor maps are encoded (through the
 * runtime's cache of encoded maps), workspace pointers are args->workspaces
 * (0 where the runtime would supply its own). */
int flash_plan_pack_args(const flash_plan *plan, int kernel_index,
                         const flash_attention_args *args, int sm_count,
                         void *buffer, size_t buffer_size,
                         flash_launch_info *out);

/* Launches every kernel of the plan, in order, on `stream` (a CUstream; NULL
 * is the default stream) in the current CUDA context (a thread with none,
 * e.g. autograd's backward thread, gets the primary context of the device
 * that holds the call's tensors made current, as the CUDA runtime API does
 * on a thread's first call): loads the cubin for
 * the device (or JITs the PTX) once per context, sets the dynamic shared
 * memory limit, supplies the workspaces not given in args. A plan keeps its
 * last planned call (this function's and flash_plan_launch_info's): a call
 * that differs from it only in addresses (tensors' data, the caller's
 * workspaces) reuses it with the new addresses instead of planning again;
 * any other difference (a shape, stride, dtype, present tensor, the scale,
 * the context or SM count) plans anew. */
int flash_plan_launch(const flash_plan *plan, const flash_attention_args *args,
                      void *stream);

/* What the last load of `plan`'s kernel 0 in this process used: "sm_90a",
 * "sm_90", "ptx", or "" if not loaded. */
const char *flash_plan_loaded_from(const flash_plan *plan);

/* --- tensor maps ---------------------------------------------------------- */

/* cuTensorMapEncodeTiled's signature with plain C types. */
typedef int (*flash_tensor_map_encoder)(
    void *map, int dtype, uint32_t rank, void *address, const uint64_t *dims,
    const uint64_t *strides, const uint32_t *box,
    const uint32_t *element_strides, int interleave, int swizzle,
    int l2_promotion, int oob_fill);

/* Replaces the driver's encoder (NULL restores it) and empties the cache:
 * for tests without a GPU, and for embedders with their own driver. */
void flash_set_tensor_map_encoder(flash_tensor_map_encoder encoder);

typedef struct {
  uint64_t hits, misses, entries, capacity;
} flash_tensor_map_cache_stats;

/* Encoded maps are cached by everything that goes into one (address, type,
 * dims, strides, box, swizzle, ...), the least recently used going first. */
void flash_tensor_map_cache_stats_get(flash_tensor_map_cache_stats *out);
void flash_tensor_map_cache_configure(uint64_t capacity); /* also empties it */

/* --- calls from compiled host code (ABI 3; docs/embedding.md) -------------
 *
 * Host code that FlashMLIR lowered (flash-attention-to-runtime-calls, then
 * upstream passes to LLVM and an object file) calls the runtime through these:
 * each flash.attention of the host function became a call that selects the
 * attention_forward plan for the call's key in the library bound to the
 * calling thread and launches it on the bound stream. Buffers are device
 * memory the host code only passes on (and allocates through
 * flash_device_alloc, see below). */

/* MLIR's descriptor of a ranked memref of rank 4 (what a call to a func.func
 * marked llvm.emit_c_interface passes, by pointer): sizes and strides in
 * elements, outermost first; the data starts at aligned + offset elements. */
typedef struct {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[4];
  int64_t strides[4];
} flash_memref_4d;

/* Binds `library` (not owned; NULL unbinds) and `stream` (a CUstream; NULL is
 * the default stream) to the calling thread for the host calls below, and
 * clears the thread's host status. */
int flash_host_bind(flash_library *library, void *stream);
/* The first failure of a host call on this thread since flash_host_bind
 * (FLASH_OK if none): compiled host code does not look at the calls' results,
 * so the embedder checks this after the compiled function returns;
 * flash_last_error() says why the call failed. A call made after a failure
 * does nothing and returns that failure again. */
int flash_host_status(void);

/* flash.attention on device memrefs: Q B×Hq×Nq×D, K B×Hkv×Nk×D, V
 * B×Hkv×Nk×Dv, O B×Hq×Nq×Dv (written), elements of `dtype`; `causal` 0 or 1;
 * `scale` <= 0: 1/sqrt(D). The plan is selected by the current device's
 * compute capability (any when no context is current), dtype, D, Dv, causal,
 * no LSE, max(Nq, Nk); strides as the memrefs have them (what the plan takes:
 * docs/launch-plan.md). Asynchronous on the bound stream. */
int flash_attention_memref(const flash_memref_4d *q, const flash_memref_4d *k,
                           const flash_memref_4d *v, const flash_memref_4d *o,
                           int dtype, int causal, float scale);
/* The same, under the names that lowered host code calls: MLIR's C-interface
 * names of the declarations flash-attention-to-runtime-calls emits
 * (func.func private @flash_attention_memref_bf16(...) -> i32 with
 * llvm.emit_c_interface), one per element type. */
int _mlir_ciface_flash_attention_memref_bf16(const flash_memref_4d *q,
                                             const flash_memref_4d *k,
                                             const flash_memref_4d *v,
                                             const flash_memref_4d *o,
                                             int32_t causal, float scale);
int _mlir_ciface_flash_attention_memref_f16(const flash_memref_4d *q,
                                            const flash_memref_4d *k,
                                            const flash_memref_4d *v,
                                            const flash_memref_4d *o,
                                            int32_t causal, float scale);

/* Device memory for the buffers host code allocates (memref.alloc lowered
 * with finalize-memref-to-llvm{use-generic-functions}: the embedder defines
 * _mlir_memref_to_llvm_alloc/_free as calls of these, docs/embedding.md):
 * stream-ordered on the bound stream (cuMemAllocAsync / cuMemFreeAsync), so
 * a buffer freed after the last call that uses it is reused only after that
 * call's kernels ran. NULL (and a failure in flash_host_status) when it
 * cannot allocate. */
void *flash_device_alloc(uint64_t bytes);
void flash_device_free(void *pointer);

#ifdef __cplusplus
}
#endif

#endif /* FLASH_RUNTIME_FLASH_RUNTIME_H */
