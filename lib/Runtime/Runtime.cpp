//===- Runtime.cpp - the C ABI: bundles, selection, launches --------------===//
//
// flash_runtime.h's functions. A library is the launch plans of a directory;
// selection is by the plans' keys (never by file names); a launch plans the
// arguments (Plan.cpp), encodes tensor maps through a cache, supplies the
// workspaces the caller did not, loads the kernel once per CUDA context and
// calls cuLaunchKernel. Only launching needs the driver (Driver.cpp).
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "Plan.h"

#include "flash/Runtime/flash_runtime.h"

#include <dirent.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <iterator>
#include <list>
#include <memory>
#include <mutex>
#include <sstream>
#include <tuple>
#include <unordered_map>

using namespace flash::runtime;

namespace {
/// A call of a plan, planned: every kernel's launch and the workspaces'
/// sizes, for the call's shapes, types, scale and present tensors on one
/// CUDA context (the SM count of its device) or for a given SM count. The
/// addresses are not part of it: a later call that differs only in them
/// reuses it with its own addresses (a decode loop calls with the same
/// shapes every step, and planning from the plan's formulas costs more
/// host time than the launch itself).
struct PlannedCall {
  flash_attention_args shape; ///< the call, addresses replaced by 1 (present)
  void *context = nullptr;
  int smCount = 0;
  std::vector<flash_launch_info> infos;
  /// Blocks a cluster along x, per kernel (1: no clusters).
  std::vector<uint32_t> clusterX;
  std::vector<uint64_t> workspaceBytes;
};
} // namespace

struct flash_plan {
  Plan plan;
  std::mutex lastCallMutex;
  /// The last call planned; shared, so that a launch reads it while another
  /// thread plans a different call.
  std::shared_ptr<const PlannedCall> lastCall;
};

struct flash_library {
  std::string dir;
  std::vector<std::unique_ptr<flash_plan>> plans;
};

