//===- AsyncCopy.cpp - sm_80 cp.async tile copies -------------------------===//
//
// The per-thread offsets of swizzled 16-byte tile copies, the copies
// themselves (with a predicate-free path for tiles wholly inside the
// sequence), a copy under an L2 cache policy, and their commit groups
// (AsyncCopy.h).
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/FlashToNVGPU/SM80/AsyncCopy.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::sm80;

TileCopier sm80::makeTileCopier(KernelMath &km, Value tid, int64_t headDim,
                                int64_t threads) {
  // Chunk c of row r lands at chunk c ^ (r & 7). A pass covers rowsPerPass
  // rows; when that is a multiple of 8 the swizzle term is the same on every
  // pass, otherwise (D = 256: 4 rows per pass) it cycles through
  // 8 / rowsPerPass phases.
  const int64_t D = headDim;
  TileCopier copier;
  copier.tid = tid;
  copier.headDim = headDim;
  copier.threads = threads;
  int64_t chunksPerRow = D / 8;
  int64_t rowsPerPass = threads / chunksPerRow;
  int64_t phases = rowsPerPass >= 8 ? 1 : 8 / rowsPerPass;
  Value chunk = km.andi(tid, km.i32(chunksPerRow - 1));
  Value chunkRow = km.shru(tid, km.i32(llvm::Log2_64(chunksPerRow)));
  for (int64_t phase = 0; phase < phases; ++phase) {
    Value rowBits =
        km.andi(km.add(chunkRow, km.i32(phase * rowsPerPass)), km.i32(7));
    Value swizzledChunk = km.xori(chunk, rowBits);
    copier.dst.push_back(km.add(km.mul(chunkRow, km.i32(D)),
                                km.mul(swizzledChunk, km.i32(8))));
  }
  copier.src = km.add(km.mul(chunkRow, km.i32(D)), km.mul(chunk, km.i32(8)));
  return copier;
}

void TileCopier::copy(KernelMath &km, Value global, Value globalBase,
                      Value row0, Value validRows, Value shared,
                      Value sharedOffset, int64_t rows,
                      bool fullTileFastPath, Value rowStride) const {
  using P = arith::CmpIPredicate;
  OpBuilder &b = km.b;
  Location loc = km.loc;
  const int64_t D = headDim;
  const int64_t chunksPerRow = D / 8;
  const int64_t rowsPerPass = threads / chunksPerRow;
  const int64_t passes = rows * chunksPerRow / threads;
  auto dstFor = [&](int64_t rowOffset) {
    return dst.size() == 1 ? dst[0] : dst[(rowOffset % 8) / rowsPerPass];
  };
  Value chunkRow = km.shru(tid, km.i32(llvm::Log2_64(chunksPerRow)));
  // The thread's first source element, and pass p's: rows D apart (index
  // constants from `base`), or `rowStride` apart (one step per pass,
  // computed once).
  Value base, step;
  if (!rowStride) {
    base = arith::AddIOp::create(
        b, loc, globalBase, km.toIndex(km.add(km.mul(row0, km.i32(D)), src)));
  } else {
    Value chunk = km.andi(tid, km.i32(chunksPerRow - 1));
    base = arith::AddIOp::create(
        b, loc, globalBase,
        km.toIndex(km.add(km.mul(km.add(row0, chunkRow), rowStride),
                          km.mul(chunk, km.i32(8)))));
    step = km.toIndex(km.mul(km.i32(rowsPerPass), rowStride));
  }
  auto sourceOf = [&](int64_t p) -> Value {
    if (!rowStride)
      return arith::AddIOp::create(b, loc, base,
                                   km.index(p * rowsPerPass * D));
    if (p == 0)
      return base;
    return arith::AddIOp::create(
        b, loc, base, arith::MulIOp::create(b, loc, step, km.index(p)));
  };
  auto tokenType = nvgpu::DeviceAsyncTokenType::get(b.getContext());
  OpBuilder::InsertionGuard guard(b);
  if (fullTileFastPath) {
    // if (row0 + R <= validRows): every row exists; the addresses differ by
    // constants only, so the copies need no compare or select.
    auto full = scf::IfOp::create(
        b, loc, km.cmp(P::sle, km.add(row0, km.i32(rows)), validRows),
        /*withElseRegion=*/true);
    b.setInsertionPoint(full.thenBlock()->getTerminator());
    for (int64_t p = 0; p < passes; ++p) {
      int64_t r = p * rowsPerPass;
      Value source = sourceOf(p);
      Value dest =
          km.toIndex(km.add(sharedOffset, km.add(dstFor(r), km.i32(r * D))));
      nvgpu::DeviceAsyncCopyOp::create(b, loc, tokenType, shared,
                                       ValueRange{dest}, global,
                                       ValueRange{source}, b.getIndexAttr(8),
                                       Value(), b.getUnitAttr());
    }
    b.setInsertionPoint(full.elseBlock()->getTerminator());
  }
  for (int64_t p = 0; p < passes; ++p) {
    int64_t r = p * rowsPerPass;
    Value row = km.add(km.add(row0, chunkRow), km.i32(r));
    Value inRange = km.cmp(P::slt, row, validRows);
    // Rows past the end copy 0 source elements (the 16 bytes are zeroed)
    // from a clamped, in-bounds address.
    Value srcElements = km.select(inRange, km.index(8), km.index(0));
    Value source = km.select(inRange, sourceOf(p), globalBase);
    Value dest =
        km.toIndex(km.add(sharedOffset, km.add(dstFor(r), km.i32(r * D))));
    nvgpu::DeviceAsyncCopyOp::create(b, loc, tokenType, shared,
                                     ValueRange{dest}, global,
                                     ValueRange{source}, b.getIndexAttr(8),
                                     srcElements, b.getUnitAttr());
  }
}

