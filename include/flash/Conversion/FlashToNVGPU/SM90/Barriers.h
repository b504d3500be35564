//===- Barriers.h - sm_90a mbarrier rings ----------------------*- C++ -*-===//
//
// The mbarriers through which TMA producers and wgmma consumers hand tiles
// over. A ring of `slots` barriers (8 bytes each, consecutive) guards a ring
// of shared-memory slots: the tile at position p of a stream goes to slot
// p mod slots, and it is that slot's use number p / slots. An mbarrier's
// phase flips each time its expected arrivals (and transaction bytes) are
// complete, so use n of a slot has completed when a wait with parity
// n & 1 returns (phaseParity); a producer that refills the slot waits for
// the release of use n - 1, parity (n + 1) & 1 (releasedParity). The
// functions take explicit barrier addresses and parities; which thread
// arrives, and how often, is the caller's protocol, stated where it inits.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_FLASHTONVGPU_SM90_BARRIERS_H
#define FLASH_CONVERSION_FLASHTONVGPU_SM90_BARRIERS_H

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"

namespace mlir {
namespace flash {
namespace sm90 {

struct SharedBase;

/// Where position p of a ring stream lands: slot p mod slots, use p / slots.
struct RingSlot {
  Value slot, use;
};

/// `slots` mbarriers, 8 bytes apart from byte `offset` of the aligned base.
struct MBarrierRing {
  int64_t offset = 0;
  int64_t slots = 1;
  /// (slot, use) of stream position `position` (i32); a ring of one slot
  /// is (0, position), a power of two takes a mask and a shift.
  RingSlot slotOf(KernelMath &km, Value position) const;
  /// The barrier of `slot` (i32).
  Value address(KernelMath &km, const SharedBase &smem, Value slot) const;
  /// Waits until use `at.use` of slot `at.slot` has completed (parity
  /// use & 1): for a full ring, until the tile has landed; for an empty
  /// ring, until its consumers have released it.
  void waitComplete(KernelMath &km, const SharedBase &smem, RingSlot at) const;
  /// One arrival on the barrier of `slot`.
  void arrive(KernelMath &km, const SharedBase &smem, Value slot) const;
};

/// The parity with which a wait returns once use `use` of a slot is
/// complete: use & 1.
Value phaseParity(KernelMath &km, Value use);
/// The parity of use - 1's completion, for a producer about to refill a
/// slot whose previous use its consumers release: (use + 1) & 1.
Value releasedParity(KernelMath &km, Value use);

/// mbarrier.init with `count` expected arrivals per phase.
void mbarrierInit(KernelMath &km, Value barrier, Value count);
/// mbarrier.try_wait.parity in a loop until the phase of `parity` is done.
void mbarrierWait(KernelMath &km, Value barrier, Value parity);
/// mbarrier.arrive (one arrival), CTA scope.
void mbarrierArrive(KernelMath &km, Value barrier);
/// mbarrier.arrive with `count` arrivals at once, CTA scope.
void mbarrierArriveCount(KernelMath &km, Value barrier, Value count);
/// mbarrier.arrive.expect_tx: one arrival, and `bytes` more transaction
/// bytes (the TMA loads completing on this barrier) for this phase.
void mbarrierExpectTx(KernelMath &km, Value barrier, int64_t bytes);

/// Semaphores between blocks: i32 counters in global memory (`counter`, a
/// global pointer) that blocks increment with release and wait on with
/// acquire, at GPU scope. The caller orders any bulk (async-proxy) accesses
/// around them (fenceAsyncGlobal, TMA.h).
/// Spins (ld.acquire.gpu) until the counter is at least `target` (i32).
void semaphoreWaitAtLeast(KernelMath &km, Value counter, Value target);
/// red.release.gpu.add of 1 to the counter.
void semaphoreRelease(KernelMath &km, Value counter);
/// fence.acq_rel.gpu: the calling thread's memory operations before it
/// (its f32 reductions too) are ordered before its later ones at GPU scope.
void fenceGpu(KernelMath &km);

/// A cluster's blocks (sm_90a, `.reqnctapercluster`): the shared memory and
/// mbarriers of another block of the cluster, addressed as 32-bit
/// shared::cluster addresses (addresses of the own block's window are
/// 32-bit shared::cta addresses: SharedBase::addr32 + offset).
/// mapa: the address in block `rank` of the cluster of `shared` (this
/// block's shared::cta address).
Value clusterAddress(KernelMath &km, Value shared, Value rank);
/// `count` (1, 2 or 4) consecutive f32 at a shared::cluster address
/// (ld.shared::cluster, one vector load).
SmallVector<Value> loadClusterF32s(KernelMath &km, Value address,
                                   int64_t count);
/// st.shared::cluster.v2.f32 of (x, y) at a shared::cluster address.
void storeClusterF32x2(KernelMath &km, Value address, Value x, Value y);
/// One arrival, release at cluster scope, on the mbarrier at a
/// shared::cluster address (another block's barrier: what the calling
/// thread wrote before it, there or here, is visible to whoever waits).
void mbarrierArriveCluster(KernelMath &km, Value address);
/// mbarrier.try_wait.parity.acquire.cluster in a loop, on this block's
/// barrier at shared::cta address `barrier`: what the arrivals of another
/// block released is visible after it.
void mbarrierWaitCluster(KernelMath &km, Value barrier, Value parity);
/// barrier.cluster.arrive (release) and .wait (acquire): every thread of
/// every block of the cluster.
void clusterSync(KernelMath &km);

} // namespace sm90
} // namespace flash
} // namespace mlir

#endif // FLASH_CONVERSION_FLASHTONVGPU_SM90_BARRIERS_H
