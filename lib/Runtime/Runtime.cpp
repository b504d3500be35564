//===- Runtime.cpp - load kernel bundles and launch attention -------------===//
//
// The bundle JSON is flat enough (strings, numbers, booleans, arrays, nested
// objects) that a small recursive-descent reader suffices; the runtime must
// not depend on LLVM, since GPU machines have no LLVM installed.
//
//===----------------------------------------------------------------------===//

#include "flash/Runtime/Runtime.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

using namespace flash::runtime;

namespace {
/// A JSON value: the subset bundles use.
struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::map<std::string, Json> object;

  const Json *get(const std::string &key) const {
    auto it = object.find(key);
    return it == object.end() ? nullptr : &it->second;
  }
};

class JsonReader {
public:
  explicit JsonReader(const std::string &text) : s(text) {}
  bool parse(Json &out, std::string &error) {
    if (!value(out) || (skip(), pos != s.size())) {
      error = "malformed JSON near byte " + std::to_string(pos);
      return false;
    }
    return true;
  }

private:
  void skip() {
    while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos])))
      ++pos;
  }
  bool literal(const char *word) {
    size_t n = std::char_traits<char>::length(word);
    if (s.compare(pos, n, word) != 0)
      return false;
    pos += n;
    return true;
  }
  bool str(std::string &out) {
    if (s[pos] != '"')
      return false;
    ++pos;
    while (pos < s.size() && s[pos] != '"') {
      char c = s[pos++];
      if (c == '\\' && pos < s.size()) {
        char e = s[pos++];
        switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'u': pos += 4; out += '?'; break; // not used by bundles
        default: out += e;
        }
      } else {
        out += c;
      }
    }
    if (pos >= s.size())
      return false;
    ++pos;
    return true;
  }
  bool value(Json &v) {
    skip();
    if (pos >= s.size())
      return false;
    char c = s[pos];
    if (c == '{') {
      v.kind = Json::Object;
      ++pos;
      skip();
      if (s[pos] == '}') { ++pos; return true; }
      while (true) {
        skip();
        std::string key;
        if (!str(key))
          return false;
        skip();
        if (s[pos++] != ':')
          return false;
        if (!value(v.object[key]))
          return false;
        skip();
        if (s[pos] == ',') { ++pos; continue; }
        if (s[pos] == '}') { ++pos; return true; }
        return false;
      }
    }
    if (c == '[') {
      v.kind = Json::Array;
      ++pos;
      skip();
      if (s[pos] == ']') { ++pos; return true; }
      while (true) {
        v.array.emplace_back();
        if (!value(v.array.back()))
          return false;
        skip();
        if (s[pos] == ',') { ++pos; continue; }
        if (s[pos] == ']') { ++pos; return true; }
        return false;
      }
    }
    if (c == '"') {
      v.kind = Json::String;
      return str(v.string);
    }
    if (literal("true")) { v.kind = Json::Bool; v.boolean = true; return true; }
    if (literal("false")) { v.kind = Json::Bool; return true; }
    if (literal("null")) return true;
    char *end = nullptr;
    v.number = std::strtod(s.c_str() + pos, &end);
    if (end == s.c_str() + pos)
      return false;
    v.kind = Json::Number;
    pos = end - s.c_str();
    return true;
  }

  const std::string &s;
  size_t pos = 0;
};

bool readFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

std::string cuError(CUresult r) {
  const char *name = nullptr;
  cuGetErrorName(r, &name);
  return name ? name : ("CUresult " + std::to_string(r));
}
} // namespace