namespace {
thread_local std::string lastError;

int fail(const std::string &message) {
  lastError = message;
  return FLASH_ERROR_INVALID;
}

int failDriver(const std::string &message) {
  lastError = message;
  return FLASH_ERROR_DRIVER;
}

template <size_t N> void copyName(char (&out)[N], const std::string &text) {
  std::strncpy(out, text.c_str(), N - 1);
  out[N - 1] = '\0';
}

//===-- tensor maps: encoded once per distinct input ----------------------===//

int driverEncoder(void *map, int dtype, uint32_t rank, void *address,
                  const uint64_t *dims, const uint64_t *strides,
                  const uint32_t *box, const uint32_t *elementStrides,
                  int interleave, int swizzle, int l2Promotion, int oobFill) {
  std::string error;
  const Driver *cu = Driver::get(error);
  if (!cu)
    return -1;
  return int(cu->cuTensorMapEncodeTiled(
      static_cast<CUtensorMap *>(map), CUtensorMapDataType(dtype), rank,
      address, dims, strides, box, elementStrides,
      CUtensorMapInterleave(interleave), CUtensorMapSwizzle(swizzle),
      CUtensorMapL2promotion(l2Promotion), CUtensorMapFloatOOBfill(oobFill)));
}

/// A CUtensorMap is a pure function of what it is encoded from, so a hit is
/// always the right map, even for a new tensor that reuses freed memory.
/// Encoding costs microseconds of driver time, several maps a launch.
class TensorMapCache {
public:
  bool get(const flash_arg_info &arg, void *out, std::string &error) {
    std::string key(reinterpret_cast<const char *>(&arg.map_dtype),
                    reinterpret_cast<const char *>(&arg.map_address + 1) -
                        reinterpret_cast<const char *>(&arg.map_dtype));
    std::lock_guard<std::mutex> lock(mutex);
    auto it = index.find(key);
    if (it != index.end()) {
      ++stats.hits;
      entries.splice(entries.begin(), entries, it->second);
      std::memcpy(out, it->second->map, 128);
      return true;
    }
    ++stats.misses;
    Entry entry;
    int r = (encoder ? encoder : driverEncoder)(
        entry.map, arg.map_dtype, uint32_t(arg.map_rank),
        reinterpret_cast<void *>(arg.map_address), arg.map_dims,
        arg.map_strides, arg.map_box, arg.map_element_strides,
        arg.map_interleave, arg.map_swizzle, arg.map_l2_promotion,
        arg.map_oob_fill);
    if (r != 0) {
      std::string driverError;
      const Driver *cu = encoder ? nullptr : Driver::get(driverError);
      error = std::string("cuTensorMapEncodeTiled(") + arg.name + "): " +
              (cu ? cu->errorName(CUresult(r))
                  : driverError.empty() ? "error " + std::to_string(r)
                                        : driverError);
      return false;
    }
    entry.key = key;
    entries.push_front(entry);
    index[key] = entries.begin();
    while (entries.size() > stats.capacity) {
      index.erase(entries.back().key);
      entries.pop_back();
    }
    stats.entries = entries.size();
    std::memcpy(out, entries.front().map, 128);
    return true;
  }
  void reset(flash_tensor_map_encoder newEncoder, uint64_t capacity) {
    std::lock_guard<std::mutex> lock(mutex);
    encoder = newEncoder;
    entries.clear();
    index.clear();
    stats = {0, 0, 0, capacity};
  }
  flash_tensor_map_cache_stats get() {
    std::lock_guard<std::mutex> lock(mutex);
    stats.entries = entries.size();
    return stats;
  }
  flash_tensor_map_encoder currentEncoder() {
    std::lock_guard<std::mutex> lock(mutex);
    return encoder;
  }

private:
  struct Entry {
    alignas(64) unsigned char map[128];
    std::string key;
  };
  std::mutex mutex;
  std::list<Entry> entries; // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index;
  flash_tensor_map_encoder encoder = nullptr;
  flash_tensor_map_cache_stats stats{0, 0, 0, 256};
};

TensorMapCache &tensorMaps() {
  static TensorMapCache cache;
  return cache;
}

//===-- the device: SM count, compute capability, workspaces --------------===//

/// A thread with no current context (e.g. autograd's backward thread before
/// anything there called the CUDA runtime): the primary context of the
/// device that holds the call's first tensor is made current, as the CUDA
/// runtime API does for a thread's first call. Null if there is no tensor or
/// the driver cannot tell its device.
CUcontext adoptTensorsContext(const Driver *cu,
                              const flash_attention_args &args) {
  const flash_tensor *tensors[] = {&args.q,  &args.k,  &args.v,  &args.o,
                                   &args.dout, &args.dq, &args.dk, &args.dv};
  for (const flash_tensor *t : tensors) {
    if (!t->data)
      continue;
    int ordinal = -1;
    if (cu->cuPointerGetAttribute(&ordinal,
                                  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                  CUdeviceptr(t->data)) != CUDA_SUCCESS ||
        ordinal < 0)
      return nullptr;
    CUcontext context = nullptr;
    if (cu->cuDevicePrimaryCtxRetain(&context, CUdevice(ordinal)) !=
            CUDA_SUCCESS ||
        cu->cuCtxSetCurrent(context) != CUDA_SUCCESS)
      return nullptr;
    return context;
  }
  return nullptr;
}

int currentDevice(const Driver *cu, CUdevice &device, std::string &error) {
  CUcontext context = nullptr;
  CUresult r = cu->cuCtxGetCurrent(&context);
  if (r != CUDA_SUCCESS || !context) {
    error = "no current CUDA context" +
            (r != CUDA_SUCCESS ? " (" + cu->errorName(r) + ")" : std::string());
    return 1;
  }
  r = cu->cuCtxGetDevice(&device);
  if (r != CUDA_SUCCESS) {
    error = "cuCtxGetDevice: " + cu->errorName(r);
    return 1;
  }
  return 0;
}

int deviceAttribute(CUdevice_attribute attribute, std::string &error) {
  const Driver *cu = Driver::get(error);
  CUdevice device;
  if (!cu || currentDevice(cu, device, error))
    return 0;
  int value = 0;
  CUresult r = cu->cuDeviceGetAttribute(&value, attribute, device);
  if (r != CUDA_SUCCESS) {
    error = "cuDeviceGetAttribute: " + cu->errorName(r);
    return 0;
  }
  return value;
}

int smCountOfDevice(std::string &error) {
  return deviceAttribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, error);
}

