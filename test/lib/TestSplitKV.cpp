//===- TestSplitKV.cpp - flash-test-split-kv: the split count on integers -===//
//
// A test-only pass that evaluates splitKVCount (include/flash/Target/
// SplitKV.h, the one rule of the GPU decode kernels, flash-tile's split-KV
// form and the IO model) and splitKVTiles (VisibleKV.h) on plain integers,
// and prints one line per length (tiles = ceil(keys / block-kv), the range
// the packed rows visit; work_units = batch · kv-heads · row-tiles):
//
//   keys=50 tiles=13 work_units=1 splits=3 tiles_per_split=5 grid=6
//
// (grid: splitKVGridParts, the launch plan's grid x, for a cache whose
// capacity is those keys.)
//
// `stages` (2 by default) and `row-bytes` (256) are the kernel's K/V stages
// and bytes of a K row, `two-blocks-fit` (true) whether two of its blocks
// fit an SM: the rule aims at splitKVBlocksPerSM(stages, row-bytes,
// two-blocks-fit) blocks an SM (one from 3 stages and 256-byte rows up or
// where two do not fit, else two); `blocks-per-sm` (0: that) gives the
// count instead, as flash-kernel-forms reports it for a plan.
//
// With `check=true` it instead sweeps a grid of batches, heads, row tiles,
// lengths, tile widths, SM counts, capacities and stages and fails on any
// broken invariant: 0 splits exactly for an empty sequence, else 1 <=
// splits <= min(max_splits, max(floor(blocks an SM · SMs / work units), 1))
// (one wave) and <=
// splitKVMaxSplits (the launch plan's grid), which a sequence of
// splitKVMaxSplits · kSplitKVMinTilesPerSplit tiles reaches (no block of the
// grid is idle for every length), and <= splitKVGridParts of a cache whose
// capacity is the sequence's own tiles (the grid x of a call that can hold
// it: a shorter capacity cannot); every tile of the visible range
// in exactly one split, in order; no split without a tile; more than one
// split only when each has at least kSplitKVMinTilesPerSplit tiles and the
// work units fill less than kSplitKVWholeNum / kSplitKVWholeDen of the SMs. The
// Python tests use the printed form to know how many splits a CPU case
// exercises.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/Transforms/VisibleKV.h"
#include "flash/Target/SplitKV.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <string>
#include <utility>

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
    return "Print splitKVCount on integers (or check its invariants)";
  }

  Option<int64_t> batch{*this, "batch", llvm::cl::init(1)};
  Option<int64_t> kvHeads{*this, "kv-heads", llvm::cl::init(1)};
  Option<int64_t> rowTiles{*this, "row-tiles", llvm::cl::init(1)};
  ListOption<int64_t> keys{*this, "keys",
                           llvm::cl::desc("sequence lengths (keys)")};
  Option<int64_t> blockKV{*this, "block-kv", llvm::cl::init(128)};
  Option<int64_t> numSMs{*this, "sms", llvm::cl::init(132)};
  Option<int64_t> maxSplits{*this, "max-splits", llvm::cl::init(132)};
  Option<int64_t> stages{*this, "stages", llvm::cl::init(2),
                         llvm::cl::desc("the kernel's K/V stages")};
  Option<int64_t> rowBytes{*this, "row-bytes", llvm::cl::init(256),
                           llvm::cl::desc("the bytes of a K row")};
  Option<bool> twoBlocksFit{*this, "two-blocks-fit", llvm::cl::init(true),
                            llvm::cl::desc("two of the kernel's blocks fit "
                                           "an SM")};
  Option<int64_t> blocksPerSM{
      *this, "blocks-per-sm", llvm::cl::init(0),
      llvm::cl::desc("the blocks an SM the rule aims at (0: from stages, "
                     "row-bytes and two-blocks-fit)")};
  Option<bool> check{*this, "check", llvm::cl::init(false)};

  static SplitKVCount<int64_t> count(int64_t b, int64_t h, int64_t rt,
                                     int64_t tiles, int64_t sms, int64_t cap,
                                     int64_t perSM) {
    IntegerDomain d;
    return splitKVCount(tiles, splitKVWorkUnits(d, b, h, rt), sms, cap, perSM);
  }

  /// Empty when `c` cuts `tiles` tiles correctly, else what is wrong.
  static std::string violation(int64_t tiles, int64_t workUnits,
                               int64_t sms, int64_t cap, int64_t perSM,
                               const SplitKVCount<int64_t> &c) {
    if (tiles == 0)
      return c.numSplits == 0 ? "" : "an empty sequence with splits";
    int64_t wanted = std::max<int64_t>(perSM * sms / workUnits, 1);
    if (c.numSplits < 1 || c.numSplits > cap)
      return "splits outside [1, max_splits]";
    if (c.numSplits > wanted)
      return "more splits than one wave of the SMs holds";
    if (c.numSplits > 1 &&
        kSplitKVWholeDen * workUnits >= kSplitKVWholeNum * sms)
      return "a call whose work units fill the SMs cut into parts";
    if (c.numSplits > 1 && c.tilesPerSplit < kSplitKVMinTilesPerSplit)
      return "a split shorter than kSplitKVMinTilesPerSplit tiles";
    int64_t maxParts = splitKVMaxSplits(workUnits, sms, cap, perSM);
    if (c.numSplits > maxParts)
      return "more splits than splitKVMaxSplits (the workspaces)";
    if (c.numSplits > splitKVGridParts(workUnits, sms, cap, perSM, tiles))
      return "more splits than splitKVGridParts of a capacity of its own "
             "tiles (the grid)";
    if (splitKVCount(maxParts * kSplitKVMinTilesPerSplit, workUnits, sms, cap,
                     perSM)
            .numSplits != maxParts)
      return "splitKVMaxSplits not reached by a sequence of max parts · "
             "kSplitKVMinTilesPerSplit tiles";
    IntegerDomain d;
    VisibleKVTiles<int64_t> all{tiles, tiles, tiles};
    int64_t next = 0;
    for (int64_t s = 0; s < cap; ++s) {
      SplitKVTiles<int64_t> r = splitKVTiles(d, all, s, c.tilesPerSplit);
      if (s < c.numSplits) {
        if (r.first != next)
          return "split " + std::to_string(s) + " does not start where the "
                 "previous one ended";
        if (r.end == r.first)
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
        int64_t tiles = (n + blockKV - 1) / blockKV;
        int64_t perSM = blocksPerSM > 0
                            ? int64_t(blocksPerSM)
                            : splitKVBlocksPerSM(stages, rowBytes, twoBlocksFit);
        SplitKVCount<int64_t> c = count(batch, kvHeads, rowTiles, tiles,
                                        numSMs, maxSplits, perSM);
        os << "keys=" << n << " tiles=" << tiles
           << " work_units=" << batch * kvHeads * rowTiles
           << " splits=" << c.numSplits
           << " tiles_per_split=" << c.tilesPerSplit << " grid="
           << splitKVGridParts(batch * kvHeads * rowTiles, numSMs, maxSplits,
                               perSM, tiles)
           << "\n";
      }
      return;
    }
    int64_t cases = 0;
    for (int64_t b : {1, 2, 3, 8, 64, 200})
      for (int64_t h : {1, 2, 8})
        for (int64_t rt : {1, 3})
          for (int64_t bc : {1, 3, 16, 64, 128})
            for (int64_t sms : {1, 7, 108, 132})
              for (int64_t cap : {1, 2, 5, 132})
                // At 256-byte rows: 2 stages two blocks an SM, 3 stages
                // one, and 2 stages one where two do not fit.
                for (auto [st, fit] : {std::pair(2, true), std::pair(3, true),
                                       std::pair(2, false)})
                  for (int64_t n : {0, 1, 2, 15, 16, 17, 127, 128, 129, 1000,
                                    4096, 33333, 131072}) {
                    int64_t tiles = (n + bc - 1) / bc;
                    int64_t perSM = splitKVBlocksPerSM(st, 256, fit);
                    SplitKVCount<int64_t> c =
                        count(b, h, rt, tiles, sms, cap, perSM);
                    std::string why =
                        violation(tiles, b * h * rt, sms, cap, perSM, c);
                    ++cases;
                    if (!why.empty()) {
                      getOperation().emitError()
                          << "flash-test-split-kv: batch=" << b
                          << " kv-heads=" << h << " row-tiles=" << rt
                          << " keys=" << n << " block-kv=" << bc
                          << " sms=" << sms << " max-splits=" << cap
                          << " stages=" << st << ": " << why;
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
