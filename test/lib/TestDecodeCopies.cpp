//===- TestDecodeCopies.cpp - the split kernels' K/V copies, on the CPU ---===//
//
// flash-test-decode-copies gives a body to the function @flash_decode_copies
// that the module declares,
//
//   func.func private @flash_decode_copies(
//       %table: memref<?xi32>, %k: memref<?xi32>, %v: memref<?xi32>,
//       %shared_k: memref<?xi32>, %shared_v: memref<?xi32>,
//       %hits: memref<?xi32>, %sizes: memref<?xi32>)
//
// which issues K/V tile `tile` of a block into stage `stage` of its rings,
// with the SAME builder code as the split kernels (DecodeTileCopies,
// SM80/DecodeCopies.h; scalar, one thread after another), each 16-byte copy
// made a scalar copy of 8 words: the first `elements` read, the rest zero (the
// cp.async zero-fill). A word of the caches stands for an element (16-bit in
// the kernels): the copies' addresses are in elements either way.
//
// %sizes: [S, M, batch, length, tile_begin, tile_end, tile, stage, Hkv,
// kv_head, Nk, plain] (S, M: paged; Nk: contiguous, its rows a sequence;
// plain: issue the paged tile in the form without the zero-fill operand, as
// the kernels do for a tile wholly inside the length). The paged rows are
// cacheRowsOf's lookups from the table (the prologue's form; every form of
// them is flash-test-decode-pages').
// %hits: [0] copies whose source chunk lies outside the cache (the zero-
// filled ones too: the kernels promise an in-bounds address), [1] copies
// whose destination lies outside the ring, then one count a ring word of
// how many copies wrote it, K's ring then V's.
//
// What stays out: the cp.async instruction itself, its commit groups and
// waits. python/tests/test_decode_copies.py checks every ring word.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/SM80/DecodeCopies.h"
#include "flash/Target/SplitKV.h"
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

struct TestDecodeCopiesPass
    : public PassWrapper<TestDecodeCopiesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestDecodeCopiesPass)
  TestDecodeCopiesPass() = default;
  TestDecodeCopiesPass(const TestDecodeCopiesPass &other)
      : PassWrapper(other) {}

  StringRef getArgument() const final { return "flash-test-decode-copies"; }
  StringRef getDescription() const final {
    return "Define @flash_decode_copies: the split-KV kernels' K/V tile "
           "copies (DecodeTileCopies) as scalar copies on the CPU, for "
           "running under mlir-runner (test only)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, func::FuncDialect,
                    memref::MemRefDialect, scf::SCFDialect>();
  }

  Option<int64_t> headDim{*this, "head-dim", llvm::cl::desc("D"),
                          llvm::cl::init(128)};
  Option<bool> paged{*this, "paged",
                     llvm::cl::desc("a paged cache (else contiguous)"),
                     llvm::cl::init(true)};
  Option<int64_t> pageSize{
      *this, "page-size",
      llvm::cl::desc("paged: S as a constant (a kernel for one page size), "
                     "or 0 (S from %sizes)"),
      llvm::cl::init(0)};
  Option<int64_t> stages{*this, "stages",
                         llvm::cl::desc("K/V stages of the rings"),
                         llvm::cl::init(3)};

  void runOnOperation() override;
};

void TestDecodeCopiesPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  auto fail = [&](const Twine &message) {
    module.emitError("flash-test-decode-copies: ") << message;
    signalPassFailure();
  };
  if (std::string wrong = decodeTileOptionError(headDim); !wrong.empty())
    return fail(wrong);
  if (pageSize < 0 || (pageSize && !paged) || stages < 2)
    return fail("page-size must be 0 or more (0 when not paged), stages 2 "
                "or more");
  const int64_t threads = kSplitKVWarps * 32;
  const int64_t ring = stages * kSplitKVBlockKV * headDim;
  Type i32 = IntegerType::get(ctx, 32);
  Type flat = MemRefType::get({ShapedType::kDynamic}, i32);
  std::string error;
  func::FuncOp func = harnessDeclaration(
      module, "flash_decode_copies",
      FunctionType::get(ctx, {flat, flat, flat, flat, flat, flat, flat}, {}),
      error);
  if (!func)
    return fail(error);

  Location loc = func.getLoc();
  Block *entry = func.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockBegin(entry);
  DecodeTileCopies copies(b, loc, headDim, threads, pageSize,
                          /*groupedStart=*/false, paged,
                          decodeTableWindow(/*blocksPerSM=*/2));
  KernelMath &km = copies.km;
  Value hits = entry->getArgument(5), sizes = entry->getArgument(6);
  auto size = [&](int64_t i) -> Value {
    return memref::LoadOp::create(b, loc, sizes, ValueRange{km.index(i)});
  };
  Value S = size(0), M = size(1), batch = size(2), tile = size(6),
        stage = size(7), numKVHeads = size(8), kvHead = size(9);
  copies.length = size(3);
  copies.tileBegin = size(4);
  copies.tileEnd = size(5);
  copies.globalTable = entry->getArgument(0);
  copies.globalK = entry->getArgument(1);
  copies.globalV = entry->getArgument(2);
  copies.sharedK = entry->getArgument(3);
  copies.sharedV = entry->getArgument(4);
  Value plain = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                      size(11), km.i32(0));

  auto ifThen = [&](Value condition, function_ref<void()> body) {
    harnessIf(b, loc, condition, body);
  };
  auto increment = [&](Value index) {
    Value count = memref::LoadOp::create(b, loc, hits, ValueRange{index});
    memref::StoreOp::create(b, loc, km.add(count, km.i32(1)), hits,
                            ValueRange{index});
  };
  auto fits = [&](Value memref, Value start) {
    Value end = arith::AddIOp::create(b, loc, start, km.index(8));
    Value dim = memref::DimOp::create(b, loc, memref, 0);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, end, dim)
        .getResult();
  };
  // A 16-byte cp.async as 8 scalar words: the first `elements` (all without
  // the operand) read, the rest zero; out-of-bounds ends counted, not made.
  copies.emitCopy = [&](Value shared, Value dest, Value global, Value source,
                        Value elements) {
    Value sourceFits = fits(global, source), destFits = fits(shared, dest);
    ifThen(arith::XOrIOp::create(b, loc, sourceFits,
                                 arith::ConstantIntOp::create(b, loc, 1, 1)),
           [&] { increment(km.index(0)); });
    ifThen(arith::XOrIOp::create(b, loc, destFits,
                                 arith::ConstantIntOp::create(b, loc, 1, 1)),
           [&] { increment(km.index(1)); });
    ifThen(destFits, [&] {
      Value hitsBase = arith::AddIOp::create(
          b, loc, dest, km.index(2 + (shared == copies.sharedV ? ring : 0)));
      for (int64_t e = 0; e < 8; ++e) {
        Value read = sourceFits;
        if (elements)
          read = arith::AndIOp::create(
              b, loc, read,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                    km.index(e), elements));
        auto value = scf::IfOp::create(b, loc, TypeRange{i32}, read,
                                       /*withElse=*/true);
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(value.thenBlock());
          Value word = memref::LoadOp::create(
              b, loc, global,
              ValueRange{arith::AddIOp::create(b, loc, source, km.index(e))});
          scf::YieldOp::create(b, loc, word);
          b.setInsertionPointToStart(value.elseBlock());
          scf::YieldOp::create(b, loc, km.i32(0));
        }
        Value at = arith::AddIOp::create(b, loc, dest, km.index(e));
        memref::StoreOp::create(b, loc, value.getResult(0), shared,
                                ValueRange{at});
        increment(arith::AddIOp::create(b, loc, hitsBase, km.index(e)));
      }
    });
  };

  // Block-wide steps in the kernel's order.
  if (paged) {
    copies.setPageSize(S, batch, M);
    copies.setPartLastKey();
    copies.setWindowBounds();
  } else {
    copies.setContiguousBase(batch, numKVHeads, kvHead, size(10));
  }
  // Every thread's copies of the tile, one thread after another.
  harnessLoop(b, loc, km.i32(0), km.i32(threads), [&](Value tid) {
    copies.setCopyOffsets(tid, numKVHeads, kvHead);
    if (!paged) {
      copies.issueTile(tile, stage, {});
      return;
    }
    SmallVector<Value> rows = copies.cacheRowsOf(tile, /*fromTable=*/true);
    auto form = scf::IfOp::create(b, loc, plain, /*withElse=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(form.thenBlock()->getTerminator());
    copies.issueTile(tile, stage, rows, /*plain=*/true);
    b.setInsertionPoint(form.elseBlock()->getTerminator());
    copies.issueTile(tile, stage, rows);
  });
  func::ReturnOp::create(b, loc);
}

} // namespace

namespace mlir::flash {
void registerTestDecodeCopiesPass() {
  PassRegistration<TestDecodeCopiesPass>();
}
} // namespace mlir::flash
