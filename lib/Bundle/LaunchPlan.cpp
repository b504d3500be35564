//===- LaunchPlan.cpp - a kernel description as a launch plan -------------===//
//
// One `flash.kernels` dictionary -> one launch plan (docs/launch-plan.md).
// The lowering writes its grid as formulas in text ("ceildiv(Nq, block_q)")
// and its arguments as "name:type"; here they become structured formulas
// (["ceildiv", "Nq", 128]) and arguments that say what fills them (a tensor,
// a tensor map of a tensor, a size, the scale, a workspace), so that a runtime
// interprets the plan without knowing the kernel.
//
//===----------------------------------------------------------------------===//

#include "flash/Bundle/LaunchPlan.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace mlir;
using namespace mlir::flash;
using llvm::json::Array;
using llvm::json::Object;
using JValue = llvm::json::Value;

namespace {
llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Formulas of the lowering's text ("min(blocks_per_sm*SMs, ceildiv(Nq,
/// block_q)*Hq*B)"): products of terms, a term a number, a name, or a
/// call min/max/ceildiv/le/eq/sub (le(x, y): 1 if x <= y, else 0; eq(x, y):
/// 1 if x == y, else 0; sub(x, y): x − y; every runtime since the first
/// plan format evaluates them). Names
/// found in `constants` become numbers; names in `rename` are renamed (the "N"
/// of a tensor map is Nq or Nk); the rest stay symbols that the runtime binds.
class FormulaParser {
public:
  FormulaParser(StringRef text, const llvm::StringMap<int64_t> &constants,
                const llvm::StringMap<JValue> &rename)
      : text(text), constants(constants), rename(rename) {}

  llvm::Expected<JValue> parse() {
    auto value = product();
    if (!value)
      return value.takeError();
    skip();
    if (pos != text.size())
      return error("unexpected '" + text.substr(pos) + "' in formula '" +
                   text + "'");
    return value;
  }

private:
  void skip() {
    while (pos < text.size() && text[pos] == ' ')
      ++pos;
  }
  llvm::Expected<JValue> product() {
    Array factors;
    while (true) {
      auto factor = term();
      if (!factor)
        return factor.takeError();
      factors.push_back(std::move(*factor));
      skip();
      if (pos < text.size() && text[pos] == '*') {
        ++pos;
        continue;
      }
      break;
    }
    if (factors.size() == 1)
      return std::move(factors[0]);
    Array mul{"mul"};
    for (JValue &f : factors)
      mul.push_back(std::move(f));
    return JValue(std::move(mul));
  }
  llvm::Expected<JValue> term() {
    skip();
    size_t start = pos;
    while (pos < text.size() &&
           (llvm::isAlnum(text[pos]) || text[pos] == '_'))
      ++pos;
    StringRef word = text.slice(start, pos);
    if (word.empty())
      return error("expected a number or a name at '" + text.substr(start) +
                   "' in formula '" + text + "'");
    int64_t number;
    if (!word.getAsInteger(10, number))
      return JValue(number);
    skip();
    if (pos < text.size() && text[pos] == '(') {
      if (word != "min" && word != "max" && word != "ceildiv" && word != "le" &&
          word != "eq" && word != "sub")
        return error("unknown function '" + word + "' in formula '" + text +
                     "'");
      ++pos;
      Array call{word.str()};
      while (true) {
        auto argument = product();
        if (!argument)
          return argument.takeError();
        call.push_back(std::move(*argument));
        skip();
        if (pos < text.size() && text[pos] == ',') {
          ++pos;
          continue;
        }
        if (pos < text.size() && text[pos] == ')') {
          ++pos;
          break;
        }
        return error("expected ',' or ')' in formula '" + text + "'");
      }
      return JValue(std::move(call));
    }
    auto constant = constants.find(word);
    if (constant != constants.end())
      return JValue(constant->second);
    auto renamed = rename.find(word);
    if (renamed != rename.end())
      return renamed->second;
    return JValue(word.str());
  }

