//===- TestSplitKV.cpp - flash-test-split-kv: the split count on integers -===//
//
// A test-only pass that evaluates chooseSplitKV (include/flash/Target/
// SplitKV.h) and splitKVTiles (VisibleKV.h) on plain integers, the form the
// C++ runtime calls, and prints one line per length:
//
//   keys=50 tiles=13 splits=13 tiles_per_split=1 keys_per_split=4
//
// With `check=true` it instead sweeps a grid of batches, heads, lengths,
// tile widths, SM counts and capacities and fails on any broken invariant:
// 1 <= splits <= max_splits; every tile of the visible range in exactly one
// split, in order; no split without a tile (unless the sequence is empty);
// one split when max_splits = 1. The Python tests use the printed form to
// know how many splits a CPU case exercises.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/Transforms/VisibleKV.h"
#include "flash/Target/SplitKV.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::flash;

namespace {
struct TestSplitKVPass
    : public PassWrapper<TestSplitKVPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestSplitKVPass)
  TestSplitKVPass() = default;
  TestSplitKVPass(const TestSplitKVPass &other) : PassWrapper(other) {}

  StringRef getArgument() const final { return "flash-test-split-kv"; }
  StringRef getDescription() const final {
    return "Print chooseSplitKV on integers (or check its invariants)";
  }

  Option<int64_t> batch{*this, "batch", llvm::cl::init(1)};
  Option<int64_t> kvHeads{*this, "kv-heads", llvm::cl::init(1)};
  ListOption<int64_t> keys{*this, "keys",
                           llvm::cl::desc("sequence lengths (keys)")};
  Option<int64_t> blockKV{*this, "block-kv", llvm::cl::init(128)};
  Option<int64_t> numSMs{*this, "sms", llvm::cl::init(132)};
  Option<int64_t> maxSplits{*this, "max-splits", llvm::cl::init(132)};
  Option<bool> check{*this, "check", llvm::cl::init(false)};

  /// Empty when `choice` cuts `numKeys` keys correctly, else what is wrong.
  static std::string violation(int64_t numKeys, int64_t bc, int64_t cap,
                               const SplitKVChoice<int64_t> &choice,
                               bool batchFillsSMs) {
    int64_t tiles = (numKeys + bc - 1) / bc;
    if (choice.splits < 1 || choice.splits > cap)
      return "splits outside [1, max_splits]";
    if (choice.keysPerSplit != choice.tilesPerSplit * bc)
      return "keys_per_split != tiles_per_split * block_kv";
    if ((cap == 1 || batchFillsSMs) && choice.splits != 1)
      return "more than one split with max_splits = 1 or a full grid";
    IntegerDomain d;
    VisibleKVTiles<int64_t> all{tiles, tiles, numKeys};
    int64_t next = 0;
    for (int64_t s = 0; s < cap; ++s) {
      SplitKVTiles<int64_t> r =
          splitKVTiles(d, all, s, choice.tilesPerSplit);
      if (s < choice.splits) {
        if (r.first != next)
          return "split " + std::to_string(s) + " does not start where the "
                 "previous one ended";
        if (r.end == r.first && tiles > 0)
          return "split " + std::to_string(s) + " has no tile";
        next = r.end;
      } else if (r.end != r.first) {
        return "split " + std::to_string(s) + " past the count has tiles";
      }
    }
    if (next != tiles)
      return "the splits do not cover every tile";
    return "";
  }

  void runOnOperation() override {
    llvm::raw_ostream &os = llvm::outs();
    if (!check) {
      for (int64_t n : keys) {
        SplitKVChoice<int64_t> c =
            chooseSplitKV(batch, kvHeads, n, blockKV, numSMs, maxSplits);
        os << "keys=" << n << " tiles=" << (n + blockKV - 1) / blockKV
           << " splits=" << c.splits << " tiles_per_split=" << c.tilesPerSplit
           << " keys_per_split=" << c.keysPerSplit << "\n";
      }
      return;
    }
    int64_t cases = 0;
    for (int64_t b : {1, 2, 3, 8, 64, 200})
      for (int64_t h : {1, 2, 8})
        for (int64_t bc : {1, 3, 16, 64, 128})
          for (int64_t sms : {1, 7, 108, 132})
            for (int64_t cap : {1, 2, 5, 132})
              for (int64_t n : {0, 1, 2, 15, 16, 17, 127, 128, 129, 1000,
                                4096, 33333, 131072}) {
                SplitKVChoice<int64_t> c = chooseSplitKV(b, h, n, bc, sms, cap);
                std::string why = violation(n, bc, cap, c, b * h >= sms);
                ++cases;
                if (!why.empty()) {
                  getOperation().emitError()
                      << "flash-test-split-kv: batch=" << b << " kv-heads="
                      << h << " keys=" << n << " block-kv=" << bc << " sms="
                      << sms << " max-splits=" << cap << ": " << why;
                  return signalPassFailure();
                }
              }
    os << "flash-test-split-kv: " << cases << " cases hold\n";
  }
};
} // namespace

namespace mlir::flash {
void registerTestSplitKVPass() { PassRegistration<TestSplitKVPass>(); }
} // namespace mlir::flash