/// Runtime-owned workspaces: one per (context, stream, name), zeroed when
/// allocated. Launches on one stream are ordered, so they can share one
/// whose kernels leave it as they found it; two streams may overlap, so each
/// has its own. A call that needs more bytes than the workspace has gets a
/// larger one; the smaller stays allocated (a kernel in flight or a captured
/// CUDA graph may still use it). Kept for the life of the process, so that
/// calls of sizes seen before allocate nothing.
CUdeviceptr workspaceFor(const Driver *cu, CUstream stream,
                         const WorkspaceSpec &spec, uint64_t bytes,
                         std::string &error) {
  struct Owned {
    CUdeviceptr pointer = 0;
    uint64_t capacity = 0;
  };
  static std::mutex mutex;
  static std::map<std::tuple<CUcontext, CUstream, std::string>, Owned> owned;
  CUcontext context = nullptr;
  cu->cuCtxGetCurrent(&context);
  std::lock_guard<std::mutex> lock(mutex);
  Owned &slot = owned[std::make_tuple(context, spec.perStream ? stream : nullptr,
                                      spec.name)];
  bytes = std::max<uint64_t>(bytes, 4);
  if (slot.capacity < bytes) {
    CUdeviceptr pointer = 0;
    // A first call inside a CUDA-graph capture (global mode forbids
    // allocating) allocates in relaxed mode, as torch's allocator does; a
    // zeroing memset is then captured too (it runs at each replay, harmless
    // for a workspace the kernels leave zero).
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    if (cu->cuThreadExchangeStreamCaptureMode)
      cu->cuThreadExchangeStreamCaptureMode(&mode);
    CUresult r = cu->cuMemAlloc(&pointer, bytes);
    if (cu->cuThreadExchangeStreamCaptureMode)
      cu->cuThreadExchangeStreamCaptureMode(&mode);
    if (r == CUDA_SUCCESS && spec.zeroInit)
      r = cu->cuMemsetD8Async(pointer, 0, bytes, stream);
    if (r != CUDA_SUCCESS) {
      error = "workspace " + spec.name + ": " + cu->errorName(r);
      return 0;
    }
    slot = {pointer, bytes};
    return pointer;
  }
  if (spec.zeroInit && !spec.kernelRestores) {
    CUresult r = cu->cuMemsetD8Async(slot.pointer, 0, bytes, stream);
    if (r != CUDA_SUCCESS) {
      error = "workspace " + spec.name + ": " + cu->errorName(r);
      return 0;
    }
  }
  return slot.pointer;
}

/// The kernel's function in the current context, loaded on first use: the
/// cubin of the device's compute capability, or the PTX for the driver.
CUfunction functionFor(const Driver *cu, const Plan &plan,
                       const KernelSpec &kernel, std::string &error) {
  CUcontext context = nullptr;
  cu->cuCtxGetCurrent(&context);
  std::lock_guard<std::mutex> lock(kernel.mutex);
  auto it = kernel.functions.find(context);
  if (it != kernel.functions.end())
    return it->second;
  CUdevice device;
  if (currentDevice(cu, device, error))
    return nullptr;
  int major = 0, minor = 0;
  cu->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
  cu->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
  std::string cc = std::to_string(major * 10 + minor), image, from;
  for (const std::string &target : {"sm_" + cc + "a", "sm_" + cc}) {
    auto file = kernel.cubins.find(target);
    if (file != kernel.cubins.end() &&
        readFile(plan.dir + "/" + file->second, image)) {
      from = target;
      break;
    }
  }
  if (from.empty()) {
    if (kernel.ptxFile.empty() || !readFile(plan.dir + "/" + kernel.ptxFile, image)) {
      error = "plan " + plan.name + " has no cubin for sm_" + cc +
              " and no readable PTX";
      return nullptr;
    }
    image.push_back('\0');
    from = "ptx";
  }
  CUmodule module;
  CUfunction function;
  CUresult r = cu->cuModuleLoadData(&module, image.data());
  if (r != CUDA_SUCCESS) {
    error = "cuModuleLoadData(" + kernel.name + ", from " + from + "): " +
            cu->errorName(r);
    return nullptr;
  }
  if ((r = cu->cuModuleGetFunction(&function, module, kernel.name.c_str())) !=
      CUDA_SUCCESS) {
    error = "cuModuleGetFunction(" + kernel.name + "): " + cu->errorName(r);
    return nullptr;
  }
  if ((r = cu->cuFuncSetAttribute(function,
                                  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                  int(kernel.sharedBytes))) != CUDA_SUCCESS) {
    error = "cuFuncSetAttribute(max dynamic shared memory = " +
            std::to_string(kernel.sharedBytes) + "): " + cu->errorName(r);
    return nullptr;
  }
  kernel.loadedFrom = from;
  kernel.functions[context] = function;
  return function;
}

/// Writes the packed arguments of `info` into `buffer`.
bool pack(const flash_launch_info &info, unsigned char *buffer,
          std::string &error) {
  std::memset(buffer, 0, info.args_bytes);
  for (int i = 0; i < info.num_args; ++i) {
    const flash_arg_info &arg = info.args[i];
    unsigned char *slot = buffer + arg.offset;
    switch (arg.kind) {
    case FLASH_ARG_PTR:
      std::memcpy(slot, &arg.pointer, 8);
      break;
    case FLASH_ARG_I32: {
      int32_t v = int32_t(arg.int_value);
      std::memcpy(slot, &v, 4);
      break;
    }
    case FLASH_ARG_F32:
      std::memcpy(slot, &arg.float_value, 4);
      break;
    case FLASH_ARG_TENSOR_MAP:
      if (!tensorMaps().get(arg, slot, error))
        return false;
      break;
    }
  }
  return true;
}

