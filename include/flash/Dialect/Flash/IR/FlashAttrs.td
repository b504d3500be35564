//===- FlashAttrs.td - flash dialect attributes -------------*- tablegen -*-===//
//
// #flash.schedule: the IO-aware choice of tiles, pipeline depth and warps that
// flash-select-schedule makes for one attention op on one target.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_ATTRS_TD
#define FLASH_ATTRS_TD

include "flash/Dialect/Flash/IR/FlashDialect.td"
include "mlir/IR/AttrTypeBase.td"

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

    Example:

    ```mlir
    #flash.schedule<arch = "sm_80", block_q = 128, block_kv = 64, stages = 2, warps = 4>
    ```
  }];
  let parameters = (ins
    StringRefParameter<"target architecture">:$arch,
    "int64_t":$block_q,
    "int64_t":$block_kv,
    "int64_t":$stages,
    "int64_t":$warps
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // FLASH_ATTRS_TD
