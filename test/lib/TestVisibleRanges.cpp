//===- TestVisibleRanges.cpp - the visible-range model vs brute force -----===//
//
// flash-test-visible-ranges checks the one model of which (Q tile, K/V tile)
// pairs attention visits (VisibleKV.h) on the integer domain, exhaustively
// for all Nq, Nk in [0, max-len], Br, Bc in [1, max-tile], causal or not:
//
// - the forward's question, visibleKVTiles: Q tile t visits exactly the K/V
//   tiles j < numTiles that hold a key one of its rows sees, and needs no
//   mask exactly for the tiles j < numUnmasked that every row sees whole
//   and that lie inside the sequence; kvEnd is one past the last key its
//   rows see;
// - the backward's, visibleQTiles: K/V tile j is visited by exactly the Q
//   tiles t in [first, numTiles) that have a row seeing one of its keys,
//   without a mask exactly for t >= firstUnmasked;
//
// each against loops over every row and key, so the two answers are also
// each other's transpose. It prints one line with the counts, or a located
// error naming the first configurations that disagree.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/Transforms/VisibleKV.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::flash;

namespace {

/// What brute force says of one (Q tile, K/V tile) pair.
struct PairTruth {
  bool visible;  ///< some row of the Q tile sees some key of the K/V tile
  bool unmasked; ///< every row sees every slot of the K/V tile, all in [0, Nk)
};

bool seesKey(int64_t row, int64_t key, int64_t nq, int64_t nk, bool causal) {
  return !causal || key <= row + (nk - nq);
}

PairTruth bruteForce(int64_t t, int64_t j, int64_t nq, int64_t nk, int64_t br,
                     int64_t bc, bool causal) {
  auto sees = [&](int64_t row, int64_t key) {
    return seesKey(row, key, nq, nk, causal);
  };
  PairTruth truth{false, true};
  for (int64_t row = t * br; row < std::min(t * br + br, nq); ++row) {
    for (int64_t slot = j * bc; slot < j * bc + bc; ++slot) {
      bool inSequence = slot < nk;
      if (inSequence && sees(row, slot))
        truth.visible = true;
      if (!inSequence || !sees(row, slot))
        truth.unmasked = false;
    }
  }
  return truth;
}

struct TestVisibleRangesPass
    : PassWrapper<TestVisibleRangesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestVisibleRangesPass)
  TestVisibleRangesPass() = default;
  TestVisibleRangesPass(const TestVisibleRangesPass &other)
      : PassWrapper(other) {}

  StringRef getArgument() const override {
    return "flash-test-visible-ranges";
  }
  StringRef getDescription() const override {
    return "Test only: check visibleKVTiles and visibleQTiles (VisibleKV.h) "
           "against brute force for all small sizes";
  }

  Option<int64_t> maxLength{*this, "max-len",
                            llvm::cl::desc("Largest Nq and Nk checked"),
                            llvm::cl::init(20)};
  Option<int64_t> maxTile{*this, "max-tile",
                          llvm::cl::desc("Largest Br and Bc checked"),
                          llvm::cl::init(8)};

  void runOnOperation() override {
    if (maxLength < 0 || maxTile < 1) {
      getOperation()->emitError()
          << "flash-test-visible-ranges: max-len must be >= 0 and max-tile "
             ">= 1";
      return signalPassFailure();
    }
    int64_t configurations = 0, pairs = 0, mismatches = 0;
    auto report = [&](const Twine &what) {
      if (++mismatches <= 5)
        getOperation()->emitError() << "flash-test-visible-ranges: " << what;
    };
    for (bool causal : {false, true})
      for (int64_t nq = 0; nq <= maxLength; ++nq)
        for (int64_t nk = 0; nk <= maxLength; ++nk)
          for (int64_t br = 1; br <= maxTile; ++br)
            for (int64_t bc = 1; bc <= maxTile; ++bc) {
              ++configurations;
              check(nq, nk, br, bc, causal, pairs, report);
            }
    if (mismatches) {
      getOperation()->emitError()
          << "flash-test-visible-ranges: " << mismatches
          << " disagreement(s) with brute force";
      return signalPassFailure();
    }
    llvm::outs() << "flash-test-visible-ranges: " << configurations
                 << " configurations, " << pairs
                 << " tile pairs: visibleKVTiles and visibleQTiles agree "
                    "with brute force\n";
  }

  void check(int64_t nq, int64_t nk, int64_t br, int64_t bc, bool causal,
             int64_t &pairs, function_ref<void(const Twine &)> report) {
    int64_t numQTiles = (nq + br - 1) / br, numKVTiles = (nk + bc - 1) / bc;
    std::string where;
    llvm::raw_string_ostream os(where);
    os << "Nq=" << nq << " Nk=" << nk << " Br=" << br << " Bc=" << bc
       << (causal ? " causal" : "");
    for (int64_t j = 0; j < numKVTiles; ++j) {
      VisibleQTiles<int64_t> q = visibleQTiles(j * bc, nq, nk, br, bc, causal);
      if (q.numTiles != numQTiles)
        report(where + ": K/V tile " + Twine(j) + " has numTiles " +
               Twine(q.numTiles) + ", expected " + Twine(numQTiles));
      if (!(0 <= q.first && q.first <= q.firstUnmasked &&
            q.firstUnmasked <= q.numTiles))
        report(where + ": K/V tile " + Twine(j) + " has an unordered range [" +
               Twine(q.first) + ", " + Twine(q.firstUnmasked) + ", " +
               Twine(q.numTiles) + "]");
    }
    for (int64_t t = 0; t < numQTiles; ++t) {
      VisibleKVTiles<int64_t> kv =
          visibleKVTiles(t * br, nq, nk, br, bc, causal);
      // One past the last key a row of the Q tile sees.
      int64_t lastKeySeen = 0;
      for (int64_t row = t * br; row < std::min(t * br + br, nq); ++row)
        for (int64_t key = 0; key < nk; ++key)
          if (seesKey(row, key, nq, nk, causal))
            lastKeySeen = std::max(lastKeySeen, key + 1);
      for (int64_t j = 0; j < numKVTiles; ++j) {
        PairTruth truth = bruteForce(t, j, nq, nk, br, bc, causal);
        ++pairs;
        VisibleQTiles<int64_t> q =
            visibleQTiles(j * bc, nq, nk, br, bc, causal);
        std::string pair =
            (where + ", Q tile " + Twine(t) + ", K/V tile " + Twine(j)).str();
        bool forwardVisits = j < kv.numTiles;
        bool forwardUnmasked = j < kv.numUnmasked;
        bool backwardVisits = t >= q.first && t < q.numTiles;
        bool backwardUnmasked = t >= q.firstUnmasked && t < q.numTiles;
        if (forwardVisits != truth.visible)
          report(pair + ": visibleKVTiles visits it: " +
                 Twine(forwardVisits) + ", brute force: " +
                 Twine(truth.visible));
        if (backwardVisits != truth.visible)
          report(pair + ": visibleQTiles visits it: " +
                 Twine(backwardVisits) + ", brute force: " +
                 Twine(truth.visible));
        if (truth.visible && forwardUnmasked != truth.unmasked)
          report(pair + ": visibleKVTiles skips the mask: " +
                 Twine(forwardUnmasked) + ", brute force: " +
                 Twine(truth.unmasked));
        if (truth.visible && backwardUnmasked != truth.unmasked)
          report(pair + ": visibleQTiles skips the mask: " +
                 Twine(backwardUnmasked) + ", brute force: " +
                 Twine(truth.unmasked));
      }
      if (kv.kvEnd != lastKeySeen)
        report(where + ", Q tile " + Twine(t) + ": kvEnd " + Twine(kv.kvEnd) +
               ", expected " + Twine(lastKeySeen));
    }
  }
};
} // namespace

namespace mlir::flash {
void registerTestVisibleRangesPass() {
  PassRegistration<TestVisibleRangesPass>();
}
} // namespace mlir::flash
