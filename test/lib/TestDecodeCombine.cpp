//===- TestDecodeCombine.cpp - the split kernels' warp combine, on the CPU ===//
//
// flash-test-decode-combine gives a body to the function
// @flash_decode_combine that the module declares,
//
//   func.func private @flash_decode_combine(
//       %states: memref<?xf32>, %out: memref<?xf32>, %scale: f32)
//
// which combines the four warps' online-softmax states of a split kernel's
// row tile (m-tiles 16-row tiles, head-dim columns) with the SAME builder
// code as the kernels (SM80/DecodeMerge.h: storeWarpCombineWords, then
// combineWarpSlices or combineIntoFirstWarp), in the kernels' scalar form:
// the lanes of each warp one after another, the warps' stores before any
// warp's combine (the kernel's barrier).
//
// %states: word i of lane l of warp w at (w·words + i)·32 + l, words =
// warpCombineWordsPerWarp / 32 (the thread's rows' m, then its part of
// their sums l, then its accumulator registers) — what each warp holds at
// the end of its K/V loop.
// %out: for every thread that combines, word j of lane l of warp w at
// (w·outWords + j)·32 + l: its rows' common maxima, its part of their sums,
// then its combined accumulator registers (combine=slices: every warp, its
// quarter of the column tiles, outWords = 2·2·m + m·head-dim/8; combine=
// first-warp: warp 0 only, every column tile, outWords = words).
// %scale: the softmax scale (c = scale·log2 e, as the kernels form it).
//
// What stays out: the shared memory itself (here a buffer), the barrier,
// and what the kernel does with the combined state (writeSplitResult: the
// quad's row sums, O or the partials, the LSE; flash-test-decode-result runs
// it). The hardware's ex2.approx is the host's exp2.
// python/tests/test_decode_combine.py runs it against a float64 combine.
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
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <cmath>

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::sm80;

namespace {

struct TestDecodeCombinePass
    : public PassWrapper<TestDecodeCombinePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestDecodeCombinePass)
  TestDecodeCombinePass() = default;
  TestDecodeCombinePass(const TestDecodeCombinePass &other)
      : PassWrapper(other) {}

  StringRef getArgument() const final { return "flash-test-decode-combine"; }
  StringRef getDescription() const final {
    return "Define @flash_decode_combine: the split-KV kernels' combine of "
           "their four warps' softmax states (combine=slices: every warp a "
           "quarter of the columns; combine=first-warp: warp 0 all) on the "
           "CPU, for running under mlir-runner (test only)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, func::FuncDialect,
                    LLVM::LLVMDialect, memref::MemRefDialect,
                    NVVM::NVVMDialect, scf::SCFDialect>();
  }

  Option<int64_t> headDim{*this, "head-dim", llvm::cl::desc("Dv"),
                          llvm::cl::init(128)};
  Option<int64_t> mTiles{*this, "m-tiles",
                         llvm::cl::desc("16-row tiles of the row tile"),
                         llvm::cl::init(1)};
  Option<std::string> combine{
      *this, "combine",
      llvm::cl::desc("slices (every warp combines a quarter of the columns) "
                     "or first-warp (warp 0 combines everything)"),
      llvm::cl::init("slices")};

  void runOnOperation() override;
};

void TestDecodeCombinePass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  auto fail = [&](const Twine &message) {
    module.emitError("flash-test-decode-combine: ") << message;
    signalPassFailure();
  };
  if (std::string wrong = decodeTileOptionError(headDim, mTiles);
      !wrong.empty())
    return fail(wrong);
  if (combine != "slices" && combine != "first-warp")
    return fail("combine must be slices or first-warp");
  const bool parallel = combine == "slices";

  Type f32 = Float32Type::get(ctx);
  auto flat = MemRefType::get({ShapedType::kDynamic}, f32);
  std::string error;
  func::FuncOp func = harnessDeclaration(
      module, "flash_decode_combine",
      FunctionType::get(ctx, {flat, flat, f32}, {}), error);
  if (!func)
    return fail(error);

  Location loc = func.getLoc();
  Block *entry = func.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockBegin(entry);
  KernelMath km{b, loc}; // the kernels' (scalar) form
  Value states = entry->getArgument(0), out = entry->getArgument(1);
  Value scaleLog2e = arith::MulFOp::create(b, loc, entry->getArgument(2),
                                           km.f32(M_LOG2E));
  const int64_t numRows = 2 * mTiles, nTiles = headDim / 8;
  const int64_t words = warpCombineWordsPerWarp(mTiles, headDim) / 32;
  const int64_t outWords =
      parallel ? 2 * numRows + mTiles * (nTiles / kSplitKVWarps) * 4 : words;
  const int64_t places = parallel ? kSplitKVWarps : kSplitKVWarps - 1;
  auto exchange = memref::AllocaOp::create(
      b, loc, MemRefType::get({places * words * 32}, f32));

  auto forEach = [&](int64_t n, function_ref<void(Value)> body) {
    harnessLoop(b, loc, km.i32(0), km.i32(n), body);
  };
  auto at = [&](Value warp, int64_t word, int64_t perLane, Value lane) {
    return km.toIndex(km.add(
        km.mul(km.add(km.mul(warp, km.i32(perLane)), km.i32(word)),
               km.i32(32)),
        lane));
  };
  // Lane `lane` of warp `warp`'s state, as its loop left it.
  auto stateOf = [&](Value warp, Value lane) {
    OnlineSoftmaxState s;
    s.acc = Fragment(mTiles, nTiles, km.f32(0.0));
    for (int64_t i = 0; i < words; ++i) {
      Value w = memref::LoadOp::create(b, loc, states,
                                       ValueRange{at(warp, i, words, lane)});
      if (i < numRows)
        s.runningMax.push_back(w);
      else if (i < 2 * numRows)
        s.runningSum.push_back(w);
      else
        s.acc.regs[i - 2 * numRows] = w;
    }
    return s;
  };
  auto write = [&](Value warp, Value lane, const CombinedWarps &c) {
    SmallVector<Value> result(c.common);
    result.append(c.runningSum.begin(), c.runningSum.end());
    result.append(c.acc.regs.begin(), c.acc.regs.end());
    for (auto [j, v] : llvm::enumerate(result))
      km.store(v, out, at(warp, int64_t(j), outWords, lane));
  };

  // Every warp's stores (the kernel's barrier follows), then the combine.
  forEach(kSplitKVWarps, [&](Value warp) {
    forEach(32, [&](Value lane) {
      storeWarpCombineWords(km, exchange, warp, lane, stateOf(warp, lane),
                            mTiles, headDim, parallel);
    });
  });
  if (parallel) {
    forEach(kSplitKVWarps, [&](Value warp) {
      forEach(32, [&](Value lane) {
        write(warp, lane,
              combineWarpSlices(km, exchange, warp, lane, mTiles, headDim,
                                scaleLog2e));
      });
    });
  } else {
    forEach(32, [&](Value lane) {
      Value first = km.i32(0);
      write(first, lane,
            combineIntoFirstWarp(km, exchange, lane, stateOf(first, lane),
                                 mTiles, headDim, scaleLog2e));
    });
  }
  func::ReturnOp::create(b, loc);
  if (failed(replaceScalarDeviceOps(func, "flash-test-decode-combine")))
    signalPassFailure();
}

} // namespace

namespace mlir::flash {
void registerTestDecodeCombinePass() {
  PassRegistration<TestDecodeCombinePass>();
}
} // namespace mlir::flash
