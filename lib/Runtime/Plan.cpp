//===- Plan.cpp - launch plans, read and planned --------------------------===//
//
// Reading checks every field the runtime uses (and its type), so that a bad
// plan fails when the library is opened, naming the file and the field, not
// at a launch. Planning is generic: nothing here knows what attention is;
// the plan's tensors, constraints, grid and arguments say it all.
//
//===----------------------------------------------------------------------===//

#include "Plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace flash::runtime;

bool flash::runtime::readFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

namespace {
template <size_t N> void copyName(char (&out)[N], const std::string &text) {
  std::strncpy(out, text.c_str(), N - 1);
  out[N - 1] = '\0';
}

/// Reads fields of one JSON object, remembering the first problem.
struct Fields {
  const Json &object;
  std::string where;
  std::string &error;

  const Json *get(const char *key, Json::Kind kind, bool optional = false) {
    const Json *v = object.get(key);
    if (v && v->kind == kind)
      return v;
    if (optional && (!v || v->kind == Json::Null))
      return nullptr;
    if (error.empty())
      error = where + ": missing or mistyped field '" + key + "'";
    return nullptr;
  }
  std::string string(const char *key) {
    const Json *v = get(key, Json::String);
    return v ? v->string : "";
  }
  double number(const char *key) {
    const Json *v = get(key, Json::Number);
    return v ? v->number : 0;
  }
  bool boolean(const char *key, bool optional = false) {
    const Json *v = get(key, Json::Bool, optional);
    return v && v->boolean;
  }
};

/// A formula is a number, a string, or an array led by a string.
bool isFormula(const Json &f) {
  if (f.kind == Json::Number || f.kind == Json::String)
    return true;
  if (f.kind != Json::Array || f.array.empty() ||
      f.array[0].kind != Json::String)
    return false;
  for (size_t i = 1; i < f.array.size(); ++i)
    if (!isFormula(f.array[i]))
      return false;
  return true;
}

int enumOf(const std::string &value,
           std::initializer_list<std::pair<const char *, int>> names,
           const std::string &what, std::string &error) {
  for (const auto &[name, v] : names)
    if (value == name)
      return v;
  if (error.empty())
    error = what + ": unknown value '" + value + "'";
  return 0;
}
} // namespace

std::string flash::runtime::strideSymbol(const std::string &tensor, int dim) {
  return tensor + "_stride" + std::to_string(dim);
}

int flash::runtime::computeCapabilityOf(const std::string &arch) {
  if (arch.rfind("sm_", 0) != 0)
    return 0;
  return std::atoi(arch.c_str() + 3);
}

int flash::runtime::dtypeOf(const std::string &name) {
  if (name == "bf16")
    return FLASH_DTYPE_BF16;
  if (name == "f16")
    return FLASH_DTYPE_F16;
  if (name == "f32")
    return FLASH_DTYPE_F32;
  if (name == "i32")
    return FLASH_DTYPE_I32;
  return FLASH_DTYPE_NONE;
}

const char *flash::runtime::dtypeName(int dtype) {
  switch (dtype) {
  case FLASH_DTYPE_BF16: return "bf16";
  case FLASH_DTYPE_F16: return "f16";
  case FLASH_DTYPE_F32: return "f32";
  case FLASH_DTYPE_I32: return "i32";
  default: return "?";
  }
}

bool flash::runtime::mentions(const Json &formula, const std::string &symbol) {
  if (formula.kind == Json::String)
    return formula.string == symbol;
  if (formula.kind == Json::Array)
    for (size_t i = 1; i < formula.array.size(); ++i)
      if (mentions(formula.array[i], symbol))
        return true;
  return false;
}