/// `args` without its addresses: what a planned call depends on. Every byte
/// is set (padding included), so that two shapes compare with memcmp.
flash_attention_args callShape(const flash_attention_args &args) {
  flash_attention_args shape;
  std::memset(&shape, 0, sizeof(shape));
  flash_tensor *to[] = {&shape.q,    &shape.k,  &shape.v,  &shape.o,
                        &shape.lse,  &shape.dout, &shape.dq, &shape.dk,
                        &shape.dv,   &shape.block_table, &shape.seq_lens};
  const flash_tensor *from[] = {&args.q,    &args.k,  &args.v,  &args.o,
                                &args.lse,  &args.dout, &args.dq, &args.dk,
                                &args.dv,   &args.block_table, &args.seq_lens};
  for (size_t i = 0; i < std::size(to); ++i) {
    to[i]->data = from[i]->data ? 1 : 0;
    to[i]->dtype = from[i]->dtype;
    to[i]->rank = from[i]->rank;
    for (int d = 0; d < 4; ++d) {
      to[i]->shape[d] = from[i]->shape[d];
      to[i]->strides[d] = from[i]->strides[d];
    }
  }
  shape.scale = args.scale;
  for (int w = 0; w < FLASH_MAX_WORKSPACES; ++w)
    shape.workspaces[w] = args.workspaces[w] ? 1 : 0;
  return shape;
}

/// Plans every kernel of `p` for `args` (Plan::planLaunch), or returns the
/// last call's plan when only the addresses differ (no copy: a decode plan
/// holds several kernels of FLASH_MAX_KERNEL_ARGS arguments each, tens of
/// KiB, and a call launches one or two of them). The addresses are not in
/// it: withAddresses writes a call's into a launch. `context`: the current
/// CUDA context (null without a driver); `smCount`: the SM count to plan for
/// (0: the current device's). Null on error.
std::shared_ptr<const PlannedCall> planCall(flash_plan &p,
                                            const flash_attention_args &args,
                                            void *context, int smCount,
                                            std::string &error) {
  const Plan &plan = p.plan;
  flash_attention_args shape = callShape(args);
  {
    std::lock_guard<std::mutex> lock(p.lastCallMutex);
    const std::shared_ptr<const PlannedCall> &last = p.lastCall;
    if (last && last->context == context && last->smCount == smCount &&
        std::memcmp(&last->shape, &shape, sizeof(shape)) == 0)
      return last;
  }
  auto planned = std::make_shared<PlannedCall>();
  planned->shape = shape;
  planned->context = context;
  planned->smCount = smCount;
  planned->infos.assign(plan.kernels.size(), flash_launch_info{});
  planned->clusterX.assign(plan.kernels.size(), 1);
  for (size_t i = 0; i < plan.kernels.size(); ++i)
    if (!plan.planLaunch(int(i), args, smCount, smCountOfDevice, planned->infos[i],
                         error, i == 0 ? &planned->workspaceBytes : nullptr,
                         &planned->clusterX[i]))
      return nullptr;
  std::lock_guard<std::mutex> lock(p.lastCallMutex);
  p.lastCall = planned;
  return planned;
}

/// Kernel `planned`'s launch with this call's addresses written in (tensors,
/// tensor maps, the caller's workspaces; 0 for a runtime-owned workspace),
/// into `out`: only the header and the kernel's own arguments are copied.
void withAddresses(const flash_launch_info &planned,
                   const flash_attention_args &args, flash_launch_info &out) {
  std::memcpy(&out, &planned, offsetof(flash_launch_info, args));
  for (int a = 0; a < planned.num_args; ++a) {
    flash_arg_info &arg = out.args[a];
    arg = planned.args[a];
    const flash_tensor *t = arg.tensor[0] ? tensorOf(args, arg.tensor) : nullptr;
    if (arg.kind == FLASH_ARG_PTR)
      arg.pointer = t ? t->data : arg.workspace >= 0 ? args.workspaces[arg.workspace] : 0;
    else if (arg.kind == FLASH_ARG_TENSOR_MAP && t)
      arg.map_address = t->data;
  }
}

const std::string kForwardOp = "attention_forward";