  StringRef text;
  size_t pos = 0;
  const llvm::StringMap<int64_t> &constants;
  const llvm::StringMap<JValue> &rename;
};

llvm::Expected<JValue> formula(StringRef text,
                              const llvm::StringMap<int64_t> &constants,
                              const llvm::StringMap<JValue> &rename = {}) {
  return FormulaParser(text, constants, rename).parse();
}

JValue call(std::initializer_list<JValue> parts) { return JValue(Array(parts)); }

/// The symbols of a forward attention's tensors (B×H×N×D, PyTorch's layout).
struct TensorSymbols {
  StringRef heads, rows, cols;
};
TensorSymbols symbolsOf(StringRef tensor) {
  if (tensor == "q" || tensor == "dq")
    return {"Hq", "Nq", "D"};
  if (tensor == "o" || tensor == "dout")
    return {"Hq", "Nq", "Dv"};
  if (tensor == "k" || tensor == "dk")
    return {"Hkv", "Nk", "D"};
  return {"Hkv", "Nk", "Dv"}; // v, dv
}

/// The tensor map of argument `argName` (a B×H×N×D tensor of 16-bit
/// elements) from the lowering's `tensor_maps` entry `map`: its dims (D, N,
/// B*H), or (D, N, H, B) for batch maps, named per tensor, the strides of a
/// contiguous tensor, the box and the swizzle. Null on a malformed entry.
std::optional<Object> tensorMapJSON(StringRef argName, DictionaryAttr map,
                                    StringRef elementType,
                                    std::string &problem) {
  const int64_t elementBytes = 2;
  auto box = map ? map.getAs<ArrayAttr>("box") : ArrayAttr();
  auto dims = map ? map.getAs<ArrayAttr>("dims") : ArrayAttr();
  auto swizzle = map ? map.getAs<StringAttr>("swizzle") : StringAttr();
  if (!box || !dims || !swizzle || dims.size() < 3 || dims.size() > 4 ||
      box.size() != dims.size()) {
    problem = "has no tensor_maps entry with box, dims and swizzle";
    return std::nullopt;
  }
  // The lowering writes the dims of a B×H×N×D tensor as (D, N, B*H) or
  // (D, N, H, B).
  TensorSymbols symbols = symbolsOf(argName);
  llvm::StringMap<JValue> rename{{"N", JValue(symbols.rows.str())},
                                {"H", JValue(symbols.heads.str())},
                                {"D", JValue(symbols.cols.str())}};
  Array dimFormulas;
  for (Attribute d : dims) {
    auto text = dyn_cast<StringAttr>(d);
    if (!text) {
      problem = "has tensor map dims that are not strings";
      return std::nullopt;
    }
    auto f = formula(text.getValue(), {}, rename);
    if (!f) {
      problem = llvm::toString(f.takeError());
      return std::nullopt;
    }
    dimFormulas.push_back(std::move(*f));
  }
  // A contiguous tensor's strides of dims 1, 2 (and 3), in bytes.
  Array strides{call({"mul", dimFormulas[0], elementBytes}),
                call({"mul", dimFormulas[0], dimFormulas[1], elementBytes})};
  if (dimFormulas.size() == 4)
    strides.push_back(call({"mul", dimFormulas[0], dimFormulas[1],
                            dimFormulas[2], elementBytes}));
  Array elementStrides;
  for (size_t i = 0; i < dimFormulas.size(); ++i)
    elementStrides.push_back(1);
  return Object{{"element_type", elementType.str()},
                {"dims", std::move(dimFormulas)},
                {"strides", std::move(strides)},
                {"box", attributeToJSON(box)},
                {"element_strides", std::move(elementStrides)},
                {"swizzle", swizzle.getValue().str()},
                {"interleave", "none"},
                {"l2_promotion", "256B"},
                {"oob_fill", "none"}};
}

Object tensor(StringRef name, Array shape, StringRef elementType,
              bool output, bool required) {
  return Object{{"name", name.str()},
                {"shape", std::move(shape)},
                {"element_type", elementType.str()},
                {"layout", "contiguous"},
                {"output", output},
                {"required", required}};
}
/// `<tensor>_stride<d>` (d = 0, 1, 2) of a tensor a kernel addresses
/// itself (the backward's preprocess and convert; sm_80's strided forward
/// and backward):
/// the call's stride of dimension d in elements, a symbol the runtime binds
/// (docs/launch-plan.md).
bool isStrideSymbol(StringRef name) {
  auto [tensor, dim] = name.rsplit("_stride");
  return dim.size() == 1 && dim[0] >= '0' && dim[0] <= '2' &&
         llvm::is_contained({"q", "k", "v", "o", "dout", "dq", "dk", "dv"},
                            tensor);
}

/// What every call of an attention plan must meet.
Array constraints() {
  const int64_t elementLimit = int64_t(1) << 31;
  return Array{
      Object{{"check", call({"ge", "B", 1})}, {"message", "batch must be at least 1"}},
      Object{{"check", call({"ge", "Hkv", 1})},
             {"message", "key/value heads must be at least 1"}},
      Object{{"check", call({"eq", call({"mod", "Hq", "Hkv"}), 0})},
             {"message", "query heads must be a multiple of key/value heads"}},
      Object{{"check", call({"lt", call({"mul", "B", "Hq", "Nq", "D"}), elementLimit})},
             {"message", "tensors of 2^31 elements or more are not supported yet"}},
      Object{{"check", call({"lt", call({"mul", "B", "Hkv", "Nk", "D"}), elementLimit})},
             {"message", "tensors of 2^31 elements or more are not supported yet"}},
      Object{{"check", call({"gt", "scale", 0})},
             {"message", "scale must be finite and positive"}}};
}

} // namespace

