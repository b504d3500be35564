// RUN: flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="persistent=no" --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=AUTO
// RUN: flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="persistent=no tile-order=grouped" --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=GROUPED
// RUN: flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="persistent=no tile-order=head" --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=HEAD
// RUN: not flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="tile-order=diagonal" --flash-lower-to-nvgpu=arch=sm_90a 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not flash-opt %s --split-input-file --flash-select-schedule="arch=sm_80 overwrite" --flash-tile --flash-select-kernel-form="tile-order=grouped" --flash-lower-to-nvgpu=arch=sm_80 2>&1 | FileCheck %s --check-prefix=SM80

// The order causal Q tiles are handed out in (sm_90a). `head`: tile t is Q
// tile numQTiles - 1 - t % numQTiles of head t / numQTiles (each head's
// longest tile first). `grouped`: heads in groups of
//   G = numQTiles >= 16 ? min(max(16 MiB / ((D + Dv)·2 bytes) / Nk, 1), B·Hq) : 1
// computed once at kernel entry; tile t is in group t / (G·numQTiles), q-major
// within it, the last group as wide as the heads left. `auto`: grouped for
// causal D = 64 and 256 compiled for 16 or more Q tiles per head.

// BAD: for the --tile-order option: Cannot find option named 'diagonal'!
// SM80: error: not supported yet: tile-order=grouped on sm_80 (its blocks take Q tiles head by head)

// D = 256, bf16: 16 MiB / 1024 bytes per key = 16384 keys of K/V per group.
// AUTO: kernel = "d256_causal_n2048"
// AUTO-SAME: tile_group_bytes = 16777216 : i64, tile_order = "grouped"
// AUTO: llvm.func @d256_causal_n2048(
// AUTO: %[[NQ:.+]] = arith.divui %{{.+}}, %c128_i32 : i32
// AUTO-NEXT: %[[HEADS:.+]] = arith.muli %arg5, %arg6 : i32
// AUTO: %[[NK:.+]] = arith.maxui %arg9, %{{.+}} : i32
// AUTO-NEXT: %[[KEYS:.+]] = arith.constant 16384 : i32
// AUTO-NEXT: %[[FITS:.+]] = arith.divui %[[KEYS]], %[[NK]] : i32
// AUTO: %[[ATLEAST1:.+]] = arith.maxui %[[FITS]], %{{.+}} : i32
// AUTO-NEXT: %[[CAPPED:.+]] = arith.minui %[[ATLEAST1]], %[[HEADS]] : i32
// AUTO: %[[SIXTEEN:.+]] = arith.constant 16 : i32
// AUTO-NEXT: %[[LONG:.+]] = arith.cmpi uge, %[[NQ]], %[[SIXTEEN]] : i32
// AUTO-NEXT: %[[G:.+]] = arith.select %[[LONG]], %[[CAPPED]], %{{.+}} : i32
// The tile's group, its place in the group, the group's width, then q and
// the head (the block's tile t from its block index).
// AUTO: %[[BX:.+]] = arith.index_castui %block_id_x : index to i32
// AUTO: %[[T:.+]] = arith.addi %{{.+}}, %[[BX]] : i32
// AUTO: %[[GT:.+]] = arith.muli %[[G]], %[[NQ]] : i32
// AUTO-NEXT: %[[GI:.+]] = arith.divui %[[T]], %[[GT]] : i32
// AUTO-NEXT: %[[FIRST:.+]] = arith.muli %[[GI]], %[[G]] : i32
// AUTO-NEXT: %[[IN:.+]] = arith.remui %[[T]], %[[GT]] : i32
// AUTO-NEXT: %[[LEFT:.+]] = arith.subi %[[HEADS]], %[[FIRST]] : i32
// AUTO-NEXT: %[[W:.+]] = arith.minui %[[G]], %[[LEFT]] : i32
// AUTO-NEXT: %[[Q:.+]] = arith.divui %[[IN]], %[[W]] : i32
// AUTO-NEXT: %[[R:.+]] = arith.remui %[[IN]], %[[W]] : i32
// AUTO-NEXT: %[[HIDX:.+]] = arith.addi %[[FIRST]], %[[R]] : i32
// Longest first: q counts down from numQTiles - 1.
// AUTO: %[[LAST:.+]] = arith.subi %[[NQ]], %{{.+}} : i32
// AUTO-NEXT: arith.subi %[[LAST]], %[[Q]] : i32
// AUTO-NEXT: arith.divui %[[HIDX]], %arg6 : i32
// GROUPED: kernel = "d256_causal_n2048"
// GROUPED-SAME: tile_order = "grouped"
// HEAD: kernel = "d256_causal_n2048"
// HEAD-SAME: tile_order = "head"
// HEAD: llvm.func @d256_causal_n2048(
// HEAD-NOT: arith.cmpi uge
// HEAD: %[[NQ:.+]] = arith.divui %{{.+}}, %c128_i32 : i32
// HEAD: %[[BX:.+]] = arith.index_castui %block_id_x : index to i32
// HEAD: %[[T:.+]] = arith.addi %{{.+}}, %[[BX]] : i32
// HEAD-NOT: arith.minui
// HEAD: arith.remui %[[T]], %[[NQ]] : i32
// HEAD-NEXT: arith.divui %[[T]], %[[NQ]] : i32
func.func @d256_causal_n2048(%q: tensor<1x2x2048x256xbf16>, %k: tensor<1x2x2048x256xbf16>, %v: tensor<1x2x2048x256xbf16>) -> tensor<1x2x2048x256xbf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 80, stages = 2, warps = 12>}
      : tensor<1x2x2048x256xbf16>, tensor<1x2x2048x256xbf16>, tensor<1x2x2048x256xbf16> -> tensor<1x2x2048x256xbf16>
  return %o : tensor<1x2x2048x256xbf16>
}

