//===- KernelForm.h - the kernel's form, chosen before lowering -*- C++ -*-===//
//
// Between tiling and the GPU lowering sits one decision per target: the form
// of the kernel (sm_90a: persistent grid, ping-pong, rescale, first-tile
// mask, tile order, store wait, K/V range per warpgroup). Each target has one
// policy file (SM90/FormPolicy.cpp, SM80/FormPolicy.cpp) holding its measured
// `auto` rules and its "not supported yet" checks; flash-select-kernel-form
// records the choice in the #flash.kernel descriptor, and
// flash-lower-to-nvgpu builds the kernel from the descriptor alone
// (kernelConfigFromDescriptor). The option values are the dialect's enums;
// their command-line spellings are declared once, below, and shared by every
// pass and pipeline that takes them.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_FLASHTONVGPU_KERNELFORM_H
#define FLASH_CONVERSION_FLASHTONVGPU_KERNELFORM_H

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"
#include "flash/Dialect/Flash/IR/Flash.h"
#include "flash/Target/TargetModel.h"

#include "llvm/Support/CommandLine.h"

// The command-line values of the form options (`auto` lets the policy pick).
#define FLASH_TOGGLE_VALUES                                                    \
  ::llvm::cl::values(                                                          \
      clEnumValN(::mlir::flash::Toggle::Auto, "auto", "the policy decides"),   \
      clEnumValN(::mlir::flash::Toggle::Yes, "yes", "on"),                     \
      clEnumValN(::mlir::flash::Toggle::No, "no", "off"))
#define FLASH_RESCALE_VALUES                                                   \
  ::llvm::cl::values(                                                          \
      clEnumValN(::mlir::flash::Rescale::Auto, "auto", "the policy decides"),  \
      clEnumValN(::mlir::flash::Rescale::Eager, "eager", "at every new max"),  \
      clEnumValN(::mlir::flash::Rescale::Lazy, "lazy",                         \
                 "past a threshold, skip after the P.V"),                      \
      clEnumValN(::mlir::flash::Rescale::LazyLate, "lazy-late",                \
                 "past a threshold, skip before the next P.V"))
#define FLASH_FIRST_TILE_MASK_VALUES                                           \
  ::llvm::cl::values(                                                          \
      clEnumValN(::mlir::flash::FirstTileMask::Auto, "auto",                   \
                 "the policy decides"),                                        \
      clEnumValN(::mlir::flash::FirstTileMask::Always, "always",               \
                 "always masked"),                                             \
      clEnumValN(::mlir::flash::FirstTileMask::Branch, "branch",               \
                 "masked only when ragged or diagonal"))
#define FLASH_TILE_ORDER_VALUES                                                \
  ::llvm::cl::values(                                                          \
      clEnumValN(::mlir::flash::TileOrder::Auto, "auto", "the policy decides"),\
      clEnumValN(::mlir::flash::TileOrder::Head, "head", "head by head"),      \
      clEnumValN(::mlir::flash::TileOrder::Grouped, "grouped",                 \
                 "longest first across a group of heads"))
#define FLASH_STORE_WAIT_VALUES                                                \
  ::llvm::cl::values(                                                          \
      clEnumValN(::mlir::flash::StoreWait::Auto, "auto", "the policy decides"),\
      clEnumValN(::mlir::flash::StoreWait::Immediate, "immediate",             \
                 "right after the store"),                                     \
      clEnumValN(::mlir::flash::StoreWait::Deferred, "deferred",               \
                 "after the next tile's first softmax"))
#define FLASH_KV_RANGE_VALUES                                                  \
  ::llvm::cl::values(                                                          \
      clEnumValN(::mlir::flash::KVRangeMode::Auto, "auto", "the policy decides"),  \
      clEnumValN(::mlir::flash::KVRangeMode::Block, "block",                       \
                 "every warpgroup visits the block's tiles"),                  \
      clEnumValN(::mlir::flash::KVRangeMode::Warpgroup, "warpgroup",               \
                 "each warpgroup visits the tiles its rows see"))

