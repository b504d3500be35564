// RUN: flash-opt %s --split-input-file --flash-tile --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=AUTO
// RUN: flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="persistent=no" --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=NO
// RUN: flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="persistent=yes" --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=YES
// RUN: not flash-opt %s --split-input-file --flash-tile --flash-select-kernel-form="persistent=maybe" --flash-lower-to-nvgpu=arch=sm_90a 2>&1 | FileCheck %s --check-prefix=BAD

// The persistent grid (sm_90a): at most blocks_per_sm blocks per SM, each
// looping over tiles it draws from a global counter (a dynamic scheduler),
// with the ring of K/V stages and the Q buffers' mbarrier phases carried
// across tiles, and Q double-buffered where shared memory allows. `auto`
// picks it for D <= 128 (measured faster on the H200, docs/benchmarks.md)
// and not for D = 256, whose Q tile cannot be double-buffered.

// BAD: for the --persistent option: Cannot find option named 'maybe'!

// The launch contract: a tile counter argument, the grid, two Q buffers.
// AUTO-LABEL: args = ["q:tensormap", "k:tensormap", "v:tensormap", "o:tensormap", "lse:ptr", "B:i32", "Hq:i32", "Hkv:i32", "Nq:i32", "Nk:i32", "scale:f32", "counter:ptr"]
// AUTO-SAME: grid = ["min(blocks_per_sm*SMs, ceildiv(Nq, block_q)*Hq*B)", "1", "1"]
// AUTO-SAME: kernel = "plain", kv_range = "block", output_staging = "q_buffer", persistent = true
// AUTO-SAME: q_buffers = 2
// AUTO: llvm.func @plain(
// AUTO-SAME: %[[COUNTER:[^:]+]]: !llvm.ptr<1>)
// Barriers: full and empty for each of the two Q buffers, four per K/V stage.
// AUTO-COUNT-12: nvvm.mbarrier.init
// AUTO-NOT: nvvm.mbarrier.init
// AUTO: nvvm.fence.mbarrier.init
// Producer: block c starts with tile c; the loop runs while tile < total.
// AUTO: nvvm.setmaxregister  decrease 24
// AUTO: %[[BX:.+]] = gpu.block_id  x
// AUTO: %[[FIRST:.+]] = arith.index_castui %[[BX]] : index to i32
// AUTO: %[[GX:.+]] = gpu.grid_dim  x
// AUTO: %[[BLOCKS:.+]] = arith.index_castui %[[GX]] : index to i32
// AUTO: scf.while (%[[TILE:.+]] = %[[FIRST]], %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) : (i32, i32, i32) -> (i32, i32, i32)
// AUTO: arith.cmpi ult, %[[TILE]], %[[TOTAL:.+]] : i32
// AUTO: scf.condition
// A Q buffer is reused from its second use on: wait for its "empty" phase.
// AUTO: scf.if
// AUTO: nvvm.mbarrier.try_wait.parity
// The tile index is published in shared memory before the Q barrier is armed.
// AUTO: llvm.store volatile %{{.+}}, %{{.+}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// AUTO: nvvm.mbarrier.arrive.expect_tx
// AUTO: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %arg0
// AUTO: scf.for
// The next tile: gridDim.x + atomicAdd(counter, 1); the last draw resets it.
// AUTO: %[[DRAWN:.+]] = llvm.atomicrmw add %[[COUNTER]], %{{.+}} monotonic : !llvm.ptr<1>, i32
// AUTO: %[[LASTDRAW:.+]] = arith.subi %[[TOTAL]], %{{.+}} : i32
// AUTO: arith.cmpi eq, %[[DRAWN]], %[[LASTDRAW]] : i32
// AUTO: llvm.atomicrmw xchg %[[COUNTER]], %{{.+}} monotonic : !llvm.ptr<1>, i32
// AUTO: %[[NEXT:.+]] = arith.addi %[[BLOCKS]], %[[DRAWN]] : i32
// AUTO: scf.yield %[[NEXT]],
// After the last tile: an index past the end, published like a tile's.
// AUTO: llvm.store volatile %[[TOTAL]], %{{.+}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// AUTO: nvvm.mbarrier.arrive %{{.+}} : !llvm.ptr<3> -> i64
// Consumers, with two Q buffers, run their tiles as one pipeline. The
// shared-memory base is read again after setmaxnreg (nothing stays live
// across it). The first tile: wait for its Q buffer, read its index, its
// first Q·Kᵀ and softmax; then loop while the tile index is below the total.
// AUTO: nvvm.setmaxregister  increase 240
// AUTO: llvm.inline_asm has_side_effects asm_dialect = att "mov.u32 $0, flash_smem;", "=r"
// AUTO: nvvm.mbarrier.try_wait.parity
// AUTO: %[[T0:.+]] = llvm.load volatile %{{.+}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// AUTO: nvvm.wgmma.commit.group.sync.aligned
// AUTO: scf.while (%[[T:[^ ]+]] = %[[T0]],
// AUTO: %[[MORE:.+]] = arith.cmpi ult, %[[T]], %{{.+}} : i32
// AUTO: scf.condition(%[[MORE]]) %[[T]],
// After a tile's K/V loops its O is staged in its Q buffer and the next
// tile's index read; if that tile has work, its first Q·Kᵀ is issued before
// this tile's O is stored by TMA, and waited for after (the store's own wait
// follows the next tile's first softmax: store-wait, its own test).
// AUTO: llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// AUTO: %[[NEXT:.+]] = llvm.load volatile %{{.+}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// AUTO: scf.if %{{.+}} -> (f32, f32, f32, f32, i32
// AUTO: nvvm.wgmma.commit.group.sync.aligned
// AUTO-NOT: nvvm.wgmma.wait.group.sync.aligned
// AUTO: nvvm.fence.proxy
// AUTO: nvvm.cp.async.bulk.commit.group
// AUTO: nvvm.wgmma.wait.group.sync.aligned 0
// AUTO: nvvm.cp.async.bulk.wait_group 0 {read}
// AUTO: } else {
// AUTO-NOT: nvvm.wgmma
// AUTO: nvvm.cp.async.bulk.wait_group 0 {read}
// AUTO: scf.yield %[[NEXT]],
// Without a persistent grid: no counter argument (the argument list ends
// with the scale), one Q buffer, no tile loop.
// NO: args = ["q:tensormap", "k:tensormap", "v:tensormap", "o:tensormap", "lse:ptr", "B:i32", "Hq:i32", "Hkv:i32", "Nq:i32", "Nk:i32", "scale:f32"], block_kv
// NO-LABEL: kernel = "plain"
// NO-SAME: persistent = false
// NO-SAME: q_buffers = 1
// NO: llvm.func @plain(
// NO-SAME: %{{[^:]+}}: f32)
// NO-NOT: atomicrmw
// NO-NOT: scf.while
// NO: llvm.return
func.func @plain(%q: tensor<2x8x1000x128xbf16>, %k: tensor<2x2x1000x128xbf16>, %v: tensor<2x2x1000x128xbf16>) -> tensor<2x8x1000x128xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>}
      : tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16> -> tensor<2x8x1000x128xbf16>
  return %o : tensor<2x8x1000x128xbf16>
}

