// read-floor.cu: how fast this GPU reads N bytes in one kernel, timed the
// way decode_bench times the decode kernels (the median per call of
// CUDA-graph replays of 20 back-to-back calls), and what a chain of
// dependent loads before the read costs (a paged decode block loads its
// sequence's length, then its block-table entries, then the K/V pages).
//
// It answers: at the decode rows' sizes (33.5 MB, 67 MB, ...), how close to
// the read ceiling (the same kernels over 4 GiB) can *any* one-kernel read
// come, and how many microseconds does each dependent round trip before the
// stream add? Nothing here is FlashMLIR's code; it is a yardstick.
//
// Build (build machine, CUDA from /usr/local/cuda; cudart is linked
// statically, so the binary runs on the GPU machine as is):
//   nvcc -O3 -std=c++17 -arch=sm_90a -o read-floor scripts/bench/read-floor.cu
// Run (GPU machine):
//   ./read-floor [--rounds 5] [--json FILE]
//
// "warm": the 20 calls read the same bytes, as decode_bench does by default
// (sizes below the L2 are then read from it); "cold": the calls cycle
// through ceil(2.5 · L2 / size) copies, as decode_bench --cold does.
//
// Two read kernels, every configuration swept, the best kept per size:
// - ld:   every thread U independent 16-byte ld.global.nc loads in flight
//         (U = 4, 8, 16), 256/512/1024 threads, 1/2/4/8 blocks an SM;
// - bulk: one thread a block streams its chunk through a ring of shared
//         memory with cp.async.bulk (the TMA's 1-D copy) and mbarriers,
//         stages of 16/32 KiB, 1/2/4 blocks an SM, 2-6 stages.
// Each block reads one contiguous chunk of total / blocks bytes. The chain
// variant: before its first load, block i loads `depth` dependent 4-byte
// indices (idx = perm_d[idx], permutations of the blocks in device memory,
// as small and as L2-resident as seq_lens and a block table) and reads the
// chunk the last one names.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bulk-copy.cuh"
#include "graph-timing.cuh"

// loadStreaming: the 16-byte streaming load of decode_bench's ceiling kernel.
#include "read-ceiling.cu"

// The chunk block `blockIdx.x` reads after `depth` dependent index loads.
__device__ __forceinline__ int chainedChunk(const int *chain, int depth,
                                            int blocks) {
  int idx = blockIdx.x;
  for (int d = 0; d < depth; ++d)
    idx = __ldcg(chain + (size_t)d * blocks + idx);
  return idx;
}

