//===- Passes.td - kernel bundles (launch plans) ------------*- tablegen -*-===//
//
// L2 -> L3: the compiled kernels of a module written as bundles, each with a
// launch plan (docs/launch-plan.md) that the runtime reads.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_BUNDLE_PASSES_TD
#define FLASH_BUNDLE_PASSES_TD

include "mlir/Pass/PassBase.td"

def FlashWriteBundle : Pass<"flash-write-bundle", "ModuleOp"> {
  let summary = "Write each compiled kernel as a bundle: PTX, cubin(s) and a launch plan";
  let description = [{
    After `gpu-module-to-binary` (format `isa`), writes for every kernel of
    the module attribute `flash.kernels` into `dir`:
    `<kernel>.ptx`, `<kernel>.<arch>.cubin` for each arch of `cubin-archs`
    (assembled by `ptxas -v`; its register and spill report goes into the
    plan), and `<kernel>.json`, the launch plan (docs/launch-plan.md): the
    selection keys (arch, element type, head dimensions, causal, LSE, the
    range of sequence lengths `seq-range` and the `variant` name), the
    tensors and their symbolic shapes, the constraints a call must meet,
    the workspaces, and per kernel its files, grid formula, block, dynamic
    shared memory and the arguments with what fills each. The IR is not
    changed.
  }];
  let options = [
    Option<"dir", "dir", "std::string", /*default=*/"\".\"",
           "Directory to write the bundles into (created if missing)">,
    Option<"cubinArchs", "cubin-archs", "std::string", /*default=*/"\"\"",
           "Comma-separated ptxas targets (default: the kernel's arch); e.g. "
           "sm_80,sm_90 to also run sm_80 PTX on an H100/H200">,
    Option<"ptxas", "ptxas", "std::string",
           /*default=*/"\"/usr/local/cuda/bin/ptxas\"", "ptxas to run">,
    Option<"seqRange", "seq-range", "std::string", /*default=*/"\"\"",
           "The lengths max(Nq, Nk) the runtime chooses these kernels for, "
           "as MIN:MAX or MIN: (no upper end); default every length">,
    Option<"variant", "variant", "std::string", /*default=*/"\"\"",
           "A name for a form other than the model's (e.g. a schedule "
           "override); the runtime chooses a variant only when asked for it "
           "by name, or when its key has nothing else. Default: none, the "
           "model's form">
  ];
}

#endif // FLASH_BUNDLE_PASSES_TD
