//===- LaunchPlan.h - a kernel description as a launch plan -----*- C++ -*-===//
//
// The GPU lowering records what each kernel needs at launch in the module
// attribute `flash.kernels` (one dictionary per kernel). buildLaunchPlan turns
// one such dictionary into the launch plan the runtime reads
// (docs/launch-plan.md): selection keys, tensors and their symbolic shapes,
// constraints, workspaces, and the kernel's grid formula and arguments, each
// with what fills it. It is the one place where the lowering's text fields
// (the grid strings, "name:type" arguments, tensor-map dims) are read.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_BUNDLE_LAUNCHPLAN_H
#define FLASH_BUNDLE_LAUNCHPLAN_H

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <string>

namespace mlir {
namespace flash {

/// The plan format this writer produces (the runtime refuses other versions).
constexpr int kLaunchPlanVersion = 1;

/// What the compile step knows beyond the kernel's description.
struct LaunchPlanOptions {
  /// The range of max(Nq, Nk) the plan is chosen for; no upper end if unset.
  int64_t seqMin = 0;
  std::optional<int64_t> seqMax;
  /// "" for the model's form; otherwise the variant's name.
  std::string variant;
  /// PTX file and, per ptxas target, the cubin file and its ptxas report.
  std::string ptxFile;
  llvm::json::Object cubins;
  /// Per entry function of the module (a plan of several kernels): the
  /// same, with that kernel's own ptxas report.
  std::map<std::string, llvm::json::Object> kernelCubins;
};

/// Parses "MIN:MAX" or "MIN:" (or "" for every length) into `options`.
llvm::Error parseSeqRange(llvm::StringRef text, LaunchPlanOptions &options);

/// The launch plan of one `flash.kernels` entry.
llvm::Expected<llvm::json::Object>
buildLaunchPlan(DictionaryAttr kernel, const LaunchPlanOptions &options);

/// An attribute as JSON (strings, numbers, arrays, dictionaries; other
/// attributes as their printed form).
llvm::json::Value attributeToJSON(Attribute attr);

} // namespace flash
} // namespace mlir

#endif // FLASH_BUNDLE_LAUNCHPLAN_H
