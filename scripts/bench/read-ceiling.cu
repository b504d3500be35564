// read-ceiling.cu: the kernel decode_bench times to measure the GPU's read
// ceiling (python/flash_mlir/tools/read_ceiling.ptx is this file compiled to
// PTX; regenerate it with the command below after any change here).
//
//   nvcc -ptx -arch=sm_80 -O3 -o python/flash_mlir/tools/read_ceiling.ptx \
//     scripts/bench/read-ceiling.cu
//
// Every thread keeps 4 independent 16-byte loads in flight
// (ld.global.nc.L1::no_allocate) over one contiguous chunk a block; launched
// with 512 threads and 4 blocks an SM. It is read-floor.cu's `ld t512 u4 b4`
// configuration: on the H200 4.68 TB/s over 4 GiB (the best of its sweep,
// a cp.async.bulk read, 4.72; torch's sum over the same bytes 4.26;
// docs/benchmarks.md, twenty-sixth session). PTX for sm_80, so that the
// driver JIT-compiles it for any GPU the decode plans run on. read-floor.cu
// includes this file for loadStreaming.
#include <cstdint>

__device__ __forceinline__ uint4 loadStreaming(const uint4 *p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

/// Reads chunk16 16-byte words from data + blockIdx.x · chunk16; writes
/// nothing unless the words' XOR is a fixed unlikely value (so the loads
/// stay).
extern "C" __global__ void __launch_bounds__(512)
    read_ceiling(const uint4 *data, unsigned long long chunk16,
                 unsigned *sink) {
  const uint4 *p = data + (unsigned long long)blockIdx.x * chunk16;
  unsigned acc = 0;
  const unsigned long long step = (unsigned long long)blockDim.x * 4;
  for (unsigned long long i = threadIdx.x; i < chunk16; i += step) {
    uint4 v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      unsigned long long j = i + (unsigned long long)u * blockDim.x;
      v[u] = j < chunk16 ? loadStreaming(p + j) : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < 4; ++u)
      acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  if (acc == 0x9e3779b9u)
    sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
