//===- Driver.cpp - the CUDA driver, loaded on first use ------------------===//

#include "Driver.h"

#include <dlfcn.h>

#include <mutex>

using namespace flash::runtime;

#define FLASH_STRINGIFY_EXPANDED(x) FLASH_STRINGIFY(x)
#define FLASH_STRINGIFY(x) #x

const Driver *Driver::get(std::string &error) {
  static Driver driver;
  static std::string loadError;
  static std::once_flag once;
  std::call_once(once, [] {
    void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!handle) {
      const char *why = dlerror();
      loadError = std::string("cannot load the CUDA driver (libcuda.so.1): ") +
                  (why ? why : "not found");
      return;
    }
#define FLASH_DRIVER_LOAD(name)                                                \
  driver.name = reinterpret_cast<decltype(driver.name)>(                       \
      dlsym(handle, FLASH_STRINGIFY_EXPANDED(name)));                          \
  if (!driver.name && loadError.empty())                                       \
    loadError = "the CUDA driver has no " FLASH_STRINGIFY_EXPANDED(name);
    FLASH_DRIVER_FUNCTIONS(FLASH_DRIVER_LOAD)
#undef FLASH_DRIVER_LOAD
    driver.cuThreadExchangeStreamCaptureMode =
        reinterpret_cast<decltype(driver.cuThreadExchangeStreamCaptureMode)>(
            dlsym(handle, "cuThreadExchangeStreamCaptureMode"));
    driver.cuLaunchKernelEx = reinterpret_cast<decltype(driver.cuLaunchKernelEx)>(
        dlsym(handle, "cuLaunchKernelEx"));
    if (loadError.empty()) {
      CUresult r = driver.cuInit(0);
      if (r != CUDA_SUCCESS)
        loadError = "cuInit: " + driver.errorName(r);
    }
  });
  if (!loadError.empty()) {
    error = loadError;
    return nullptr;
  }
  return &driver;
}

std::string Driver::errorName(CUresult result) const {
  const char *name = nullptr;
  if (cuGetErrorName)
    cuGetErrorName(result, &name);
  return name ? name : "CUresult " + std::to_string(int(result));
}
