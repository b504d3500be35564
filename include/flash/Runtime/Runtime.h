//===- Runtime.h - load kernel bundles and launch attention ----*- C++ -*-===//
//
// A small runtime on the CUDA driver API, with no MLIR or LLVM dependency:
// it reads a bundle's JSON (written by flash-write-bundle), loads the cubin
// built for the current device (or JITs the PTX), and launches the kernel on
// device pointers after checking the problem against the kernel's contract.
// Errors are reported as strings; nothing throws and nothing falls back to
// another kernel.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_RUNTIME_RUNTIME_H
#define FLASH_RUNTIME_RUNTIME_H

#include <cuda.h>

#include <map>
#include <string>
#include <vector>

namespace flash {
namespace runtime {

/// The launch contract of one kernel (the bundle's JSON).
struct KernelInfo {
  std::string name, arch, elementType, ptxFile;
  int headDim = 0, valueDim = 0, blockQ = 0, threads = 0, sharedBytes = 0;
  bool causal = false, writesLse = false;
  bool persistent = false; ///< grid = min(SMs·blocksPerSM, tiles) blocks looping over tiles
  unsigned blocksPerSM = 1; ///< blocks resident per SM (persistent grid size)
  /// The kernel takes a tile counter (args "counter:ptr"): a global i32 that
  /// is 0 before each launch; the kernel leaves it 0.
  bool takesCounter = false;
  std::map<std::string, std::string> cubinFiles; ///< ptxas arch -> file
  /// sm_90a: Q, K, V, O are passed as CUtensorMaps (rank 3 over (D, N, B·H)).
  struct TensorMapSpec {
    std::string tensor; ///< "q", "k", "v" or "o"
    unsigned box[3] = {0, 0, 0};
    std::string swizzle; ///< "128B", ...
  };
  std::vector<TensorMapSpec> tensorMaps;
};

/// One attention problem on device memory, B×H×N×D contiguous tensors.
struct AttentionProblem {
  CUdeviceptr q = 0, k = 0, v = 0, out = 0;
  CUdeviceptr lse = 0; ///< B×Hq×Nq f32; required iff the kernel writes LSE
  int batch = 0, queryHeads = 0, kvHeads = 0, seqQ = 0, seqKV = 0;
  int headDim = 0;
  std::string elementType; ///< "bf16" or "f16"
  bool causal = false;
  float scale = 0.0f; ///< 0 means 1/sqrt(headDim)
};

class Kernel {
public:
  /// Reads `jsonPath`; fails with a message if it is not a valid bundle.
  bool open(const std::string &jsonPath, std::string &error);
  /// Loads the module into the current CUDA context (once).
  bool load(std::string &error);
  /// Checks `p` against the contract; empty string when it fits.
  std::string check(const AttentionProblem &p) const;
  /// check() + load() + cuLaunchKernel on `stream`.
  bool launch(const AttentionProblem &p, CUstream stream, std::string &error);

  const KernelInfo &info() const { return info_; }
  /// "sm_90", "ptx", ...: what load() used.
  const std::string &loadedFrom() const { return loadedFrom_; }

private:
  KernelInfo info_;
  std::string dir_;
  CUmodule module_ = nullptr;
  CUfunction function_ = nullptr;
  std::string loadedFrom_;
  /// One zeroed tile counter per stream (launches on one stream are
  /// ordered, so they can share it; launches on two streams may overlap).
  /// Allocated on first use and kept for the life of the context.
  std::map<CUstream, CUdeviceptr> counters_;
};

} // namespace runtime
} // namespace flash

#endif // FLASH_RUNTIME_RUNTIME_H
