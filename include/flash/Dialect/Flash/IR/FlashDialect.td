//===- FlashDialect.td - The flash dialect ------------------*- tablegen -*-===//
//
// The dialect that holds attention as one op (L0) and the tile-level ops that
// the IO-aware tiling produces (L1).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_TD
#define FLASH_DIALECT_TD

include "mlir/IR/OpBase.td"

def Flash_Dialect : Dialect {
  let name = "flash";
  let cppNamespace = "::mlir::flash";
  let summary = "Exact attention as one op, and the tiles it is computed in";
  let description = [{
    The `flash` dialect expresses attention, softmax(scale * Q Kᵀ + mask) V, as
    a single op (`flash.attention`) that IO-aware passes rewrite into tiled
    loops with an online softmax (the FlashAttention algorithm), and then into
    CPU code or GPU kernels.

    Two levels live here:
    - L0: `flash.attention` on whole tensors in B×H×N×D layout, its
      gradients `flash.attention_backward`, and `flash.paged_attention` over
      a paged K/V cache (a block table per sequence, lengths at run time).
    - L1: tile ops produced by `flash-tile`. The forward's
      (`flash.load_tile`, `flash.qk`, `flash.mask`, `flash.online_softmax`,
      `flash.accumulate_pv`, `flash.finalize`) run inside a parallel loop
      over (batch, q-head, Q tile) and a sequential loop over K/V tiles; the
      backward adds `flash.row_dot`, `flash.recompute_probs`,
      `flash.score_grad`, `flash.accumulate_product` and
      `flash.finalize_grad` inside a loop over (batch, kv-head), K/V tiles,
      the group's q-heads and Q tiles; the split-KV form (Flash-Decoding)
      runs a parallel loop over (batch, kv-head, Q tile, split) that also
      reads paged K/V (`flash.load_paged_tile`), and a second one that
      merges the splits (`flash.merge_splits`). Every tensor at L1 is
      tile-sized or a head's rows.
  }];
  let useDefaultAttributePrinterParser = 1;
}

class Flash_Op<string mnemonic, list<Trait> traits = []>
    : Op<Flash_Dialect, mnemonic, traits>;

#endif // FLASH_DIALECT_TD
