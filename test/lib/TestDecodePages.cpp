//===- TestDecodePages.cpp - the paged kernels' page arithmetic, on the CPU ===//
//
// flash-test-decode-pages gives a body to the function @flash_decode_pages
// that the module declares,
//
//   func.func private @flash_decode_pages(
//       %table: memref<?xi32>, %window: memref<?xi32>, %out: memref<?xi32>,
//       %S: i32, %M: i32, %batch: i32, %length: i32, %tile_begin: i32,
//       %tile_end: i32, %tiles: i32)
//
// which computes, with the SAME builder code as the paged split kernels
// (DecodePageRows, SM80/DecodePages.h; scalar, one thread at a time), where
// the threads of the block that takes K/V tiles [tile_begin, tile_end) of
// sequence `batch` (`length` keys, pages of S slots, M table entries a
// sequence) read: the block-table window and the cache row of each key.
// `%window` is the shared-memory window (W entries, the `window` option),
// filled by every thread as the kernel fills it. `%out` receives:
//
//   [0, 8)     windowed, firstPage, partLastKey, the part's page count,
//              fastPages (grouped), prologueFast (grouped), 0, 0
//   [8, 8 + W) the table entry thread tid loads for window slot
//              tid + i·threads, where the kernel loads it (grouped: always;
//              otherwise when windowed)
//   [8 + W, ...) for mode m, tile t (tile_begin + t, t < %tiles), the thread
//              rows r < rowsPerPass and passes p < passes (key
//              64·(tile_begin + t) + r + p·rowsPerPass): the cache row, at
//              ((m·tiles + t)·rowsPerPass + r)·passes + p. Modes: 0 the
//              loop's rows (cacheRowsOf through the window), 1 the
//              prologue's (cacheRowsOf from the table); grouped also 2 the
//              loop's grouped rows (only where fastPages and the tile is
//              a full one of the part) and 3 the prologue's (groupedRowsOf with clamped keys,
//              only where prologueFast).
//
// Words the function does not write keep what the caller put there.
// What stays out: the copies themselves (cp.async, the zero-fill of rows
// past the length), which flash-test-decode-copies runs on the CPU
// (TestDecodeCopies.cpp) and the GPU checks on the hardware.
// python/tests/test_decode_pages.py checks the rows against the definition
// (key t: block_table[batch·M + t / S]·S + t % S) on random block tables.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/SM80/DecodePages.h"
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

constexpr int64_t kHeader = 8;

struct TestDecodePagesPass
    : public PassWrapper<TestDecodePagesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestDecodePagesPass)
  TestDecodePagesPass() = default;
  TestDecodePagesPass(const TestDecodePagesPass &other)
      : PassWrapper(other) {}

  StringRef getArgument() const final { return "flash-test-decode-pages"; }
  StringRef getDescription() const final {
    return "Define @flash_decode_pages: the paged split kernels' page "
           "arithmetic (DecodePageRows) on the CPU, for running under "
           "mlir-runner (test only)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, func::FuncDialect,
                    memref::MemRefDialect, scf::SCFDialect>();
  }

  Option<int64_t> headDim{*this, "head-dim", llvm::cl::desc("D"),
                          llvm::cl::init(128)};
  Option<int64_t> pageSize{
      *this, "page-size",
      llvm::cl::desc("S as a constant (a kernel for one page size), or 0 "
                     "(S the argument)"),
      llvm::cl::init(0)};
  Option<bool> grouped{
      *this, "grouped",
      llvm::cl::desc("the separate merge's split kernel (grouped lookups)"),
      llvm::cl::init(false)};
  Option<int64_t> stages{*this, "stages",
                         llvm::cl::desc("K/V stages (the prologue's tiles)"),
                         llvm::cl::init(3)};
  Option<int64_t> window{
      *this, "window",
      llvm::cl::desc("block-table window entries (decodeTableWindow: 512 a "
                     "block at two blocks an SM, 1024 at one)"),
      llvm::cl::init(512)};

  void runOnOperation() override;
};

void TestDecodePagesPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  auto fail = [&](const Twine &message) {
    module.emitError("flash-test-decode-pages: ") << message;
    signalPassFailure();
  };
  const int64_t threads = kSplitKVWarps * 32;
  if (headDim <= 0 || headDim % 8 || threads % (headDim / 8) ||
      (kSplitKVBlockKV * (headDim / 8)) % threads)
    return fail("head-dim must be a multiple of 8 that the block's copies "
                "divide (64, 128 or 256)");
  if (pageSize < 0 || stages < 2 || (grouped && pageSize))
    return fail("page-size must be 0 or more (0 with grouped), stages 2 or "
                "more");
  if (window < threads || window % threads)
    return fail("window must be a positive multiple of the block's " +
                Twine(threads) + " threads");
  Type i32 = IntegerType::get(ctx, 32);
  Type flat = MemRefType::get({ShapedType::kDynamic}, i32);
  std::string error;
  func::FuncOp func = harnessDeclaration(
      module, "flash_decode_pages",
      FunctionType::get(
          ctx, {flat, flat, flat, i32, i32, i32, i32, i32, i32, i32}, {}),
      error);
  if (!func)
    return fail(error);

  Location loc = func.getLoc();
  Block *entry = func.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockBegin(entry);
  DecodePageRows pages(b, loc, headDim, threads, pageSize, grouped, window);
  KernelMath &km = pages.km;
  Value out = entry->getArgument(2);
  Value tiles = entry->getArgument(9);
  pages.globalTable = entry->getArgument(0);
  pages.window = entry->getArgument(1);
  pages.length = entry->getArgument(6);
  pages.tileBegin = entry->getArgument(7);
  pages.tileEnd = entry->getArgument(8);

  // The steps in the kernel's order.
  pages.setPageSize(entry->getArgument(3), entry->getArgument(5),
                    entry->getArgument(4));
  pages.setPartLastKey();
  Value windowPages = pages.setWindowBounds();
  Value prologueFast = grouped ? pages.prologueFast(stages) : Value();

  auto store = [&](Value value, Value index) {
    memref::StoreOp::create(b, loc, value, out, ValueRange{index});
  };
  auto asI32 = [&](Value i1) {
    return arith::ExtUIOp::create(b, loc, i32, i1).getResult();
  };
  store(asI32(pages.windowed), km.index(0));
  store(pages.firstPage, km.index(1));
  store(pages.partLastKey, km.index(2));
  store(windowPages, km.index(3));
  if (grouped) {
    store(asI32(pages.fastPages), km.index(4));
    store(asI32(prologueFast), km.index(5));
  }

  // A loop over [0, n) with an i32 induction variable.
  auto forEach = [&](Value n, function_ref<void(Value)> body) {
    auto loop = scf::ForOp::create(b, loc, km.index(0), n, km.index(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    body(arith::IndexCastOp::create(b, loc, i32, loop.getInductionVar()));
  };
  auto ifThen = [&](Value condition, function_ref<void()> body) {
    harnessIf(b, loc, condition, body);
  };

  // The window: every thread's entries (the kernel: grouped loads them
  // always, the others only when the part fits; the rounds past the base
  // only where windowPastBase), stored when it fits.
  forEach(km.index(threads), [&](Value tid) {
    for (int64_t i = 0; i < pages.windowRounds(); ++i) {
      auto load = [&] {
        Value value = pages.windowEntry(tid, i, windowPages);
        Value slot = km.add(tid, km.i32(i * threads));
        store(value, km.toIndex(km.add(slot, km.i32(kHeader))));
        ifThen(pages.windowed, [&] {
          memref::StoreOp::create(b, loc, value, pages.window,
                                  ValueRange{km.toIndex(slot)});
        });
      };
      auto loadRound = [&] {
        if (i < pages.windowBaseRounds())
          load();
        else
          ifThen(pages.windowPastBase, load);
      };
      if (grouped)
        loadRound();
      else
        ifThen(pages.windowed, loadRound);
    }
  });

  // The rows of every key of the tiles: thread rows r (tid = r·D/8; the
  // threads of one row copy its chunks from the same row) and passes p.
  const int64_t rowsPerPass = pages.rowsPerPass(), passes = pages.passes();
  const int64_t rowsBase = kHeader + window;
  int64_t modes = grouped ? 4 : 2;
  for (int64_t mode = 0; mode < modes; ++mode) {
    forEach(km.toIndex(tiles), [&](Value t) {
      Value tile = km.add(pages.tileBegin, t);
      for (int64_t r = 0; r < rowsPerPass; ++r) {
        pages.copyRow = pages.copyRowOf(km.i32(r * (headDim / 8)));
        Value base = km.add(
            km.mul(km.add(km.mul(km.add(km.mul(km.i32(mode), tiles), t),
                                 km.i32(rowsPerPass)),
                          km.i32(r)),
                   km.i32(passes)),
            km.i32(rowsBase));
        auto write = [&](ArrayRef<Value> rows) {
          for (auto [p, row] : llvm::enumerate(rows))
            store(row, km.toIndex(km.add(base, km.i32(int64_t(p)))));
        };
        switch (mode) {
        case 0:
          write(pages.cacheRowsOf(tile));
          break;
        case 1:
          write(pages.cacheRowsOf(tile, /*fromTable=*/true));
          break;
        case 2: {
          // As the kernel's loop: a tile of the part, full, S = 2^k >= 16.
          Value fast = arith::AndIOp::create(
              b, loc,
              km.cmp(arith::CmpIPredicate::slt, tile, pages.tileEnd),
              arith::AndIOp::create(b, loc, pages.fastPages,
                                    pages.fullTile(tile)));
          ifThen(fast, [&] {
            write(pages.groupedRowsOf(tile, /*fromTable=*/false,
                                      /*clampKeys=*/false));
          });
          break;
        }
        case 3:
          ifThen(prologueFast, [&] {
            write(pages.groupedRowsOf(tile, /*fromTable=*/true,
                                      /*clampKeys=*/true));
          });
          break;
        }
      }
    });
  }
  func::ReturnOp::create(b, loc);
}

} // namespace

namespace mlir::flash {
void registerTestDecodePagesPass() { PassRegistration<TestDecodePagesPass>(); }
} // namespace mlir::flash
