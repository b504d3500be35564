// Prototype (nineteenth session, helper H4, issue 17 item 5): a separate merge
// kernel for the split-KV decode kernel's partials. Timing/bounding only; not
// shipped, not part of the compiler. Written for this repository (no upstream
// code).
//
// Partials as main's split kernel (SM80/DecodeKernel.cpp) writes them when a
// sequence has >= 2 parts:
//   partial_o  [part][row][Dv] f32, normalised O of the part
//   partial_lse[part][row]     f32, natural-log LSE (-inf: the part saw no key)
// with row = (b*Hq + h)*Nq + q and allRows = B*Hq*Nq. A sequence of one part
// has its O written by the split kernel: the merge leaves it alone.
//
// Grid: (allRows, Dv / sliceCols). A block merges the columns
// [slice*sliceCols, +sliceCols) of one row: lanes = sliceCols/4 threads cover
// the slice with float4 loads, blockDim.x/lanes groups of threads take the
// parts round robin; then a block reduction. The part count is recomputed on
// the device from the length (splitKVCount of Target/SplitKV.h), so a graph
// replays correctly when lengths change (paged form: seq_lens).
//
// griddepcontrol.wait first: under programmatic dependent launch the block
// may start while the split kernel still runs; the wait returns once the
// primary grid has completed and its memory is visible (a no-op without PDL).
#include <cuda_bf16.h>
#include <math_constants.h>

namespace {
constexpr int kDv = 128;

__device__ int splitCount(int numTiles, int workUnits, int sms, int maxSplits) {
  // Target/SplitKV.h splitKVCount with kSplitKVTargetBlocksPerSM = 2,
  // kSplitKVMinTilesPerSplit = 4, whole = 15/16.
  int wanted = 2 * sms / workUnits;
  int byLength = max(numTiles / 4, 1);
  int parts = max(min(min(wanted, byLength), maxSplits), 1);
  int cut = min(max(15 * sms - 16 * workUnits, 0), 1);
  parts = max(parts * cut, 1);
  int tilesPerSplit = max((numTiles + parts - 1) / parts, 1);
  return (numTiles + tilesPerSplit - 1) / tilesPerSplit;
}
} // namespace

extern "C" __global__ void __launch_bounds__(256)
flash_decode_merge_d128(const float *__restrict__ partialO,
                        const float *__restrict__ partialLse,
                        __nv_bfloat16 *__restrict__ o,
                        const int *__restrict__ seqLens, int B, int Hq,
                        int Hkv, int Nq, int Nk, int sms, int maxSplits,
                        int sliceCols, int plant) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  const int row = blockIdx.x;
  const int allRows = B * Hq * Nq;
  const int b = row / (Hq * Nq);
  const int length = seqLens ? seqLens[b] : Nk;
  const int numTiles = (length + 63) / 64;
  const int rowTiles = ((Hq * Nq + Hkv - 1) / Hkv + 15) / 16;
  int parts = splitCount(numTiles, B * Hkv * rowTiles, sms, maxSplits);
  if (parts < 2)
    return;
  if (plant) // PLANTED BUG (the check must fail): the last part is dropped
    parts -= 1;

  __shared__ float warpMax[8];
  __shared__ float4 sums[256];
  __shared__ float weights[256];
  const int t = threadIdx.x;
  // The maximum LSE over the parts.
  float m = -CUDART_INF_F;
  for (int p = t; p < parts; p += blockDim.x)
    m = fmaxf(m, __ldcg(partialLse + (size_t)p * allRows + row));
  for (int s = 16; s > 0; s >>= 1)
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, s));
  if ((t & 31) == 0)
    warpMax[t >> 5] = m;
  __syncthreads();
  m = warpMax[0];
  for (int w = 1; w < (int)(blockDim.x >> 5); ++w)
    m = fmaxf(m, warpMax[w]);

  const int lanes = sliceCols / 4;
  const int groups = blockDim.x / lanes;
  const int lane = t % lanes, group = t / lanes;
  const int column = blockIdx.y * sliceCols + lane * 4;
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  float wsum = 0.f;
  if (m != -CUDART_INF_F) {
    const float ln2e = 1.4426950408889634f;
#pragma unroll 4
    for (int p = group; p < parts; p += groups) {
      float lse = __ldcg(partialLse + (size_t)p * allRows + row);
      float4 v = __ldcg(reinterpret_cast<const float4 *>(
          partialO + ((size_t)p * allRows + row) * kDv + column));
      float w = exp2f((lse - m) * ln2e); // exp(-inf) = 0
      acc.x = fmaf(w, v.x, acc.x);
      acc.y = fmaf(w, v.y, acc.y);
      acc.z = fmaf(w, v.z, acc.z);
      acc.w = fmaf(w, v.w, acc.w);
      wsum += w;
    }
  }
  sums[t] = acc;
  weights[t] = wsum;
  __syncthreads();
  if (group != 0)
    return;
  for (int g = 1; g < groups; ++g) {
    float4 a = sums[g * lanes + lane];
    acc.x += a.x; acc.y += a.y; acc.z += a.z; acc.w += a.w;
    wsum += weights[g * lanes + lane];
  }
  const float inv = wsum > 0.f ? 1.f / wsum : 0.f;
  __nv_bfloat162 lo = __floats2bfloat162_rn(acc.x * inv, acc.y * inv);
  __nv_bfloat162 hi = __floats2bfloat162_rn(acc.z * inv, acc.w * inv);
  uint2 packed;
  packed.x = *reinterpret_cast<unsigned *>(&lo);
  packed.y = *reinterpret_cast<unsigned *>(&hi);
  *reinterpret_cast<uint2 *>(o + (size_t)row * kDv + column) = packed;
}
