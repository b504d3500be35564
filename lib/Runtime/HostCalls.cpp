//===- HostCalls.cpp - the runtime entry points of compiled host code -----===//
//
// Host code that FlashMLIR lowered around flash.attention (the pass
// flash-attention-to-runtime-calls, docs/embedding.md) holds, in place of
// each attention, a call of flash_attention_memref_<dtype> with the memref
// descriptors of Q, K, V and O. Such code cannot carry a library handle or a
// stream through the user's function signature, so both are the calling
// thread's binding (flash_host_bind); the calls' results are not looked at
// by the compiled code, so the first failure sticks (flash_host_status) and
// later calls do nothing until the next bind. Selection and launch are the
// C ABI's own (flash_library_select, flash_plan_launch): a descriptor becomes
// a flash_tensor (data = aligned + offset elements, sizes and strides as
// they are) and the plan checks it like any other call.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "flash/Runtime/flash_runtime.h"

#include <string>

using namespace flash::runtime;

namespace {
struct HostBinding {
  flash_library *library = nullptr;
  void *stream = nullptr;
  int status = FLASH_OK;
};
thread_local HostBinding binding;

/// Records a failure of a host call (the first one sticks) and returns it.
int hostFailure(int code, const std::string &message) {
  recordError(code, message);
  if (binding.status == FLASH_OK)
    binding.status = code;
  return code;
}

int elementBytes(int dtype) {
  switch (dtype) {
  case FLASH_DTYPE_BF16:
  case FLASH_DTYPE_F16:
    return 2;
  case FLASH_DTYPE_F32:
  case FLASH_DTYPE_I32:
    return 4;
  default:
    return 0;
  }
}

/// The flash_tensor of a memref descriptor; false (message in `error`) when
/// it is absent or malformed.
bool toTensor(const char *name, const flash_memref_4d *memref, int dtype,
              flash_tensor &tensor, std::string &error) {
  if (!memref) {
    error = std::string(name) + ": no memref descriptor (null)";
    return false;
  }
  if (memref->offset < 0) {
    error = std::string(name) + ": negative offset " +
            std::to_string(memref->offset);
    return false;
  }
  bool empty = false;
  for (int d = 0; d < 4; ++d) {
    if (memref->sizes[d] < 0) {
      error = std::string(name) + ": negative size " +
              std::to_string(memref->sizes[d]) + " in dimension " +
              std::to_string(d);
      return false;
    }
    empty |= memref->sizes[d] == 0;
  }
  if (!memref->aligned && !empty) {
    error = std::string(name) + ": a null data pointer";
    return false;
  }
  tensor = {};
  tensor.data = reinterpret_cast<uint64_t>(memref->aligned) +
                uint64_t(memref->offset) * uint64_t(elementBytes(dtype));
  tensor.dtype = dtype;
  tensor.rank = 4;
  for (int d = 0; d < 4; ++d) {
    tensor.shape[d] = memref->sizes[d];
    tensor.strides[d] = memref->strides[d];
  }
  return true;
}

/// The current context's compute capability and the shared memory one of
/// its blocks may opt in to; 0 and 0 (any) without a driver or a current
/// context (flash_plan_launch then adopts the tensors' device).
void currentDeviceKey(int &computeCapability, int &sharedMemoryPerBlock) {
  computeCapability = sharedMemoryPerBlock = 0;
  std::string error;
  const Driver *cu = Driver::get(error);
  if (!cu)
    return;
  CUcontext context = nullptr;
  CUdevice device;
  if (cu->cuCtxGetCurrent(&context) != CUDA_SUCCESS || !context ||
      cu->cuCtxGetDevice(&device) != CUDA_SUCCESS)
    return;
  int major = 0, minor = 0, shared = 0;
  cu->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                           device);
  cu->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                           device);
  if (cu->cuDeviceGetAttribute(
          &shared, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
          device) != CUDA_SUCCESS)
    shared = 0;
  computeCapability = major * 10 + minor;
  sharedMemoryPerBlock = shared;
}
} // namespace

