//===- TileSplitKV.h - the split-KV form of flash-tile ----------*- C++ -*-===//
//
// flash-tile's rewrite of a flash.attention with a split-KV schedule and of a
// flash.paged_attention into the split-KV loops (TileSplitKV.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_TRANSFORMS_TILESPLITKV_H
#define FLASH_DIALECT_FLASH_TRANSFORMS_TILESPLITKV_H

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace flash {
class AttentionOp;
class PagedAttentionOp;

/// Tiles `op` (its schedule has max_splits >= 1) into the split stage (an
/// scf.forall over (batch, kv-head, Q tile, split) carrying the
/// #flash.kernel descriptor, writing partial O and LSE) and the merge stage.
LogicalResult tileSplitKV(RewriterBase &rewriter, AttentionOp op);
LogicalResult tileSplitKV(RewriterBase &rewriter, PagedAttentionOp op);

} // namespace flash
} // namespace mlir

#endif // FLASH_DIALECT_FLASH_TRANSFORMS_TILESPLITKV_H
