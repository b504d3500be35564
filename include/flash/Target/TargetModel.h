//===- TargetModel.h - Hardware models of the GPUs we target ---*- C++ -*-===//
//
// One small table per architecture: the numbers the IO-aware schedule
// selection and the IO report reason with (on-chip memory, registers, SM
// count, tensor-core shapes, copy granularity, bandwidth and peak rates).
// Sources are listed next to each table in TargetModel.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_TARGET_TARGETMODEL_H
#define FLASH_TARGET_TARGETMODEL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
namespace flash {

/// How a target's tensor cores are driven; it decides how warps own rows.
enum class MmaKind {
  /// mma.sync: one warp computes m16n8k16 fragments (sm_80).
  WarpMma,
  /// wgmma: a warpgroup of four warps computes m64nNk16 (sm_90a).
  WarpgroupMma,
  /// tcgen05.mma: one thread issues m128nNk16 into tensor memory (sm_100a).
  TensorMemoryMma,
};

struct MmaShape {
  int64_t m, n, k;
};

struct TargetModel {
  llvm::StringRef arch;          ///< "sm_80", "sm_90a", "sm_100a"
  llvm::StringRef exampleChip;   ///< the part the numbers describe
  int64_t numSMs;                ///< streaming multiprocessors
  int64_t sharedMemPerSM;        ///< bytes of shared memory per SM
  int64_t sharedMemPerBlock;     ///< bytes one block may opt in to
  int64_t registersPerSM;        ///< 32-bit registers per SM
  int64_t maxRegistersPerThread; ///< architectural cap
  int64_t maxThreadsPerBlock;
  int64_t tensorMemoryColumns;   ///< 32-bit columns of TMEM (128 lanes); 0 if none
  MmaKind mmaKind;
  MmaShape mmaShape;             ///< bf16/f16 MMA instruction shape (n: max)
  int64_t asyncCopyBytes;        ///< granularity of one async copy (cp.async / TMA box row)
  double hbmBytesPerSecond;      ///< peak HBM bandwidth of exampleChip
  int64_t l2Bytes;               ///< L2 cache of exampleChip
  double bf16FlopsPerSecond;     ///< dense bf16 tensor-core peak of exampleChip
  /// Schedule objective (Schedule.cpp): the time of one computed (query,
  /// key) pair is taken as  w·(D + Dv)/2 + u/C + 1/Br + 1/Bc:  the MMA work,
  /// which grows with the head dimension; the softmax's share that the other
  /// consumer warpgroups' GEMMs do not hide, which falls with their number C
  /// (Br/64 on wgmma targets); and the fixed costs of a K/V step (barriers,
  /// row reductions, rescale) spread over the tile's rows and columns. w and
  /// u are fitted on measurements; both 0 where none were made, which leaves
  /// the harmonic Br·Bc/(Br + Bc) alone.
  double pairWorkWeight;
  double softmaxPairWeight;
  /// Causal Q tiles go out longest first across a group of heads whose K/V
  /// take at most this many bytes, so that they stay in L2 between the
  /// group's passes (the `tile-order` option); fitted where measured, 0
  /// (head by head) elsewhere.
  int64_t tileGroupBytes;
  /// Per SM and clock: f32 fused multiply-adds (the FMA units) and base-2
  /// exponentials (ex2, the MUFU). Where the MUFU is the softmax's
  /// bottleneck, a share of P's exponentials moves to a polynomial on the
  /// FMA units (sm100Exp2Split, SM100/FormPolicy.cpp).
  int64_t fmaPerClock;
  int64_t exp2PerClock;
};

/// The model for `arch`, or nullptr if the name is unknown.
const TargetModel *lookupTargetModel(llvm::StringRef arch);

/// The most shared memory one block can opt in to on any device we target
/// (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: 227 KB on
/// H100/H200 and B200; an A100 has 163 KB).
constexpr int64_t kMaxSharedMemPerBlockOptIn = 227 * 1024;

/// `arch`'s model for devices on which one block may opt in to
/// `sharedMemPerBlock` bytes of shared memory (0: the model's own, e.g. an
/// A100's 163 KB for sm_80): the budget of the passes' option
/// `shared-memory-per-block`, so that one arch can have plans for devices
/// with more (an sm_80 plan for the H100/H200's 227 KB, which runs there
/// through its sm_90 cubin) beside the model's. nullopt for an unknown arch
/// or a budget outside [0, kMaxSharedMemPerBlockOptIn].
std::optional<TargetModel> lookupTargetModel(llvm::StringRef arch,
                                             int64_t sharedMemPerBlock);

/// The diagnostic of the passes whose option `shared-memory-per-block` is out
/// of lookupTargetModel's range: "<pass>: shared-memory-per-block must be 0
/// (the target model's) or at most <kMaxSharedMemPerBlockOptIn> bytes, got
/// <bytes>" (one text for flash-select-schedule, flash-select-kernel-form and
/// flash-lower-to-nvgpu).
std::string sharedMemoryBudgetError(llvm::StringRef pass, int64_t bytes);

/// Names accepted by lookupTargetModel, for diagnostics.
llvm::ArrayRef<llvm::StringRef> knownArchs();

} // namespace flash
} // namespace mlir

#endif // FLASH_TARGET_TARGETMODEL_H
