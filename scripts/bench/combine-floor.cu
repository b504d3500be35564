// combine-floor.cu: floors for a split-KV decode call of one work unit on
// this GPU, in the shapes below: a pure read of the call's K/V bytes by many
// blocks, then the step that makes one result depend on every block's reads
// (the handoff no exact split-KV call can skip). Nothing here is FlashMLIR's
// code and nothing is computed; it is a
// yardstick for issue 17's "90% of the read ceiling on the long rows" at
// GQA 8/1 B = 1 (one kv-head, one sequence: one work unit, so its keys must
// be cut across SMs and the parts combined).
//
// Build (build machine; cudart linked statically, the binary runs on the GPU
// machine as is):
//   nvcc -O3 -std=c++17 -arch=sm_90a -o combine-floor scripts/bench/combine-floor.cu
// Run (GPU machine):
//   ./combine-floor [--rounds 5] [--json FILE]
//
// Timed as decode_bench and read-floor.cu time calls: the median per call of
// CUDA-graph replays of 20 back-to-back calls, every case once a round,
// rounds interleaved. Warm (the calls read the same bytes, as decode_bench's
// default) and cold (they cycle through copies spanning 2.5x the L2).
//
// Sizes: K + V of GQA 8/1 B = 1 at L = 8k, 32k and 128k (D = 128, bf16).
// The cases, each the best of its (blocks, unroll) where those vary:
// - ld read: `blocks` (128, SMs, 2·SMs, 4·SMs) equal contiguous chunks by
//   16-byte ld.global.nc loads, U (4, 8) in flight a thread, 512 threads a
//   block (the read-ceiling kernel's loads), then by mode:
//   - read: nothing more (read-floor.cu's ld kernel);
//   - last: every block writes one 4-byte word of partials (the least any
//     combine needs), a release fence, an atomic on a counter; the block
//     that counts last reads them all and writes the result (the fused
//     merge's shape; a part's 4 KB would make one block read 0.5 MB, which
//     FlashMLIR's fused merge does in two levels: not timed here);
//   - pdl: every block writes its partials (1 word, or 1024: a GQA 8/1
//     part's f32 O, 8 rows of D = 128) and exits, having executed
//     griddepcontrol.launch_dependents after its loads; a second kernel,
//     launched with programmatic dependent launch, executes
//     griddepcontrol.wait and reads them (1 word: one block; more: 32
//     blocks of 128 threads, each a slice of one of the 8 rows over every
//     part, 8 parts' 16-byte loads in flight: the separate merge's shape).
// - cp.async / bulk: the decode block's stream without its math, 128 blocks
//   of 128 threads (one an SM: the parts of a one-work-unit call on
//   sm_90a), a ring of 3, 4 or 6 stages of 32 KiB (a 64-key K and V tile),
//   filled by 16-byte cp.async (16 a thread a tile) or by two 16 KiB
//   cp.async.bulk copies and an mbarrier a stage; cp.async issue-first
//   (tile t waited on with `stages` groups in flight) or in the split-KV
//   kernels' order ("decode order": wait with stages - 2 later groups in
//   flight, one barrier, issue, use). With 3 stages also the decode shape's
//   frame: the length first, and partials of 1, 256, 512 or 1024 words a
//   block with the pdl merge; parts of 2 and 4 tiles (fewer blocks); at
//   L = 128k 64 or 96 blocks with 4 or 6 stages (fewer, longer parts); and
//   clusters of 2, 4 or 8 blocks that reduce their 1024-word partials
//   through distributed shared memory first, so that the merge reads 128 / C
//   partials (in 96 KiB of shared memory a block, or in 128 KiB so that no
//   SM holds two blocks).
// "len": a block first loads the sequence length and derives its chunk from
// it (one dependent load before the read, as every paged decode block reads
// seq_lens before its K/V; the contiguous op's length is an argument).
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "graph-timing.cuh"

