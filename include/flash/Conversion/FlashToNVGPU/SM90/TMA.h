//===- TMA.h - sm_90a tensor-memory-accelerator tiles ----------*- C++ -*-===//
//
// Tiles move between global and shared memory as TMA boxes. The tensor maps
// (built by the runtime, passed as __grid_constant__ CUtensorMap) are rank
// 3 over (columns, rows, batch·heads), or with batch maps rank 4 over
// (columns, rows, heads, batch) (TmaHead), of 16-bit elements with 64-column
// boxes and 128-byte swizzle, so a box never reads the next head's rows
// and the TMA unit zero-fills rows past the end of a sequence on loads and
// clips them on stores. A tile of R rows × C columns is C/64 boxes of R rows × 128
// bytes, box b at byte b·R·128 of the tile: the layout wgmma descriptors
// with 128-byte swizzle read.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_FLASHTONVGPU_SM90_TMA_H
#define FLASH_CONVERSION_FLASHTONVGPU_SM90_TMA_H

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"
#include "flash/Conversion/FlashToNVGPU/SM90/Barriers.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir {
namespace flash {
namespace sm90 {

struct SharedBase;

constexpr int64_t kSwizzleBytes = 128; ///< one box row / swizzle atom row
constexpr int64_t kAtomColumns = 64;   ///< 16-bit elements per 128 bytes
constexpr int64_t kOutputBoxBytes = 64 * kSwizzleBytes; ///< 64 rows of O

/// A tile of `rows` rows × `columns` 16-bit elements of `tensorMap`.
struct TmaBox {
  Value tensorMap;
  int64_t rows = 0, columns = 0;
  int64_t boxes() const { return columns / kAtomColumns; }
  /// Bytes of the whole tile (what its loads complete on a barrier).
  int64_t bytes() const { return rows * columns * 2; }
};

/// Declares an sm_90a kernel as an llvm.func at the builder's point, after
/// the module's dynamic shared-memory window `flash_smem`: `numTensorMaps`
/// CUtensorMap arguments first (128 bytes by value, 64-byte aligned, grid
/// constants), then `params`; `threads` per block and at least
/// `minBlocksPerSM` resident. The kernels' bodies are built into it.
LLVM::LLVMFuncOp declareTensorMapKernel(OpBuilder &b, Location loc,
                                        StringRef name, unsigned numTensorMaps,
                                        ArrayRef<Type> params, int32_t threads,
                                        int32_t minBlocksPerSM);

/// The launch contract's entry for the tensor map of `tensor` (a B×H×N×D
/// tensor): rank 3 over (D, N, B·H), or with `batchMaps` rank 4 over (D, N,
/// H, B) (each dimension its own stride, so B×N×H×D views of any batch are
/// read in one launch), boxes of 64 columns × `boxRows` rows (× 1 head × 1
/// batch entry), 128-byte swizzle; the launch plan (LaunchPlan.cpp) turns it
/// into the runtime's CUtensorMap description.
DictionaryAttr describeTensorMap(Builder &b, StringRef tensor, int64_t boxRows,
                                 bool batchMaps = false);

/// The head coordinates of a TMA box: `head` = batch·H + h alone (rank-3
/// maps over (D, N, B·H)), or, with `batch` set, h and the batch entry
/// (rank-4 maps over (D, N, H, B)).
struct TmaHead {
  TmaHead(Value head, Value batch = Value()) : head(head), batch(batch) {}
  Value head, batch;
};

/// Loads `tile` at (row0, head) into shared memory at `byteOffset`, one
/// cp.async.bulk.tensor per box, each completing its bytes on `barrier`
/// (arm it with mbarrierExpectTx(tile.bytes()) first). Issued by one thread.
void tmaLoadTile(KernelMath &km, const SharedBase &smem, const TmaBox &tile,
                 Value barrier, Value byteOffset, Value row0, TmaHead head);

/// One half (K or V) of a K/V ring that a TMA producer refills: its
/// release ring (`empty`), its fill ring (`full`), its tensor map, and the
/// byte offset of its slot 0 (slot s at base + s · tile bytes).
struct RingHalf {
  const MBarrierRing &empty, &full;
  Value tensorMap;
  int64_t base;
};

/// Refills slot `stage` of each half with its rows × columns tile at (row0,
/// head), issued by one thread: when the slot is `reused` (i1), first waits
/// until its consumers have released the previous use (parity
/// `previousParity`, see releasedParity); then arms the full barrier with
/// `tileBytes` and issues the load. `afterLoad` (optional) runs after each
/// half's load, e.g. for arrivals on behalf of consumers that skip the tile.
void refillKVSlot(KernelMath &km, const SharedBase &smem,
                  ArrayRef<RingHalf> halves, int64_t rows, int64_t columns,
                  int64_t tileBytes, Value stage, Value reused,
                  Value previousParity, Value row0, TmaHead head,
                  function_ref<void(const RingHalf &)> afterLoad = {});

/// Stores box b of a tile of `columns` columns, whose shared-memory byte
/// offset `boxOffset(b)` gives, at (row0, head), one bulk tensor store per
/// box, and commits them as one bulk async-group. Issued by one thread,
/// after the writes to the boxes are fenced for the async proxy
/// (fenceAsyncShared) and the writers synchronised. With `firstColumn`
/// (i32), the tile's columns start there in the tensor (else at 0).
void tmaStoreBoxes(KernelMath &km, const SharedBase &smem, Value tensorMap,
                   int64_t columns, function_ref<Value(int64_t)> boxOffset,
                   Value row0, TmaHead head, Value firstColumn = Value());

/// Non-tensor bulk copies (cp.async.bulk): `bytes` contiguous bytes (a
/// multiple of 16, both addresses 16-byte aligned), no bounds, issued by one
/// thread each.
/// Global -> shared at `byteOffset`, completing its bytes on `barrier`
/// (counted in that phase's mbarrierExpectTx).
void bulkLoad(KernelMath &km, const SharedBase &smem, Value globalAddress,
              Value byteOffset, int64_t bytes, Value barrier);
/// global[i] += shared[i] for f32 elements (cp.reduce.async.bulk .add.f32,
/// performed atomically per element in L2), in the calling thread's bulk
/// async-group; commit it (bulkCommit) and wait for its read of shared
/// memory (tmaWaitStoresRead) before reusing the source.
void bulkReduceAddF32(KernelMath &km, Value globalAddress, Value sharedAddress,
                      int64_t bytes);
/// The same with a run-time size (i32, a multiple of 16).
void bulkReduceAddF32(KernelMath &km, Value globalAddress, Value sharedAddress,
                      Value bytes);
/// cp.async.bulk.commit_group: the calling thread's issued bulk stores and
/// reductions become one group.
void bulkCommit(KernelMath &km);

/// fence.proxy.async.shared::cta: this thread's generic-proxy writes to
/// shared memory become visible to the async proxy (TMA).
void fenceAsyncShared(KernelMath &km);

/// cp.async.bulk.wait_group.read 0: the calling thread's committed bulk
/// stores have read their shared-memory sources (which may then be reused).
void tmaWaitStoresRead(KernelMath &km);
/// cp.async.bulk.wait_group.read `pending`: all but the `pending` most
/// recently committed bulk groups of the calling thread have read their
/// shared-memory sources.
void bulkWaitRead(KernelMath &km, int64_t pending);

/// cp.async.bulk.wait_group 0: the calling thread's committed bulk stores
/// and reductions are complete (their writes to global memory performed),
/// not only read from shared memory.
void bulkWaitComplete(KernelMath &km);

/// fence.proxy.async.global: orders this thread's generic-proxy accesses to
/// global memory with its async-proxy ones (bulk copies and reductions), in
/// both directions: completed bulk writes before a generic release, a
/// generic acquire before later bulk reductions.
void fenceAsyncGlobal(KernelMath &km);

} // namespace sm90
} // namespace flash
} // namespace mlir

#endif // FLASH_CONVERSION_FLASHTONVGPU_SM90_TMA_H