bool flash::runtime::evaluate(const Json &formula, const Env &env, double &out,
                              std::string &error) {
  if (formula.kind == Json::Number) {
    out = formula.number;
    return true;
  }
  if (formula.kind == Json::String) {
    auto it = env.find(formula.string);
    if (it == env.end()) {
      error = "formula names '" + formula.string + "', which has no value";
      return false;
    }
    out = it->second;
    return true;
  }
  if (formula.kind != Json::Array || formula.array.empty()) {
    error = "malformed formula";
    return false;
  }
  const std::string &op = formula.array[0].string;
  std::vector<double> v;
  for (size_t i = 1; i < formula.array.size(); ++i) {
    double x;
    if (!evaluate(formula.array[i], env, x, error))
      return false;
    v.push_back(x);
  }
  auto integer = [](double x) { return static_cast<int64_t>(std::llround(x)); };
  auto fold = [&](auto f) {
    double acc = v[0];
    for (size_t i = 1; i < v.size(); ++i)
      acc = f(acc, v[i]);
    return acc;
  };
  bool binary = v.size() == 2, nary = v.size() >= 1;
  if (op == "add" && nary)
    out = fold([](double a, double b) { return a + b; });
  else if (op == "mul" && nary)
    out = fold([](double a, double b) { return a * b; });
  else if (op == "min" && nary)
    out = fold([](double a, double b) { return std::min(a, b); });
  else if (op == "max" && nary)
    out = fold([](double a, double b) { return std::max(a, b); });
  else if (op == "sub" && binary)
    out = v[0] - v[1];
  else if ((op == "ceildiv" || op == "mod") && binary) {
    int64_t a = integer(v[0]), b = integer(v[1]);
    if (b <= 0) {
      error = op + " by " + std::to_string(b);
      return false;
    }
    out = op == "mod" ? double(a % b) : double(a <= 0 ? 0 : (a + b - 1) / b);
  } else if (op == "eq" && binary)
    out = v[0] == v[1];
  else if (op == "ne" && binary)
    out = v[0] != v[1];
  else if (op == "lt" && binary)
    out = v[0] < v[1];
  else if (op == "le" && binary)
    out = v[0] <= v[1];
  else if (op == "gt" && binary)
    out = v[0] > v[1];
  else if (op == "ge" && binary)
    out = v[0] >= v[1];
  else if (op == "rsqrt" && v.size() == 1)
    out = 1.0 / std::sqrt(v[0]);
  else {
    error = "unknown formula operator '" + op + "' with " +
            std::to_string(v.size()) + " operands";
    return false;
  }
  return true;
}

