// graph-timing.cuh: what the by-hand read yardsticks (read-floor.cu,
// combine-floor.cu) share: the CUDA error check, the capture and timing of a
// graph of back-to-back calls as decode_bench times the decode kernels (the
// median per call over replays), the median of the rounds, and their
// command line (--rounds N, --json FILE).
#ifndef FLASH_BENCH_GRAPH_TIMING_CUH
#define FLASH_BENCH_GRAPH_TIMING_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,          \
                   cudaGetErrorString(e_));                                    \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

// The graph of what `launch()` enqueues on `stream` (captured, instantiated).
template <typename F>
cudaGraphExec_t captureGraph(cudaStream_t stream, F launch) {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  launch();
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphDestroy(graph));
  return exec;
}

// Median microseconds per call over `replays` replays of a graph of `calls`
// calls.
inline double graphMicrosPerCall(cudaGraphExec_t exec, cudaStream_t stream,
                                 int replays, int calls) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<double> t;
  for (int r = 0; r < replays; ++r) {
    CHECK(cudaEventRecord(a, stream));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaEventRecord(b, stream));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(1000.0 * ms / calls);
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct BenchArgs {
  int rounds = 5;
  const char *jsonPath = nullptr;
};

// --rounds N and --json FILE; anything else prints the usage and exits 2.
inline BenchArgs parseBenchArgs(int argc, char **argv, const char *name) {
  BenchArgs args;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc)
      args.rounds = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--json") && i + 1 < argc)
      args.jsonPath = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--rounds N] [--json FILE]\n", name);
      std::exit(2);
    }
  }
  return args;
}

#endif // FLASH_BENCH_GRAPH_TIMING_CUH
