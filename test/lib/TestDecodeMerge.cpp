//===- TestDecodeMerge.cpp - the decode kernels' merge, on the CPU -------===//
//
// flash-test-decode-merge gives a body to the function @flash_decode_merge
// that the module declares,
//
//   func.func private @flash_decode_merge(
//       %partial_o: memref<?xf32>, %partial_lse: memref<?xf32>,
//       %o: memref<?xi32>, %lse: memref<?xf32>, %num_splits: i32, %rows: i32)
//
// which merges the `num_splits` parts of each of `rows` output rows (part p
// of row r: partial row p·rows + r, its Dv columns of O normalised, f32, and
// its LSE) with the SAME builder code as the kernels (SM80/DecodeMerge.h, in
// the kernels' form: scalar, one lane or thread at a time). O is written as
// 16-bit pairs (32-bit words), LSE when `lse`.
//
// form=fused (default): the split kernels' fused merge (buildMergeRow,
// buildMergeGroups), a warp a row: in one level, or with more than
// kSplitKVMergeDirect parts in two, each group into the partial slot of its
// first part, then the groups into the output row. The lanes of a warp run
// one after another, lane 31 first, so that lane 0's LSE store into a
// group's slot follows every lane's reads of it (the kernel's __syncwarp).
// What stays out: which block merges (the counters; flash-test-decode-counts).
//
// form=kernel: sm_90a's separate merge kernel (buildMergeKernelSums,
// mergeKernelSlot, buildMergeKernelCombine): for each row of at least two
// parts (the kernel leaves the others alone) and each slice of
// kSplitKVMergeSlice columns (a block), every thread's sums into an
// exchange buffer, then (the block's barrier) the first group's threads'
// combine. What stays out: the wait for the split grid, the count of parts
// (here num_splits) and the shared memory itself (here a buffer).
//
// form=pair: sm_90a's pair merge (buildPairMergeRows), for num_splits = 2
// (other counts are left alone: the kernel takes it for two parts only).
// Block `rank`'s warps, one after another, both ranks: each merges its rows
// of the tile (row r: 2·warp + rank + 8k) reading the two parts' partials
// (the kernel's two blocks' shared memory, here parts 0 and 1 of the
// buffers: part s of row r at partial row s·rows + r, as above). What stays
// out: the cluster's barriers and distributed shared-memory addresses, and
// where the partials were written (flash-test-decode-result shared=true).
//
// All: the hardware's ex2.approx and lg2.approx are the host's exp2 and
// log2 (the only NVVM operations of the merges; the harness replaces them
// and refuses any other). python/tests/test_decode_merge.py runs it against
// a float64 merge.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/SM80/DecodeMerge.h"
#include "flash/Target/SplitKV.h"
#include "HarnessDeclaration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::sm80;

namespace {

struct TestDecodeMergePass
    : public PassWrapper<TestDecodeMergePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestDecodeMergePass)
  TestDecodeMergePass() = default;
  TestDecodeMergePass(const TestDecodeMergePass &other)
      : PassWrapper(other) {}

  StringRef getArgument() const final { return "flash-test-decode-merge"; }
  StringRef getDescription() const final {
    return "Define @flash_decode_merge: the decode kernels' merge of parts "
           "(form=fused: buildMergeRow; form=kernel: sm_90a's merge kernel; "
           "form=pair: sm_90a's pair merge) "
           "on the CPU, for running under mlir-runner (test only)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, func::FuncDialect,
                    LLVM::LLVMDialect, memref::MemRefDialect,
                    NVVM::NVVMDialect, scf::SCFDialect,
                    vector::VectorDialect>();
  }

  Option<std::string> elementType{*this, "element-type",
                                  llvm::cl::desc("f16 or bf16"),
                                  llvm::cl::init("bf16")};
  Option<int64_t> headDim{*this, "head-dim", llvm::cl::desc("Dv"),
                          llvm::cl::init(128)};
  Option<bool> writesLse{*this, "lse", llvm::cl::desc("write the LSE"),
                         llvm::cl::init(true)};
  Option<std::string> form{
      *this, "form",
      llvm::cl::desc("fused (the split kernels' merge), kernel (sm_90a's "
                     "separate merge kernel) or pair (sm_90a's pair merge)"),
      llvm::cl::init("fused")};

  void runOnOperation() override;