#include "bulk-copy.cuh"
#include "read-ceiling.cu"

namespace cg = cooperative_groups;

enum Mode {
  kRead = 0,
  kLast = 1,
  kPdl = 2,
  kAsync = 3,
  kBulk = 4,
  kCluster = 5
};

// The chunk of 16-byte words block `blockIdx.x` reads: `chunk16` words, or
// with `lens`, the length's share (lens[0] words over gridDim.x blocks).
__device__ __forceinline__ unsigned long long
chunkWords(unsigned long long chunk16, const unsigned long long *lens) {
  return lens ? __ldcg(lens) / gridDim.x : chunk16;
}

template <int U>
__device__ __forceinline__ unsigned readChunk(const uint4 *data,
                                              unsigned long long chunk16) {
  const uint4 *p = data + (unsigned long long)blockIdx.x * chunk16;
  unsigned acc = 0;
  const unsigned long long step = (unsigned long long)blockDim.x * U;
  for (unsigned long long i = threadIdx.x; i < chunk16; i += step) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      unsigned long long j = i + (unsigned long long)u * blockDim.x;
      v[u] = j < chunk16 ? loadStreaming(p + j) : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
      acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  return acc;
}

// Block-wide xor of every thread's `acc` (every thread gets it).
__device__ __forceinline__ unsigned blockXor(unsigned acc) {
  __shared__ unsigned warps[32];
  for (int o = 16; o > 0; o >>= 1)
    acc ^= __shfl_xor_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0)
    warps[threadIdx.x >> 5] = acc;
  __syncthreads();
  unsigned all = 0;
  for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w)
    all ^= warps[w];
  return all;
}

template <int U, int M>
__global__ void __launch_bounds__(512)
    splitRead(const uint4 *data, unsigned long long chunk16,
              const unsigned long long *lens, unsigned *partials, int words,
              unsigned *counter, unsigned *out) {
  const unsigned acc = readChunk<U>(data, chunkWords(chunk16, lens));
  if (M == kRead) {
    if (acc == 0x9e3779b9u) // never in practice; keeps the loads
      out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    return;
  }
  if (M == kPdl)
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  const unsigned part = blockXor(acc);
  for (int w = threadIdx.x; w < words; w += blockDim.x)
    partials[(size_t)blockIdx.x * words + w] = part + w;
  if (M == kPdl)
    return;
  __shared__ unsigned isLast;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    isLast = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!isLast)
    return;
  __threadfence();
  unsigned x = 0;
  const int total = gridDim.x * words;
  for (int w = threadIdx.x; w < total; w += blockDim.x)
    x ^= __ldcg(partials + w);
  x = blockXor(x);
  if (threadIdx.x == 0) {
    out[0] = x;
    *counter = 0;
  }
}

// The dependent merge: words == 1, one block reads `parts` words; else
// (words 256, 512 or 1024) block (row r = blockIdx.x / 4, slice c =
// blockIdx.x % 4) of 128 threads reads slice c of row r of every part
// (words = 1024: 16 groups of 8 threads, a thread 4 columns (16 bytes) of
// every 16th part), 8 parts' loads in flight.
__global__ void __launch_bounds__(128)
    mergeAfter(const unsigned *partials, int words, int parts,
               unsigned *out) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  unsigned x = 0;
  if (words == 1) {
    for (int p = threadIdx.x; p < parts; p += blockDim.x)
      x ^= __ldcg(partials + p);
  } else {
    // A part's words are 8 rows of words / 8; block (row, slice) reads
    // words / 32 of a row, 4 words (16 bytes) a thread, `lanes` threads a
    // part, groups of them taking every `groups`-th part.
    const int row = blockIdx.x / 4, slice = blockIdx.x % 4;
    const int lanes = words / 128, groups = 128 / lanes;
    const int group = threadIdx.x / lanes, lane = threadIdx.x % lanes;
    const int column = slice * (words / 32) + lane * 4;
    // Batches of 8 parts' loads in flight (as FlashMLIR's merge kernel).
    for (int p0 = group; p0 < parts; p0 += groups * 8) {
      uint4 v[8];
#pragma unroll
      for (int u = 0; u < 8; ++u) {
        const int p = p0 + groups * u;
        v[u] = p < parts ? __ldcg((const uint4 *)(partials + (size_t)p * words +
                                                  row * (words / 8) + column))
                         : make_uint4(0, 0, 0, 0);
      }
#pragma unroll
      for (int u = 0; u < 8; ++u)
        x ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
  }
  x = blockXor(x);
  if (threadIdx.x == 0)
    out[blockIdx.x] = x;
}