bool Plan::read(const std::string &jsonPath, std::string &error) {
  path = jsonPath;
  size_t slash = jsonPath.find_last_of('/');
  dir = slash == std::string::npos ? "." : jsonPath.substr(0, slash);
  std::string text;
  if (!readFile(jsonPath, text)) {
    error = "cannot read " + jsonPath;
    return false;
  }
  Json root;
  if (!JsonReader(text).parse(root, error)) {
    error = jsonPath + ": " + error;
    return false;
  }
  if (root.kind != Json::Object) {
    error = jsonPath + ": not a launch plan (not a JSON object)";
    return false;
  }
  const Json *format = root.get("format");
  if (!format || format->string != "flash-launch-plan") {
    error = jsonPath + ": not a launch plan (no \"format\": "
                       "\"flash-launch-plan\"; bundles written before the "
                       "launch plan must be compiled again)";
    return false;
  }
  const Json *version = root.get("version");
  if (!version || version->kind != Json::Number ||
      int(version->number) != FLASH_LAUNCH_PLAN_VERSION) {
    error = jsonPath + ": launch plan version " +
            (version ? std::to_string(int(version->number)) : "?") +
            ", this runtime reads version " +
            std::to_string(FLASH_LAUNCH_PLAN_VERSION);
    return false;
  }
  error.clear();
  Fields top{root, jsonPath, error};
  name = top.string("name");
  op = top.string("op");
  if (const Json *select = top.get("select", Json::Object)) {
    Fields s{*select, jsonPath + ": select", error};
    arch = s.string("arch");
    dtype = dtypeOf(s.string("element_type"));
    headDim = int(s.number("head_dim"));
    valueDim = int(s.number("value_dim"));
    causal = s.boolean("causal");
    lse = s.boolean("lse");
    variant = s.string("variant");
    const Json *range = s.get("seq_range", Json::Array);
    if (range && range->array.size() == 2 &&
        range->array[0].kind == Json::Number &&
        (range->array[1].kind == Json::Number || range->array[1].isNull())) {
      seqMin = int64_t(range->array[0].number);
      seqMax = range->array[1].isNull() ? -1 : int64_t(range->array[1].number);
    } else if (error.empty()) {
      error = jsonPath + ": select.seq_range must be [min, max or null]";
    }
  }
  if (const Json *constantsJson = top.get("constants", Json::Object))
    for (const auto &[key, value] : constantsJson->object)
      constants[key] = value.number;
  if (const Json *list = top.get("tensors", Json::Array))
    for (const Json &t : list->array) {
      Fields f{t, jsonPath + ": tensors", error};
      TensorSpec spec;
      spec.name = f.string("name");
      spec.dtype = dtypeOf(f.string("element_type"));
      spec.output = f.boolean("output");
      spec.required = f.boolean("required");
      if (const Json *shape = f.get("shape", Json::Array))
        spec.shape = shape->array;
      if (spec.shape.empty() || spec.shape.size() > 4)
        if (error.empty())
          error = jsonPath + ": tensor '" + spec.name + "' needs rank 1 to 4";
      if (f.string("layout") != "contiguous" && error.empty())
        error = jsonPath + ": tensor '" + spec.name +
                "': only the contiguous layout is supported";
      tensors.push_back(std::move(spec));
    }
  if (const Json *list = top.get("scalars", Json::Array))
    for (const Json &s : list->array) {
      Fields f{s, jsonPath + ": scalars", error};
      ScalarSpec spec;
      spec.name = f.string("name");
      if (const Json *d = s.get("default"))
        spec.defaultValue = *d;
      scalars.push_back(std::move(spec));
    }
  if (const Json *list = top.get("constraints", Json::Array))
    for (const Json &c : list->array) {
      Fields f{c, jsonPath + ": constraints", error};
      Constraint constraint;
      if (const Json *check = c.get("check"))
        constraint.check = *check;
      constraint.message = f.string("message");
      if (!isFormula(constraint.check) && error.empty())
        error = jsonPath + ": a constraint's check is not a formula";
      constraints.push_back(std::move(constraint));
    }
  if (const Json *list = top.get("workspaces", Json::Array))
    for (const Json &w : list->array) {
      Fields f{w, jsonPath + ": workspaces", error};
      WorkspaceSpec spec;
      spec.name = f.string("name");
      if (const Json *bytes = w.get("bytes"))
        spec.bytes = *bytes;
      if (!isFormula(spec.bytes) && error.empty())
        error = jsonPath + ": workspace '" + spec.name +
                "': bytes must be a number or a formula";
      spec.perStream = f.string("scope") == "stream";
      spec.zeroInit = f.string("init") == "zero";
      spec.kernelRestores = f.boolean("kernel_restores");
      workspaces.push_back(std::move(spec));
    }
  if (workspaces.size() > FLASH_MAX_WORKSPACES && error.empty())
    error = jsonPath + ": more workspaces than the ABI carries";
  const Json *kernelList = top.get("kernels", Json::Array);
  if (kernelList && kernelList->array.empty() && error.empty())
    error = jsonPath + ": a plan needs at least one kernel";
  kernels = std::vector<KernelSpec>(kernelList ? kernelList->array.size() : 0);
  for (size_t i = 0; kernelList && i < kernelList->array.size(); ++i) {
    const Json &k = kernelList->array[i];
    KernelSpec &spec = kernels[i];
    Fields f{k, jsonPath + ": kernels", error};
    spec.name = f.string("name");
    if (const Json *files = f.get("files", Json::Object)) {
      Fields ff{*files, jsonPath + ": files", error};
      spec.ptxFile = ff.string("ptx");
      spec.ptxTarget = ff.string("ptx_target");
      if (const Json *cubins = ff.get("cubins", Json::Object))
        for (const auto &[target, entry] : cubins->object)
          if (const Json *file = entry.get("file"))
            spec.cubins[target] = file->string;
    }
    if (const Json *grid = f.get("grid", Json::Object)) {
      Fields g{*grid, jsonPath + ": grid", error};
      spec.persistent = g.string("kind") == "persistent";
      const char *axes[] = {"x", "y", "z"};
      for (int a = 0; a < 3; ++a) {
        const Json *axis = grid->get(axes[a]);
        if (!axis || !isFormula(*axis)) {
          if (error.empty())
            error = jsonPath + ": grid." + axes[a] + " is not a formula";
          continue;
        }
        spec.grid[a] = *axis;
      }
    }
    if (const Json *block = f.get("block", Json::Array))
      for (size_t a = 0; a < 3 && a < block->array.size(); ++a)
        spec.block[a] = unsigned(block->array[a].number);
    spec.sharedBytes = unsigned(f.number("dynamic_shared_memory"));
    if (const Json *pdl =
            f.get("programmatic_dependent_launch", Json::Bool, true))
      spec.programmaticDependentLaunch = pdl->boolean;
    if (const Json *cluster = f.get("cluster", Json::Object, true)) {
      const Json *x = cluster->get("x");
      if (!x || !isFormula(*x)) {
        if (error.empty())
          error = jsonPath + ": cluster.x of " + spec.name +
                  " is not a formula";
      } else {
        spec.clusterX = *x;
      }
    }
    if (const Json *args = f.get("args", Json::Array)) {
      if (args->array.size() > FLASH_MAX_KERNEL_ARGS && error.empty())
        error = jsonPath + ": more arguments than the ABI carries";
      for (const Json &a : args->array) {
        Fields af{a, jsonPath + ": args", error};
        ArgSpec arg;
        arg.name = af.string("name");
        std::string type = af.string("type");
        arg.kind = enumOf(type,
                          {{"ptr", FLASH_ARG_PTR},
                           {"i32", FLASH_ARG_I32},
                           {"f32", FLASH_ARG_F32},
                           {"tensormap", FLASH_ARG_TENSOR_MAP}},
                          jsonPath + ": argument type", error);
        if (const Json *t = a.get("tensor"))
          arg.tensor = t->string;
        if (const Json *w = a.get("workspace")) {
          for (size_t j = 0; j < workspaces.size(); ++j)
            if (workspaces[j].name == w->string)
              arg.workspace = int(j);
          if (arg.workspace < 0 && error.empty())
            error = jsonPath + ": argument '" + arg.name +
                    "' names an unknown workspace '" + w->string + "'";
        }
        if (const Json *v = a.get("value"))
          arg.value = *v;
        bool sourced = (arg.kind == FLASH_ARG_PTR &&
                        (!arg.tensor.empty() || arg.workspace >= 0)) ||
                       ((arg.kind == FLASH_ARG_I32 || arg.kind == FLASH_ARG_F32) &&
                        isFormula(arg.value)) ||
                       (arg.kind == FLASH_ARG_TENSOR_MAP && !arg.tensor.empty());
        if (!sourced && error.empty())
          error = jsonPath + ": argument '" + arg.name + "' says nothing fills it";
        if (arg.kind == FLASH_ARG_TENSOR_MAP) {
          const Json *mapJson = af.get("tensor_map", Json::Object);
          if (mapJson) {
            Fields mf{*mapJson, jsonPath + ": tensor_map of " + arg.name, error};
            std::string where = jsonPath + ": tensor_map of " + arg.name;
            std::string t = mf.string("element_type");
            arg.map.dtype = enumOf(t,
                                   {{"bf16", CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
                                    {"f16", CU_TENSOR_MAP_DATA_TYPE_FLOAT16},
                                    {"f32", CU_TENSOR_MAP_DATA_TYPE_FLOAT32}},
                                   where + " element_type", error);
            if (const Json *d = mf.get("dims", Json::Array))
              arg.map.dims = d->array;
            if (const Json *s = mf.get("strides", Json::Array))
              arg.map.strides = s->array;
            if (const Json *b = mf.get("box", Json::Array))
              for (const Json &x : b->array)
                arg.map.box.push_back(uint32_t(x.number));
            if (const Json *e = mf.get("element_strides", Json::Array))
              for (const Json &x : e->array)
                arg.map.elementStrides.push_back(uint32_t(x.number));
            size_t rank = arg.map.dims.size();
            bool formulas = std::all_of(arg.map.dims.begin(), arg.map.dims.end(), isFormula) &&
                            std::all_of(arg.map.strides.begin(), arg.map.strides.end(), isFormula);
            if ((rank < 1 || rank > 5 || arg.map.strides.size() + 1 != rank ||
                 arg.map.box.size() != rank ||
                 arg.map.elementStrides.size() != rank || !formulas) &&
                error.empty())
              error = where + ": dims, strides (rank - 1), box and "
                              "element_strides do not agree";
            arg.map.swizzle = enumOf(mf.string("swizzle"),
                                     {{"none", CU_TENSOR_MAP_SWIZZLE_NONE},
                                      {"32B", CU_TENSOR_MAP_SWIZZLE_32B},
                                      {"64B", CU_TENSOR_MAP_SWIZZLE_64B},
                                      {"128B", CU_TENSOR_MAP_SWIZZLE_128B}},
                                     where + " swizzle", error);
            arg.map.interleave = enumOf(mf.string("interleave"),
                                        {{"none", CU_TENSOR_MAP_INTERLEAVE_NONE},
                                         {"16B", CU_TENSOR_MAP_INTERLEAVE_16B},
                                         {"32B", CU_TENSOR_MAP_INTERLEAVE_32B}},
                                        where + " interleave", error);
            arg.map.l2Promotion = enumOf(mf.string("l2_promotion"),
                                         {{"none", CU_TENSOR_MAP_L2_PROMOTION_NONE},
                                          {"64B", CU_TENSOR_MAP_L2_PROMOTION_L2_64B},
                                          {"128B", CU_TENSOR_MAP_L2_PROMOTION_L2_128B},
                                          {"256B", CU_TENSOR_MAP_L2_PROMOTION_L2_256B}},
                                         where + " l2_promotion", error);
            arg.map.oobFill = enumOf(mf.string("oob_fill"),
                                     {{"none", CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE},
                                      {"nan_request_zero_fma",
                                       CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA}},
                                     where + " oob_fill", error);
          }
        }
        spec.args.push_back(std::move(arg));
      }
    }
  }
  // A tensor only tensor maps and pointers with strides reach may be
  // strided: the maps or the kernels' stride arguments carry its strides.
  for (TensorSpec &t : tensors) {
    bool reached = false, fixed = false;
    for (const KernelSpec &k : kernels) {
      bool takesStrides = !t.shape.empty();
      for (size_t d = 0; d + 1 < t.shape.size(); ++d) {
        std::string symbol = strideSymbol(t.name, int(d));
        takesStrides &= std::any_of(k.args.begin(), k.args.end(), [&](const ArgSpec &a) {
          return a.kind == FLASH_ARG_I32 && mentions(a.value, symbol);
        });
      }
      for (const ArgSpec &a : k.args) {
        if (a.tensor != t.name)
          continue;
        reached = true;
        if (a.kind == FLASH_ARG_PTR) {
          (takesStrides ? t.stridedPointer : fixed) = true;
        }
      }
    }
    t.stridedOk = reached && !fixed;
  }
  return error.empty();
}

bool Plan::runsOn(int cc, bool *fromCubin) const {
  bool allCubins = true;
  for (const KernelSpec &k : kernels) {
    bool cubin = false;
    for (const auto &[target, file] : k.cubins)
      cubin |= computeCapabilityOf(target) == cc;
    int ptxCC = computeCapabilityOf(k.ptxTarget);
    bool archSpecific = !k.ptxTarget.empty() && k.ptxTarget.back() == 'a';
    bool ptx = !k.ptxFile.empty() && ptxCC > 0 &&
               (archSpecific ? ptxCC == cc : ptxCC <= cc);
    if (!cubin && !ptx)
      return false;
    allCubins &= cubin;
  }
  if (fromCubin)
    *fromCubin = allCubins;
  return true;
}

const flash_tensor *flash::runtime::tensorOf(const flash_attention_args &args,
                                             const std::string &name) {
  if (name == "q") return &args.q;
  if (name == "k") return &args.k;
  if (name == "v") return &args.v;
  if (name == "o") return &args.o;
  if (name == "lse") return &args.lse;
  if (name == "dout") return &args.dout;
  if (name == "dq") return &args.dq;
  if (name == "dk") return &args.dk;
  if (name == "dv") return &args.dv;
  if (name == "block_table") return &args.block_table;
  if (name == "seq_lens") return &args.seq_lens;
  return nullptr;
}

namespace {

std::string shapeText(const flash_tensor &t) {
  std::string s = "[";
  for (int i = 0; i < t.rank; ++i)
    s += (i ? ", " : "") + std::to_string(t.shape[i]);
  return s + "]";
}

std::string stridesText(const flash_tensor &t) {
  std::string s = "[";
  for (int i = 0; i < t.rank; ++i)
    s += (i ? ", " : "") + std::to_string(t.strides[i]);
  return s + "]";
}

/// Row-major contiguous (dimensions of size 1 may have any stride).
bool isContiguous(const flash_tensor &t) {
  int64_t expected = 1;
  for (int d = t.rank - 1; d >= 0; --d) {
    if (t.shape[d] != 1 && t.strides[d] != expected)
      return false;
    expected *= t.shape[d];
  }
  return true;
}

int64_t elementBytes(int dtype) {
  return dtype == FLASH_DTYPE_BF16 || dtype == FLASH_DTYPE_F16 ? 2 : 4;
}

/// A tensor map's byte strides from a strided tensor's own. Map dimension 0
/// is the tensor's innermost dimension; each further map dimension spans the
/// next tensor dimensions outward whose sizes multiply to it (the plans'
/// maps are over (D, N, B·H)), which must merge into one stride (the outer's
/// stride the inner's times its size; dimensions of size 1 aside). A map
/// dimension over only dimensions of size 1 keeps the plan's stride.
bool mapStridesOf(const flash_tensor &t, const std::string &tensorName,
                  const flash_arg_info &arg, uint64_t *strides,
                  std::string &error) {
  int d = t.rank - 1;
  auto fail = [&](const std::string &why) {
    error = "tensor '" + tensorName + "' (shape " + shapeText(t) + ", strides " +
            stridesText(t) + ") cannot be read through tensor map " + arg.name +
            ": " + why + "; pass it contiguous";
    return false;
  };
  for (int i = 0; i < arg.map_rank; ++i) {
    uint64_t want = arg.map_dims[i], product = 1;
    int64_t stride = -1, next = -1;
    do {
      if (d < 0)
        return fail("its dimensions do not span the map's");
      int64_t size = t.shape[d], s = t.strides[d];
      if (size != 1) {
        if (stride < 0)
          stride = s;
        else if (s != next)
          return fail("dimensions " + std::to_string(d) + " and " +
                      std::to_string(d + 1) + " do not merge into one stride");
        next = s * size;
      }
      product *= uint64_t(size);
      --d;
    } while (product < want);
    if (product != want)
      return fail("its dimensions do not span the map's");
    if (i == 0) {
      if (stride > 1)
        return fail("its innermost dimension is not contiguous");
    } else if (stride >= 0) {
      strides[i - 1] = uint64_t(stride * elementBytes(t.dtype));
    }
  }
  for (; d >= 0; --d)
    if (t.shape[d] != 1)
      return fail("its dimensions do not span the map's");
  for (int i = 0; i + 1 < arg.map_rank; ++i)
    if (strides[i] % 16 != 0)
      return fail("a stride of " + std::to_string(strides[i]) +
                  " bytes is not a multiple of 16");
  if (t.data % 16 != 0)
    return fail("its address is not 16-byte aligned");
  return true;
}
} // namespace

bool Plan::planLaunch(int index, const flash_attention_args &args, int smCount,
                      int (*smCountOfDevice)(std::string &),
                      flash_launch_info &out, std::string &error,
                      std::vector<uint64_t> *workspaceBytes,
                      uint32_t *clusterX) const {
  std::memset(&out, 0, sizeof(out));
  if (index < 0 || size_t(index) >= kernels.size()) {
    error = "plan " + name + " has no kernel " + std::to_string(index);
    return false;
  }
  const KernelSpec &kernel = kernels[index];
  Env env = constants;
  std::map<std::string, std::string> boundBy; // symbol -> tensor that set it
  for (const auto &[symbol, value] : constants)
    boundBy[symbol] = "the plan";

  // Bind the symbols of the tensors' shapes.
  for (const TensorSpec &spec : tensors) {
    const flash_tensor *t = tensorOf(args, spec.name);
    if (!t) {
      error = "plan " + name + " names tensor '" + spec.name +
              "', which this ABI does not carry";
      return false;
    }
    if (!t->data) {
      if (spec.required) {
        error = "plan " + name + " needs tensor '" + spec.name + "'" +
                (spec.name == "lse" ? " (it writes LSE: pass a B×Hq×Nq f32 buffer)"
                                    : "");
        return false;
      }
      continue;
    }
    if (!spec.required) {
      error = "plan " + name + " does not use tensor '" + spec.name + "'" +
              (spec.name == "lse" ? " (it does not write LSE)" : "");
      return false;
    }
    if (t->dtype != spec.dtype) {
      error = "tensor '" + spec.name + "' is " + dtypeName(t->dtype) +
              " but plan " + name + " takes " + dtypeName(spec.dtype);
      return false;
    }
    if (t->rank != int(spec.shape.size())) {
      error = "tensor '" + spec.name + "' has rank " + std::to_string(t->rank) +
              " but plan " + name + " takes rank " +
              std::to_string(spec.shape.size());
      return false;
    }
    bool contiguous = isContiguous(*t);
    if (!contiguous && !spec.stridedOk) {
      error = "tensor '" + spec.name + "' must be contiguous (row-major), "
              "shape " + shapeText(*t) + ", strides " + stridesText(*t) +
              " (plan " + name + " reads it through addresses it computes)";
      return false;
    }
    if (!contiguous) {
      for (int d = 0; d < t->rank; ++d)
        if (t->strides[d] < 0 ||
            (d == t->rank - 1 && t->shape[d] != 1 && t->strides[d] != 1)) {
          error = "tensor '" + spec.name + "' must have non-negative strides "
                  "and a contiguous innermost dimension, strides " +
                  stridesText(*t);
          return false;
        }
    }
    if (!contiguous && spec.stridedPointer) {
      // A kernel adds i32 element offsets of its strides to its address,
      // with 16-byte accesses.
      uint64_t last = 0;
      for (int d = 0; d < t->rank; ++d) {
        if (t->shape[d] == 0)
          break;
        last += uint64_t(t->shape[d] - 1) * uint64_t(t->strides[d]);
        if (d + 1 < t->rank && t->shape[d] != 1 &&
            t->strides[d] * elementBytes(t->dtype) % 16 != 0) {
          error = "tensor '" + spec.name + "' (strides " + stridesText(*t) +
                  "): a stride of " +
                  std::to_string(t->strides[d] * elementBytes(t->dtype)) +
                  " bytes is not a multiple of 16; pass it contiguous";
          return false;
        }
      }
      if (last >= (uint64_t(1) << 31)) {
        error = "not supported yet: tensor '" + spec.name + "' (shape " +
                shapeText(*t) + ", strides " + stridesText(*t) +
                ") spans 2^31 elements or more (plan " + name +
                " addresses it in i32 element offsets); pass it contiguous";
        return false;
      }
      if (t->data % 16 != 0) {
        error = "tensor '" + spec.name + "' (strides " + stridesText(*t) +
                "): its address is not 16-byte aligned; pass it contiguous";
        return false;
      }
    }
    // Its strides in elements (`o_stride2`, ...), for kernels that take
    // them; a dimension of size 1 the row-major stride.
    {
      int64_t rowMajor = 1;
      for (int d = t->rank - 1; d >= 0; --d) {
        env[strideSymbol(spec.name, d)] =
            double(t->shape[d] == 1 ? rowMajor : t->strides[d]);
        rowMajor *= t->shape[d];
      }
    }
    for (int d = t->rank - 1; d >= 0; --d) {
      int64_t size = t->shape[d];
      if (size < 0) {
        error = "tensor '" + spec.name + "' has a negative dimension";
        return false;
      }
      const Json &dim = spec.shape[d];
      if (dim.kind == Json::Number) {
        if (int64_t(dim.number) != size) {
          error = "tensor '" + spec.name + "' dimension " + std::to_string(d) +
                  " is " + std::to_string(size) + " but plan " + name +
                  " takes " + std::to_string(int64_t(dim.number));
          return false;
        }
        continue;
      }
      auto bound = env.find(dim.string);
      if (bound == env.end()) {
        env[dim.string] = double(size);
        boundBy[dim.string] = spec.name;
      } else if (int64_t(bound->second) != size) {
        error = "tensor '" + spec.name + "' has " + dim.string + " = " +
                std::to_string(size) + " (shape " + shapeText(*t) +
                ") but " + dim.string + " = " +
                std::to_string(int64_t(bound->second)) + " from " +
                (boundBy[dim.string] == "the plan"
                     ? "plan " + name
                     : "tensor '" + boundBy[dim.string] + "'");
        return false;
      }
    }
  }
  // Scalars: given (> 0) or the plan's default.
  for (const ScalarSpec &s : scalars) {
    double value = 0;
    if (s.name == "scale" && args.scale > 0) {
      value = args.scale;
    } else if (!evaluate(s.defaultValue, env, value, error)) {
      error = "default of " + s.name + ": " + error;
      return false;
    }
    if (!std::isfinite(value)) {
      error = s.name + " must be finite";
      return false;
    }
    env[s.name] = value;
  }
  if (args.scale < 0 || std::isnan(args.scale) || std::isinf(args.scale)) {
    error = "scale must be finite and positive (or 0 for the default)";
    return false;
  }
  for (const Constraint &c : constraints) {
    double ok = 0;
    if (!evaluate(c.check, env, ok, error)) {
      error = "plan " + name + ": " + error;
      return false;
    }
    if (ok == 0) {
      error = c.message + " (plan " + name + ")";
      return false;
    }
  }
  bool needsSMs = false;
  for (const Json &axis : kernel.grid)
    needsSMs |= mentions(axis, "SMs");
  needsSMs |= mentions(kernel.clusterX, "SMs");
  for (const ArgSpec &spec : kernel.args)
    needsSMs |= (spec.kind == FLASH_ARG_I32 || spec.kind == FLASH_ARG_F32) &&
                mentions(spec.value, "SMs");
  if (workspaceBytes)
    for (const WorkspaceSpec &w : workspaces)
      needsSMs |= mentions(w.bytes, "SMs");
  if (needsSMs) {
    if (smCount <= 0)
      smCount = smCountOfDevice ? smCountOfDevice(error) : 0;
    if (smCount <= 0) {
      error = "the grid of " + kernel.name +
              " depends on the device's SM count: " +
              (error.empty() ? "pass sm_count" : error);
      return false;
    }
    env["SMs"] = smCount;
  }
  for (int a = 0; a < 3; ++a) {
    double v;
    if (!evaluate(kernel.grid[a], env, v, error)) {
      error = "grid of " + kernel.name + ": " + error;
      return false;
    }
    uint64_t limit = a == 0 ? 0x7FFFFFFFull : 65535ull;
    if (v < 0 || v > double(limit)) {
      error = "grid of " + kernel.name + " is out of range (" +
              std::to_string(int64_t(v)) + " blocks on axis " +
              std::to_string(a) + ")";
      return false;
    }
    out.grid[a] = uint32_t(v);
    out.block[a] = kernel.block[a];
  }
  if (clusterX)
    *clusterX = 1;
  if (kernel.clusterX.kind != Json::Null) {
    double v;
    if (!evaluate(kernel.clusterX, env, v, error)) {
      error = "cluster of " + kernel.name + ": " + error;
      return false;
    }
    // At most 8 blocks (the portable cluster size), dividing grid x.
    uint32_t x = uint32_t(v);
    if (v < 1 || v > 8 || double(x) != v || (out.grid[0] && out.grid[0] % x)) {
      char shown[32];
      std::snprintf(shown, sizeof shown, "%g", v);
      error = "cluster of " + kernel.name + " is " + shown +
              " blocks along x, not 1 to 8 dividing grid x (" +
              std::to_string(out.grid[0]) + ")";
      return false;
    }
    if (clusterX)
      *clusterX = x;
  }
  if (workspaceBytes) {
    workspaceBytes->clear();
    for (const WorkspaceSpec &w : workspaces) {
      double v;
      if (!evaluate(w.bytes, env, v, error)) {
        error = "bytes of workspace " + w.name + ": " + error;
        return false;
      }
      workspaceBytes->push_back(uint64_t(std::max(v, 0.0)));
    }
  }
  std::strncpy(out.kernel, kernel.name.c_str(), FLASH_NAME_SIZE - 1);
  out.shared_bytes = kernel.sharedBytes;
  out.persistent = kernel.persistent;

  // The arguments, in order, at their natural alignment.
  uint32_t offset = 0;
  for (const ArgSpec &spec : kernel.args) {
    flash_arg_info &arg = out.args[out.num_args++];
    arg.kind = spec.kind;
    arg.workspace = spec.workspace;
    copyName(arg.name, spec.name);
    copyName(arg.tensor, spec.tensor);
    uint32_t size = spec.kind == FLASH_ARG_TENSOR_MAP ? 128
                    : spec.kind == FLASH_ARG_PTR      ? 8
                                                      : 4;
    uint32_t align = spec.kind == FLASH_ARG_TENSOR_MAP ? 64 : size;
    offset = (offset + align - 1) / align * align;
    arg.offset = offset;
    arg.size = size;
    offset += size;
    const flash_tensor *t = spec.tensor.empty() ? nullptr : tensorOf(args, spec.tensor);
    if (!spec.tensor.empty() && !t) {
      error = "argument " + spec.name + " names an unknown tensor";
      return false;
    }
    switch (spec.kind) {
    case FLASH_ARG_PTR:
      arg.pointer = t ? t->data : args.workspaces[spec.workspace];
      break;
    case FLASH_ARG_I32:
    case FLASH_ARG_F32: {
      double v;
      if (!evaluate(spec.value, env, v, error)) {
        error = "argument " + spec.name + ": " + error;
        return false;
      }
      if (spec.kind == FLASH_ARG_I32) {
        if (v < -2147483648.0 || v > 2147483647.0) {
          error = "argument " + spec.name + " = " + std::to_string(v) +
                  " does not fit in i32";
          return false;
        }
        arg.int_value = int64_t(v);
      } else {
        arg.float_value = float(v);
      }
      break;
    }
    case FLASH_ARG_TENSOR_MAP: {
      const TensorMapSpec &m = spec.map;
      if (!t->data) {
        error = "argument " + spec.name + " needs tensor '" + spec.tensor + "'";
        return false;
      }
      arg.map_address = t->data;
      arg.map_dtype = m.dtype;
      arg.map_rank = int(m.dims.size());
      for (size_t i = 0; i < m.dims.size(); ++i) {
        double v;
        if (!evaluate(m.dims[i], env, v, error)) {
          error = "tensor map " + spec.name + ": " + error;
          return false;
        }
        arg.map_dims[i] = uint64_t(v);
        arg.map_box[i] = m.box[i];
        arg.map_element_strides[i] = m.elementStrides[i];
      }
      for (size_t i = 0; i < m.strides.size(); ++i) {
        double v;
        if (!evaluate(m.strides[i], env, v, error)) {
          error = "tensor map " + spec.name + ": " + error;
          return false;
        }
        arg.map_strides[i] = uint64_t(v);
      }
      if (!isContiguous(*t) &&
          !mapStridesOf(*t, spec.tensor, arg, arg.map_strides, error))
        return false;
      arg.map_interleave = m.interleave;
      arg.map_swizzle = m.swizzle;
      arg.map_l2_promotion = m.l2Promotion;
      arg.map_oob_fill = m.oobFill;
      break;
    }
    }
  }
  out.args_bytes = (offset + 63) / 64 * 64;
  return true;
}
