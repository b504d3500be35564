//===- WriteBundle.cpp - kernel bundles for the runtime -------------------===//
//
// A bundle is what the runtime needs to launch a kernel without MLIR:
//   <kernel>.ptx            the PTX that gpu-module-to-binary produced
//   <kernel>.<arch>.cubin   ptxas output for each requested arch
//   <kernel>.json           the launch plan (docs/launch-plan.md), built from
//                           the module attribute flash.kernels by
//                           buildLaunchPlan, with ptxas's resource report
// ptxas runs with -v; registers, spills and stack are recorded so that tests
// and users can see a kernel that spills.
//
//===----------------------------------------------------------------------===//

#include "flash/Bundle/LaunchPlan.h"
#include "flash/Bundle/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {
namespace flash {
#define GEN_PASS_DEF_FLASHWRITEBUNDLE
#include "flash/Bundle/Passes.h.inc"
} // namespace flash
} // namespace mlir

using namespace mlir;
using namespace mlir::flash;

namespace {
/// Runs ptxas; returns its -v report or a failure message.
FailureOr<std::string> assemble(StringRef ptxas, StringRef arch,
                                StringRef ptxPath, StringRef cubinPath,
                                std::string &error) {
  SmallString<128> logPath;
  if (llvm::sys::fs::createTemporaryFile("flash-ptxas", "log", logPath)) {
    error = "cannot create a temporary file for ptxas";
    return failure();
  }
  std::string archFlag = ("-arch=" + arch).str();
  SmallVector<StringRef> args = {ptxas, archFlag, "-v", "-o", cubinPath,
                                 ptxPath};
  std::optional<StringRef> redirects[] = {std::nullopt, logPath.str(),
                                          logPath.str()};
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                                     /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                                     &error);
  auto log = llvm::MemoryBuffer::getFile(logPath);
  std::string report = log ? (*log)->getBuffer().str() : "";
  llvm::sys::fs::remove(logPath);
  if (rc != 0) {
    if (error.empty())
      error = "ptxas failed:\n" + report;
    return failure();
  }
  return report;
}

/// Picks "N registers", "N bytes spill stores/loads", "N bytes stack frame"
/// out of ptxas -v.
llvm::json::Object resourceReport(StringRef report) {
  llvm::json::Object out;
  auto grab = [&](StringRef pattern, StringRef key) {
    SmallVector<StringRef> match;
    if (llvm::Regex(pattern).match(report, &match)) {
      int64_t value = 0;
      if (!match[1].getAsInteger(10, value))
        out[key] = value;
    }
  };
  grab("Used ([0-9]+) registers", "registers");
  grab("([0-9]+) bytes spill stores", "spill_stores");
  grab("([0-9]+) bytes spill loads", "spill_loads");
  grab("([0-9]+) bytes stack frame", "stack_frame");
  return out;
}

/// The report of each entry function of a module's ptxas -v output (its
/// "Compiling entry function 'NAME'" section onwards): a plan of several
/// kernels records each kernel's own registers and spills.
llvm::StringMap<llvm::json::Object> entryReports(StringRef report) {
  llvm::StringMap<llvm::json::Object> out;
  StringRef marker = "Compiling entry function '";
  size_t at = report.find(marker);
  while (at != StringRef::npos) {
    size_t nameStart = at + marker.size();
    size_t nameEnd = report.find('\'', nameStart);
    if (nameEnd == StringRef::npos)
      break;
    size_t next = report.find(marker, nameEnd);
    out[report.slice(nameStart, nameEnd)] =
        resourceReport(report.slice(nameEnd, next));
    at = next;
  }
  return out;
}

