// bulk-copy.cuh: the 1-D bulk copy (cp.async.bulk, the TMA's copy without a
// tensor map) into shared memory and the mbarrier it completes on, as the
// by-hand read yardsticks (read-floor.cu, combine-floor.cu) use them.
#ifndef FLASH_BENCH_BULK_COPY_CUH
#define FLASH_BENCH_BULK_COPY_CUH

__device__ __forceinline__ unsigned sharedAddress(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}

// Initialises `count` mbarriers of one arrival each (thread 0 of a block),
// fenced for the async proxy.
__device__ __forceinline__ void initBarriers(unsigned long long *bars,
                                             int count) {
  for (int s = 0; s < count; ++s)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(
        sharedAddress(&bars[s])));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// Arms barrier `bar` (one arrival) for `bytes` more bytes of copies.
__device__ __forceinline__ void expectBytes(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                   bar),
               "r"(bytes)
               : "memory");
}

// Copies `bytes` from `src` to `dst`, completing them on barrier `bar`.
__device__ __forceinline__ void bulkCopy(void *dst, const void *src,
                                         unsigned bytes, unsigned bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::"
               "bytes [%0], [%1], %2, [%3];" ::"r"(sharedAddress(dst)),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}

// Waits until barrier `bar` completes phase `phase`.
__device__ __forceinline__ void waitBarrier(unsigned bar, unsigned phase) {
  unsigned done = 0;
  while (!done)
    asm volatile("{ .reg .pred q; mbarrier.try_wait.parity.shared::cta.b64 "
                 "q, [%1], %2; selp.u32 %0, 1, 0, q; }"
                 : "=r"(done)
                 : "r"(bar), "r"(phase)
                 : "memory");
}

#endif // FLASH_BENCH_BULK_COPY_CUH