Value sm80::l2EvictUnchangedPolicy(KernelMath &km) {
  return inlinePtx(km, km.b.getI64Type(), ValueRange{},
                   "createpolicy.fractional.L2::evict_unchanged.b64 $0, 1.0;",
                   "=l");
}

void sm80::copyWithL2Policy(KernelMath &km, Value shared, Value source,
                            Value bytes, Value policy) {
  // "*m": the shared pointer is an indirect memory operand (elementtype i8),
  // printed [%rd+offset] with the GEP's constant folded in. The asm has an
  // i32 result it never writes ($0, unused): MLIR 22's translation puts
  // operand i's attributes at LLVM attribute index i + (1 if the asm has a
  // result, else 0), and index 0 is the return value's, so without a result
  // the elementtype lands on the return value and the module fails to build.
  MLIRContext *ctx = km.b.getContext();
  auto memory = DictionaryAttr::get(
      ctx, {NamedAttribute(LLVM::InlineAsmOp::getElementTypeAttrName(),
                           TypeAttr::get(km.b.getI8Type()))});
  auto none = DictionaryAttr::get(ctx, {});
  Type unused = km.b.getI32Type();
  if (bytes)
    inlinePtx(km, unused, ValueRange{shared, source, bytes, policy},
              "cp.async.cg.shared.global.L2::cache_hint $1, [$2], 16, $3, $4;",
              "=r,*m,l,r,l", km.b.getArrayAttr({memory, none, none, none}));
  else
    inlinePtx(km, unused, ValueRange{shared, source, policy},
              "cp.async.cg.shared.global.L2::cache_hint $1, [$2], 16, $3;",
              "=r,*m,l,l", km.b.getArrayAttr({memory, none, none}));
}

Value sm80::commitCopies(KernelMath &km) {
  return nvgpu::DeviceAsyncCreateGroupOp::create(
      km.b, km.loc, nvgpu::DeviceAsyncTokenType::get(km.b.getContext()),
      ValueRange{});
}

void sm80::waitCopies(KernelMath &km, Value firstGroup, int64_t pending) {
  nvgpu::DeviceAsyncWaitOp::create(km.b, km.loc, firstGroup,
                                   km.b.getI32IntegerAttr(pending));
}