// The stream of a decode block at one block an SM, without its math: 128
// threads (4 warps), a ring of `stages` stages of 32 KiB (one 64-key tile of
// K and V at D = 128, bf16); a tile's 2048 16-byte words by 16-byte
// cp.async (16 a thread, as the split-KV kernels copy; streamChunk) or by
// two 16 KiB cp.async.bulk copies (the TMA's 1-D copy; thread 0 issues, an
// mbarrier a stage; streamBulk). Every thread reads one word of each tile
// once it has landed; streamChunk returns the xor of the words it used.
template <int stages, bool decodeOrder>
__device__ __forceinline__ unsigned streamChunk(const uint4 *data,
                                                unsigned long long chunk16,
                                                uint4 *ring) {
  const uint4 *p = data + (unsigned long long)blockIdx.x * chunk16;
  const int tiles = (int)(chunk16 / 2048);
  auto issue = [&](int t) {
    uint4 *stage = ring + (size_t)(t % stages) * 2048;
    for (int i = threadIdx.x; i < 2048; i += 128)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                       (unsigned)__cvta_generic_to_shared(stage + i)),
                   "l"(p + (size_t)t * 2048 + i)
                   : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
  };
  auto issueOrCommit = [&](int t) {
    if (t < tiles)
      issue(t);
    else
      asm volatile("cp.async.commit_group;" ::: "memory");
  };
  for (int t = 0; t < stages - 1; ++t)
    issueOrCommit(t);
  unsigned acc = 0;
  for (int t = 0; t < tiles; ++t) {
    if (decodeOrder) {
      // The split-KV kernels' order: wait for tile t (stages - 2 later
      // groups in flight), one barrier (which also retires the reads of
      // the stage tile t + stages - 1 refills), issue, then use tile t.
      asm volatile("cp.async.wait_group %0;" ::"n"(stages - 2) : "memory");
      __syncthreads();
      issueOrCommit(t + stages - 1);
      acc ^= ring[(size_t)(t % stages) * 2048 + threadIdx.x * 16].x;
    } else {
      // Issue first: tile t is the oldest of `stages` groups in flight.
      issueOrCommit(t + stages - 1);
      asm volatile("cp.async.wait_group %0;" ::"n"(stages - 1) : "memory");
      __syncthreads();
      acc ^= ring[(size_t)(t % stages) * 2048 + threadIdx.x * 16].x;
      __syncthreads();
    }
  }
  return acc;
}

