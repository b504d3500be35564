//===- DecodePages.h - Page arithmetic of the paged decode kernels -*- C++ -*-===//
//
// Where a thread of a paged split kernel (SM80/DecodeKernel.cpp, sm_80 and
// sm_90a) reads each K/V row it copies: key t of sequence b lies in page
// block_table[b·M + t / S], slot t % S, so its row of the P×S×Hkv×D cache is
// page·S + slot. A block takes the K/V tiles [tileBegin, tileEnd) of its
// part; thread `tid` copies rows copyRow + p·rowsPerPass() of every 64-key
// tile (p < passes()). The block's part's pages are looked up in a window of
// the block table copied into shared memory, or in the table in global
// memory (the prologue's tiles, and parts of more pages than the window
// holds).
//
// The kernels build this arithmetic with DecodePageRows; so does the test
// pass flash-test-decode-pages (test/lib/TestDecodePages.cpp), which runs it
// on the CPU for every thread and tile of a part, so that
// python/tests/test_decode_pages.py checks the rows the GPU kernels read
// against the definition above on random block tables.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_FLASHTONVGPU_SM80_DECODEPAGES_H
#define FLASH_CONVERSION_FLASHTONVGPU_SM80_DECODEPAGES_H

#include "flash/Conversion/FlashToNVGPU/KernelBuilder.h"

#include <algorithm>
#include <cassert>

namespace mlir {
namespace flash {
namespace sm80 {

/// Paged: block-table entries a block copies into shared memory at its
/// start (the page indices of its part, 4 bytes each, after the K/V
/// stages), so that no page index is a global load inside the K/V loop. A
/// part of more pages looks them up in global memory as it goes. An SM's
/// blocks share kDecodeTableWindowPerSM entries: a kernel whose split
/// count aims at two blocks an SM (splitKVBlocksPerSM) takes 512 a block
/// (a part of 8192 keys at S = 16; the 2 KiB keep two blocks an SM at
/// D = 64 and 128 on sm_80 and sm_90a), one that aims at one block an SM
/// cuts a sequence into half as many parts, twice as long, and takes 1024.
constexpr int64_t kDecodeTableWindowPerSM = 1024;
inline int64_t decodeTableWindow(int64_t blocksPerSM) {
  assert(blocksPerSM > 0 && "the decode config's blocksPerSM is unset");
  return kDecodeTableWindowPerSM / blocksPerSM;
}
/// The window's entries a block loads whenever it loads the window; a larger
/// window loads those past them only for a part of more pages
/// (windowPastBase), so that a short part's start issues no more loads than
/// with 512 (with all 1024 loaded, the separate merge's split kernels took
/// up to 1.6% more time on GQA 8/1 B = 1 L = 8k/32k: docs/benchmarks.md,
/// forty-fifth session).
constexpr int64_t kDecodeTableWindowBase = 512;

/// The page arithmetic of a paged split kernel. The kernel (or the test
/// harness) sets the inputs, then calls the set* steps in the order below,
/// which is the order the kernel emits them in.
class DecodePageRows {
public:
  /// `constantPageSize`: S when the kernel is built for one page size
  /// (`<name>_s<S>`), else 0 (S a kernel argument). `groupedStart`: the
  /// separate merge's split kernel for any S, whose full tiles with
  /// S = 2^k >= 16 take one page lookup per 16 keys (groupedRowsOf).
  /// `tableWindow`: the block-table window's entries (decodeTableWindow).
  DecodePageRows(OpBuilder &b, Location loc, int64_t headDim, int64_t threads,
                 int64_t constantPageSize, bool groupedStart,
                 int64_t tableWindow);

  /// pageSize (the constant, else `S`), tableRow = batch·M, pagePow2,
  /// pageShift and, groupedStart, fastPages.
  void setPageSize(Value S, Value batch, Value M);
  /// partLastKey = min(tileEnd·64, length) − 1 (needs tileEnd and length).
  void setPartLastKey();
  /// The window's bounds: firstPage (the page of the part's first key),
  /// windowed (the part's pages, up to partLastKey's, fit in the window)
  /// and, in a window larger than kDecodeTableWindowBase, windowPastBase
  /// (the part has more pages than that); returns the part's page count.
  Value setWindowBounds();
  /// Rounds of window loads a thread issues: all of them (tableWindow /
  /// threads) and the first ones, which cover kDecodeTableWindowBase
  /// entries; the rounds past those are loaded and stored only where
  /// windowPastBase.
  int64_t windowRounds() const { return tableWindow / threads; }
  int64_t windowBaseRounds() const {
    return std::min(tableWindow, kDecodeTableWindowBase) / threads;
  }
  /// The table entry thread `tid` copies into window slot tid + i·threads:
  /// the part's page firstPage + slot, the last one past the part (always in
  /// bounds of the sequence's pages).
  Value windowEntry(Value tid, int64_t i, Value windowPages);
  /// Whether a kernel built for pages of `constantPageSize` slots (0: any
  /// S) finds each K/V tile's keys in one page: S = 2^k >= the 64-key tile
  /// (`_s64`, `_separate_s64`), so cacheRowsOf looks a tile's page up once.
  static bool onePageATile(int64_t constantPageSize);
  /// Whether a kernel built for pages of `constantPageSize` slots looks its
  /// pages up once per aligned 16 keys: S = 2^k with 16 <= S < 64 (`_s16`,
  /// `_separate_s16`), whose aligned 16-key groups each lie in one page.
  static bool onePageA16Keys(int64_t constantPageSize);
  /// Thread `tid`'s first row of a pass (set copyRow to it).
  Value copyRowOf(Value tid);

