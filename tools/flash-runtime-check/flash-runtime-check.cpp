//===- flash-runtime-check.cpp - exercise lib/Runtime on a GPU ------------===//
//
// For each launch plan given on the command line (BUNDLE.json files, or
// directories of them): random inputs (odd lengths, GQA), the output
// poisoned with NaN, a launch through the runtime's C ABI
// (flash_runtime.h: the same launcher as the Python package), and a
// comparison with a double-precision CPU reference; plus the contract checks
// (a wrong head dimension, heads that do not divide) that must be refused
// without launching. Prints one line per case and "N passed, N failed".
//
//===----------------------------------------------------------------------===//

#include "flash/Runtime/flash_runtime.h"

#include <cuda.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <sys/stat.h>
#include <vector>

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
/// A B×H×N×D (or B×H×N) contiguous tensor descriptor.
flash_tensor tensor(CUdeviceptr data, int dtype, std::vector<int64_t> shape) {
  flash_tensor t{};
  t.data = data;
  t.dtype = dtype;
  t.rank = int(shape.size());
  int64_t stride = 1;
  for (int i = t.rank - 1; i >= 0; --i) {
    t.shape[i] = shape[i];
    t.strides[i] = stride;
    stride *= shape[i];
  }
  return t;
}

flash_attention_args problem(const flash_plan_info &info, const Case &c,
                             CUdeviceptr q, CUdeviceptr k, CUdeviceptr v,
                             CUdeviceptr o, CUdeviceptr lse, int d) {
  flash_attention_args a{};
  a.q = tensor(q, info.dtype, {c.b, c.hq, c.nq, d});
  a.k = tensor(k, info.dtype, {c.b, c.hkv, c.nk, d});
  a.v = tensor(v, info.dtype, {c.b, c.hkv, c.nk, d});
  a.o = tensor(o, info.dtype, {c.b, c.hq, c.nq, d});
  a.lse = tensor(lse, FLASH_DTYPE_F32, {c.b, c.hq, c.nq});
  a.scale = 0; // the plan's default, 1/sqrt(D)
  return a;
}

bool runCase(const flash_plan *plan, const Case &c, unsigned seed) {
  flash_plan_info info;
  flash_plan_get_info(plan, &info);
  const bool bf16 = info.dtype == FLASH_DTYPE_BF16;
  const bool writesLse = info.lse;
  const int d = info.head_dim;
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
  if (writesLse) {
    CHECK_CU(cuMemAlloc(&dlse, lse.size() * 4));
    CHECK_CU(cuMemcpyHtoD(dlse, lse.data(), lse.size() * 4));
  }
  flash_attention_args args = problem(info, c, dq, dk, dv, dout, dlse, d);
  if (flash_plan_launch(plan, &args, nullptr)) {
    std::printf("FAIL %s: %s\n", info.name, flash_last_error());
    return false;
  }
  CHECK_CU(cuCtxSynchronize());
  CHECK_CU(cuMemcpyDtoH(o.data(), dout, qn * 2));
  if (writesLse)
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
        if (writesLse) {
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
              ok ? "PASS" : "FAIL", info.name, flash_plan_loaded_from(plan),
              c.b, c.hq, c.hkv, c.nq, c.nk, rel, lseErr, nan ? " NaN" : "");
  return ok;
}

/// The contract checks refuse bad problems before any launch.
bool refuses(const flash_plan *plan) {
  flash_plan_info info;
  flash_plan_get_info(plan, &info);
  flash_launch_info launch;
  Case c{1, 1, 1, 8, 8};
  flash_attention_args args =
      problem(info, c, 1, 1, 1, 1, info.lse ? 1 : 0, info.head_dim + 8);
  args.o = tensor(1, info.dtype, {1, 1, 8, info.head_dim});
  bool wrongD = flash_plan_launch_info(plan, 0, &args, 132, &launch) != 0;
  std::string e1 = flash_last_error();
  c = {1, 3, 2, 8, 8};
  args = problem(info, c, 1, 1, 1, 1, info.lse ? 1 : 0, info.head_dim);
  bool badHeads = flash_plan_launch_info(plan, 0, &args, 132, &launch) != 0;
  std::string e2 = flash_last_error();
  bool ok = wrongD && badHeads;
  std::printf("%s %s refuses: '%s'; '%s'\n", ok ? "PASS" : "FAIL", info.name,
              e1.c_str(), e2.c_str());
  return ok;
}

/// The plans named on the command line: a directory's, or one file's
/// (found in its directory's library by path).
std::vector<const flash_plan *> plansOf(const std::string &arg,
                                        std::map<std::string, flash_library *> &libraries,
                                        std::string &error) {
  struct stat st;
  bool isDir = stat(arg.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  std::string dir = arg;
  if (!isDir) {
    size_t slash = arg.find_last_of('/');
    dir = slash == std::string::npos ? "." : arg.substr(0, slash);
  }
  if (!libraries.count(dir)) {
    flash_library *library = nullptr;
    if (flash_library_open(dir.c_str(), &library)) {
      error = flash_last_error();
      return {};
    }
    libraries[dir] = library;
  }
  flash_library *library = libraries[dir];
  std::vector<const flash_plan *> plans;
  for (int i = 0; i < flash_library_plan_count(library); ++i) {
    const flash_plan *plan = flash_library_plan(library, i);
    flash_plan_info info;
    flash_plan_get_info(plan, &info);
    if (isDir || info.path == arg ||
        info.path == dir + "/" + arg.substr(arg.find_last_of('/') + 1))
      plans.push_back(plan);
  }
  if (plans.empty())
    error = "no launch plan " + arg;
  return plans;
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s BUNDLE.json|BUNDLE_DIR...\n", argv[0]);
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
  std::printf("%s\n", flash_version());
  std::map<std::string, flash_library *> libraries;
  for (int i = 1; i < argc; ++i) {
    std::string error;
    std::vector<const flash_plan *> plans = plansOf(argv[i], libraries, error);
    if (plans.empty()) {
      std::printf("FAIL %s\n", error.c_str());
      ++failed;
      continue;
    }
    for (const flash_plan *plan : plans) {
      (refuses(plan) ? passed : failed)++;
      for (const Case &c : cases)
        (runCase(plan, c, seed++) ? passed : failed)++;
    }
  }
  for (auto &[dir, library] : libraries)
    flash_library_close(library);
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
