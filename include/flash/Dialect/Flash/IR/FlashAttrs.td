//===- FlashAttrs.td - flash dialect attributes -------------*- tablegen -*-===//
//
// #flash.schedule: the IO-aware choice of tiles, pipeline depth and warps that
// flash-select-schedule makes for one attention op on one target.
// #flash.kernel: the typed descriptor of one kernel to build (what it
// computes, its schedule and its form), attached by flash-tile and completed
// by flash-select-kernel-form; the GPU lowering reads only this.
// #flash.sm90_form: the sm_90a kernel's form (the choices its policy makes).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_ATTRS_TD
#define FLASH_ATTRS_TD

include "flash/Dialect/Flash/IR/FlashDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class Flash_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Flash_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Flash_ScheduleAttr : Flash_Attr<"Schedule", "schedule"> {
  let summary = "Tile sizes, pipeline stages and warps for one attention op";
  let description = [{
    Records how an attention op is cut into tiles for a target:

    - `arch`: the target model the schedule was chosen for (`sm_80`, `sm_90a`,
      `sm_100a`).
    - `block_q` (Br): query rows per tile; one tile per thread block.
    - `block_kv` (Bc): key/value rows per step of the sequential K/V loop.
    - `stages`: K/V tiles in flight in shared memory (software pipelining).
    - `warps`: warps per thread block.
    - `max_splits` (split-KV only; absent, 0, otherwise): the op is computed
      in the split-KV form (Flash-Decoding): the packed query rows of a
      kv-head against parts of the K/V sequence, whose partial (O, LSE) are
      merged; at most `max_splits` parts per sequence (the capacity of the
      partials' workspace). `flash-select-schedule` sets it for
      `flash.paged_attention` and for `flash.attention` with few query rows.

    Example:

    ```mlir
    #flash.schedule<arch = "sm_80", block_q = 128, block_kv = 64, stages = 2, warps = 4>
    #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 8,
                    max_splits = 132>
    ```
  }];
  let parameters = (ins
    StringRefParameter<"target architecture">:$arch,
    "int64_t":$block_q,
    "int64_t":$block_kv,
    "int64_t":$stages,
    "int64_t":$warps,
    DefaultValuedParameter<"int64_t", "0">:$max_splits
  );
  let builders = [
    // The forward schedule (no split-KV).
    AttrBuilder<(ins "::llvm::StringRef":$arch, "int64_t":$block_q,
                     "int64_t":$block_kv, "int64_t":$stages,
                     "int64_t":$warps), [{
      return $_get($_ctxt, arch, block_q, block_kv, stages, warps,
                   /*max_splits=*/0);
    }]>
  ];
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether the op is computed in the split-KV form.
    bool isSplitKV() const { return getMaxSplits() > 0; }
  }];
}

//===----------------------------------------------------------------------===//
// Kernel descriptor: what to compute, and the form a target builds it in
//===----------------------------------------------------------------------===//

def Flash_KernelKind : I32EnumAttr<"KernelKind", "the kind of attention kernel", [
    I32EnumAttrCase<"Forward", 0, "forward">,
    I32EnumAttrCase<"Backward", 1, "backward">,
    I32EnumAttrCase<"SplitKV", 2, "split_kv">,
    I32EnumAttrCase<"Paged", 3, "paged">
  ]> {
  let cppNamespace = "::mlir::flash";
  let genSpecializedAttr = 0;
}