std::string keyText(const Plan &p) {
  return (p.op == kForwardOp ? std::string() : p.op + "/") +
         std::string(dtypeName(p.dtype)) + "/D=" + std::to_string(p.headDim) +
         (p.valueDim != p.headDim ? "/Dv=" + std::to_string(p.valueDim) : "") +
         "/causal=" + (p.causal ? "true" : "false") +
         "/lse=" + (p.lse ? "true" : "false") + "/" + p.arch +
         (p.variant.empty() ? "" : "/variant=" + p.variant);
}
} // namespace

int flash::runtime::recordError(int code, const std::string &message) {
  lastError = message;
  return code;
}

//===-- the C ABI ----------------------------------------------------------===//

extern "C" {

int flash_abi_version(void) { return FLASH_RUNTIME_ABI_VERSION; }
int flash_plan_format_version(void) { return FLASH_LAUNCH_PLAN_VERSION; }
const char *flash_version(void) {
  return "flash_runtime 5 (launch plan 1)";
}
const char *flash_last_error(void) { return lastError.c_str(); }

int flash_library_open(const char *dir, flash_library **out) {
  if (!dir || !out)
    return fail("flash_library_open: null argument");
  *out = nullptr;
  DIR *handle = opendir(dir);
  if (!handle)
    return fail(std::string("cannot open bundle directory ") + dir);
  std::vector<std::string> files;
  while (dirent *entry = readdir(handle)) {
    std::string file = entry->d_name;
    if (file.size() > 5 && file.compare(file.size() - 5, 5, ".json") == 0)
      files.push_back(file);
  }
  closedir(handle);
  std::sort(files.begin(), files.end());
  if (files.empty())
    return fail(std::string("no launch plans (*.json) in ") + dir);
  auto library = std::make_unique<flash_library>();
  library->dir = dir;
  for (const std::string &file : files) {
    auto plan = std::make_unique<flash_plan>();
    std::string error;
    if (!plan->plan.read(std::string(dir) + "/" + file, error))
      return fail(error);
    library->plans.push_back(std::move(plan));
  }
  *out = library.release();
  return 0;
}

void flash_library_close(flash_library *library) { delete library; }

int flash_library_plan_count(const flash_library *library) {
  return library ? int(library->plans.size()) : 0;
}

const flash_plan *flash_library_plan(const flash_library *library, int index) {
  if (!library || index < 0 || size_t(index) >= library->plans.size()) {
    fail("flash_library_plan: no plan " + std::to_string(index));
    return nullptr;
  }
  return library->plans[index].get();
}

int flash_library_select(const flash_library *library, const flash_key *key,
                         const flash_plan **out) {
  if (!library || !key || !out)
    return fail("flash_library_select: null argument");
  *out = nullptr;
  std::string arch = key->arch ? key->arch : "";
  std::string variant = key->variant ? key->variant : "";
  std::string op = key->op && *key->op ? key->op : kForwardOp;
  int valueDim = key->value_dim ? key->value_dim : key->head_dim;
  int64_t length = std::max(key->seq_q, key->seq_kv);
  // The plans of the key that can run on the device.
  std::vector<const flash_plan *> candidates;
  for (const auto &p : library->plans) {
    const Plan &plan = p->plan;
    if (plan.op == op && plan.dtype == key->dtype && plan.headDim == key->head_dim &&
        plan.valueDim == valueDim && plan.causal == bool(key->causal) &&
        plan.lse == bool(key->lse) && (arch.empty() || plan.arch == arch) &&
        (key->compute_capability <= 0 || plan.runsOn(key->compute_capability)))
      candidates.push_back(p.get());
  }
  // Plans whose kernels take more shared memory than a block of the device
  // may opt in to cannot launch there; they are dropped (and named if
  // nothing else is left).
  std::string tooLarge;
  if (key->shared_memory_per_block > 0)
    candidates.erase(
        std::remove_if(candidates.begin(), candidates.end(),
                       [&](const flash_plan *p) {
                         if (p->plan.maxSharedBytes() <=
                             unsigned(key->shared_memory_per_block))
                           return false;
                         tooLarge += (tooLarge.empty() ? "" : ", ") + p->plan.name +
                                     " (" + std::to_string(p->plan.maxSharedBytes()) +
                                     " bytes)";
                         return true;
                       }),
        candidates.end());
  // The variant asked for; by default the model's form, or where a key has
  // only variants, the first of them by name.
  std::string form = variant;
  if (form.empty()) {
    bool anyDefault = std::any_of(candidates.begin(), candidates.end(),
                                  [](const flash_plan *p) { return p->plan.variant.empty(); });
    if (!anyDefault && !candidates.empty())
      form = std::min_element(candidates.begin(), candidates.end(),
                              [](const flash_plan *a, const flash_plan *b) {
                                return a->plan.variant < b->plan.variant;
                              })[0]
                 ->plan.variant;
  }
  candidates.erase(std::remove_if(candidates.begin(), candidates.end(),
                                  [&](const flash_plan *p) { return p->plan.variant != form; }),
                   candidates.end());
  // Without an arch: the newest arch that runs, from cubins before PTX.
  if (arch.empty() && !candidates.empty()) {
    auto rank = [&](const flash_plan *p) {
      bool cubin = false;
      if (key->compute_capability > 0)
        p->plan.runsOn(key->compute_capability, &cubin);
      return std::make_pair(int(cubin), computeCapabilityOf(p->plan.arch));
    };
    auto best = rank(*std::max_element(candidates.begin(), candidates.end(),
                                       [&](const flash_plan *a, const flash_plan *b) {
                                         return rank(a) < rank(b);
                                       }));
    candidates.erase(std::remove_if(candidates.begin(), candidates.end(),
                                    [&](const flash_plan *p) { return rank(p) != best; }),
                     candidates.end());
  }
  if (candidates.empty()) {
    std::string have;
    for (const auto &p : library->plans)
      have += (have.empty() ? "" : ", ") + keyText(p->plan);
    return fail(std::string("no launch plan for ") +
                (op == kForwardOp ? std::string() : op + " ") + dtypeName(key->dtype) +
                ", D=" + std::to_string(key->head_dim) +
                (valueDim != key->head_dim ? ", Dv=" + std::to_string(valueDim) : "") +
                ", causal=" + (key->causal ? "true" : "false") +
                ", lse=" + (key->lse ? "true" : "false") +
                (arch.empty() ? "" : ", arch " + arch) +
                (variant.empty() ? "" : ", variant " + variant) +
                (key->compute_capability > 0
                     ? " on compute capability " + std::to_string(key->compute_capability)
                     : "") +
                (tooLarge.empty()
                     ? std::string()
                     : "; too large for the device's " +
                           std::to_string(key->shared_memory_per_block) +
                           " bytes of shared memory per block: " + tooLarge) +
                " in " + library->dir + "; compiled: " + have);
  }
  // Plans of one range that differ in their shared memory (compiled for
  // devices with more or less of it): the one that takes the most that the
  // device has, or without the device's figure, the least (it runs wherever
  // the others do); then the first by name.
  auto preferred = [&](const flash_plan *p, const flash_plan *than) {
    unsigned a = p->plan.maxSharedBytes(), b = than->plan.maxSharedBytes();
    if (a != b)
      return key->shared_memory_per_block > 0 ? a > b : a < b;
    return p->plan.name < than->plan.name;
  };
  // The range that holds the length; between or past ranges, the one that
  // starts last at or below it; below every range, the first.
  const flash_plan *pick = nullptr;
  for (const flash_plan *p : candidates)
    if (p->plan.seqMin <= length && (p->plan.seqMax < 0 || length <= p->plan.seqMax) &&
        (!pick || p->plan.seqMin > pick->plan.seqMin ||
         (p->plan.seqMin == pick->plan.seqMin && preferred(p, pick))))
      pick = p;
  if (!pick)
    for (const flash_plan *p : candidates)
      if (p->plan.seqMin <= length &&
          (!pick || p->plan.seqMin > pick->plan.seqMin ||
           (p->plan.seqMin == pick->plan.seqMin && preferred(p, pick))))
        pick = p;
  if (!pick)
    for (const flash_plan *p : candidates)
      if (!pick || p->plan.seqMin < pick->plan.seqMin ||
          (p->plan.seqMin == pick->plan.seqMin && preferred(p, pick)))
        pick = p;
  *out = pick;
  return 0;
}

int flash_plan_get_info(const flash_plan *p, flash_plan_info *out) {
  if (!p || !out)
    return fail("flash_plan_get_info: null argument");
  const Plan &plan = p->plan;
  std::memset(out, 0, sizeof(*out));
  copyName(out->name, plan.name);
  copyName(out->op, plan.op);
  copyName(out->arch, plan.arch);
  copyName(out->variant, plan.variant);
  copyName(out->path, plan.path);
  out->dtype = plan.dtype;
  out->head_dim = plan.headDim;
  out->value_dim = plan.valueDim;
  out->causal = plan.causal;
  out->lse = plan.lse;
  out->seq_min = plan.seqMin;
  out->seq_max = plan.seqMax;
  out->kernel_count = int(plan.kernels.size());
  out->workspace_count = int(plan.workspaces.size());
  return 0;
}

int flash_plan_get_workspace(const flash_plan *p, int index,
                             flash_workspace_info *out) {
  if (!p || !out || index < 0 || size_t(index) >= p->plan.workspaces.size())
    return fail("flash_plan_get_workspace: no workspace " + std::to_string(index));
  const WorkspaceSpec &w = p->plan.workspaces[index];
  std::memset(out, 0, sizeof(*out));
  copyName(out->name, w.name);
  out->bytes = w.fixedBytes(); // 0: depends on the call
  out->scope_stream = w.perStream;
  out->zero_init = w.zeroInit;
  out->kernel_restores = w.kernelRestores;
  return 0;
}

/// The plan of `args` for kernel `kernel_index` of `p` as a launch plans it
/// (flash_plan_launch_info), null with the error recorded.
static std::shared_ptr<const PlannedCall>
plannedWithoutLaunch(const flash_plan *p, int kernel_index,
                     const flash_attention_args *args, int sm_count) {
  if (kernel_index < 0 || size_t(kernel_index) >= p->plan.kernels.size()) {
    fail("plan " + p->plan.name + " has no kernel " +
         std::to_string(kernel_index));
    return nullptr;
  }
  // Planned as a launch plans it (the last call's plan reused when only the
  // addresses differ), without a context: what a device of sm_count SMs runs.
  void *context = nullptr;
  if (sm_count <= 0) { // the current device's SM count: its context is a key
    std::string driverError;
    if (const Driver *cu = Driver::get(driverError)) {
      CUcontext current = nullptr;
      cu->cuCtxGetCurrent(&current);
      context = current;
    }
  }
  std::string error;
  std::shared_ptr<const PlannedCall> call =
      planCall(const_cast<flash_plan &>(*p), *args, context, sm_count, error);
  if (!call)
    fail(error);
  return call;
}

int flash_plan_launch_info(const flash_plan *p, int kernel_index,
                           const flash_attention_args *args, int sm_count,
                           flash_launch_info *out) {
  if (!p || !args || !out)
    return fail("flash_plan_launch_info: null argument");
  std::memset(out, 0, sizeof(*out));
  std::shared_ptr<const PlannedCall> call =
      plannedWithoutLaunch(p, kernel_index, args, sm_count);
  if (!call)
    return 1;
  withAddresses(call->infos[kernel_index], *args, *out);
  return 0;
}

int flash_plan_launch_cluster(const flash_plan *p, int kernel_index,
                              const flash_attention_args *args, int sm_count,
                              uint32_t *cluster_x) {
  if (!p || !args || !cluster_x)
    return fail("flash_plan_launch_cluster: null argument");
  *cluster_x = 0;
  std::shared_ptr<const PlannedCall> call =
      plannedWithoutLaunch(p, kernel_index, args, sm_count);
  if (!call)
    return 1;
  *cluster_x = call->clusterX[kernel_index];
  return 0;
}

int flash_plan_pack_args(const flash_plan *p, int kernel_index,
                         const flash_attention_args *args, int sm_count,
                         void *buffer, size_t buffer_size,
                         flash_launch_info *out) {
  if (flash_plan_launch_info(p, kernel_index, args, sm_count, out))
    return 1;
  if (!buffer || buffer_size < out->args_bytes ||
      reinterpret_cast<uintptr_t>(buffer) % 64)
    return fail("flash_plan_pack_args: the buffer must hold " +
                std::to_string(out->args_bytes) + " bytes at a 64-byte boundary");
  std::string error;
  if (!pack(*out, static_cast<unsigned char *>(buffer), error))
    return failDriver(error);
  return 0;
}

int flash_plan_launch(const flash_plan *p, const flash_attention_args *args,
                      void *stream) {
  if (!p || !args)
    return fail("flash_plan_launch: null argument");
  const Plan &plan = p->plan;
  std::string error, driverError;
  const Driver *cu = Driver::get(driverError);
  CUcontext context = nullptr;
  if (cu) {
    cu->cuCtxGetCurrent(&context);
    if (!context)
      context = adoptTensorsContext(cu, *args);
  }
  // Check and plan every kernel (or reuse the last call's plan) before the
  // driver launches anything.
  std::shared_ptr<const PlannedCall> call =
      planCall(const_cast<flash_plan &>(*p), *args, context, 0, error);
  if (!call)
    return fail(error);
  if (!cu)
    return failDriver(driverError);
  CUstream cuStream = static_cast<CUstream>(stream);
  // Workspaces the caller did not give, one per plan launch (every kernel
  // of the plan sees the same one).
  CUdeviceptr owned[FLASH_MAX_WORKSPACES] = {};
  flash_launch_info info;
  for (size_t i = 0; i < plan.kernels.size(); ++i) {
    const flash_launch_info &planned = call->infos[i];
    if (!planned.grid[0] || !planned.grid[1] || !planned.grid[2])
      continue; // nothing to compute (an empty batch, heads or queries)
    withAddresses(planned, *args, info);
    for (int a = 0; a < info.num_args; ++a) {
      flash_arg_info &arg = info.args[a];
      if (arg.kind == FLASH_ARG_PTR && arg.workspace >= 0 && !arg.pointer) {
        CUdeviceptr &pointer = owned[arg.workspace];
        if (!pointer)
          pointer = workspaceFor(cu, cuStream, plan.workspaces[arg.workspace],
                                 call->workspaceBytes[arg.workspace], error);
        if (!pointer)
          return failDriver(error);
        arg.pointer = pointer;
      }
    }
    CUfunction function = functionFor(cu, plan, plan.kernels[i], error);
    if (!function)
      return failDriver(error);
    alignas(64) unsigned char buffer[FLASH_MAX_KERNEL_ARGS * 128];
    if (info.args_bytes > sizeof(buffer))
      return failDriver("kernel " + plan.kernels[i].name + " has too many argument bytes");
    if (!pack(info, buffer, error))
      return failDriver(error);
    void *params[FLASH_MAX_KERNEL_ARGS];
    for (int a = 0; a < info.num_args; ++a)
      params[a] = buffer + info.args[a].offset;
    // A kernel marked for programmatic dependent launch may start while the
    // previous kernel of the stream runs (it waits, griddepcontrol.wait,
    // before it reads what that kernel writes); stream capture records the
    // programmatic edge. A kernel given a cluster runs in clusters of that
    // many blocks along x. Without cuLaunchKernelEx: stream order, no
    // clusters (the plans' kernels are right either way).
    CUresult r;
    const char *entry = "cuLaunchKernel";
    const uint32_t clusterX = call->clusterX[i];
    if ((plan.kernels[i].programmaticDependentLaunch || clusterX > 1) &&
        cu->cuLaunchKernelEx) {
      CUlaunchAttribute attributes[2] = {};
      unsigned numAttributes = 0;
      if (plan.kernels[i].programmaticDependentLaunch) {
        CUlaunchAttribute &a = attributes[numAttributes++];
        a.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        a.value.programmaticStreamSerializationAllowed = 1;
      }
      if (clusterX > 1) {
        CUlaunchAttribute &a = attributes[numAttributes++];
        a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        a.value.clusterDim.x = clusterX;
        a.value.clusterDim.y = 1;
        a.value.clusterDim.z = 1;
      }
      CUlaunchConfig config{};
      config.gridDimX = info.grid[0];
      config.gridDimY = info.grid[1];
      config.gridDimZ = info.grid[2];
      config.blockDimX = info.block[0];
      config.blockDimY = info.block[1];
      config.blockDimZ = info.block[2];
      config.sharedMemBytes = info.shared_bytes;
      config.hStream = cuStream;
      config.attrs = attributes;
      config.numAttrs = numAttributes;
      entry = "cuLaunchKernelEx";
      r = cu->cuLaunchKernelEx(&config, function, params, nullptr);
    } else {
      r = cu->cuLaunchKernel(function, info.grid[0], info.grid[1],
                             info.grid[2], info.block[0], info.block[1],
                             info.block[2], info.shared_bytes, cuStream,
                             params, nullptr);
    }
    if (r != CUDA_SUCCESS)
      return failDriver(std::string(entry) + "(" + plan.kernels[i].name +
                        "): " + cu->errorName(r));
  }
  return 0;
}

const char *flash_plan_loaded_from(const flash_plan *p) {
  if (!p || p->plan.kernels.empty())
    return "";
  return p->plan.kernels[0].loadedFrom.c_str();
}

void flash_set_tensor_map_encoder(flash_tensor_map_encoder encoder) {
  tensorMaps().reset(encoder, tensorMaps().get().capacity);
}

void flash_tensor_map_cache_stats_get(flash_tensor_map_cache_stats *out) {
  if (out)
    *out = tensorMaps().get();
}

void flash_tensor_map_cache_configure(uint64_t capacity) {
  tensorMaps().reset(tensorMaps().currentEncoder(), capacity ? capacity : 1);
}

} // extern "C"
