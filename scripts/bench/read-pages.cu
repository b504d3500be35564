// read-pages.cu: the read floor of one decode_bench row (--read-floor): a
// pure read of the row's K and V, through its block table (paged) or from
// the contiguous cache, with nothing computed. python/flash_mlir/tools/
// read_pages.ptx is this file compiled to PTX; regenerate it with the
// command below after any change here.
//
//   nvcc -ptx -arch=sm_80 -O3 -o python/flash_mlir/tools/read_pages.ptx \
//     scripts/bench/read-pages.cu
//
// The row's keys are cut into *items*: S rows of one (sequence, kv-head),
// those of one page when paged. The host lists every item's byte offset in
// the cache (item_base, int64, items in (b, h, page) order, so that a block
// reads one head's pages in key order, as a decode block does); K's and
// V's items lie at the same offsets of their caches. Block x reads items
// [x·per_block, (x + 1)·per_block): each of its 512 threads takes 16-byte
// words threadIdx.x + 512·k of an item's 2·S rows (K's rows, then V's; the
// row of word w is w / row_words, its rows row_stride words apart), 4
// loads in flight (ld.global.nc.L1::no_allocate, as read-ceiling.cu).
// Sizes are powers of two (the launch's log2 arguments): an item's words
// of one tensor 2^tensor_log2 ≥ 256 (S · D · 2 bytes ≥ 4 KiB), so that the
// 512 threads take 2^k_log2 words each of every item.
#include <cstdint>

#include "read-ceiling.cu"

extern "C" __global__ void __launch_bounds__(512)
    read_pages(const uint4 *k, const uint4 *v, const long long *item_base,
               unsigned long long items, unsigned long long per_block,
               unsigned k_log2, unsigned tensor_log2, unsigned row_log2,
               unsigned long long row_stride, unsigned *sink) {
  const unsigned long long first = (unsigned long long)blockIdx.x * per_block;
  const unsigned long long last =
      first + per_block < items ? first + per_block : items;
  if (first >= last)
    return;
  const unsigned long long slots = (last - first) << k_log2;
  unsigned acc = 0;
  for (unsigned long long s = 0; s < slots; s += 4) {
    uint4 w[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const unsigned long long slot = s + u;
      if (slot < slots) {
        const unsigned long long item = first + (slot >> k_log2);
        const unsigned word =
            threadIdx.x + 512u * (unsigned)(slot & ((1ull << k_log2) - 1));
        const unsigned tensor = word >> tensor_log2;
        const unsigned inTensor = word & ((1u << tensor_log2) - 1);
        const unsigned long long row = inTensor >> row_log2;
        const unsigned column = inTensor & ((1u << row_log2) - 1);
        const uint4 *base = (tensor ? v : k) + item_base[item] / 16;
        w[u] = loadStreaming(base + row * row_stride + column);
      } else {
        w[u] = make_uint4(0, 0, 0, 0);
      }
    }
#pragma unroll
    for (int u = 0; u < 4; ++u)
      acc ^= w[u].x ^ w[u].y ^ w[u].z ^ w[u].w;
  }
  if (acc == 0x9e3779b9u)
    sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