// The form choices of a kernel. Each enum has `auto` (case 0), which only a
// pass option takes (the arch policy decides); a form attribute never holds
// it.
def Flash_Toggle : I32EnumAttr<"Toggle", "auto, yes or no", [
    I32EnumAttrCase<"Auto", 0, "auto">,
    I32EnumAttrCase<"Yes", 1, "yes">,
    I32EnumAttrCase<"No", 2, "no">
  ]> {
  let cppNamespace = "::mlir::flash";
  let genSpecializedAttr = 0;
}
def Flash_Rescale : I32EnumAttr<"Rescale", "how the O accumulator is rescaled", [
    I32EnumAttrCase<"Auto", 0, "auto">,
    I32EnumAttrCase<"Eager", 1, "eager">,
    I32EnumAttrCase<"Lazy", 2, "lazy">,
    I32EnumAttrCase<"LazyLate", 3, "lazy_late">
  ]> {
  let cppNamespace = "::mlir::flash";
  let genSpecializedAttr = 0;
}
def Flash_FirstTileMask : I32EnumAttr<"FirstTileMask",
    "how a Q tile's first K/V tile is masked", [
    I32EnumAttrCase<"Auto", 0, "auto">,
    I32EnumAttrCase<"Always", 1, "always">,
    I32EnumAttrCase<"Branch", 2, "branch">
  ]> {
  let cppNamespace = "::mlir::flash";
  let genSpecializedAttr = 0;
}
def Flash_TileOrder : I32EnumAttr<"TileOrder", "the order Q tiles are handed out in", [
    I32EnumAttrCase<"Auto", 0, "auto">,
    I32EnumAttrCase<"Head", 1, "head">,
    I32EnumAttrCase<"Grouped", 2, "grouped">
  ]> {
  let cppNamespace = "::mlir::flash";
  let genSpecializedAttr = 0;
}
def Flash_StoreWait : I32EnumAttr<"StoreWait",
    "when the O store's read of shared memory is waited for", [
    I32EnumAttrCase<"Auto", 0, "auto">,
    I32EnumAttrCase<"Immediate", 1, "immediate">,
    I32EnumAttrCase<"Deferred", 2, "deferred">
  ]> {
  let cppNamespace = "::mlir::flash";
  let genSpecializedAttr = 0;
}
def Flash_KVRange : I32EnumAttr<"KVRangeMode",
    "which K/V tiles each consumer warpgroup visits", [
    I32EnumAttrCase<"Auto", 0, "auto">,
    I32EnumAttrCase<"Block", 1, "block">,
    I32EnumAttrCase<"Warpgroup", 2, "warpgroup">
  ]> {
  let cppNamespace = "::mlir::flash";
  let genSpecializedAttr = 0;
}
def Flash_OutputStaging : I32EnumAttr<"OutputStaging",
    "where O waits in shared memory for its TMA store", [
    I32EnumAttrCase<"QBuffer", 0, "q_buffer">,
    I32EnumAttrCase<"KVRing", 1, "kv_ring">
  ]> {
  let cppNamespace = "::mlir::flash";
  let genSpecializedAttr = 0;
}