private:
  void buildSeparateMergeKernel(KernelMath &km, const KernelConfig &config,
                                const OutputRows &out, Value numSplits,
                                Value rows);
};

void TestDecodeMergePass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  auto fail = [&](const Twine &message) {
    module.emitError("flash-test-decode-merge: ") << message;
    signalPassFailure();
  };
  KernelConfig config;
  config.elementType = harnessElementType(ctx, elementType);
  if (!config.elementType)
    return fail("element-type must be f16 or bf16");
  if (std::string wrong = decodeTileOptionError(headDim); !wrong.empty())
    return fail(wrong);
  config.headDim = headDim;
  config.writesLse = writesLse;
  if (form != "fused" && form != "kernel" && form != "pair")
    return fail("form must be fused, kernel or pair");

  Type i32 = IntegerType::get(ctx, 32), f32 = Float32Type::get(ctx);
  auto flat = [&](Type element) {
    return MemRefType::get({ShapedType::kDynamic}, element);
  };
  std::string error;
  func::FuncOp func = harnessDeclaration(
      module, "flash_decode_merge",
      FunctionType::get(
          ctx, {flat(f32), flat(f32), flat(i32), flat(f32), i32, i32}, {}),
      error);
  if (!func)
    return fail(error);

  Location loc = func.getLoc();
  Block *entry = func.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockBegin(entry);
  KernelMath km{b, loc}; // the kernels' (scalar) form
  // The partials as the kernels see them: global pointers.
  auto pointerOf = [&](Value memref) -> Value {
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    return LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(ctx, 1),
        arith::IndexCastOp::create(b, loc, b.getI64Type(), address)
            .getResult());
  };
  OutputRows out{entry->getArgument(2),
                 writesLse ? entry->getArgument(3) : Value(),
                 pointerOf(entry->getArgument(0)),
                 pointerOf(entry->getArgument(1))};
  Value numSplits = entry->getArgument(4), rows = entry->getArgument(5);

  auto forEach = [&](Value lb, Value ub, function_ref<void(Value)> body) {
    harnessLoop(b, loc, lb, ub, body);
  };
  // The warp's lanes, 31 first (see the file's comment).
  auto eachLane = [&](function_ref<void(Value lane)> body) {
    forEach(km.i32(0), km.i32(32), [&](Value i) {
      body(km.sub(km.i32(31), i));
    });
  };
  if (form == "kernel") {
    buildSeparateMergeKernel(km, config, out, numSplits, rows);
  } else if (form == "pair") {
    // Part s's words and LSEs: plain loads of the buffers.
    Value partialO = entry->getArgument(0), partialLse = entry->getArgument(1);
    PairPartials fromBuffers;
    fromBuffers.o = [&](int64_t s, Value word) {
      Value first = km.add(km.mul(km.i32(s), km.mul(rows, km.i32(headDim))),
                           word);
      SmallVector<Value> words;
      for (int64_t c = 0; c < headDim / 32; ++c)
        words.push_back(memref::LoadOp::create(
            b, loc, partialO,
            ValueRange{km.toIndex(km.add(first, km.i32(c)))}));
      return words;
    };
    fromBuffers.lse = [&](int64_t s, Value row) -> Value {
      return memref::LoadOp::create(
          b, loc, partialLse,
          ValueRange{km.toIndex(km.add(km.mul(km.i32(s), rows), row))});
    };
    auto ifTwo = scf::IfOp::create(
        b, loc, km.cmp(arith::CmpIPredicate::eq, numSplits, km.i32(2)),
        /*withElse=*/false);
    b.setInsertionPoint(ifTwo.thenBlock()->getTerminator());
    forEach(km.i32(0), km.i32(2), [&](Value rank) {
      forEach(km.i32(0), km.i32(kSplitKVWarps), [&](Value warp) {
        eachLane([&](Value lane) {
          buildPairMergeRows(km, config, out, warp, rank, lane, rows,
                             km.i32(0), fromBuffers);
        });
      });
    });
    b.setInsertionPointAfter(ifTwo);
  } else {
    MergeGroups groups = buildMergeGroups(km, numSplits);
    forEach(km.i32(0), rows, [&](Value row) {
      auto ifTwo = scf::IfOp::create(b, loc, groups.twoLevel,
                                     /*withElse=*/true);
      OpBuilder::InsertionGuard guard(b);
      // Two levels: each group into its first part's slot, then the groups.
      b.setInsertionPoint(ifTwo.thenBlock()->getTerminator());
      forEach(km.i32(0), groups.numGroups, [&](Value group) {
        Value first = km.mul(group, groups.groupSize);
        Value count = km.minsi(groups.groupSize, km.sub(numSplits, first));
        eachLane([&](Value lane) {
          buildMergeRow(km, config, out, lane, row, first, count, km.i32(1),
                        rows, MergeTarget{first});
        });
      });
      eachLane([&](Value lane) {
        buildMergeRow(km, config, out, lane, row, km.i32(0), groups.numGroups,
                      groups.groupSize, rows, MergeTarget{});
      });
      // One level.
      b.setInsertionPoint(ifTwo.elseBlock()->getTerminator());
      eachLane([&](Value lane) {
        buildMergeRow(km, config, out, lane, row, km.i32(0), numSplits,
                      km.i32(1), rows, MergeTarget{});
      });
    });
  }
  func::ReturnOp::create(b, loc);
  if (failed(replaceScalarDeviceOps(func, "flash-test-decode-merge")))
    signalPassFailure();
}

