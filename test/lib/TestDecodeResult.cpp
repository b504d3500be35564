//===- TestDecodeResult.cpp - what a split kernel's block writes, on the CPU ===//
//
// flash-test-decode-result gives a body to the function @flash_decode_result
// that the module declares,
//
//   func.func private @flash_decode_result(
//       %state: memref<?xf32>, %o: memref<?xi32>, %lse: memref<?xf32>,
//       %partial_o: memref<?xf32>, %partial_lse: memref<?xf32>,
//       %sizes: memref<?xi32>, %scale: f32)
//
// which writes what a split kernel's block writes once its warps are combined,
// with the SAME builder code as the kernels (writeSplitResult,
// SM80/DecodeMerge.h), in host-lanes mode (KernelMath: one warp is
// vector<32 x T> values; the quads' row sums by lane shuffles, the stores
// masked to the lanes that make them): O and the LSE when the row tile has one
// part, the part's partial O and LSE otherwise.
//
// %state: the combined state of every combining warp, word j of lane l of
// warp w at (w·words + j)·32 + l: its rows' common maxima, its part of their
// sums, its accumulator registers (combine=slices: four warps, each a quarter
// of the column tiles, the columns it writes shifted by w·head-dim/4, warp 0
// writing the LSE; combine=first-warp: warp 0, every column tile) — the
// layout flash-test-decode-combine writes its %out in.
// %o: O as 32-bit words of 16-bit pairs (element-type); %lse: f32 (with
// lse=true); %partial_o, %partial_lse: f32 partials.
// %sizes: [number of parts, this part, B, Hq, Nq, the row tile's first row
// among the group's rows, the group's rows G·Nq, the group's first output row]
// (O's first element of the group is that row · head-dim, as the kernels).
// %scale: the softmax scale.
//
// shared=true: as sm_90a's fused split kernels write where their row tile's
// two parts merge in a cluster (the pair merge, SplitResultPlace::inShared):
// several parts' partials go to %partial_o and %partial_lse as the block's
// shared memory, the tile's row r (of the group's rows) at row r − the row
// tile's first row; one part as without it.
//
// What stays out: the combine before (flash-test-decode-combine), where the
// sizes come from, and the hardware's lg2.approx (LLVM's log2 here).
// python/tests/test_decode_result.py runs it against float64.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/SM80/DecodeMerge.h"
#include "flash/Target/SplitKV.h"
#include "HarnessDeclaration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::sm80;

namespace {

constexpr int64_t kLanes = 32;

struct TestDecodeResultPass
    : public PassWrapper<TestDecodeResultPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestDecodeResultPass)
  TestDecodeResultPass() = default;
  TestDecodeResultPass(const TestDecodeResultPass &other)
      : PassWrapper(other) {}

  StringRef getArgument() const final { return "flash-test-decode-result"; }
  StringRef getDescription() const final {
    return "Define @flash_decode_result: what a split-KV kernel's block "
           "writes from its combined state (O and LSE for one part, the "
           "part's partials otherwise) on the CPU, for running under "
           "mlir-runner (test only)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, func::FuncDialect,
                    LLVM::LLVMDialect, memref::MemRefDialect,
                    scf::SCFDialect, vector::VectorDialect>();
  }

  Option<int64_t> headDim{*this, "head-dim", llvm::cl::desc("Dv"),
                          llvm::cl::init(128)};
  Option<int64_t> mTiles{*this, "m-tiles",
                         llvm::cl::desc("16-row tiles of the row tile"),
                         llvm::cl::init(1)};
  Option<std::string> combine{
      *this, "combine",
      llvm::cl::desc("slices (every warp writes a quarter of the columns) "
                     "or first-warp (warp 0 writes everything)"),
      llvm::cl::init("slices")};
  Option<std::string> elementType{*this, "element-type",
                                  llvm::cl::desc("O's type: f16 or bf16"),
                                  llvm::cl::init("bf16")};
  Option<bool> shared{
      *this, "shared",
      llvm::cl::desc("several parts' partials into the pair merge's shared "
                     "memory (%partial_o, %partial_lse as that memory)"),
      llvm::cl::init(false)};
  Option<bool> lse{*this, "lse", llvm::cl::desc("write the LSE"),
                   llvm::cl::init(true)};

  void runOnOperation() override;
};

void TestDecodeResultPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  auto fail = [&](const Twine &message) {
    module.emitError("flash-test-decode-result: ") << message;
    signalPassFailure();
  };
  if (std::string wrong = decodeTileOptionError(headDim, mTiles);
      !wrong.empty())
    return fail(wrong);
  if (combine != "slices" && combine != "first-warp")
    return fail("combine must be slices or first-warp");
  Type et = harnessElementType(ctx, elementType);
  if (!et)
    return fail("element-type must be f16 or bf16");
  const bool slices = combine == "slices";

  Type f32 = Float32Type::get(ctx), i32 = IntegerType::get(ctx, 32);
  auto flatF32 = MemRefType::get({ShapedType::kDynamic}, f32);
  auto flatI32 = MemRefType::get({ShapedType::kDynamic}, i32);
  std::string error;
  func::FuncOp func = harnessDeclaration(
      module, "flash_decode_result",
      FunctionType::get(ctx,
                        {flatF32, flatI32, flatF32, flatF32, flatF32, flatI32,
                         f32},
                        {}),
      error);
  if (!func)
    return fail(error);

  KernelConfig config;
  config.name = "flash_decode_result";
  config.elementType = et;
  config.headDim = headDim;
  config.writesLse = lse;

  Location loc = func.getLoc();
  Block *entry = func.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockBegin(entry);
  KernelMath km{b, loc, kLanes};
  Value state = entry->getArgument(0), o = entry->getArgument(1),
        lseOut = entry->getArgument(2), partialO = entry->getArgument(3),
        partialLse = entry->getArgument(4), sizes = entry->getArgument(5);
  auto splat = [&](Value v) -> Value {
    return vector::BroadcastOp::create(
        b, loc, cast<VectorType>(km.laneType(v.getType())), v);
  };
  auto size = [&](int64_t i) -> Value {
    return memref::LoadOp::create(
        b, loc, sizes,
        ValueRange{arith::ConstantIndexOp::create(b, loc, i)});
  };
  Value numSplits = size(0);
  SmallVector<int32_t> laneIds;
  for (int32_t l = 0; l < kLanes; ++l)
    laneIds.push_back(l);
  Value lane = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(VectorType::get({kLanes}, i32),
                             ArrayRef<int32_t>(laneIds)));

  SplitResultPlace place;
  place.part = splat(size(1));
  place.batch = splat(size(2));
  place.queryHeads = splat(size(3));
  place.seqQ = splat(size(4));
  place.tileRow0 = splat(size(5));
  place.groupRows = splat(size(6));
  // As the kernels: the group's first row, and O's first element of it.
  place.groupBase = km.toIndex(splat(size(7)));
  place.qBase = arith::MulIOp::create(b, loc, place.groupBase,
                                      km.index(headDim));
  place.scale = splat(entry->getArgument(6));
  place.coords = {km.shru(lane, km.i32(2)), km.andi(lane, km.i32(3))};
  place.onePart = [&]() -> Value {
    return arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, numSplits,
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1));
  };
  place.outputs = [&]() -> std::pair<Value, Value> {
    return {o, lse ? lseOut : Value()};
  };
  place.partials = [&]() -> std::pair<Value, Value> {
    return {partialO, partialLse};
  };
  if (shared) {
    place.inShared = [&]() -> Value {
      return arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    };
    place.sharedPartials = place.partials;
  }

  const int64_t numRows = 2 * mTiles, nTiles = headDim / 8;
  const int64_t sliceTiles = slices ? nTiles / kSplitKVWarps : nTiles;
  const int64_t words = 2 * numRows + mTiles * sliceTiles * 4;
  for (int64_t w = 0; w < (slices ? kSplitKVWarps : 1); ++w) {
    auto word = [&](int64_t j) -> Value {
      return vector::LoadOp::create(
          b, loc, VectorType::get({kLanes}, f32), state,
          ValueRange{arith::ConstantIndexOp::create(b, loc,
                                                    (w * words + j) * kLanes)});
    };
    SmallVector<Value> common, runningSum;
    for (int64_t r = 0; r < numRows; ++r)
      common.push_back(word(r));
    for (int64_t r = 0; r < numRows; ++r)
      runningSum.push_back(word(numRows + r));
    Fragment acc(mTiles, sliceTiles, Value());
    for (int64_t reg = 0; reg < int64_t(acc.regs.size()); ++reg)
      acc.regs[reg] = word(2 * numRows + reg);
    if (slices) {
      Value warp = km.i32(w);
      writeSplitResult(km, config, acc, common, runningSum,
                       km.toIndex(km.mul(warp, km.i32(headDim / kSplitKVWarps))),
                       km.cmp(arith::CmpIPredicate::eq, warp, km.i32(0)),
                       place);
    } else {
      writeSplitResult(km, config, acc, common, runningSum, Value(), Value(),
                       place);
    }
  }
  func::ReturnOp::create(b, loc);
}

} // namespace

namespace mlir::flash {
void registerTestDecodeResultPass() {
  PassRegistration<TestDecodeResultPass>();
}
} // namespace mlir::flash