// -----

// Causal attention uses the same scheduler: tiles go out longest first
// within a head, to whichever block asks first.
// AUTO-LABEL: kernel = "causal", kv_range = "block", output_staging = "q_buffer", persistent = true
// AUTO: llvm.atomicrmw add
// NO-LABEL: kernel = "causal", kv_range = "block", output_staging = "q_buffer", persistent = false
func.func @causal(%q: tensor<2x8x1000x128xbf16>, %k: tensor<2x2x1000x128xbf16>, %v: tensor<2x2x1000x128xbf16>) -> tensor<2x8x1000x128xbf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 128, stages = 2, warps = 12>}
      : tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16> -> tensor<2x8x1000x128xbf16>
  return %o : tensor<2x8x1000x128xbf16>
}

// -----

// D = 256: `auto` keeps one tile per block. A persistent grid there fits
// only one Q buffer (2 × 64 KB of Q and 128 KB of K/V exceed 227 KB), so O
// is staged in the K/V ring: the slot after a tile's K/V tiles holds its O
// (boxes 0-3 in the slot's K half, 4-7 in its V half), and Q is released
// as soon as the tile's last Q·Kᵀ has completed.
// AUTO-LABEL: kernel = "d256", kv_range = "block", output_staging = "q_buffer", persistent = false
// YES-LABEL: kernel = "d256", kv_range = "block", output_staging = "kv_ring", persistent = true
// YES-SAME: q_buffers = 1
// YES: llvm.func @d256(
// Q's empty barrier (the second) counts every consumer thread (2 × 128).
// YES: nvvm.mbarrier.init %{{.+}}, %c1_i32 : !llvm.ptr<3>, i32
// YES-NEXT: %[[QEMPTY:.+]] = arith.constant 256 : i32
// YES-NOT: nvvm.mbarrier.init
// YES: nvvm.mbarrier.init %{{.+}}, %[[QEMPTY]] : !llvm.ptr<3>, i32
// Producer: after a tile's K/V loads, wait until the slot's previous use
// is released (K and V halves), then arrive on its full barriers with no
// bytes to load; then draw the next tile.
// YES: nvvm.setmaxregister  decrease 24
// YES: scf.for
// YES: nvvm.mbarrier.arrive.expect_tx
// YES: nvvm.mbarrier.arrive.expect_tx
// YES: nvvm.mbarrier.try_wait.parity
// YES: nvvm.mbarrier.try_wait.parity
// YES-NOT: expect_tx
// YES: nvvm.mbarrier.arrive %{{[^,]+}} : !llvm.ptr<3> -> i64
// YES-NOT: expect_tx
// YES: nvvm.mbarrier.arrive %{{[^,]+}} : !llvm.ptr<3> -> i64
// YES-NOT: nvvm.mbarrier
// YES: llvm.atomicrmw add
// Consumers run the tiles as one pipeline (one Q buffer). After the K/V
// loops and before the last P·V, each thread arrives on Q's empty barrier
// (byte 196680 = 196608 + 8 · 9, after Q, K and V).
// YES: nvvm.setmaxregister  increase 240
// YES: scf.while
// YES: arith.constant 196680 : i32
// YES: nvvm.mbarrier.arrive %{{[^,]+}} : !llvm.ptr<3> -> i64
// YES-NEXT: scf.if
// YES: nvvm.wgmma.wait.group.sync.aligned 0
// O waits for its slot (full barrier), goes to the K or V half by box,
// and the leader releases both halves for its 128 threads once the TMA
// store has read them.
// YES: nvvm.mbarrier.try_wait.parity
// YES-COUNT-4: arith.select %{{.+}}, %{{.+}}, %{{.+}} : i32
// YES: nvvm.cp.async.bulk.wait_group 0 {read}
// YES: nvvm.mbarrier.arrive %{{.+}}, %{{.+}} : !llvm.ptr<3> -> i64
// YES: nvvm.mbarrier.arrive %{{.+}}, %{{.+}} : !llvm.ptr<3> -> i64
func.func @d256(%q: tensor<1x4x1000x256xbf16>, %k: tensor<1x4x1000x256xbf16>, %v: tensor<1x4x1000x256xbf16>) -> tensor<1x4x1000x256xbf16> {
  %o = flash.attention %q, %k, %v {schedule = #flash.schedule<arch = "sm_90a", block_q = 128, block_kv = 64, stages = 2, warps = 12>}
      : tensor<1x4x1000x256xbf16>, tensor<1x4x1000x256xbf16>, tensor<1x4x1000x256xbf16> -> tensor<1x4x1000x256xbf16>
  return %o : tensor<1x4x1000x256xbf16>
}

// -----

// One consumer warpgroup whose block fits twice in shared memory and in half
// the register file runs two blocks per SM: minctasm 2, 128 registers at
// launch, setmaxnreg 24/232, and a persistent grid of 2 blocks per SM.
// AUTO-LABEL: block_q = 64 : i64, blocks_per_sm = 2
// AUTO-SAME: consumer_registers = 232 : i64, consumer_warpgroups = 1 : i64
// AUTO-SAME: kernel = "two_per_sm"
// AUTO-SAME: producer_registers = 24 : i64
// AUTO: llvm.func @two_per_sm(
// AUTO-SAME: nvvm.minctasm = 2 : i32
// AUTO: nvvm.setmaxregister  decrease 24
// AUTO: nvvm.setmaxregister  increase 232
func.func @two_per_sm(%q: tensor<1x4x1000x64xbf16>, %k: tensor<1x4x1000x64xbf16>, %v: tensor<1x4x1000x64xbf16>) -> tensor<1x4x1000x64xbf16> {
  %o = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_90a", block_q = 64, block_kv = 128, stages = 2, warps = 8>}
      : tensor<1x4x1000x64xbf16>, tensor<1x4x1000x64xbf16>, tensor<1x4x1000x64xbf16> -> tensor<1x4x1000x64xbf16>
  return %o : tensor<1x4x1000x64xbf16>
}
