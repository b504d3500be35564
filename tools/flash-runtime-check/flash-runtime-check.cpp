//===- flash-runtime-check.cpp - exercise lib/Runtime on a GPU ------------===//
//
// For each bundle JSON given on the command line: random inputs (odd
// lengths, GQA), the output poisoned with NaN, a launch through
// flash::runtime::Kernel, and a comparison with a double-precision CPU
// reference; plus the contract checks (a wrong head dimension, a missing LSE
// buffer) that must be refused without launching. Prints one line per case
// and "N passed, N failed".
//
//===----------------------------------------------------------------------===//

#include "flash/Runtime/Runtime.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

using flash::runtime::AttentionProblem;
using flash::runtime::Kernel;

namespace {
uint16_t toBits(float x, bool bf16) {
  if (bf16) {
    uint32_t u;
    std::memcpy(&u, &x, 4);
    u += 0x7FFF + ((u >> 16) & 1); // round to nearest even
    return uint16_t(u >> 16);
  }
  _Float16 h = static_cast<_Float16>(x);
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}

float fromBits(uint16_t b, bool bf16) {
  if (bf16) {
    uint32_t u = uint32_t(b) << 16;
    float x;
    std::memcpy(&x, &u, 4);
    return x;
  }
  _Float16 h;
  std::memcpy(&h, &b, 2);
  return static_cast<float>(h);
}

#define CHECK_CU(call)                                                         \
  do {                                                                         \
    CUresult r_ = (call);                                                      \
    if (r_ != CUDA_SUCCESS) {                                                  \
      const char *n_ = nullptr;                                                \
      cuGetErrorName(r_, &n_);                                                 \
      std::fprintf(stderr, "%s failed: %s\n", #call, n_ ? n_ : "?");          \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

struct Case {
  int b, hq, hkv, nq, nk;
};

/// Returns true when the kernel matches the reference.
bool runCase(Kernel &kernel, const Case &c, unsigned seed) {
  const auto &info = kernel.info();
  const bool bf16 = info.elementType == "bf16";
  const int d = info.headDim;
  const size_t qn = size_t(c.b) * c.hq * c.nq * d, kn = size_t(c.b) * c.hkv * c.nk * d;
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal;
  std::vector<uint16_t> q(qn), k(kn), v(kn), o(qn, 0x7FFF /* NaN */);
  for (auto &x : q) x = toBits(normal(gen), bf16);
  for (auto &x : k) x = toBits(normal(gen), bf16);
  for (auto &x : v) x = toBits(normal(gen), bf16);
  std::vector<float> lse(size_t(c.b) * c.hq * c.nq, NAN);

  CUdeviceptr dq, dk, dv, dout, dlse = 0;
  CHECK_CU(cuMemAlloc(&dq, qn * 2));
  CHECK_CU(cuMemAlloc(&dk, kn * 2));
  CHECK_CU(cuMemAlloc(&dv, kn * 2));
  CHECK_CU(cuMemAlloc(&dout, qn * 2));
  CHECK_CU(cuMemcpyHtoD(dq, q.data(), qn * 2));
  CHECK_CU(cuMemcpyHtoD(dk, k.data(), kn * 2));
  CHECK_CU(cuMemcpyHtoD(dv, v.data(), kn * 2));
  CHECK_CU(cuMemcpyHtoD(dout, o.data(), qn * 2));
  if (info.writesLse) {
    CHECK_CU(cuMemAlloc(&dlse, lse.size() * 4));
    CHECK_CU(cuMemcpyHtoD(dlse, lse.data(), lse.size() * 4));
  }
  AttentionProblem p;
  p.q = dq; p.k = dk; p.v = dv; p.out = dout; p.lse = dlse;
  p.batch = c.b; p.queryHeads = c.hq; p.kvHeads = c.hkv; p.seqQ = c.nq;
  p.seqKV = c.nk; p.headDim = d; p.elementType = info.elementType;
  p.causal = info.causal;
  std::string error;
  if (!kernel.launch(p, nullptr, error)) {
    std::printf("FAIL %s: %s\n", info.name.c_str(), error.c_str());
    return false;
  }
  CHECK_CU(cuCtxSynchronize());
  CHECK_CU(cuMemcpyDtoH(o.data(), dout, qn * 2));
  if (info.writesLse)
    CHECK_CU(cuMemcpyDtoH(lse.data(), dlse, lse.size() * 4));
  cuMemFree(dq); cuMemFree(dk); cuMemFree(dv); cuMemFree(dout);
  if (dlse) cuMemFree(dlse);

  // Reference in double: bottom-right causal, GQA, empty rows give 0 / -inf.
  const double scale = 1.0 / std::sqrt(double(d));
  double errSq = 0, refSq = 0, lseErr = 0;
  bool nan = false, lseMismatch = false;
  const int group = c.hq / c.hkv;
  std::vector<double> s(c.nk), acc(d);
  for (int b = 0; b < c.b; ++b)
    for (int h = 0; h < c.hq; ++h)
      for (int i = 0; i < c.nq; ++i) {
        const size_t qrow = ((size_t(b) * c.hq + h) * c.nq + i) * d;
        const size_t kvhead = (size_t(b) * c.hkv + h / group) * c.nk;
        int visible = info.causal ? std::min(c.nk, std::max(0, i + c.nk - c.nq + 1)) : c.nk;
        double m = -INFINITY, l = 0;
        for (int j = 0; j < visible; ++j) {
          double dot = 0;
          for (int t = 0; t < d; ++t)
            dot += double(fromBits(q[qrow + t], bf16)) *
                   double(fromBits(k[(kvhead + j) * d + t], bf16));
          s[j] = dot * scale;
          m = std::max(m, s[j]);
        }
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int j = 0; j < visible; ++j) {
          double pj = std::exp(s[j] - m);
          l += pj;
          for (int t = 0; t < d; ++t)
            acc[t] += pj * double(fromBits(v[(kvhead + j) * d + t], bf16));
        }
        for (int t = 0; t < d; ++t) {
          double ref = visible ? acc[t] / l : 0.0;
          double out = fromBits(o[qrow + t], bf16);
          nan |= std::isnan(out);
          errSq += (out - ref) * (out - ref);
          refSq += ref * ref;
        }
        if (info.writesLse) {
          float got = lse[(size_t(b) * c.hq + h) * c.nq + i];
          if (!visible)
            lseMismatch |= !(std::isinf(got) && got < 0);
          else
            lseErr = std::max(lseErr, std::fabs(got - (m + std::log(l))) /
                                          (1 + std::fabs(m + std::log(l))));
          nan |= std::isnan(got);
        }
      }
  double rel = refSq > 0 ? std::sqrt(errSq / refSq) : std::sqrt(errSq);
  double tolerance = bf16 ? 1e-2 : 2e-3;
  bool ok = !nan && rel <= tolerance && !lseMismatch && lseErr <= 1e-3;
  std::printf("%s %s (from %s) B=%d Hq=%d Hkv=%d Nq=%d Nk=%d rel_err=%.2e lse_err=%.1e%s\n",
              ok ? "PASS" : "FAIL", info.name.c_str(), kernel.loadedFrom().c_str(),
              c.b, c.hq, c.hkv, c.nq, c.nk, rel, lseErr, nan ? " NaN" : "");
  return ok;
}

/// The contract checks refuse bad problems before any launch.
bool refuses(Kernel &kernel) {
  const auto &info = kernel.info();
  AttentionProblem p;
  p.q = p.k = p.v = p.out = 1;
  p.batch = p.queryHeads = p.kvHeads = 1;
  p.seqQ = p.seqKV = 8;
  p.elementType = info.elementType;
  p.causal = info.causal;
  p.headDim = info.headDim + 8;
  p.lse = info.writesLse ? 1 : 0;
  std::string e1 = kernel.check(p);
  p.headDim = info.headDim;
  p.queryHeads = 3; p.kvHeads = 2;
  std::string e2 = kernel.check(p);
  bool ok = !e1.empty() && !e2.empty();
  std::printf("%s %s refuses: '%s'; '%s'\n", ok ? "PASS" : "FAIL", info.name.c_str(),
              e1.c_str(), e2.c_str());
  return ok;
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s BUNDLE.json...\n", argv[0]);
    return 2;
  }
  CHECK_CU(cuInit(0));
  CUdevice device;
  CUcontext context;
  CHECK_CU(cuDeviceGet(&device, 0));
  CHECK_CU(cuDevicePrimaryCtxRetain(&context, device));
  CHECK_CU(cuCtxSetCurrent(context));
  const Case cases[] = {{1, 2, 2, 1, 1}, {2, 4, 2, 77, 133}, {1, 8, 2, 300, 100},
                        {1, 2, 1, 513, 1000}};
  int passed = 0, failed = 0;
  unsigned seed = 1234;
  for (int i = 1; i < argc; ++i) {
    Kernel kernel;
    std::string error;
    if (!kernel.open(argv[i], error)) {
      std::printf("FAIL %s\n", error.c_str());
      ++failed;
      continue;
    }
    (refuses(kernel) ? passed : failed)++;
    for (const Case &c : cases)
      (runCase(kernel, c, seed++) ? passed : failed)++;
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
