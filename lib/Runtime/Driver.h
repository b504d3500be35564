//===- Driver.h - the CUDA driver, loaded on first use ----------*- C++ -*-===//
//
// libflash_runtime.so does not link libcuda: the calls it makes go through
// this table, filled by dlopen("libcuda.so.1") the first time a call needs
// the GPU. Opening bundles, selecting and planning never touch it, so they
// run on machines without a driver (CI).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_RUNTIME_DRIVER_H
#define FLASH_RUNTIME_DRIVER_H

#include <cuda.h>

#include <string>

namespace flash {
namespace runtime {

struct Driver {
  // Members take the names cuda.h's macros give them (cuMemAlloc is
  // cuMemAlloc_v2), which are also the names libcuda exports.
#define FLASH_DRIVER_FUNCTIONS(X)                                              \
  X(cuInit)                                                                    \
  X(cuGetErrorName)                                                            \
  X(cuCtxGetCurrent)                                                           \
  X(cuCtxSetCurrent)                                                           \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuPointerGetAttribute)                                                     \
  X(cuCtxGetDevice)                                                            \
  X(cuDeviceGetAttribute)                                                      \
  X(cuModuleLoadData)                                                          \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncSetAttribute)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuMemAlloc)                                                                \
  X(cuMemAllocAsync)                                                           \
  X(cuMemFreeAsync)                                                            \
  X(cuMemsetD8Async)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuTensorMapEncodeTiled)
#define FLASH_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  FLASH_DRIVER_FUNCTIONS(FLASH_DRIVER_MEMBER)
#undef FLASH_DRIVER_MEMBER
  /// Optional (null if the driver lacks it): lets an allocation happen while
  /// the thread captures a CUDA graph in global mode.
  decltype(&::cuThreadExchangeStreamCaptureMode)
      cuThreadExchangeStreamCaptureMode = nullptr;
  /// Optional (CUDA 12 drivers and later): launches with attributes, here
  /// programmatic dependent launch. Without it a kernel that asks for PDL is
  /// launched by cuLaunchKernel, in stream order (correct, not overlapped).
  decltype(&::cuLaunchKernelEx) cuLaunchKernelEx = nullptr;

  /// The loaded driver, or null with `error` set.
  static const Driver *get(std::string &error);
  /// "CUDA_ERROR_..." for `result`.
  std::string errorName(CUresult result) const;
};

/// Sets this thread's flash_last_error() to `message`; returns `code`
/// (Runtime.cpp; HostCalls.cpp reports through it).
int recordError(int code, const std::string &message);

} // namespace runtime
} // namespace flash

#endif // FLASH_RUNTIME_DRIVER_H