template <int stages, bool decodeOrder>
__global__ void __launch_bounds__(128)
    streamAsync(const uint4 *data, unsigned long long chunk16,
                const unsigned long long *lens, unsigned *partials, int words,
                unsigned *out) {
  extern __shared__ __align__(128) uint4 ring[];
  if (lens)
    chunk16 = __ldcg(lens) / gridDim.x / 2048 * 2048;
  const unsigned acc = streamChunk<stages, decodeOrder>(data, chunk16, ring);
  if (partials) {
    // The dependent merge may start; the part's `words` words of partials.
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    const unsigned part = blockXor(acc);
    for (int w = threadIdx.x; w < words; w += blockDim.x)
      partials[(size_t)blockIdx.x * words + w] = part + w;
    return;
  }
  if (acc == 0x9e3779b9u)
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// The stream (3 stages, issue-first), then the parts of a cluster of C
// blocks reduced through distributed shared memory before anything goes to
// global memory: each block leaves its 1024-word partial in its drained
// ring, and after a cluster barrier block rank r combines slice r (1024 / C
// words, 16 bytes a thread) of every block of the cluster and writes it to
// the cluster's partial; the dependent merge then reads 128 / C partials.
template <int C>
__global__ void __launch_bounds__(128)
    streamCluster(const uint4 *data, unsigned long long chunk16,
                  unsigned *partials) {
  extern __shared__ __align__(128) uint4 ring[];
  const unsigned acc = streamChunk<3, false>(data, chunk16, ring);
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  const unsigned part = blockXor(acc);
  unsigned *mine = (unsigned *)ring;
  for (int w = threadIdx.x; w < 1024; w += blockDim.x)
    mine[w] = part + w;
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();
  constexpr int slice4 = 1024 / C / 4; // 16-byte words of a block's slice
  const unsigned rank = cluster.block_rank();
  if ((int)threadIdx.x < slice4) {
    uint4 x = make_uint4(0, 0, 0, 0);
    uint4 v[C];
#pragma unroll
    for (int q = 0; q < C; ++q)
      v[q] = ((const uint4 *)cluster.map_shared_rank(mine, q))[rank * slice4 +
                                                             threadIdx.x];
#pragma unroll
    for (int q = 0; q < C; ++q)
      x.x ^= v[q].x, x.y ^= v[q].y, x.z ^= v[q].z, x.w ^= v[q].w;
    ((uint4 *)partials)[(size_t)(blockIdx.x / C) * 256 + rank * slice4 +
                        threadIdx.x] = x;
  }
  cluster.sync(); // no block leaves while another reads its shared memory
}

__global__ void __launch_bounds__(128)
    streamBulk(const char *data, unsigned long long chunkBytes, int stages,
               unsigned *out) {
  extern __shared__ __align__(128) char bulkRing[];
  __shared__ __align__(8) unsigned long long bars[8];
  const char *p = data + (unsigned long long)blockIdx.x * chunkBytes;
  const int tiles = (int)(chunkBytes / 32768);
  if (threadIdx.x == 0)
    initBarriers(bars, stages);
  __syncthreads();
  auto issue = [&](int t) {
    const int s = t % stages;
    const unsigned bar = sharedAddress(&bars[s]);
    expectBytes(bar, 32768);
    for (int h = 0; h < 2; ++h)
      bulkCopy(bulkRing + (size_t)s * 32768 + h * 16384,
               p + (size_t)t * 32768 + h * 16384, 16384, bar);
  };
  if (threadIdx.x == 0)
    for (int t = 0; t < stages && t < tiles; ++t)
      issue(t);
  unsigned acc = 0;
  for (int t = 0; t < tiles; ++t) {
    waitBarrier(sharedAddress(&bars[t % stages]), (unsigned)(t / stages) & 1u);
    acc ^= *(const unsigned *)(bulkRing + (size_t)(t % stages) * 32768 +
                               threadIdx.x * 256);
    __syncthreads();
    if (threadIdx.x == 0 && t + stages < tiles)
      issue(t + stages);
  }
  if (acc == 0x9e3779b9u)
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

struct Case {
  std::string size;
  size_t bytes;
  int blocks, unroll, mode, words;
  bool len, cold;
  int stages = 0; // kAsync, kBulk
  bool decodeOrder = false; // kAsync: the split-KV kernels' loop order
  int cluster = 0;          // kCluster: blocks a cluster
  int copies = 1;
  size_t chunk16 = 0;
  cudaGraphExec_t exec = nullptr;
  std::vector<double> perRound;
  std::string name() const {
    char buf[160];
    if (mode == kCluster) {
      std::snprintf(buf, sizeof buf,
                    "%s cp.async b%d s3%s cluster %d pdl w1024", size.c_str(),
                    blocks, stages == 4 ? " (128 KiB)" : "", cluster);
      return buf;
    }
    if (mode == kAsync || mode == kBulk) {
      std::snprintf(buf, sizeof buf, "%s%s %s%s b%d s%d%s%s",
                    cold ? "cold " : "", size.c_str(),
                    mode == kAsync ? "cp.async" : "bulk",
                    decodeOrder ? " decode-order" : "", blocks, stages,
                    len ? " len" : "",
                    words ? (" pdl w" + std::to_string(words)).c_str() : "");
      return buf;
    }
    std::snprintf(buf, sizeof buf, "%s%s %s%s b%d u%d%s",
                  cold ? "cold " : "", size.c_str(),
                  mode == kRead ? "read" : mode == kLast ? "last" : "pdl",
                  mode == kRead ? "" : (words == 1 ? " w1" : " w1024"),
                  blocks, unroll, len ? " len" : "");
    return buf;
  }
};

template <int M>
static void launchSplit(const Case &c, const uint4 *data,
                        const unsigned long long *lens, unsigned *partials,
                        unsigned *counter, unsigned *out, cudaStream_t s) {
  const unsigned long long *l = c.len ? lens : nullptr;
  if (c.unroll == 4)
    splitRead<4, M><<<c.blocks, 512, 0, s>>>(data, c.chunk16, l, partials,
                                              c.words, counter, out);
  else
    splitRead<8, M><<<c.blocks, 512, 0, s>>>(data, c.chunk16, l, partials,
                                              c.words, counter, out);
}

// A launch of `blocks` blocks of 128 threads in clusters of `cluster`
// (`attr` holds the cluster attribute; it must outlive the launch).
static cudaLaunchConfig_t clusterLaunch(int blocks, size_t sharedBytes,
                                        int cluster, cudaStream_t stream,
                                        cudaLaunchAttribute &attr) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(blocks);
  cfg.blockDim = dim3(128);
  cfg.dynamicSmemBytes = sharedBytes;
  cfg.stream = stream;
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = cluster;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  return cfg;
}

static void launchMerge(const Case &c, const unsigned *partials,
                        unsigned *out, cudaStream_t s) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(c.words == 1 ? 1 : 32);
  cfg.blockDim = dim3(128);
  cfg.stream = s;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&cfg, mergeAfter, partials, c.words,
                           c.cluster ? c.blocks / c.cluster : c.blocks,
                           out + 64));
}