extern "C" {

int flash_host_bind(flash_library *library, void *stream) {
  binding = {library, stream, FLASH_OK};
  return FLASH_OK;
}

int flash_host_status(void) { return binding.status; }

int flash_attention_memref(const flash_memref_4d *q, const flash_memref_4d *k,
                           const flash_memref_4d *v, const flash_memref_4d *o,
                           int dtype, int causal, float scale) {
  if (binding.status != FLASH_OK)
    return binding.status; // an earlier call of this thread failed
  const char *what = "flash_attention_memref: ";
  if (!binding.library)
    return hostFailure(FLASH_ERROR_INVALID,
                       std::string(what) +
                           "no library bound to this thread (flash_host_bind)");
  if (dtype != FLASH_DTYPE_BF16 && dtype != FLASH_DTYPE_F16)
    return hostFailure(FLASH_ERROR_INVALID,
                       std::string(what) + "dtype " + std::to_string(dtype) +
                           " is not bf16 or f16 (the GPU kernels' types)");
  if (causal != 0 && causal != 1)
    return hostFailure(FLASH_ERROR_INVALID,
                       std::string(what) + "causal must be 0 or 1, got " +
                           std::to_string(causal));
  flash_attention_args args = {};
  std::string error;
  if (!toTensor("q", q, dtype, args.q, error) ||
      !toTensor("k", k, dtype, args.k, error) ||
      !toTensor("v", v, dtype, args.v, error) ||
      !toTensor("o", o, dtype, args.o, error))
    return hostFailure(FLASH_ERROR_INVALID, what + error);
  args.scale = scale;

  flash_key key = {};
  currentDeviceKey(key.compute_capability, key.shared_memory_per_block);
  key.dtype = dtype;
  key.head_dim = int(q->sizes[3]);
  key.value_dim = int(v->sizes[3]);
  key.causal = causal;
  key.lse = 0;
  key.seq_q = q->sizes[2];
  key.seq_kv = k->sizes[2];
  const flash_plan *plan = nullptr;
  if (int r = flash_library_select(binding.library, &key, &plan))
    return hostFailure(r, what + std::string(flash_last_error()));
  if (int r = flash_plan_launch(plan, &args, binding.stream))
    return hostFailure(r, what + std::string(flash_last_error()));
  return FLASH_OK;
}

int _mlir_ciface_flash_attention_memref_bf16(const flash_memref_4d *q,
                                             const flash_memref_4d *k,
                                             const flash_memref_4d *v,
                                             const flash_memref_4d *o,
                                             int32_t causal, float scale) {
  return flash_attention_memref(q, k, v, o, FLASH_DTYPE_BF16, causal, scale);
}

int _mlir_ciface_flash_attention_memref_f16(const flash_memref_4d *q,
                                            const flash_memref_4d *k,
                                            const flash_memref_4d *v,
                                            const flash_memref_4d *o,
                                            int32_t causal, float scale) {
  return flash_attention_memref(q, k, v, o, FLASH_DTYPE_F16, causal, scale);
}

void *flash_device_alloc(uint64_t bytes) {
  std::string error;
  const Driver *cu = Driver::get(error);
  if (!cu) {
    hostFailure(FLASH_ERROR_DRIVER, "flash_device_alloc: " + error);
    return nullptr;
  }
  CUdeviceptr pointer = 0;
  CUresult r = cu->cuMemAllocAsync(&pointer, bytes ? bytes : 1,
                                   static_cast<CUstream>(binding.stream));
  if (r != CUDA_SUCCESS) {
    hostFailure(FLASH_ERROR_DRIVER, "flash_device_alloc(" +
                                        std::to_string(bytes) +
                                        "): cuMemAllocAsync: " +
                                        cu->errorName(r));
    return nullptr;
  }
  return reinterpret_cast<void *>(pointer);
}

void flash_device_free(void *pointer) {
  if (!pointer)
    return;
  std::string error;
  const Driver *cu = Driver::get(error);
  if (!cu) {
    hostFailure(FLASH_ERROR_DRIVER, "flash_device_free: " + error);
    return;
  }
  CUresult r = cu->cuMemFreeAsync(reinterpret_cast<CUdeviceptr>(pointer),
                                  static_cast<CUstream>(binding.stream));
  if (r != CUDA_SUCCESS)
    hostFailure(FLASH_ERROR_DRIVER,
                "flash_device_free: cuMemFreeAsync: " + cu->errorName(r));
}

} // extern "C"