llvm::json::Value mlir::flash::attributeToJSON(Attribute attr) {
  if (auto s = dyn_cast<StringAttr>(attr))
    return s.getValue().str();
  if (auto b = dyn_cast<BoolAttr>(attr))
    return b.getValue();
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return i.getInt();
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValueAsDouble();
  if (auto array = dyn_cast<ArrayAttr>(attr)) {
    Array out;
    for (Attribute a : array)
      out.push_back(attributeToJSON(a));
    return out;
  }
  if (auto dict = dyn_cast<DictionaryAttr>(attr)) {
    Object out;
    for (NamedAttribute field : dict)
      out[field.getName().getValue()] = attributeToJSON(field.getValue());
    return out;
  }
  // Other attributes (#flash.schedule) as their textual form.
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

llvm::Error mlir::flash::parseSeqRange(StringRef text,
                                       LaunchPlanOptions &options) {
  options.seqMin = 0;
  options.seqMax.reset();
  if (text.empty())
    return llvm::Error::success();
  auto [low, high] = text.split(':');
  int64_t min = 0, max = 0;
  if (!text.contains(':') || low.getAsInteger(10, min) || min < 0 ||
      (!high.empty() && (high.getAsInteger(10, max) || max < min)))
    return error("seq-range must be MIN:MAX or MIN: with 0 <= MIN <= MAX, "
                 "got '" + text + "'");
  options.seqMin = min;
  if (!high.empty())
    options.seqMax = max;
  return llvm::Error::success();
}

namespace {
/// The fields every plan opens with: the format, its name and op, the key
/// the runtime selects it by, the constants D and Dv, and the scale.
Object planHeader(StringRef name, StringRef op, StringRef arch,
                  StringRef elementType, int64_t headDim, int64_t valueDim,
                  bool causal, bool lse, StringRef variant,
                  const LaunchPlanOptions &options) {
  JValue seqMax = options.seqMax ? JValue(*options.seqMax) : JValue(nullptr);
  return Object{
      {"format", "flash-launch-plan"},
      {"version", kLaunchPlanVersion},
      {"name", name.str()},
      {"op", op.str()},
      {"select", Object{{"arch", arch.str()},
                        {"element_type", elementType.str()},
                        {"head_dim", headDim},
                        {"value_dim", valueDim},
                        {"causal", causal},
                        {"lse", lse},
                        {"seq_range", Array{options.seqMin, seqMax}},
                        {"variant", variant.str()}}},
      {"constants", Object{{"D", headDim}, {"Dv", valueDim}}},
      {"scalars", Array{Object{{"name", "scale"},
                               {"type", "f32"},
                               {"default", call({"rsqrt", "D"})}}}}};
}

/// A workspace of the lowering's description (name, a formula of its bytes,
/// optionally init "zero" and kernel_restores), per stream.
llvm::Expected<Object> workspaceJSON(StringRef kernelName, Attribute w,
                                     const llvm::StringMap<int64_t> &constants) {
  auto entry = dyn_cast<DictionaryAttr>(w);
  auto name = entry ? entry.getAs<StringAttr>("name") : StringAttr();
  auto bytes = entry ? entry.getAs<StringAttr>("bytes") : StringAttr();
  if (!name || !bytes || name.getValue().empty() || bytes.getValue().empty())
    return error("kernel '" + kernelName +
                 "': a workspace needs name and bytes");
  auto f = formula(bytes.getValue(), constants);
  if (!f)
    return f.takeError();
  auto init = entry.getAs<StringAttr>("init");
  auto restores = entry.getAs<BoolAttr>("kernel_restores");
  return Object{{"name", name.getValue().str()},
                {"bytes", std::move(*f)},
                {"scope", "stream"},
                {"init", init ? init.getValue().str() : "none"},
                {"kernel_restores", restores && restores.getValue()}};
}

/// The tensor maps a description lists under "tensor_maps", by tensor.
llvm::StringMap<DictionaryAttr> tensorMapsOf(DictionaryAttr description) {
  llvm::StringMap<DictionaryAttr> maps;
  if (auto list = description.getAs<ArrayAttr>("tensor_maps"))
    for (Attribute m : list)
      if (auto map = dyn_cast<DictionaryAttr>(m))
        if (auto t = map.getAs<StringAttr>("tensor"))
          maps[t.getValue()] = map;
  return maps;
}

/// What may fill a kernel's arguments: the plan's tensors (with
/// `tensorMaps`, also as tensor maps, "name:tensormap"), its sizes, stride
/// symbols (`strides`), its workspaces and the scale. `hint` lists them for
/// the error on an argument nothing fills.
struct ArgumentSources {
  ArrayRef<StringRef> tensors, sizes;
  bool strides = false;
  const llvm::StringMap<DictionaryAttr> *tensorMaps = nullptr;
  const llvm::StringSet<> *workspaces = nullptr;
  StringRef elementType, hint;
};

/// Argument "name:type" of kernel `kernelName` and what fills it.
llvm::Expected<Object> argumentJSON(StringRef kernelName, StringRef arg,
                                    const ArgumentSources &from) {
  auto [argName, type] = arg.split(':');
  Object out{{"name", argName.str()}, {"type", type.str()}};
  bool isTensor = llvm::is_contained(from.tensors, argName);
  if (from.tensorMaps && type == "tensormap" && isTensor && argName != "lse") {
    std::string problem;
    std::optional<Object> map = tensorMapJSON(
        argName, from.tensorMaps->lookup(argName), from.elementType, problem);
    if (!map)
      return error("kernel '" + kernelName + "': argument '" + arg + "' " +
                   problem);
    out["tensor"] = argName.str();
    out["tensor_map"] = std::move(*map);
  } else if (type == "ptr" && isTensor) {
    out["tensor"] = argName.str();
  } else if (type == "ptr" && from.workspaces &&
             from.workspaces->contains(argName)) {
    out["workspace"] = argName.str();
  } else if (type == "i32" && (llvm::is_contained(from.sizes, argName) ||
                               (from.strides && isStrideSymbol(argName)))) {
    out["value"] = argName.str();
  } else if (type == "f32" && argName == "scale") {
    out["value"] = "scale";
  } else {
    return error("kernel '" + kernelName + "': argument '" + arg +
                 "' has no known source" +
                 (from.hint.empty() ? "" : " (" + from.hint + ")"));
  }
  return out;
}

/// A launch's grid: its kind ("tiles" or "persistent") and three formulas
/// of the call's sizes.
llvm::Expected<Object> gridJSON(StringRef kind, ArrayRef<StringRef> formulas,
                                const llvm::StringMap<int64_t> &constants) {
  Object grid{{"kind", kind.str()}};
  static const char *const axes[] = {"x", "y", "z"};
  for (int axis = 0; axis < 3; ++axis) {
    auto f = formula(formulas[axis], constants);
    if (!f)
      return f.takeError();
    grid[axes[axis]] = std::move(*f);
  }
  return grid;
}

/// One kernel of a plan. `pdl`: launched with programmatic dependent launch
/// behind the kernel before it (docs/launch-plan.md; a runtime that ignores
/// the field launches in stream order, which is correct, slower). `cluster`:
/// the formula of its blocks a cluster along x ("cluster": {"x": ...}), none
/// without one.
Object kernelJSON(StringRef name, Object files, Object grid, int64_t threads,
                  int64_t sharedBytes, Array arguments, Object description,
                  bool pdl, std::optional<JValue> cluster = std::nullopt) {
  Object launch{{"name", name.str()},
                {"files", std::move(files)},
                {"grid", std::move(grid)},
                {"block", Array{threads, 1, 1}},
                {"dynamic_shared_memory", sharedBytes},
                {"args", std::move(arguments)},
                {"description", std::move(description)}};
  if (pdl)
    launch["programmatic_dependent_launch"] = true;
  if (cluster)
    launch["cluster"] = Object{{"x", std::move(*cluster)}};
  return launch;
}

bool flagOf(DictionaryAttr dict, StringRef key) {
  auto b = dict.getAs<BoolAttr>(key);
  return b && b.getValue();
}
} // namespace

namespace {
/// The plan of a split-KV attention (ops attention_split_kv and
/// paged_attention): its kernels (today one, which also merges the parts)
/// and workspaces whose sizes are formulas of the call's shapes. The
/// description lists the kernels under "kernels" and the workspaces under
/// "workspaces" (LowerToNVGPU.cpp, describeDecodeKernels).
llvm::Expected<Object> buildSplitKVPlan(DictionaryAttr kernel,
                                        const LaunchPlanOptions &options) {
  auto string = [&](DictionaryAttr d, StringRef key)
      -> llvm::Expected<std::string> {
    if (auto s = d.getAs<StringAttr>(key))
      return s.getValue().str();
    return error("split-KV kernel description has no string '" + key + "'");
  };
  auto integer = [&](DictionaryAttr d,
                     StringRef key) -> llvm::Expected<int64_t> {
    if (auto i = d.getAs<IntegerAttr>(key))
      return i.getInt();
    return error("split-KV kernel description has no integer '" + key + "'");
  };
  auto strings = [&](DictionaryAttr d, StringRef key)
      -> llvm::Expected<SmallVector<StringRef>> {
    auto array = d.getAs<ArrayAttr>(key);
    SmallVector<StringRef> out;
    for (Attribute a : array ? array : ArrayAttr())
      if (auto s = dyn_cast<StringAttr>(a))
        out.push_back(s.getValue());
    if (!array || out.size() != array.size())
      return error("split-KV kernel description has no string array '" +
                   key + "'");
    return out;
  };
  auto name = string(kernel, "kernel"), op = string(kernel, "op"),
       arch = string(kernel, "arch"),
       elementType = string(kernel, "element_type");
  auto headDim = integer(kernel, "head_dim"),
       valueDim = integer(kernel, "value_dim");
  if (!name || !op || !arch || !elementType || !headDim || !valueDim)
    return llvm::joinErrors(
        llvm::joinErrors(
            llvm::joinErrors(name.takeError(), op.takeError()),
            llvm::joinErrors(arch.takeError(), elementType.takeError())),
        llvm::joinErrors(headDim.takeError(), valueDim.takeError()));
  if (*elementType != "bf16" && *elementType != "f16")
    return error("kernel '" + *name + "': element type '" + *elementType +
                 "' has no launch plan (bf16 or f16)");
  const bool paged = *op == "paged_attention";
  if (!paged && *op != "attention_split_kv")
    return error("kernel '" + *name + "': unknown split-KV op '" + *op + "'");
  const bool causal = flagOf(kernel, "causal"),
             writesLse = flagOf(kernel, "writes_lse");
  llvm::StringMap<int64_t> constants;
  for (NamedAttribute field : kernel)
    if (auto i = dyn_cast<IntegerAttr>(field.getValue()))
      constants[field.getName().getValue()] = i.getInt();

  Object plan = planHeader(*name, *op, *arch, *elementType, *headDim,
                           *valueDim, causal, writesLse, options.variant,
                           options);
  // The caches of a paged call: P pages of S slots of Hkv heads; key t of
  // sequence b in page block_table[b][t / S] (M entries per sequence),
  // seq_lens[b] keys.
  Array tensors{
      tensor("q", Array{"B", "Hq", "Nq", "D"}, *elementType, false, true)};
  if (paged) {
    tensors.push_back(tensor("k", Array{"P", "S", "Hkv", "D"}, *elementType,
                             false, true));
    tensors.push_back(tensor("v", Array{"P", "S", "Hkv", "Dv"}, *elementType,
                             false, true));
    tensors.push_back(
        tensor("block_table", Array{"B", "M"}, "i32", false, true));
    tensors.push_back(tensor("seq_lens", Array{"B"}, "i32", false, true));
  } else {
    tensors.push_back(tensor("k", Array{"B", "Hkv", "Nk", "D"}, *elementType,
                             false, true));
    tensors.push_back(tensor("v", Array{"B", "Hkv", "Nk", "Dv"},
                             *elementType, false, true));
  }
  tensors.push_back(
      tensor("o", Array{"B", "Hq", "Nq", "Dv"}, *elementType, true, true));
  tensors.push_back(
      tensor("lse", Array{"B", "Hq", "Nq"}, "f32", true, writesLse));
  plan["tensors"] = std::move(tensors);
  const int64_t elementLimit = int64_t(1) << 31;
  Array constraints{
      Object{{"check", call({"ge", "B", 1})},
             {"message", "batch must be at least 1"}},
      Object{{"check", call({"ge", "Hkv", 1})},
             {"message", "key/value heads must be at least 1"}},
      Object{{"check", call({"eq", call({"mod", "Hq", "Hkv"}), 0})},
             {"message", "query heads must be a multiple of key/value heads"}},
      Object{{"check", call({"lt", call({"mul", "B", "Hq", "Nq", "D"}),
                             elementLimit})},
             {"message",
              "tensors of 2^31 elements or more are not supported yet"}}};
  if (paged) {
    constraints.push_back(
        Object{{"check", call({"ge", "S", 1})},
               {"message", "pages must hold at least one slot"}});
    constraints.push_back(
        Object{{"check", call({"lt", call({"mul", "M", "S"}), elementLimit})},
               {"message", "a sequence must address fewer than 2^31 keys"}});
  } else {
    constraints.push_back(Object{
        {"check",
         call({"lt", call({"mul", "B", "Hkv", "Nk", "D"}), elementLimit})},
        {"message", "tensors of 2^31 elements or more are not supported yet"}});
  }
  constraints.push_back(Object{{"check", call({"gt", "scale", 0})},
                               {"message", "scale must be finite and positive"}});
  plan["constraints"] = std::move(constraints);

  // Workspaces sized by formulas of the call: f32 partials (the split
  // writes every partial the merge reads: nothing is cleared) and the
  // counters of finished parts (zeroed once, left zero by the kernel).
  Array workspaces;
  llvm::StringSet<> workspaceNames;
  auto workspaceList = kernel.getAs<ArrayAttr>("workspaces");
  for (Attribute w : workspaceList ? workspaceList : ArrayAttr()) {
    auto workspace = workspaceJSON(*name, w, constants);
    if (!workspace)
      return workspace.takeError();
    workspaceNames.insert(*workspace->getString("name"));
    workspaces.push_back(std::move(*workspace));
  }
  plan["workspaces"] = std::move(workspaces);

  const StringRef tensorNames[] = {"q",  "k",           "v",       "o",
                                   "lse", "block_table", "seq_lens"};
  const StringRef sizeNames[] = {"B", "Hq", "Hkv", "Nq", "Nk",
                                 "P", "S",  "M",   "SMs"};
  ArgumentSources sources;
  sources.tensors = tensorNames;
  sources.sizes = sizeNames;
  sources.workspaces = &workspaceNames;
  auto kernelList = kernel.getAs<ArrayAttr>("kernels");
  if (!kernelList || kernelList.empty())
    return error("kernel '" + *name + "': no kernels listed");
  Object files{{"ptx", options.ptxFile},
               {"ptx_target", *arch},
               {"cubins", Object(options.cubins)}};
  Array kernels;
  for (Attribute k : kernelList) {
    auto entry = dyn_cast<DictionaryAttr>(k);
    if (!entry)
      return error("kernel '" + *name + "': a listed kernel is not a "
                   "dictionary");
    auto kName = string(entry, "kernel");
    auto threads = integer(entry, "threads"),
         shared = integer(entry, "dynamic_shared_memory");
    auto grid = strings(entry, "grid"), args = strings(entry, "args");
    if (!kName || !threads || !shared || !grid || !args)
      return llvm::joinErrors(
          llvm::joinErrors(
              llvm::joinErrors(kName.takeError(), threads.takeError()),
              llvm::joinErrors(shared.takeError(), grid.takeError())),
          args.takeError());
    Array arguments;
    for (StringRef arg : *args) {
      auto out = argumentJSON(*kName, arg, sources);
      if (!out)
        return out.takeError();
      arguments.push_back(std::move(*out));
    }
    if (grid->size() != 3)
      return error("kernel '" + *kName + "': grid must have three formulas");
    auto gridFormula = gridJSON("tiles", *grid, constants);
    if (!gridFormula)
      return gridFormula.takeError();
    Object description;
    for (NamedAttribute field : kernel)
      if (field.getName() != "kernels")
        description[field.getName().getValue()] =
            attributeToJSON(field.getValue());
    Object kernelFiles = files;
    auto own = options.kernelCubins.find(*kName);
    if (own != options.kernelCubins.end())
      kernelFiles["cubins"] = Object(own->second);
    // Blocks a cluster along x, a formula (docs/launch-plan.md "cluster").
    std::optional<JValue> cluster;
    if (auto text = entry.getAs<StringAttr>("cluster")) {
      auto clusterFormula = formula(text.getValue(), constants);
      if (!clusterFormula)
        return clusterFormula.takeError();
      cluster = std::move(*clusterFormula);
    }
    kernels.push_back(kernelJSON(
        *kName, std::move(kernelFiles), std::move(*gridFormula), *threads,
        *shared, std::move(arguments), std::move(description),
        flagOf(entry, "programmatic_dependent_launch"), std::move(cluster)));
  }
  plan["kernels"] = std::move(kernels);
  return plan;
}
} // namespace

namespace {
/// The backward's plan (op "attention_backward"): the lowering describes
/// several launches (preprocess, main, convert or dQ) sharing one PTX and
/// cubin, and workspaces whose sizes are formulas of the call's shapes.
llvm::Expected<Object> buildBackwardLaunchPlan(DictionaryAttr kernel,
                                               const LaunchPlanOptions &options) {
  auto string = [&](DictionaryAttr dict, StringRef key) -> std::string {
    auto s = dict.getAs<StringAttr>(key);
    return s ? s.getValue().str() : std::string();
  };
  auto integer = [&](DictionaryAttr dict, StringRef key) -> int64_t {
    auto i = dict.getAs<IntegerAttr>(key);
    return i ? i.getInt() : -1;
  };
  std::string name = string(kernel, "kernel"), arch = string(kernel, "arch"),
              elementType = string(kernel, "element_type");
  int64_t headDim = integer(kernel, "head_dim"),
          valueDim = integer(kernel, "value_dim");
  auto launches = kernel.getAs<ArrayAttr>("launches");
  auto workspaceList = kernel.getAs<ArrayAttr>("workspaces");
  if (name.empty() || arch.empty() || headDim < 0 || valueDim < 0 ||
      !launches || launches.empty() || !workspaceList)
    return error("backward kernel description '" + name +
                 "' needs kernel, arch, head_dim, value_dim, launches and "
                 "workspaces");
  if (elementType != "bf16" && elementType != "f16")
    return error("kernel '" + name + "': element type '" + elementType +
                 "' has no launch plan (bf16 or f16)");
  const bool causal = flagOf(kernel, "causal"),
             deterministic = flagOf(kernel, "deterministic");
  // The deterministic kernels are a variant of the key: chosen by name.
  std::string variant = options.variant;
  if (variant.empty() && deterministic)
    variant = "deterministic";

  Object plan = planHeader(name, "attention_backward", arch, elementType,
                           headDim, valueDim, causal, /*lse=*/false, variant,
                           options);
  // Inputs: the forward's Q, K, V, O, its LSE and dO; outputs dQ, dK, dV.
  plan["tensors"] = Array{
      tensor("q", Array{"B", "Hq", "Nq", "D"}, elementType, false, true),
      tensor("k", Array{"B", "Hkv", "Nk", "D"}, elementType, false, true),
      tensor("v", Array{"B", "Hkv", "Nk", "Dv"}, elementType, false, true),
      tensor("o", Array{"B", "Hq", "Nq", "Dv"}, elementType, false, true),
      tensor("dout", Array{"B", "Hq", "Nq", "Dv"}, elementType, false, true),
      tensor("lse", Array{"B", "Hq", "Nq"}, "f32", false, true),
      tensor("dq", Array{"B", "Hq", "Nq", "D"}, elementType, true, true),
      tensor("dk", Array{"B", "Hkv", "Nk", "D"}, elementType, true, true),
      tensor("dv", Array{"B", "Hkv", "Nk", "Dv"}, elementType, true, true)};
  plan["constraints"] = constraints();

  // Workspaces: per stream, sized per call; the preprocess writes every
  // byte the later kernels read, so none needs zeroing.
  llvm::StringMap<int64_t> noConstants;
  Array workspaces;
  llvm::StringSet<> workspaceNames;
  for (Attribute w : workspaceList) {
    auto workspace = workspaceJSON(name, w, noConstants);
    if (!workspace)
      return workspace.takeError();
    workspaceNames.insert(*workspace->getString("name"));
    workspaces.push_back(std::move(*workspace));
  }
  plan["workspaces"] = std::move(workspaces);
  const StringRef tensorNames[] = {"q", "k",    "v",  "o", "dout",
                                   "lse", "dq", "dk", "dv"};
  const StringRef sizeNames[] = {"B", "Hq", "Hkv", "Nq", "Nk"};

  Object shared;
  for (NamedAttribute field : kernel)
    if (field.getName() != "launches")
      shared[field.getName().getValue()] = attributeToJSON(field.getValue());
  Array kernels;
  for (Attribute l : launches) {
    auto launch = dyn_cast<DictionaryAttr>(l);
    std::string kernelName = launch ? string(launch, "kernel") : "";
    int64_t threads = launch ? integer(launch, "threads") : -1;
    int64_t sharedBytes = launch ? integer(launch, "dynamic_shared_memory") : -1;
    auto grid = launch ? launch.getAs<ArrayAttr>("grid") : ArrayAttr();
    auto args = launch ? launch.getAs<ArrayAttr>("args") : ArrayAttr();
    if (kernelName.empty() || threads < 1 || sharedBytes < 0 || !grid ||
        grid.size() != 3 || !args)
      return error("kernel '" + name + "': a launch needs kernel, threads, "
                   "dynamic_shared_memory, three grid formulas and args");
    SmallVector<StringRef, 3> gridText;
    for (Attribute g : grid) {
      auto text = dyn_cast<StringAttr>(g);
      if (!text)
        return error("kernel '" + kernelName + "': grid formulas are strings");
      gridText.push_back(text.getValue());
    }
    auto gridFormula = gridJSON("tiles", gridText, noConstants);
    if (!gridFormula)
      return gridFormula.takeError();
    // sm_90a's main kernel takes CUtensorMaps of tensors (the launch's
    // tensor_maps).
    llvm::StringMap<DictionaryAttr> maps = tensorMapsOf(launch);
    ArgumentSources sources;
    sources.tensors = tensorNames;
    sources.sizes = sizeNames;
    sources.strides = true;
    sources.tensorMaps = &maps;
    sources.workspaces = &workspaceNames;
    sources.elementType = elementType;
    sources.hint = "tensors q k v o dout lse dq dk dv, sizes B Hq Hkv Nq Nk, "
                   "strides <tensor>_stride0..2 of q k v o dout dq dk dv, "
                   "scale, the workspaces";
    Array arguments;
    for (Attribute a : args) {
      auto text = dyn_cast<StringAttr>(a);
      if (!text)
        return error("kernel '" + kernelName + "': arguments are strings");
      auto out = argumentJSON(kernelName, text.getValue(), sources);
      if (!out)
        return out.takeError();
      arguments.push_back(std::move(*out));
    }
    // The shared PTX and cubins, with ptxas's report of this kernel.
    auto perKernel = options.kernelCubins.find(kernelName);
    Object files{{"ptx", options.ptxFile},
                 {"ptx_target", arch},
                 {"cubins", perKernel != options.kernelCubins.end()
                                ? Object(perKernel->second)
                                : Object(options.cubins)}};
    Object description = shared;
    for (NamedAttribute field : launch)
      description[field.getName().getValue()] =
          attributeToJSON(field.getValue());
    // sm_90a: the main kernel and the convert are launched behind the
    // kernel before them with programmatic dependent launch.
    kernels.push_back(kernelJSON(
        kernelName, std::move(files), std::move(*gridFormula), threads,
        sharedBytes, std::move(arguments), std::move(description),
        flagOf(launch, "programmatic_dependent_launch")));
  }
  plan["kernels"] = std::move(kernels);
  return plan;
}
} // namespace

llvm::Expected<Object>
mlir::flash::buildLaunchPlan(DictionaryAttr kernel,
                             const LaunchPlanOptions &options) {
  if (auto op = kernel.getAs<StringAttr>("op");
      op && op.getValue() == "attention_backward")
    return buildBackwardLaunchPlan(kernel, options);
  if (kernel.get("kernels"))
    return buildSplitKVPlan(kernel, options);
  // The fields of the description the plan needs; everything else is kept
  // under "description" for people and tools, not read by the runtime.
  auto string = [&](StringRef key) -> llvm::Expected<std::string> {
    if (auto s = kernel.getAs<StringAttr>(key))
      return s.getValue().str();
    return error("kernel description has no string '" + key + "'");
  };
  auto integer = [&](StringRef key) -> llvm::Expected<int64_t> {
    if (auto i = kernel.getAs<IntegerAttr>(key))
      return i.getInt();
    return error("kernel description has no integer '" + key + "'");
  };
  auto strings = [&](StringRef key) -> llvm::Expected<SmallVector<StringRef>> {
    auto array = kernel.getAs<ArrayAttr>(key);
    SmallVector<StringRef> out;
    for (Attribute a : array ? array : ArrayAttr())
      if (auto s = dyn_cast<StringAttr>(a))
        out.push_back(s.getValue());
    if (!array || out.size() != array.size())
      return error("kernel description has no string array '" + key + "'");
    return out;
  };
  auto name = string("kernel"), arch = string("arch"),
       elementType = string("element_type");
  auto headDim = integer("head_dim"), valueDim = integer("value_dim"),
       threads = integer("threads"), shared = integer("dynamic_shared_memory");
  auto grid = strings("grid"), args = strings("args");
  if (!name || !arch || !elementType || !headDim || !valueDim || !threads ||
      !shared || !grid || !args) {
    llvm::Error all = llvm::joinErrors(
        llvm::joinErrors(
            llvm::joinErrors(name.takeError(), arch.takeError()),
            llvm::joinErrors(elementType.takeError(), headDim.takeError())),
        llvm::joinErrors(
            llvm::joinErrors(valueDim.takeError(), threads.takeError()),
            llvm::joinErrors(shared.takeError(),
                             llvm::joinErrors(grid.takeError(),
                                              args.takeError()))));
    return std::move(all);
  }
  if (*elementType != "bf16" && *elementType != "f16")
    return error("kernel '" + *name + "': element type '" + *elementType +
                 "' has no launch plan (bf16 or f16)");
  const bool causal = flagOf(kernel, "causal"),
             writesLse = flagOf(kernel, "writes_lse");

  // Integer fields the formulas may name (block_q, blocks_per_sm, ...).
  llvm::StringMap<int64_t> constants;
  for (NamedAttribute field : kernel)
    if (auto i = dyn_cast<IntegerAttr>(field.getValue()))
      constants[field.getName().getValue()] = i.getInt();

  Object plan = planHeader(*name, "attention_forward", *arch, *elementType,
                           *headDim, *valueDim, causal, writesLse,
                           options.variant, options);
  plan["tensors"] = Array{
      tensor("q", Array{"B", "Hq", "Nq", "D"}, *elementType, false, true),
      tensor("k", Array{"B", "Hkv", "Nk", "D"}, *elementType, false, true),
      tensor("v", Array{"B", "Hkv", "Nk", "Dv"}, *elementType, false, true),
      tensor("o", Array{"B", "Hq", "Nq", "Dv"}, *elementType, true, true),
      tensor("lse", Array{"B", "Hq", "Nq"}, "f32", true, writesLse)};
  plan["constraints"] = constraints();

  // Arguments, in the kernel's order, each with what fills it.
  llvm::StringMap<DictionaryAttr> tensorMaps = tensorMapsOf(kernel);
  const StringRef tensorNames[] = {"q", "k", "v", "o", "lse"};
  const StringRef sizeNames[] = {"B", "Hq", "Hkv", "Nq", "Nk"};
  ArgumentSources sources;
  sources.tensors = tensorNames;
  sources.sizes = sizeNames;
  sources.strides = true;
  sources.tensorMaps = &tensorMaps;
  sources.elementType = *elementType;
  sources.hint = "tensors q k v o lse, sizes B Hq Hkv Nq Nk, strides "
                 "<tensor>_stride0..2 of q k v o, scale, counter";
  Array workspaces, arguments;
  for (StringRef arg : *args) {
    if (arg == "counter:ptr") {
      // The persistent grid's tile counter: an i32 that is 0 before the
      // first launch and that the kernel leaves 0 (the last draw resets it),
      // so one zeroed counter per stream serves every launch on it.
      arguments.push_back(Object{{"name", "counter"},
                                 {"type", "ptr"},
                                 {"workspace", "tile_counter"}});
      workspaces.push_back(Object{{"name", "tile_counter"},
                                  {"bytes", 4},
                                  {"scope", "stream"},
                                  {"init", "zero"},
                                  {"kernel_restores", true}});
      continue;
    }
    auto out = argumentJSON(*name, arg, sources);
    if (!out)
      return out.takeError();
    arguments.push_back(std::move(*out));
  }
  plan["workspaces"] = std::move(workspaces);

  if (grid->size() != 3)
    return error("kernel '" + *name + "': grid must have three formulas");
  auto gridFormula = gridJSON(
      flagOf(kernel, "persistent") ? "persistent" : "tiles", *grid, constants);
  if (!gridFormula)
    return gridFormula.takeError();

  Object files{{"ptx", options.ptxFile},
               {"ptx_target", *arch},
               {"cubins", Object(options.cubins)}};
  Object description;
  for (NamedAttribute field : kernel)
    description[field.getName().getValue()] =
        attributeToJSON(field.getValue());
  plan["kernels"] = Array{kernelJSON(*name, std::move(files),
                                     std::move(*gridFormula), *threads,
                                     *shared, std::move(arguments),
                                     std::move(description), /*pdl=*/false)};
  return plan;
}
