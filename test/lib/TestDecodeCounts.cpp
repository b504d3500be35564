//===- TestDecodeCounts.cpp - which block merges, on the CPU ---------------===//
//
// flash-test-decode-counts gives a body to the function @flash_decode_counts
// that the module declares,
//
//   func.func private @flash_decode_counts(
//       %order: memref<?xi32>, %counters: memref<?xi32>, %log: memref<?xi32>,
//       %blocks: i32, %num_splits: i32, %grid_parts: i32)
//
// which runs the split kernels' fused-merge counts (buildFusedMergeCounts,
// SM80/DecodeMerge.h: the SAME builder code as the kernels) for `blocks`
// blocks one after another, in the order they finish: block i is part
// %order[2i + 1] (< num_splits, >= 2) of work unit %order[2i], in a grid of
// %grid_parts parts. The kernel's atomic count by one thread and its
// broadcast through shared memory become a load, an add and a store of
// %counters (the blocks run one at a time), the barrier nothing, and each
// merge a record appended to %log (word 0 the number of records, then 5
// words each: unit, part, kind, a, b; kind 1: every part into the output
// rows (a = b = 0); 2: parts [a, a + b) into part a's slot; 3: a groups of
// b parts into the output rows). What stays out: the atomic itself, its
// acquire/release order and the broadcast (the GPU's), the merges
// (flash-test-decode-merge). python/tests/test_decode_counts.py checks the
// log and the counters (zero again after every launch) against the
// protocol's definition.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/SM80/DecodeMerge.h"
#include "HarnessDeclaration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::sm80;

namespace {

struct TestDecodeCountsPass
    : public PassWrapper<TestDecodeCountsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestDecodeCountsPass)

  StringRef getArgument() const final { return "flash-test-decode-counts"; }
  StringRef getDescription() const final {
    return "Define @flash_decode_counts: which block of a split-KV row tile "
           "merges its parts (the fused merge's counters), the blocks run one "
           "after another on the CPU under mlir-runner (test only)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, func::FuncDialect,
                    memref::MemRefDialect, scf::SCFDialect>();
  }

  void runOnOperation() override;
};

void TestDecodeCountsPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  Type i32 = IntegerType::get(ctx, 32);
  auto flat = MemRefType::get({ShapedType::kDynamic}, i32);
  std::string error;
  func::FuncOp func = harnessDeclaration(
      module, "flash_decode_counts",
      FunctionType::get(ctx, {flat, flat, flat, i32, i32, i32}, {}), error);
  if (!func) {
    module.emitError("flash-test-decode-counts: ") << error;
    return signalPassFailure();
  }

  Location loc = func.getLoc();
  Block *entry = func.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockBegin(entry);
  KernelMath km{b, loc}; // the kernels' (scalar) form
  using P = arith::CmpIPredicate;
  Value order = entry->getArgument(0), counters = entry->getArgument(1),
        log = entry->getArgument(2), blocks = entry->getArgument(3),
        numSplits = entry->getArgument(4), gridParts = entry->getArgument(5);
  auto load = [&](Value memref, Value i32Index) -> Value {
    return memref::LoadOp::create(b, loc, memref,
                                  ValueRange{km.toIndex(i32Index)});
  };
  harnessLoop(b, loc, km.i32(0), blocks, [&](Value i) {
    Value unit = load(order, km.mul(i, km.i32(2)));
    Value part = load(order, km.add(km.mul(i, km.i32(2)), km.i32(1)));
    // A merge: the record (unit, part, kind, a, b) at the end of the log.
    auto record = [&](int64_t kind, Value x, Value y) {
      Value n = load(log, km.i32(0));
      Value at = km.add(km.i32(1), km.mul(n, km.i32(5)));
      for (auto [k, word] : llvm::enumerate(
               SmallVector<Value>{unit, part, km.i32(kind), x, y}))
        km.store(word, log, km.toIndex(km.add(at, km.i32(int64_t(k)))));
      km.store(km.add(n, km.i32(1)), log, km.index(0));
    };
    FusedMergeCounting counting{
        /*gridParts=*/[&] { return gridParts; },
        /*unitIndex=*/[&] { return unit; },
        /*counterAt=*/[&](Value index) { return index; },
        /*ready=*/[] {},
        /*lastToCount=*/
        [&](Value counter, Value expected) -> Value {
          Value done = load(counters, counter);
          km.store(km.add(done, km.i32(1)), counters, km.toIndex(counter));
          return km.cmp(P::eq, done, km.sub(expected, km.i32(1)));
        },
        /*reset=*/
        [&](Value counter) {
          km.store(km.i32(0), counters, km.toIndex(counter));
        },
        /*barrier=*/[] {},
        /*mergeAll=*/[&] { record(1, km.i32(0), km.i32(0)); },
        /*mergeGroup=*/[&](Value first, Value count) { record(2, first, count); },
        /*mergeGroups=*/
        [&](Value numGroups, Value groupSize) {
          record(3, numGroups, groupSize);
        }};
    buildFusedMergeCounts(km, numSplits, part, counting);
  });
  func::ReturnOp::create(b, loc);
}

} // namespace

namespace mlir::flash {
void registerTestDecodeCountsPass() {
  PassRegistration<TestDecodeCountsPass>();
}
} // namespace mlir::flash