def Flash_SM90FormAttr : Flash_Attr<"SM90Form", "sm90_form"> {
  let summary = "The form of an sm_90a attention kernel";
  let description = [{
    What the sm_90a policy (flash-select-kernel-form) chose for one kernel,
    each field measured on the H200 where it is `auto`
    (docs/benchmarks.md, docs/gpu.md):

    - `persistent`: one grid of `blocks_per_sm`·SMs blocks drawing tiles
      from a global counter; `q_buffers` (1 or 2) Q tiles in shared memory;
      `output_staging`: O waits for its TMA store over its Q rows
      (`q_buffer`) or in a K/V slot (`kv_ring`, persistent with one Q
      buffer).
    - `blocks_per_sm`: blocks resident per SM (1 or 2).
    - `ping_pong`: consumer warpgroups take turns issuing their GEMMs.
    - `rescale`: `eager`, `lazy` or `lazy_late` rescaling of O.
    - `first_tile_mask`: `always`, or `branch` (masked only when needed).
    - `tile_order`: causal Q tiles `head` by head or `grouped` across
      heads whose K/V fit `tile_group_bytes`.
    - `store_wait`: `immediate` or `deferred` (after the next tile's first
      softmax; pipelined persistent tiles only).
    - `kv_range`: every consumer visits the `block`'s K/V tiles, or only
      those its own rows see (`warpgroup`).

    ```mlir
    #flash.sm90_form<persistent = true, q_buffers = 2, output_staging = q_buffer,
      blocks_per_sm = 1, ping_pong = true, rescale = lazy_late,
      first_tile_mask = always, tile_order = head, tile_group_bytes = 0,
      store_wait = deferred, kv_range = block>
    ```
  }];
  let parameters = (ins
    "bool":$persistent,
    "int64_t":$q_buffers,
    EnumParameter<Flash_OutputStaging>:$output_staging,
    "int64_t":$blocks_per_sm,
    "bool":$ping_pong,
    EnumParameter<Flash_Rescale>:$rescale,
    EnumParameter<Flash_FirstTileMask>:$first_tile_mask,
    EnumParameter<Flash_TileOrder>:$tile_order,
    "int64_t":$tile_group_bytes,
    EnumParameter<Flash_StoreWait>:$store_wait,
    EnumParameter<Flash_KVRange>:$kv_range
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Flash_KernelAttr : Flash_Attr<"Kernel", "kernel"> {
  let summary = "Typed descriptor of one attention kernel to build";
  let description = [{
    The contract between the tiling passes and a GPU lowering: `flash-tile`
    attaches it to the `scf.forall` it builds (what to compute: `kind`, the
    element type, the shapes the op had, `causal`, `scale`, `lse`, and the
    `schedule`); `flash-select-kernel-form` adds the target's `form` (e.g.
    `#flash.sm90_form`); `flash-lower-to-nvgpu` reads only this attribute.
    Kernels take B, H and N at run time: the shapes are the ones the
    schedule and the form were chosen for.

    `kind` names what the kernel computes:

    - `forward`: `flash.attention` (O and optionally LSE).
    - `backward`: `flash.attention_backward` (dQ, dK, dV from Q, K, V, O,
      dO and LSE); `deterministic` asks for results that are bitwise
      identical run to run (no order-dependent floating-point reductions).
    - `split_kv`: `flash.attention` with few query rows, the K/V sequence
      cut into at most `max_splits` parts whose partial (O, LSE) are merged
      exactly (Flash-Decoding over a contiguous cache).
    - `paged`: `flash.paged_attention`, split the same way, K/V read through
      a block table from pages of `page_size` slots; `seq_kv` is the
      capacity a sequence can address (pages per sequence × `page_size`).

    `deterministic`, `page_size` and `max_splits` take their defaults
    (false, 0, 0) and are not printed for the kinds they do not apply to.

    ```mlir
    #flash.kernel<kind = forward, element_type = bf16, batch = 1,
      q_heads = 1, kv_heads = 1, seq_q = 1024, seq_kv = 1024, head_dim = 128,
      value_dim = 128, causal = true, lse = false, scale = 0.0883883461 : f32,
      schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128,
                                 stages = 2, warps = 12>>
    ```
  }];
  let parameters = (ins
    EnumParameter<Flash_KernelKind>:$kind,
    "::mlir::Type":$element_type,
    "int64_t":$batch,
    "int64_t":$q_heads,
    "int64_t":$kv_heads,
    "int64_t":$seq_q,
    "int64_t":$seq_kv,
    "int64_t":$head_dim,
    "int64_t":$value_dim,
    "bool":$causal,
    "bool":$lse,
    "::mlir::FloatAttr":$scale,
    "ScheduleAttr":$schedule,
    DefaultValuedParameter<"bool", "false">:$deterministic,
    DefaultValuedParameter<"int64_t", "0">:$page_size,
    DefaultValuedParameter<"int64_t", "0">:$max_splits,
    OptionalParameter<"::mlir::Attribute">:$form
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The same descriptor with `form` set (or cleared with a null form).
    KernelAttr withForm(::mlir::Attribute form) const;
  }];
}

#endif // FLASH_ATTRS_TD
