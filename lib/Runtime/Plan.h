//===- Plan.h - launch plans, read and planned ------------------*- C++ -*-===//
//
// A launch plan (docs/launch-plan.md) as the runtime holds it, and the
// planning of one launch: bind the symbols of the plan's tensor shapes to a
// call's tensors, check the constraints, evaluate the grid formulas and lay
// the arguments out. No GPU is needed for any of it.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_RUNTIME_PLAN_H
#define FLASH_RUNTIME_PLAN_H

#include "Json.h"
#include "flash/Runtime/flash_runtime.h"

#include <cuda.h>

#include <algorithm>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace flash {
namespace runtime {

/// Symbol values of one call (B, Hq, Nq, D, scale, SMs, ...).
using Env = std::map<std::string, double>;

/// Evaluates a formula: a number, a symbol, or [op, operands...] with op one
/// of add sub mul ceildiv min max mod eq ne lt le gt ge rsqrt.
bool evaluate(const Json &formula, const Env &env, double &out,
              std::string &error);
/// Whether `formula` names `symbol`.
bool mentions(const Json &formula, const std::string &symbol);

struct TensorSpec {
  std::string name;
  std::vector<Json> shape; ///< symbols or numbers, outermost first
  int dtype = FLASH_DTYPE_NONE;
  bool output = false, required = true;
  /// Every kernel argument that reads or writes it is a tensor map or a
  /// pointer whose kernel also takes the tensor's strides (i32 arguments of
  /// the symbols `<name>_stride<d>` for every dimension but the innermost)
  /// (set by Plan::read): a call may pass it strided (its innermost
  /// dimension contiguous), the maps or the stride arguments then carry its
  /// strides.
  bool stridedOk = false;
  /// Some kernel addresses it through a pointer and its strides (i32 element
  /// offsets): a strided call must be 16-byte aligned with strides of
  /// 16-byte multiples and address fewer than 2^31 elements.
  bool stridedPointer = false;
};

struct TensorMapSpec {
  int dtype = 0; ///< CUtensorMapDataType
  std::vector<Json> dims, strides;
  std::vector<uint32_t> box, elementStrides;
  int interleave = 0, swizzle = 0, l2Promotion = 0, oobFill = 0;
};

struct ArgSpec {
  std::string name;
  int kind = 0; ///< flash_arg_kind
  std::string tensor;
  int workspace = -1;
  Json value; ///< I32/F32 formula
  TensorMapSpec map;
};

struct KernelSpec {
  std::string name, ptxFile, ptxTarget;
  std::map<std::string, std::string> cubins; ///< ptxas target -> file
  Json grid[3];
  bool persistent = false;
  /// Launched with programmatic dependent launch behind the previous kernel
  /// of the plan ("programmatic_dependent_launch": true).
  bool programmaticDependentLaunch = false;
  /// Blocks a cluster along x ("cluster": {"x": formula}; null: no
  /// clusters), evaluated per call like the grid.
  Json clusterX;
  unsigned block[3] = {1, 1, 1};
  unsigned sharedBytes = 0;
  std::vector<ArgSpec> args;

  /// Loaded per CUDA context (once).
  mutable std::mutex mutex;
  mutable std::map<CUcontext, CUfunction> functions;
  mutable std::string loadedFrom;
};

struct WorkspaceSpec {
  std::string name;
  /// Its size: a number, or a formula of the call's symbols (the split-KV
  /// partials grow with B, the heads and Nq), evaluated at each launch.
  Json bytes;
  /// The size when it does not depend on the call (0 when it does).
  uint64_t fixedBytes() const {
    return bytes.kind == Json::Number ? uint64_t(bytes.number) : 0;
  }
  bool perStream = true, zeroInit = true, kernelRestores = false;
};

struct ScalarSpec {
  std::string name;
  Json defaultValue;
};

struct Constraint {
  Json check;
  std::string message;
};

struct Plan {
  std::string path, dir, name, op, arch, variant;
  int dtype = FLASH_DTYPE_NONE;
  int headDim = 0, valueDim = 0;
  bool causal = false, lse = false;
  int64_t seqMin = 0, seqMax = -1; ///< -1: no upper end
  Env constants;
  std::vector<TensorSpec> tensors;
  std::vector<ScalarSpec> scalars;
  std::vector<Constraint> constraints;
  std::vector<WorkspaceSpec> workspaces;
  std::vector<KernelSpec> kernels;

  /// Reads a plan file; false with `error` naming the file and field.
  bool read(const std::string &jsonPath, std::string &error);
  /// Whether a device of compute capability `cc` can run every kernel, and
  /// whether it does so from cubins (not PTX compiled by the driver).
  bool runsOn(int cc, bool *fromCubin = nullptr) const;
  /// The most dynamic shared memory any of its kernels takes (what a block
  /// of the device must be able to opt in to).
  unsigned maxSharedBytes() const {
    unsigned most = 0;
    for (const KernelSpec &k : kernels)
      most = std::max(most, k.sharedBytes);
    return most;
  }
  /// Plans kernel `index` for `args` (smCount <= 0: `smCountOfDevice` is
  /// asked, when the grid needs it).
  /// With `workspaceBytes`, also the size of each of the plan's workspaces
  /// for this call (in the plan's order); with `clusterX`, the blocks a
  /// cluster along x (1 without a "cluster"; 1 to 8 dividing grid x).
  bool planLaunch(int index, const flash_attention_args &args, int smCount,
                  int (*smCountOfDevice)(std::string &),
                  flash_launch_info &out, std::string &error,
                  std::vector<uint64_t> *workspaceBytes = nullptr,
                  uint32_t *clusterX = nullptr) const;
};

/// The symbol of a call's stride of dimension `dim` of tensor `tensor`, in
/// elements: "o_stride2" (a dimension of size 1 has the row-major stride).
std::string strideSymbol(const std::string &tensor, int dim);

/// "sm_90a" -> 90; 0 if not of that form.
int computeCapabilityOf(const std::string &arch);
int dtypeOf(const std::string &name);
const char *dtypeName(int dtype);

/// The tensor of `args` a plan names ("q", "block_table", ...), or null.
const flash_tensor *tensorOf(const flash_attention_args &args,
                             const std::string &name);

/// Reads a whole file (a plan, a cubin, PTX) into `out`; false if it cannot.
bool readFile(const std::string &path, std::string &out);

} // namespace runtime
} // namespace flash

#endif // FLASH_RUNTIME_PLAN_H