// -----

// Compiled for 15 Q tiles per head (1920 rows): auto keeps the order by head.
// AUTO: kernel = "d256_causal_n1920"
// AUTO-SAME: tile_order = "head"
// GROUPED: kernel = "d256_causal_n1920"
// GROUPED-SAME: tile_order = "grouped"
func.func @d256_causal_n1920(%q: tensor<1x2x1920x256xbf16>, %k: tensor<1x2x1920x256xbf16>, %v: tensor<1x2x1920x256xbf16>) -> tensor<1x2x1920x256xbf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 80, stages = 2, warps = 12>}
      : tensor<1x2x1920x256xbf16>, tensor<1x2x1920x256xbf16>, tensor<1x2x1920x256xbf16> -> tensor<1x2x1920x256xbf16>
  return %o : tensor<1x2x1920x256xbf16>
}

// -----

// D = 64 with 192-row Q tiles: auto groups from 16 Q tiles (N = 3072), and
// keeps the order by head at N = 2048 (11 tiles).
// AUTO: kernel = "d64_causal_n4096"
// AUTO-SAME: tile_group_bytes = 16777216 : i64, tile_order = "grouped"
// HEAD: kernel = "d64_causal_n4096"
// HEAD-SAME: tile_order = "head"
func.func @d64_causal_n4096(%q: tensor<1x2x4096x64xbf16>, %k: tensor<1x2x4096x64xbf16>, %v: tensor<1x2x4096x64xbf16>) -> tensor<1x2x4096x64xbf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_90a", block_q = 192, block_kv = 128, stages = 2, warps = 16>}
      : tensor<1x2x4096x64xbf16>, tensor<1x2x4096x64xbf16>, tensor<1x2x4096x64xbf16> -> tensor<1x2x4096x64xbf16>
  return %o : tensor<1x2x4096x64xbf16>
}

// -----

// AUTO: kernel = "d64_causal_n2048"
// AUTO-SAME: tile_order = "head"
func.func @d64_causal_n2048(%q: tensor<1x2x2048x64xbf16>, %k: tensor<1x2x2048x64xbf16>, %v: tensor<1x2x2048x64xbf16>) -> tensor<1x2x2048x64xbf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_90a", block_q = 192, block_kv = 128, stages = 2, warps = 16>}
      : tensor<1x2x2048x64xbf16>, tensor<1x2x2048x64xbf16>, tensor<1x2x2048x64xbf16> -> tensor<1x2x2048x64xbf16>
  return %o : tensor<1x2x2048x64xbf16>
}

// -----

// D = 128: auto keeps the order by head; grouped fits 16 MiB / 512 bytes.
// AUTO: kernel = "d128_causal_n4096"
// AUTO-SAME: tile_order = "head"
// GROUPED: kernel = "d128_causal_n4096"
// GROUPED-SAME: tile_group_bytes = 16777216 : i64, tile_order = "grouped"
// GROUPED: llvm.func @d128_causal_n4096(
// GROUPED: arith.constant 32768 : i32
func.func @d128_causal_n4096(%q: tensor<1x2x4096x128xbf16>, %k: tensor<1x2x4096x128xbf16>, %v: tensor<1x2x4096x128xbf16>) -> tensor<1x2x4096x128xbf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>}
      : tensor<1x2x4096x128xbf16>, tensor<1x2x4096x128xbf16>, tensor<1x2x4096x128xbf16> -> tensor<1x2x4096x128xbf16>
  return %o : tensor<1x2x4096x128xbf16>
}

// -----

// Non-causal tiles are all alike: every order is the order by head.
// AUTO: kernel = "d256_n4096"
// AUTO-SAME: tile_order = "head"
// GROUPED: kernel = "d256_n4096"
// GROUPED-SAME: tile_order = "head"
// GROUPED: llvm.func @d256_n4096(
// GROUPED-NOT: arith.cmpi uge
// GROUPED: llvm.return
func.func @d256_n4096(%q: tensor<1x2x4096x256xbf16>, %k: tensor<1x2x4096x256xbf16>, %v: tensor<1x2x4096x256xbf16>) -> tensor<1x2x4096x256xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 80, stages = 2, warps = 12>}
      : tensor<1x2x4096x256xbf16>, tensor<1x2x4096x256xbf16>, tensor<1x2x4096x256xbf16> -> tensor<1x2x4096x256xbf16>
  return %o : tensor<1x2x4096x256xbf16>
}