void TestDecodeMergePass::buildSeparateMergeKernel(KernelMath &km,
                                                   const KernelConfig &config,
                                                   const OutputRows &out,
                                                   Value numSplits,
                                                   Value rows) {
  using P = arith::CmpIPredicate;
  OpBuilder &b = km.b;
  Location loc = km.loc;
  auto forEach = [&](int64_t n, function_ref<void(Value)> body) {
    harnessLoop(b, loc, km.i32(0), km.i32(n), body);
  };
  auto exchange = memref::AllocaOp::create(
      b, loc, MemRefType::get({kSplitKVMergeSharedBytes / 4}, b.getF32Type()));
  Value allRows = km.toIndex(rows);
  auto rowLoop = scf::ForOp::create(b, loc, km.i32(0), rows, km.i32(1));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(rowLoop.getBody());
    Value rowIndex = km.toIndex(rowLoop.getInductionVar());
    auto ifMerge = scf::IfOp::create(
        b, loc, km.cmp(P::sge, numSplits, km.i32(2)), /*withElse=*/false);
    b.setInsertionPoint(ifMerge.thenBlock()->getTerminator());
    forEach(config.headDim / kSplitKVMergeSlice, [&](Value slice) {
      // The block's threads, one after another; then its barrier.
      forEach(kSplitKVMergeThreads, [&](Value tid) {
        MergeKernelThread thread = mergeKernelThread(km, tid);
        Value column = mergeKernelColumn(km, slice, thread.quad);
        SmallVector<Value> words =
            buildMergeKernelSums(km, config, out, thread.group, column,
                                 rowIndex, allRows, numSplits);
        for (auto [k, word] : llvm::enumerate(words))
          km.store(word, exchange,
                   mergeKernelSlot(km, k, thread.group, thread.quad));
      });
      forEach(kSplitKVMergeThreads, [&](Value tid) {
        MergeKernelThread thread = mergeKernelThread(km, tid);
        km.ifLanes(km.cmp(P::eq, thread.group, km.i32(0)), [&] {
          Value column = mergeKernelColumn(km, slice, thread.quad);
          auto oRows = [&] { return out.o; };
          auto lseRows = [&] { return out.lse; };
          buildMergeKernelCombine(km, config,
                                  MergeKernelOutputs{oRows, lseRows},
                                  exchange, slice, thread.quad, column,
                                  rowIndex);
        });
      });
    });
  }
}

} // namespace

namespace mlir::flash {
void registerTestDecodeMergePass() { PassRegistration<TestDecodeMergePass>(); }
} // namespace mlir::flash