bool Kernel::open(const std::string &jsonPath, std::string &error) {
  std::string text;
  if (!readFile(jsonPath, text)) {
    error = "cannot read bundle " + jsonPath;
    return false;
  }
  Json root;
  if (!JsonReader(text).parse(root, error)) {
    error = jsonPath + ": " + error;
    return false;
  }
  auto field = [&](const char *key, Json::Kind kind) -> const Json * {
    const Json *v = root.get(key);
    if (!v || v->kind != kind) {
      error = jsonPath + ": missing or mistyped field '" + key + "'";
      return nullptr;
    }
    return v;
  };
  const Json *name = field("kernel", Json::String),
             *arch = field("arch", Json::String),
             *type = field("element_type", Json::String),
             *ptx = field("ptx", Json::String),
             *headDim = field("head_dim", Json::Number),
             *valueDim = field("value_dim", Json::Number),
             *blockQ = field("block_q", Json::Number),
             *threads = field("threads", Json::Number),
             *smem = field("dynamic_shared_memory", Json::Number),
             *causal = field("causal", Json::Bool),
             *lse = field("writes_lse", Json::Bool),
             *cubins = field("cubins", Json::Object);
  if (!name || !arch || !type || !ptx || !headDim || !valueDim || !blockQ ||
      !threads || !smem || !causal || !lse || !cubins)
    return false;
  info_.name = name->string;
  info_.arch = arch->string;
  info_.elementType = type->string;
  info_.ptxFile = ptx->string;
  info_.headDim = static_cast<int>(headDim->number);
  info_.valueDim = static_cast<int>(valueDim->number);
  info_.blockQ = static_cast<int>(blockQ->number);
  info_.threads = static_cast<int>(threads->number);
  info_.sharedBytes = static_cast<int>(smem->number);
  info_.causal = causal->boolean;
  info_.writesLse = lse->boolean;
  for (const auto &[cubinArch, entry] : cubins->object)
    if (const Json *file = entry.get("file"))
      info_.cubinFiles[cubinArch] = file->string;
  if (const Json *persistent = root.get("persistent"))
    info_.persistent = persistent->boolean;
  if (const Json *blocks = root.get("blocks_per_sm"))
    info_.blocksPerSM = unsigned(blocks->number);
  if (const Json *args = root.get("args"))
    for (const Json &arg : args->array)
      info_.takesCounter |= arg.string == "counter:ptr";
  if (const Json *maps = root.get("tensor_maps")) {
    for (const Json &map : maps->array) {
      KernelInfo::TensorMapSpec spec;
      const Json *tensor = map.get("tensor"), *box = map.get("box"),
                 *swizzle = map.get("swizzle");
      if (!tensor || !box || !swizzle || box->array.size() != 3 ||
          (tensor->string != "q" && tensor->string != "k" &&
           tensor->string != "v" && tensor->string != "o") ||
          info_.tensorMaps.size() >= 4) {
        error = jsonPath + ": malformed tensor_maps entry";
        return false;
      }
      spec.tensor = tensor->string;
      for (int i = 0; i < 3; ++i)
        spec.box[i] = static_cast<unsigned>(box->array[i].number);
      spec.swizzle = swizzle->string;
      info_.tensorMaps.push_back(spec);
    }
  }
  size_t slash = jsonPath.find_last_of('/');
  dir_ = slash == std::string::npos ? "." : jsonPath.substr(0, slash);
  return true;
}

bool Kernel::load(std::string &error) {
  if (function_)
    return true;
  CUdevice device;
  CUresult r = cuCtxGetDevice(&device);
  if (r != CUDA_SUCCESS) {
    error = "no current CUDA context (" + cuError(r) + ")";
    return false;
  }
  int major = 0, minor = 0;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                       device);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                       device);
  std::string image, candidates[] = {
                         "sm_" + std::to_string(major * 10 + minor) + "a",
                         "sm_" + std::to_string(major * 10 + minor)};
  for (const std::string &arch : candidates) {
    auto it = info_.cubinFiles.find(arch);
    if (it != info_.cubinFiles.end() && readFile(dir_ + "/" + it->second, image)) {
      loadedFrom_ = arch;
      break;
    }
  }
  if (loadedFrom_.empty()) {
    // The same kernel's PTX, compiled by the driver for this device.
    if (!readFile(dir_ + "/" + info_.ptxFile, image)) {
      error = "bundle " + info_.name + " has no cubin for sm_" +
              std::to_string(major * 10 + minor) + " and no readable PTX";
      return false;
    }
    image.push_back('\0');
    loadedFrom_ = "ptx";
  }
  if ((r = cuModuleLoadData(&module_, image.data())) != CUDA_SUCCESS) {
    error = "cuModuleLoadData(" + info_.name + "): " + cuError(r);
    return false;
  }
  if ((r = cuModuleGetFunction(&function_, module_, info_.name.c_str())) !=
      CUDA_SUCCESS) {
    error = "cuModuleGetFunction(" + info_.name + "): " + cuError(r);
    return false;
  }
  if ((r = cuFuncSetAttribute(function_,
                              CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                              info_.sharedBytes)) != CUDA_SUCCESS) {
    error = "cuFuncSetAttribute(max dynamic shared memory = " +
            std::to_string(info_.sharedBytes) + "): " + cuError(r);
    return false;
  }
  return true;
}

std::string Kernel::check(const AttentionProblem &p) const {
  const KernelInfo &k = info_;
  if (p.elementType != k.elementType)
    return "element type " + p.elementType + " but kernel " + k.name +
           " takes " + k.elementType;
  if (p.headDim != k.headDim)
    return "head dimension " + std::to_string(p.headDim) + " but kernel " +
           k.name + " takes " + std::to_string(k.headDim);
  if (p.causal != k.causal)
    return std::string("causal = ") + (p.causal ? "true" : "false") +
           " but kernel " + k.name + " is " + (k.causal ? "causal" : "not causal");
  if (p.batch < 1 || p.queryHeads < 1 || p.kvHeads < 1 || p.seqQ < 0 ||
      p.seqKV < 0)
    return "sizes must be positive (B, Hq, Hkv) and non-negative (Nq, Nk)";
  if (p.queryHeads % p.kvHeads != 0)
    return "query heads " + std::to_string(p.queryHeads) +
           " must be a multiple of key/value heads " + std::to_string(p.kvHeads);
  long long qElems = 1LL * p.batch * p.queryHeads * p.seqQ * p.headDim;
  long long kvElems = 1LL * p.batch * p.kvHeads * p.seqKV * p.headDim;
  if (qElems >= (1LL << 31) || kvElems >= (1LL << 31))
    return "tensors of 2^31 elements or more are not supported yet";
  if (!p.q || !p.k || !p.v || !p.out)
    return "q, k, v and out must be device pointers";
  if (k.writesLse && !p.lse)
    return "kernel " + k.name + " writes LSE: pass a B×Hq×Nq f32 buffer";
  if (!k.writesLse && p.lse)
    return "kernel " + k.name + " does not write LSE";
  if (p.scale < 0 || !std::isfinite(p.scale))
    return "scale must be finite and positive";
  return "";
}