  /// Rows of a tile each thread copies, and the keys of this thread's rows.
  int64_t passes() const;
  int64_t rowsPerPass() const;
  /// Key t of this thread's row of pass p in tile `tile` (sequence order).
  Value keyOf(Value tile, int64_t p);
  /// Whether tile `tile` lies wholly inside the length.
  Value fullTile(Value tile);
  /// Paged: the cache row (page·S + slot) of each of this thread's keys in
  /// `tile`, from the block-table window (or the table). Keys are clamped
  /// into [0, partLastKey] so that no page past the part's (in particular
  /// no table entry past ceil(length / S)) is read. With onePageA16Keys,
  /// only each 16-key group's first key is looked up (clamped); the group's
  /// other rows are at fixed offsets from it, wrapped into its page: a row
  /// whose key is past partLastKey may then be another slot of that page
  /// than the clamped key's (in bounds and in one of the part's pages; the
  /// kernels zero-fill rows past the length either way).
  SmallVector<Value> cacheRowsOf(Value tile, bool fromTable = false);
  /// The block-table entries `pageIndex` (pages of the sequence): from the
  /// window, or (`fromTable`, or a part of more pages than the window
  /// holds: a block-uniform branch) from the table in global memory.
  SmallVector<Value> lookupPages(ArrayRef<Value> pageIndex, bool fromTable);
  /// Passes whose rows lie in one aligned group of 16 keys (a pass holds
  /// rowsPerPass() consecutive keys): the passes that share a page lookup
  /// in groupedRowsOf and with onePageA16Keys.
  int64_t passesA16Keys() const;
  /// groupedStart, `tile` wholly inside the length and S a power of two of
  /// at least 16 keys (fastPages): the cache rows of `tile` with one page
  /// lookup per 16 keys (the passes of an aligned 16-key group share their
  /// page; the others' rows follow the first's), no clamp. `clampKeys`:
  /// the groups' first keys clamped to partLastKey (prologue tiles past the
  /// part, whose rows are computed but not used).
  SmallVector<Value> groupedRowsOf(Value tile, bool fromTable,
                                   bool clampKeys);
  /// groupedStart: whether the prologue's tiles (the first stages − 1 of
  /// the part) take groupedRowsOf: S = 2^k >= 16 and the last tile it
  /// issues wholly inside the length.
  Value prologueFast(int64_t stages);

  KernelMath km;
  const int64_t D, threads, constantPageSize;
  /// The block-table window's entries (a multiple of threads).
  const int64_t tableWindow;
  /// Paged, the separate merge's split kernel (sm_90a; calls of at most
  /// kSplitKVSeparateMergeMaxWorkUnits work units, whose blocks' start to
  /// the first K/V copy is a large share of their time): full tiles take
  /// one page lookup per 16 keys (groupedRowsOf) and copies without the
  /// zero-fill operand; the prologue's table loads come before the
  /// window's, which have no branch, and the window's first and last page
  /// are shifts in a power-of-two branch. Measured on the H200
  /// (docs/benchmarks.md, twenty-second session): 3-4% faster on GQA 8/1
  /// B = 1 L = 8k/32k, 1-2% on 32/8 B = 1 L = 8k at S = 16, equal on the
  /// longer parts. The fused kernel (calls that fill
  /// the GPU) gained nothing beyond noise from the same forms: it keeps the
  /// per-pass lookups and the window's loads first.
  const bool groupedStart;

  // Inputs, set before the steps that read them.
  Value globalTable; ///< the flat i32 block table
  Value length;      ///< the sequence's keys (clamped to M·S)
  Value tileBegin, tileEnd;
  Value copyRow;
  Value window; ///< shared i32[tableWindow]

  // Set by the steps.
  Value pageSize, tableRow;
  Value pagePow2, pageShift; ///< S is a power of two, and log2(S)
  Value fastPages; ///< groupedStart: S is a power of two of at least 16
  Value partLastKey, firstPage, windowed;
  Value windowPastBase; ///< null unless windowRounds() > windowBaseRounds()
};

} // namespace sm80
} // namespace flash
} // namespace mlir

#endif // FLASH_CONVERSION_FLASHTONVGPU_SM80_DECODEPAGES_H
