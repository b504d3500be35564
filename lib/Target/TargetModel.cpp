//===- TargetModel.cpp - Hardware models of the GPUs we target ------------===//
//
// The numbers behind schedule selection and the IO report. Sources:
// - NVIDIA CUDA C++ Programming Guide, "Compute Capabilities" tables
//   (shared memory per SM / per block, registers, threads) for 8.0, 9.0, 10.0.
// - PTX ISA 8.x/9.0: mma.sync m16n8k16, wgmma.mma_async m64nNk16 (N ≤ 256),
//   tcgen05.mma m128nNk16 (N ≤ 256) and tensor memory (128 lanes × 512
//   columns of 32 bits per SM); cp.async moves at most 16 bytes per thread.
// - Datasheets: A100 SXM4 80GB (108 SMs, 2.039 TB/s, 312 TFLOP/s dense
//   bf16), H100 SXM5 (132 SMs, 3.35 TB/s, 989 TFLOP/s; the H200 we measure on
//   has the same SMs and 4.8 TB/s), B200 (148 SMs, 8 TB/s, 2.25 PFLOP/s dense
//   bf16). Peak rates are leads; docs/benchmarks.md has measured ceilings.
//   L2: 40 MB (A100) and 50 MB (H100, H200) from the datasheets; the B200's
//   126 MB as Chips and Cheese measured it ("Nvidia's B200: Keeping the CUDA
//   Juggernaut Rolling").
// - CUDA C++ Programming Guide, "Arithmetic Instructions" throughput table:
//   32-bit floating-point add/multiply/multiply-add per clock per SM (64 on
//   8.0, 128 on 9.0 and 10.0) and base-2 exponential (16 on all three).
//
//===----------------------------------------------------------------------===//

#include "flash/Target/TargetModel.h"

#include "llvm/ADT/Twine.h"

using namespace mlir;
using namespace mlir::flash;

static const TargetModel kSM80 = {
    /*arch=*/"sm_80",
    /*exampleChip=*/"A100 SXM4 80GB",
    /*numSMs=*/108,
    /*sharedMemPerSM=*/164 * 1024,
    /*sharedMemPerBlock=*/163 * 1024,
    /*registersPerSM=*/65536,
    /*maxRegistersPerThread=*/255,
    /*maxThreadsPerBlock=*/1024,
    /*tensorMemoryColumns=*/0,
    /*mmaKind=*/MmaKind::WarpMma,
    /*mmaShape=*/{16, 8, 16},
    /*asyncCopyBytes=*/16,
    /*hbmBytesPerSecond=*/2.039e12,
    /*l2Bytes=*/40 << 20,
    /*bf16FlopsPerSecond=*/312e12,
    /*pairWorkWeight=*/0.0,
    /*softmaxPairWeight=*/0.0,
    /*tileGroupBytes=*/0,
    /*fmaPerClock=*/64,
    /*exp2PerClock=*/16,
};

static const TargetModel kSM90a = {
    /*arch=*/"sm_90a",
    /*exampleChip=*/"H100/H200 SXM",
    /*numSMs=*/132,
    /*sharedMemPerSM=*/228 * 1024,
    /*sharedMemPerBlock=*/227 * 1024,
    /*registersPerSM=*/65536,
    /*maxRegistersPerThread=*/255,
    /*maxThreadsPerBlock=*/1024,
    /*tensorMemoryColumns=*/0,
    /*mmaKind=*/MmaKind::WarpgroupMma,
    /*mmaShape=*/{64, 256, 16},
    /*asyncCopyBytes=*/16,
    /*hbmBytesPerSecond=*/4.8e12,
    /*l2Bytes=*/50 << 20,
    /*bf16FlopsPerSecond=*/989e12,
    // Fitted on the H200 (docs/benchmarks.md, fifth session, step 6):
    // w = 1/2500 makes 128×80 1.025× 128×64 at D = 256 and long N (measured
    // 1.03×; the harmonic form alone says 1.15×), so that 128×64 wins where
    // 128×80's ragged and diagonal tiles waste more (N = 512; causal up to
    // 2048), as measured; u = 0.02 keeps three consumers (192×128) at D = 64
    // from N = 512 non-causal and N = 2048 causal, and takes 192×80 for
    // non-causal D = 128 from N = 8192, where each measured faster.
    /*pairWorkWeight=*/1.0 / 2500.0,
    /*softmaxPairWeight=*/0.02,
    // A third of the 50 MB L2, fitted on the H200 (docs/benchmarks.md, sixth
    // session): 16 MiB measured faster than 8 and 32 MiB on most causal rows
    // with N >= 2048.
    /*tileGroupBytes=*/16 << 20,
    /*fmaPerClock=*/128,
    /*exp2PerClock=*/16,
};

static const TargetModel kSM100a = {
    /*arch=*/"sm_100a",
    /*exampleChip=*/"B200",
    /*numSMs=*/148,
    /*sharedMemPerSM=*/228 * 1024,
    /*sharedMemPerBlock=*/227 * 1024,
    /*registersPerSM=*/65536,
    /*maxRegistersPerThread=*/255,
    /*maxThreadsPerBlock=*/1024,
    /*tensorMemoryColumns=*/512,
    /*mmaKind=*/MmaKind::TensorMemoryMma,
    /*mmaShape=*/{128, 256, 16},
    /*asyncCopyBytes=*/16,
    /*hbmBytesPerSecond=*/8.0e12,
    /*l2Bytes=*/126 << 20,
    /*bf16FlopsPerSecond=*/2250e12,
    /*pairWorkWeight=*/0.0,
    /*softmaxPairWeight=*/0.0,
    /*tileGroupBytes=*/0,
    /*fmaPerClock=*/128,
    /*exp2PerClock=*/16,
};

const TargetModel *mlir::flash::lookupTargetModel(llvm::StringRef arch) {
  for (const TargetModel *model : {&kSM80, &kSM90a, &kSM100a})
    if (model->arch == arch)
      return model;
  return nullptr;
}

std::optional<TargetModel>
mlir::flash::lookupTargetModel(llvm::StringRef arch,
                               int64_t sharedMemPerBlock) {
  const TargetModel *model = lookupTargetModel(arch);
  if (!model || sharedMemPerBlock < 0 ||
      sharedMemPerBlock > kMaxSharedMemPerBlockOptIn)
    return std::nullopt;
  TargetModel copy = *model;
  if (sharedMemPerBlock > 0)
    copy.sharedMemPerBlock = sharedMemPerBlock;
  return copy;
}

std::string mlir::flash::sharedMemoryBudgetError(llvm::StringRef pass,
                                                 int64_t bytes) {
  return (pass + ": shared-memory-per-block must be 0 (the target model's) "
                 "or at most " +
          llvm::Twine(kMaxSharedMemPerBlockOptIn) + " bytes, got " +
          llvm::Twine(bytes))
      .str();
}

llvm::ArrayRef<llvm::StringRef> mlir::flash::knownArchs() {
  static const llvm::StringRef names[] = {"sm_80", "sm_90a", "sm_100a"};
  return names;
}
