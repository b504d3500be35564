//===- Warpgroups.h - sm_90a warpgroup roles and named barriers -*- C++ -*-===//
//
// Warp specialisation on sm_90a: a block of 128-thread warpgroups, one
// producer (TMA) and consumers (wgmma), moves registers from the producer
// to the consumers with setmaxnreg, and orders the consumers' GEMM issues
// with named barriers (ping-pong). Named barrier 0 is __syncthreads; ids
// 1..15 are free for these protocols, each used by a fixed set of threads.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_FLASHTONVGPU_SM90_WARPGROUPS_H
#define FLASH_CONVERSION_FLASHTONVGPU_SM90_WARPGROUPS_H

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"

namespace mlir {
namespace flash {
namespace sm90 {

/// The launch contract's fields of a warp-specialised kernel of `config`:
/// consumer_warpgroups, producer_registers and consumer_registers.
SmallVector<NamedAttribute> describeWarpgroups(Builder &b,
                                               const KernelConfig &config);

/// The warp-specialised body: warpgroup 0 (threads 0..127 of `tid`) builds
/// `producer`, the other warpgroups `consumers`, as the two branches of one
/// scf.if at the builder's point.
void buildRoles(KernelMath &km, Value tid, function_ref<void()> producer,
                function_ref<void()> consumers);

/// setmaxnreg.{inc,dec}: every thread of the warpgroup runs it; the counts
/// of all warpgroups must fit the block's register allocation.
void setRegisterBudget(KernelMath &km, int64_t registers, bool increase);

/// bar.sync on named barrier `index + firstId` for `threads` threads.
void namedBarrierSync(KernelMath &km, Value index, int64_t firstId,
                      int64_t threads);
/// bar.arrive on named barrier `index + firstId` for `threads` threads.
void namedBarrierArrive(KernelMath &km, Value index, int64_t firstId,
                        int64_t threads);

/// Ping-pong between `consumers` consumer warpgroups: consumer c waits for
/// its turn on named barrier 1 + c (bar.sync, 256 threads: its own 128 and
/// the 128 of the one that hands over) before issuing GEMMs, and hands the
/// turn to consumer c + 1 (mod consumers) after them (bar.arrive on
/// 1 + next). Every consumer must take the same number of turns. Without
/// `enabled`, every call emits nothing.
struct PingPong {
  bool enabled = false;
  Value consumer; ///< this thread's consumer index, 0..consumers-1
  int64_t consumers = 1;
  /// Consumer 0 takes the first turn: the last consumer hands it over.
  void start(KernelMath &km) const;
  void beginTurn(KernelMath &km) const;
  void endTurn(KernelMath &km) const;
};

} // namespace sm90
} // namespace flash
} // namespace mlir

#endif // FLASH_CONVERSION_FLASHTONVGPU_SM90_WARPGROUPS_H