namespace mlir {
namespace flash {

/// What the user asked of the form; `Auto` leaves a field to the policy.
struct FormChoices {
  Toggle persistent = Toggle::Auto;
  Toggle pingPong = Toggle::Auto;
  Rescale rescale = Rescale::Auto;
  FirstTileMask firstTileMask = FirstTileMask::Auto;
  TileOrder tileOrder = TileOrder::Auto;
  StoreWait storeWait = StoreWait::Auto;
  KVRangeMode kvRange = KVRangeMode::Auto;
};

/// The option spelling of a form value ("lazy-late", "warpgroup", ...).
std::string formOptionValue(Rescale r);

/// Checks `kernel` against what `target`'s GPU lowering supports and picks
/// its form: a #flash.sm90_form on sm_90a, a null attribute on sm_80 (whose
/// kernel has one form). Errors ("not supported yet: ...") are located at
/// `loc`.
FailureOr<Attribute> selectKernelForm(KernelAttr kernel,
                                      const TargetModel &target,
                                      const FormChoices &choices, Location loc);

/// The configuration the per-arch builders take, from a descriptor whose
/// form is chosen (or null on sm_80): the descriptor is the only input.
FailureOr<KernelConfig> kernelConfigFromDescriptor(KernelAttr kernel,
                                                   StringRef name,
                                                   const TargetModel &target,
                                                   Location loc);

//===----------------------------------------------------------------------===//
// Per-arch policies (one file each)
//===----------------------------------------------------------------------===//

/// sm_90a (SM90/FormPolicy.cpp): the measured `auto` rules and the checks.
FailureOr<SM90FormAttr> selectSM90Form(const KernelConfig &common,
                                       const TargetModel &target,
                                       const FormChoices &choices,
                                       Location loc);
/// sm_90a: the resources of a kernel of `form` (consumer warpgroups, shared
/// memory, setmaxnreg split), checked against the target.
FailureOr<KernelConfig> sm90ConfigFromForm(KernelConfig common,
                                           SM90FormAttr form,
                                           const TargetModel &target,
                                           Location loc);
/// sm_80 (SM80/FormPolicy.cpp): refuses sm_90a-only forms, checks tiles.
LogicalResult checkSM80Choices(const FormChoices &choices,
                               const TargetModel &target, Location loc);
FailureOr<KernelConfig> sm80ConfigFromSchedule(KernelConfig common,
                                               const TargetModel &target,
                                               Location loc);
/// sm_80, kind = backward (SM80/FormPolicy.cpp): the schedule's tiles checked
/// against the backward kernels (SM80/BackwardKernel.h).
FailureOr<KernelConfig> sm80BackwardConfigFromSchedule(KernelConfig common,
                                                       const TargetModel &target,
                                                       Location loc);

/// sm_100a (SM100/FormPolicy.cpp): refuses the other arches' form options;
/// checks the forward kernel's tiles, tensor memory and shared memory.
LogicalResult checkSM100Choices(const FormChoices &choices,
                                const TargetModel &target, Location loc);
FailureOr<KernelConfig> sm100ConfigFromSchedule(KernelConfig common,
                                                const TargetModel &target,
                                                Location loc);
/// sm_100a: the forward kernel's roles for a checked `config`
/// (SM100/ForwardKernel.cpp): 128-row Q tiles per block (block_q / 128),
/// the first warp of the TMA and of the MMA roles, and with two tiles the
/// setmaxnreg split: the softmax warpgroups' registers and those of the
/// warpgroup of the TMA and MMA warps (0, 0: no setmaxnreg).
struct SM100Roles {
  int64_t qTiles, producerWarp, mmaWarp, softmaxRegisters, otherRegisters;
  /// The correction warpgroup's first warp (two tiles: 8; one tile: none,
  /// -1) and its registers.
  int64_t correctionWarp = -1, correctionRegisters = 0;
  bool hasCorrection() const { return correctionWarp >= 0; }
};
SM100Roles sm100Roles(const KernelConfig &config);
/// The share of the softmax's exponentials the sm_100a kernel computes with
/// KernelMath::exp2Polynomial, from the target's FMA and MUFU rates: the
/// one that balances the two units' time per score.
Exp2Split sm100Exp2Split(const TargetModel &target);

/// Split-KV kernels (kinds split_kv and paged; SM80/DecodeKernel.cpp, used
/// by sm_80 and sm_90a): the row tile, the K/V tile, the pipeline depth the
/// target's shared memory allows, checked.
FailureOr<KernelConfig> decodeConfigFromDescriptor(KernelConfig common,
                                                   KernelAttr kernel,
                                                   const TargetModel &target,
                                                   Location loc);
/// A split kernel's block-table window entries (`separateMerge`: the
/// separate merge's split kernel) and its shared memory: the config's
/// sharedBytes, less the window entries it does not use.
int64_t decodeSplitTableWindow(const KernelConfig &config, bool separateMerge);
int64_t decodeSplitSharedBytes(const KernelConfig &config, bool separateMerge);

} // namespace flash
} // namespace mlir

#endif // FLASH_CONVERSION_FLASHTONVGPU_KERNELFORM_H