bool Kernel::launch(const AttentionProblem &p, CUstream stream,
                    std::string &error) {
  error = check(p);
  if (!error.empty())
    return false;
  if (!load(error))
    return false;
  if (p.seqQ == 0)
    return true;
  float scale = p.scale > 0 ? p.scale : 1.0f / std::sqrt(float(p.headDim));
  CUdeviceptr q = p.q, k = p.k, v = p.v, o = p.out, lse = p.lse;
  int batch = p.batch, hq = p.queryHeads, hkv = p.kvHeads, nq = p.seqQ,
      nk = p.seqKV;
  CUdeviceptr counter = 0;
  if (info_.takesCounter) {
    auto it = counters_.find(stream);
    if (it == counters_.end()) {
      CUresult r = cuMemAlloc(&counter, sizeof(int));
      if (r == CUDA_SUCCESS)
        r = cuMemsetD32(counter, 0, 1);
      if (r != CUDA_SUCCESS) {
        error = "tile counter for " + info_.name + ": " + cuError(r);
        return false;
      }
      it = counters_.emplace(stream, counter).first;
    }
    counter = it->second;
  }
  void *args[] = {&q,   &k,  &v,  &o,     &lse,    &batch,
                  &hq,  &hkv, &nq, &nk,   &scale,  &counter};
  // sm_90a kernels take Q, K, V, O as CUtensorMaps by value, in the
  // arguments' places: rank 3 over (D, N, B·H), so a box never reaches the
  // next head, loads past N read 0 and stores past N are dropped.
  alignas(64) CUtensorMap maps[4];
  for (size_t i = 0; i < info_.tensorMaps.size() && i < 4; ++i) {
    const auto &spec = info_.tensorMaps[i];
    int slot = spec.tensor == "q" ? 0 : spec.tensor == "k" ? 1
               : spec.tensor == "v" ? 2 : 3;
    bool isQ = slot == 0 || slot == 3; // O has Q's shape
    CUdeviceptr base = slot == 0 ? q : slot == 1 ? k : slot == 2 ? v : o;
    cuuint64_t rows = isQ ? p.seqQ : p.seqKV;
    cuuint64_t heads = cuuint64_t(p.batch) * (isQ ? p.queryHeads : p.kvHeads);
    cuuint64_t dims[3] = {cuuint64_t(p.headDim), rows, heads};
    cuuint64_t strides[2] = {cuuint64_t(p.headDim) * 2, rows * p.headDim * 2};
    cuuint32_t box[3] = {spec.box[0], spec.box[1], spec.box[2]};
    cuuint32_t elementStrides[3] = {1, 1, 1};
    CUtensorMapSwizzle swizzle = spec.swizzle == "128B"  ? CU_TENSOR_MAP_SWIZZLE_128B
                                 : spec.swizzle == "64B" ? CU_TENSOR_MAP_SWIZZLE_64B
                                 : spec.swizzle == "32B" ? CU_TENSOR_MAP_SWIZZLE_32B
                                                         : CU_TENSOR_MAP_SWIZZLE_NONE;
    CUresult r = cuTensorMapEncodeTiled(
        &maps[i],
        info_.elementType == "bf16" ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                    : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
        3, reinterpret_cast<void *>(base), dims, strides, box, elementStrides,
        CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
      error = "cuTensorMapEncodeTiled(" + spec.tensor + "): " + cuError(r);
      return false;
    }
    args[slot] = &maps[i];
  }
  unsigned gridX = (p.seqQ + info_.blockQ - 1) / info_.blockQ;
  unsigned gridY = p.queryHeads, gridZ = p.batch;
  if (info_.persistent) {
    // blocks_per_sm blocks per SM at most, each drawing tiles from the
    // tile counter until none is left.
    CUdevice device;
    int sms = 0;
    cuCtxGetDevice(&device);
    cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                         device);
    unsigned long long tiles = 1ULL * gridX * gridY * gridZ;
    unsigned long long slots =
        1ULL * std::max(sms, 1) * std::max(info_.blocksPerSM, 1u);
    gridX = unsigned(std::min(slots, tiles));
    gridY = gridZ = 1;
  }
  CUresult r = cuLaunchKernel(function_, gridX, gridY, gridZ, info_.threads, 1,
                              1, info_.sharedBytes, stream, args, nullptr);
  if (r != CUDA_SUCCESS) {
    error = "cuLaunchKernel(" + info_.name + "): " + cuError(r);
    return false;
  }
  return true;
}