int main(int argc, char **argv) {
  const BenchArgs args = parseBenchArgs(argc, argv, "combine-floor");
  const int rounds = args.rounds;
  const char *jsonPath = args.jsonPath;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  const size_t l2 = (size_t)prop.l2CacheSize;
  std::printf("%s, %d SMs, L2 %d MiB\n", prop.name, sms,
              prop.l2CacheSize >> 20);

  const size_t pool = size_t(1) << 30;
  char *data;
  CHECK(cudaMalloc(&data, pool));
  CHECK(cudaMemset(data, 1, pool));
  unsigned *partials, *counter, *out;
  CHECK(cudaMalloc(&partials, size_t(4096) * 1024 * 4));
  CHECK(cudaMalloc(&counter, 4));
  CHECK(cudaMemset(counter, 0, 4));
  CHECK(cudaMalloc(&out, size_t(1) << 24));
  unsigned long long *lens;
  CHECK(cudaMalloc(&lens, 8));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  // K + V of GQA 8/1 B = 1 at D = 128, bf16: 256 bytes a key each.
  const struct {
    const char *label;
    size_t bytes;
  } sizes[] = {{"8/1 B=1 L=8k", size_t(8192) * 512},
               {"8/1 B=1 L=32k", size_t(32768) * 512},
               {"8/1 B=1 L=128k", size_t(131072) * 512}};
  std::vector<Case> cases;
  for (auto &s : sizes)
    for (bool cold : {false, true})
      for (int blocks : {128, sms, 2 * sms, 4 * sms})
        for (int unroll : {4, 8})
          for (int mode : {kRead, kLast, kPdl})
            for (int words : {1, 1024})
              for (bool len : {false, true}) {
                if (mode == kRead && words != 1)
                  continue;
                if (words == 1024 && mode == kLast)
                  continue; // the fused merge of 4 KB parts: not a floor
                Case c{s.label, s.bytes, blocks, unroll, mode, words, len,
                       cold};
                cases.push_back(c);
              }
  // The decode block's stream at one block an SM (128 blocks: the parts of
  // a one-work-unit call on sm_90a), by cp.async and by bulk copies.
  for (auto &s : sizes)
    for (bool cold : {false, true})
      for (int mode : {kAsync, kBulk})
        for (int stages : {3, 4, 6})
          for (bool dec : {false, true}) {
            if (dec && mode == kBulk)
              continue;
            Case c{s.label, s.bytes, 128, 0, mode, 0, false, cold};
            c.stages = stages, c.decodeOrder = dec;
            cases.push_back(c);
          }
  // The decode shape's frame, 3 stages: the length first, then the parts'
  // partials (one word, or a part's 4 KB) and the dependent merge (pdl).
  // words = 0: no partials, no merge.
  for (auto &s : sizes)
    for (bool dec : {false, true})
      for (bool len : {false, true})
        for (int words : {0, 1, 256, 512, 1024}) {
          if (!len && words == 0)
            continue; // the stream cases above
          Case c{s.label, s.bytes, 128, 0, kAsync, words, len, false};
          c.stages = 3, c.decodeOrder = dec;
          cases.push_back(c);
        }
  // Parts of 1, 2 or 4 tiles (the shortest part FlashMLIR's split rule
  // makes, kSplitKVMinTilesPerSplit, was 4 until these cases; it is 2 now):
  // 128, 64 or 32 blocks at L = 8k, 256 or 128 at L = 32k; 3 stages, no
  // partials and 1024-word partials + pdl.
  for (auto &s : sizes)
    for (int tiles : {1, 2, 4})
      for (int words : {0, 1024}) {
        const int blocks = (int)(s.bytes / 32768 / tiles);
        if (blocks > 2 * sms || blocks == 128)
          continue; // 128 blocks: the cases above
        Case c{s.label, s.bytes, blocks, 0, kAsync, words, false, false};
        c.stages = 3;
        cases.push_back(c);
      }
  // Fewer parts at L = 128k: 64 or 96 blocks (one an SM, the others idle),
  // each with a deeper ring (4 or 6 stages: 128 or 192 KiB in flight), so
  // that the merge reads fewer partials.
  for (int blocks : {64, 96})
    for (int stages : {4, 6})
      for (int words : {0, 1, 1024}) {
        Case c{sizes[2].label, sizes[2].bytes, blocks, 0, kAsync, words, false,
               false};
        c.stages = stages;
        cases.push_back(c);
      }
  // Clusters of 2, 4 and 8 blocks reducing their parts through distributed
  // shared memory before the dependent merge (128 blocks, 3 stages).
  // stages = 4 here: the same 3-stage stream in 128 KiB of shared memory,
  // so that no SM holds two of the blocks.
  for (auto &s : sizes)
    for (int cl : {2, 4, 8})
      for (int shared : {3, 4}) {
        Case c{s.label, s.bytes, 128, 0, kCluster, 1024, false, false};
        c.stages = shared, c.cluster = cl;
        cases.push_back(c);
      }
  const int calls = 20;
  for (auto kernel : {streamAsync<3, false>, streamAsync<3, true>,
                      streamAsync<4, false>, streamAsync<4, true>,
                      streamAsync<6, false>, streamAsync<6, true>})
    CHECK(cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 6 * 32768));
  for (auto kernel : {streamCluster<2>, streamCluster<4>, streamCluster<8>})
    CHECK(cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 4 * 32768));
  {
    // How many clusters can be resident at once (all 128 blocks need 128 / C).
    const int sizes[] = {2, 4, 8};
    const void *kernels[] = {(const void *)streamCluster<2>,
                             (const void *)streamCluster<4>,
                             (const void *)streamCluster<8>};
    for (int i = 0; i < 6; ++i) {
      cudaLaunchAttribute attr;
      cudaLaunchConfig_t cfg = clusterLaunch(128, (i < 3 ? 3 : 4) * 32768,
                                             sizes[i % 3], stream, attr);
      int clusters = 0;
      CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernels[i % 3], &cfg));
      std::printf("clusters of %d, %d KiB a block: %d resident at once (128 "
                  "blocks need %d)\n",
                  sizes[i % 3], (int)(cfg.dynamicSmemBytes >> 10), clusters,
                  128 / sizes[i % 3]);
    }
  }
  CHECK(cudaFuncSetAttribute(streamBulk,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             6 * 32768));
  for (Case &c : cases) {
    c.chunk16 = c.bytes / 16 / c.blocks;
    if (c.mode == kAsync || c.mode == kBulk || c.mode == kCluster)
      c.chunk16 = c.chunk16 / 2048 * 2048; // whole 32 KiB tiles
    const size_t callBytes = c.chunk16 * 16 * c.blocks;
    c.copies = c.cold ? (int)std::max<size_t>(
                            1, (5 * l2 + 2 * callBytes - 1) / (2 * callBytes))
                      : 1;
    const size_t stride = ((callBytes + (1 << 20) - 1) >> 20) << 20;
    if (stride * c.copies > pool) {
      std::fprintf(stderr, "%s: pool too small\n", c.name().c_str());
      return 1;
    }
    c.exec = captureGraph(stream, [&] {
      for (int i = 0; i < calls; ++i) {
        const uint4 *d =
            (const uint4 *)(data + (size_t)(i % c.copies) * stride);
        const size_t ring = (size_t)c.stages * 32768;
        if (c.mode == kCluster) {
          cudaLaunchAttribute attr;
          cudaLaunchConfig_t cfg =
              clusterLaunch(c.blocks, ring, c.cluster, stream, attr);
          auto kernel = c.cluster == 2   ? streamCluster<2>
                        : c.cluster == 4 ? streamCluster<4>
                                         : streamCluster<8>;
          CHECK(cudaLaunchKernelEx(&cfg, kernel, d, c.chunk16, partials));
          launchMerge(c, partials, out, stream);
        } else if (c.mode == kAsync) {
          const unsigned long long *l = c.len ? lens : nullptr;
          unsigned *pw = c.words ? partials : nullptr;
          auto kernel =
              c.stages == 3   ? (c.decodeOrder ? streamAsync<3, true>
                                               : streamAsync<3, false>)
              : c.stages == 4 ? (c.decodeOrder ? streamAsync<4, true>
                                               : streamAsync<4, false>)
                              : (c.decodeOrder ? streamAsync<6, true>
                                               : streamAsync<6, false>);
          kernel<<<c.blocks, 128, ring, stream>>>(d, c.chunk16, l, pw,
                                                  c.words, out);
          if (pw)
            launchMerge(c, partials, out, stream);
        } else if (c.mode == kBulk) {
          streamBulk<<<c.blocks, 128, ring, stream>>>(
              (const char *)d, c.chunk16 * 16, c.stages, out);
        } else if (c.mode == kRead) {
          launchSplit<kRead>(c, d, lens, partials, counter, out, stream);
        } else if (c.mode == kLast) {
          launchSplit<kLast>(c, d, lens, partials, counter, out, stream);
        } else {
          launchSplit<kPdl>(c, d, lens, partials, counter, out, stream);
          launchMerge(c, partials, out, stream);
        }
      }
    });
    const unsigned long long words16 = c.chunk16 * c.blocks;
    CHECK(cudaMemcpy(lens, &words16, 8, cudaMemcpyHostToDevice));
    CHECK(cudaGraphLaunch(c.exec, stream));
    CHECK(cudaStreamSynchronize(stream));
  }
  // Every case reads the same length through `lens`: set once per size is
  // not possible (one buffer), so the len cases of each size are timed
  // with lens set to their size before their round's timing.
  for (int r = 0; r < rounds; ++r)
    for (Case &c : cases) {
      const unsigned long long words16 = c.chunk16 * c.blocks;
      CHECK(cudaMemcpyAsync(lens, &words16, 8, cudaMemcpyHostToDevice,
                            stream));
      c.perRound.push_back(graphMicrosPerCall(c.exec, stream, 10, calls));
    }
  CHECK(cudaGetLastError());
  unsigned check;
  CHECK(cudaMemcpy(&check, counter, 4, cudaMemcpyDeviceToHost));
  if (check != 0) {
    std::fprintf(stderr, "counter left at %u\n", check);
    return 1;
  }

  // Per case but for its blocks and unroll (where those vary): the best.
  std::printf("%-44s %9s %9s\n", "case (best blocks/unroll)", "us", "TB/s");
  FILE *json = jsonPath ? std::fopen(jsonPath, "w") : nullptr;
  if (json)
    std::fprintf(json,
                 "{\"gpu\": \"%s\", \"sms\": %d, \"rounds\": %d, "
                 "\"cases\": [\n",
                 prop.name, sms, rounds);
  bool first = true;
  for (const Case &c : cases) {
    if (json) {
      std::fprintf(json,
                   "%s  {\"name\": \"%s\", \"size\": \"%s\", \"cold\": %s, "
                   "\"mode\": %d, \"words\": %d, \"len\": %s, \"blocks\": %d, "
                   "\"unroll\": %d, \"stages\": %d, \"decode_order\": %s, "
                   "\"cluster\": %d, "
                   "\"bytes_read\": %zu, \"us_per_call\": [",
                   first ? "" : ",\n", c.name().c_str(), c.size.c_str(),
                   c.cold ? "true" : "false", c.mode, c.words,
                   c.len ? "true" : "false", c.blocks, c.unroll, c.stages,
                   c.decodeOrder ? "true" : "false", c.cluster,
                   c.chunk16 * 16 * c.blocks);
      for (size_t i = 0; i < c.perRound.size(); ++i)
        std::fprintf(json, "%s%.4f", i ? ", " : "", c.perRound[i]);
      std::fprintf(json, "]}");
      first = false;
    }
    // Print the best of the (blocks, unroll) group once, at its first case.
    bool firstOfGroup = true;
    const Case *best = nullptr;
    double bestUs = 1e30;
    for (const Case &o : cases)
      if (o.size == c.size && o.cold == c.cold && o.mode == c.mode &&
          o.words == c.words && o.len == c.len && o.stages == c.stages &&
          o.decodeOrder == c.decodeOrder && o.cluster == c.cluster) {
        if (&o < &c)
          firstOfGroup = false;
        double us = median(o.perRound) * (double)o.bytes /
                    (o.chunk16 * 16 * o.blocks);
        if (us < bestUs)
          bestUs = us, best = &o;
      }
    if (!firstOfGroup)
      continue;
    std::printf("%-44s %9.2f %9.3f\n", best->name().c_str(), bestUs,
                (double)best->bytes / (bestUs * 1e-6) / 1e12);
  }
  if (json) {
    std::fprintf(json, "\n]}\n");
    std::fclose(json);
  }
  return 0;
}