template <int U>
__global__ void readLd(const uint4 *data, size_t chunk16, const int *chain,
                       int depth, int blocks, unsigned *sink) {
  const uint4 *p = data + (size_t)chainedChunk(chain, depth, blocks) * chunk16;
  unsigned acc = 0;
  const size_t step = (size_t)blockDim.x * U;
  for (size_t i = threadIdx.x; i < chunk16; i += step) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      size_t j = i + (size_t)u * blockDim.x;
      v[u] = j < chunk16 ? loadStreaming(p + j) : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
      acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  if (acc == 0x9e3779b9u) // never in practice; keeps the loads
    sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void readBulk(const char *data, size_t chunkBytes, int stageBytes,
                         int stages, const int *chain, int depth, int blocks,
                         unsigned *sink) {
  extern __shared__ __align__(128) char ring[];
  __shared__ __align__(8) unsigned long long bars[8];
  if (threadIdx.x != 0)
    return;
  const char *p =
      data + (size_t)chainedChunk(chain, depth, blocks) * chunkBytes;
  const int n = (int)(chunkBytes / stageBytes);
  initBarriers(bars, stages);
  auto issue = [&](int i) {
    int s = i % stages;
    const unsigned bar = sharedAddress(&bars[s]);
    expectBytes(bar, stageBytes);
    bulkCopy(ring + (size_t)s * stageBytes, p + (size_t)i * stageBytes,
             stageBytes, bar);
  };
  for (int i = 0; i < stages && i < n; ++i)
    issue(i);
  for (int i = 0; i < n; ++i) {
    waitBarrier(sharedAddress(&bars[i % stages]), (unsigned)(i / stages) & 1u);
    if (i + stages < n)
      issue(i + stages);
  }
  unsigned v = *(volatile unsigned *)ring;
  if (v == 0x9e3779b9u)
    sink[blockIdx.x] = v;
}

struct Config {
  std::string kind; // "ld" or "bulk"
  int threads = 0, unroll = 0, perSM = 0, stageBytes = 0, stages = 0;
  int blocks = 0; // fixed block count (chain shapes), else perSM · SMs
  std::string name() const {
    char buf[128];
    if (kind == "ld")
      std::snprintf(buf, sizeof buf, "ld t%d u%d b%d", threads, unroll,
                    blocks ? blocks : perSM);
    else
      std::snprintf(buf, sizeof buf, "bulk %dK x%d b%d", stageBytes / 1024,
                    stages, blocks ? blocks : perSM);
    return buf;
  }
};

struct Case {
  std::string label;
  size_t bytes;
  Config cfg;
  int depth;
  int calls;
  int copies = 1; // the calls cycle through this many copies of the bytes
  // filled in
  int blocks = 0;
  size_t chunk = 0;
  cudaGraphExec_t exec = nullptr;
  std::vector<double> perRound; // us per call, one a round
};

static int numSMs = 0;

static bool prepare(Case &c, const char *data, const int *chain, unsigned *sink,
                    cudaStream_t stream) {
  const Config &g = c.cfg;
  c.blocks = g.blocks ? g.blocks : g.perSM * numSMs;
  size_t unit = g.kind == "ld" ? 16 : (size_t)g.stageBytes;
  // Every block reads the same whole number of units; the total is within
  // one unit a block of `bytes` (the bandwidth counts what is read).
  c.chunk = std::max<size_t>(1, (c.bytes / c.blocks + unit / 2) / unit) * unit;
  size_t smem = g.kind == "bulk" ? (size_t)g.stageBytes * g.stages : 0;
  if (g.kind == "bulk") {
    if (smem > 227 * 1024)
      return false;
    CHECK(cudaFuncSetAttribute(
        readBulk, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  }
  // Copy i starts at i · (what one call reads, rounded up to 1 MiB).
  const size_t copyStride = ((c.chunk * c.blocks + (1 << 20) - 1) >> 20) << 20;
  const char *base = data;
  c.exec = captureGraph(stream, [&] {
    for (int i = 0; i < c.calls; ++i) {
      const char *data = base + (size_t)(i % c.copies) * copyStride;
      if (g.kind == "bulk")
        readBulk<<<c.blocks, 32, smem, stream>>>(data, c.chunk, g.stageBytes,
                                                 g.stages, chain, c.depth,
                                                 c.blocks, sink);
      else if (g.unroll == 4)
        readLd<4><<<c.blocks, g.threads, 0, stream>>>(
            (const uint4 *)data, c.chunk / 16, chain, c.depth, c.blocks, sink);
      else if (g.unroll == 8)
        readLd<8><<<c.blocks, g.threads, 0, stream>>>(
            (const uint4 *)data, c.chunk / 16, chain, c.depth, c.blocks, sink);
      else
        readLd<16><<<c.blocks, g.threads, 0, stream>>>(
            (const uint4 *)data, c.chunk / 16, chain, c.depth, c.blocks, sink);
    }
  });
  CHECK(cudaGraphLaunch(c.exec, stream));
  CHECK(cudaStreamSynchronize(stream));
  return true;
}

int main(int argc, char **argv) {
  const BenchArgs args = parseBenchArgs(argc, argv, "read-floor");
  const int rounds = args.rounds;
  const char *jsonPath = args.jsonPath;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  numSMs = prop.multiProcessorCount;
  std::printf("%s, %d SMs, L2 %d MiB\n", prop.name, numSMs,
              prop.l2CacheSize >> 20);

  const size_t ceilingBytes = size_t(4) << 30;
  char *data;
  CHECK(cudaMalloc(&data, ceilingBytes + (size_t(64) << 20)));
  CHECK(cudaMemset(data, 1, ceilingBytes + (size_t(64) << 20)));
  unsigned *sink;
  CHECK(cudaMalloc(&sink, size_t(1) << 24));
  const int maxDepth = 3;
  int *chain; // unused at depth 0
  CHECK(cudaMalloc(&chain, sizeof(int)));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  // The sweep's configurations.
  std::vector<Config> sweep;
  for (int perSM : {1, 2, 4, 8})
    for (int threads : {256, 512, 1024})
      for (int unroll : {4, 8, 16}) {
        if (threads * perSM > 2048 || (threads == 1024 && unroll == 16))
          continue;
        Config c;
        c.kind = "ld", c.threads = threads, c.unroll = unroll, c.perSM = perSM;
        sweep.push_back(c);
      }
  for (int perSM : {1, 2, 4})
    for (int stageKB : {16, 32})
      for (int stages : {2, 3, 4, 6}) {
        if ((size_t)perSM * stageKB * stages > 224)
          continue;
        Config c;
        c.kind = "bulk", c.stageBytes = stageKB * 1024, c.stages = stages;
        c.perSM = perSM;
        sweep.push_back(c);
      }

  struct Size {
    const char *label;
    size_t bytes;
  };
  // K + V of the issue's GQA 8/1 rows (D = 128, bf16) and GQA 32/8 B = 1
  // L = 128k, then the ceiling.
  const Size sizes[] = {{"33.6 MB (8/1 B=64 L=1k)", size_t(33554432)},
                        {"67.1 MB (8/1 B=1 L=128k)", size_t(67108864)},
                        {"134 MB (8/1 B=128 L=2k)", size_t(134217728)},
                        {"268 MB (8/1 B=64 L=8k)", size_t(268435456)},
                        {"537 MB (32/8 B=1 L=128k)", size_t(536870912)},
                        {"4 GiB", ceilingBytes}};
  const size_t l2 = (size_t)prop.l2CacheSize;
  auto coldCopies = [&](size_t bytes) {
    return (int)std::max<size_t>(1, (5 * l2 + 2 * bytes - 1) / (2 * bytes));
  };
  std::vector<Case> cases;
  for (const Size &s : sizes)
    for (const Config &g : sweep) {
      cases.push_back(
          {s.label, s.bytes, g, 0, s.bytes == ceilingBytes ? 5 : 20});
      if (coldCopies(s.bytes) > 1) {
        cases.push_back({std::string("cold ") + s.label, s.bytes, g, 0, 20});
        cases.back().copies = coldCopies(s.bytes);
      }
    }
  // The chain: the decode kernels' block counts at two rows (GQA 8/1 B = 64
  // L = 1k: 64 work units × 4 parts; B = 1 L = 128k: 264 parts), depth 0-3.
  const struct {
    const char *label;
    size_t bytes;
    int blocks;
  } chains[] = {{"8/1 B=64 L=1k", size_t(33554432), 256},
                {"8/1 B=1 L=128k", size_t(67108864), 264}};
  for (auto &ch : chains)
    for (bool cold : {false, true})
      for (int threads : {128, 256, 512})
        for (int depth = 0; depth <= maxDepth; ++depth) {
          Config g;
          g.kind = "ld", g.threads = threads, g.unroll = 8,
          g.blocks = ch.blocks;
          cases.push_back(
              {std::string(cold ? "cold chain " : "chain ") + ch.label,
               ch.bytes, g, depth, 20});
          if (cold)
            cases.back().copies = coldCopies(ch.bytes);
        }

  std::mt19937 rng(2026);
  std::vector<Case> &ready = cases;
  // Chain cases need their own tables (the permutations differ by block
  // count): one device table per case with a chain.
  std::vector<int *> tables;
  for (Case &c : ready) {
    const int *t = chain;
    if (c.depth > 0) {
      int blocks = c.cfg.blocks;
      std::vector<int> h((size_t)maxDepth * blocks);
      for (int d = 0; d < maxDepth; ++d) {
        std::vector<int> perm(blocks);
        for (int i = 0; i < blocks; ++i)
          perm[i] = i;
        std::shuffle(perm.begin(), perm.end(), rng);
        std::copy(perm.begin(), perm.end(), h.begin() + (size_t)d * blocks);
      }
      int *dev;
      CHECK(cudaMalloc(&dev, h.size() * sizeof(int)));
      CHECK(cudaMemcpy(dev, h.data(), h.size() * sizeof(int),
                       cudaMemcpyHostToDevice));
      tables.push_back(dev);
      t = dev;
    }
    if (!prepare(c, data, t, sink, stream))
      c.exec = nullptr;
  }
  // Interleaved rounds: every case once a round.
  for (int r = 0; r < rounds; ++r)
    for (Case &c : ready)
      if (c.exec)
        c.perRound.push_back(
            graphMicrosPerCall(c.exec, stream, c.calls == 5 ? 5 : 10, c.calls));
  CHECK(cudaGetLastError());

  auto tbps = [](const Case &c, double us) {
    return (double)c.chunk * c.blocks / (us * 1e-6) / 1e12;
  };
  // The ceiling: the best configuration over 4 GiB.
  double ceiling = 0;
  for (Case &c : ready)
    if (c.exec && c.label == "4 GiB")
      ceiling = std::max(ceiling, tbps(c, median(c.perRound)));
  std::printf("read ceiling (best kernel over 4 GiB): %.3f TB/s\n", ceiling);
  FILE *json = jsonPath ? std::fopen(jsonPath, "w") : nullptr;
  if (json)
    std::fprintf(json,
                 "{\"gpu\": \"%s\", \"sms\": %d, \"rounds\": %d, "
                 "\"ceiling_TBps\": %.4f, \"cases\": [\n",
                 prop.name, numSMs, rounds, ceiling);
  bool first = true;
  for (const char *mode : {"", "cold "})
    for (const Size &s : sizes) {
      std::string label = std::string(mode) + s.label;
      const Case *best = nullptr;
      double bestUs = 1e30;
      for (Case &c : ready)
        if (c.exec && c.label == label && c.depth == 0) {
          double us =
              median(c.perRound) * (double)s.bytes / (c.chunk * c.blocks);
          if (us < bestUs)
            bestUs = us, best = &c;
        }
      if (!best)
        continue;
      double bw = tbps(*best, median(best->perRound));
      std::printf(
          "%-30s best %-18s %8.2f us  %.3f TB/s  %5.1f%% of ceiling"
          "%s\n",
          label.c_str(), best->cfg.name().c_str(), bestUs, bw,
          100 * bw / ceiling,
          best->copies > 1
              ? (" (" + std::to_string(best->copies) + " copies)").c_str()
              : "");
    }
  for (const char *mode : {"", "cold "})
    for (auto &ch : chains) {
      std::string label = std::string(mode) + "chain " + ch.label;
      std::printf("%s (%d blocks, ld u8):\n", label.c_str(), ch.blocks);
      for (Case &c : ready)
        if (c.exec && c.label == label)
          std::printf("  threads %4d depth %d  %8.2f us  %.3f TB/s\n",
                      c.cfg.threads, c.depth, median(c.perRound),
                      tbps(c, median(c.perRound)));
    }
  for (Case &c : ready) {
    if (!c.exec || !json)
      continue;
    std::fprintf(json,
                 "%s  {\"label\": \"%s\", \"config\": \"%s\", "
                 "\"depth\": %d, \"blocks\": %d, \"copies\": %d, "
                 "\"bytes_read\": %zu, "
                 "\"us_per_call\": [",
                 first ? "" : ",\n", c.label.c_str(), c.cfg.name().c_str(),
                 c.depth, c.blocks, c.copies, c.chunk * c.blocks);
    for (size_t i = 0; i < c.perRound.size(); ++i)
      std::fprintf(json, "%s%.4f", i ? ", " : "", c.perRound[i]);
    std::fprintf(json, "]}");
    first = false;
  }
  if (json) {
    std::fprintf(json, "\n]}\n");
    std::fclose(json);
  }
  return 0;
}