struct FlashWriteBundlePass
    : flash::impl::FlashWriteBundleBase<FlashWriteBundlePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto kernels = module->getAttrOfType<ArrayAttr>("flash.kernels");
    if (!kernels) {
      mlir::emitError(module.getLoc())
          << "flash-write-bundle: no flash.kernels in the "
             "module (run flash-lower-to-nvgpu first)";
      return signalPassFailure();
    }
    LaunchPlanOptions planOptions;
    planOptions.variant = variant;
    if (llvm::Error e = parseSeqRange(seqRange, planOptions)) {
      mlir::emitError(module.getLoc())
          << "flash-write-bundle: " << llvm::toString(std::move(e));
      return signalPassFailure();
    }
    if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
      mlir::emitError(module.getLoc()) << "flash-write-bundle: cannot create '"
                                       << dir << "': " << ec.message();
      return signalPassFailure();
    }
    for (Attribute entry : kernels) {
      auto info = cast<DictionaryAttr>(entry);
      StringRef name = cast<StringAttr>(info.get("kernel")).getValue();
      StringRef arch = cast<StringAttr>(info.get("arch")).getValue();
      auto binary = module.lookupSymbol<gpu::BinaryOp>(
          (name + "_module").str());
      if (!binary) {
        mlir::emitError(module.getLoc())
            << "flash-write-bundle: no gpu.binary for kernel '" << name
            << "' (run gpu-module-to-binary with "
            << "format=isa first)";
        return signalPassFailure();
      }
      auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
      if (object.getFormat() != gpu::CompilationTarget::Assembly) {
        binary.emitError() << "flash-write-bundle: expected PTX (format=isa)";
        return signalPassFailure();
      }
      SmallString<128> ptxPath(dir);
      llvm::sys::path::append(ptxPath, name + ".ptx");
      if (failed(writeFile(ptxPath, object.getObject().getValue())))
        return signalPassFailure();

      llvm::json::Object cubins;
      llvm::StringMap<llvm::json::Object> kernelCubins;
      SmallVector<StringRef> archs;
      StringRef(cubinArchs).split(archs, ',', -1, /*KeepEmpty=*/false);
      if (archs.empty())
        archs.push_back(arch);
      for (StringRef cubinArch : archs) {
        std::string file = (name + "." + cubinArch + ".cubin").str();
        SmallString<128> cubinPath(dir);
        llvm::sys::path::append(cubinPath, file);
        std::string error;
        FailureOr<std::string> report =
            assemble(ptxas, cubinArch, ptxPath, cubinPath, error);
        if (failed(report)) {
          // By location only: attaching the op would print the whole PTX.
          mlir::emitError(binary.getLoc()) << "flash-write-bundle: " << error;
          return signalPassFailure();
        }
        llvm::json::Object cubin = resourceReport(*report);
        cubin["file"] = file;
        cubins[cubinArch] = std::move(cubin);
        for (auto &entry : entryReports(*report)) {
          llvm::json::Object own = std::move(entry.second);
          own["file"] = file;
          kernelCubins[entry.first()][cubinArch] = std::move(own);
        }
      }
      LaunchPlanOptions kernelOptions = planOptions;
      kernelOptions.ptxFile = (name + ".ptx").str();
      kernelOptions.cubins = std::move(cubins);
      for (auto &entry : kernelCubins)
        kernelOptions.kernelCubins[entry.first().str()] =
            std::move(entry.second);
      llvm::Expected<llvm::json::Object> json =
          buildLaunchPlan(info, kernelOptions);
      if (!json) {
        mlir::emitError(module.getLoc())
            << "flash-write-bundle: " << llvm::toString(json.takeError());
        return signalPassFailure();
      }
      SmallString<128> jsonPath(dir);
      llvm::sys::path::append(jsonPath, name + ".json");
      std::string text;
      llvm::raw_string_ostream os(text);
      os << llvm::formatv("{0:2}", llvm::json::Value(std::move(*json))) << "\n";
      if (failed(writeFile(jsonPath, text)))
        return signalPassFailure();
    }
  }

  LogicalResult writeFile(StringRef path, StringRef contents) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec) {
      mlir::emitError(getOperation().getLoc())
          << "flash-write-bundle: cannot write '" << path
          << "': " << ec.message();
      return failure();
    }
    os << contents;
    return success();
  }
};
} // namespace
