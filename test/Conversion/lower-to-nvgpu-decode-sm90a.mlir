// flash-lower-to-nvgpu on split-KV attentions (#flash.kernel kinds split_kv
// and paged) for sm_90a: the split loop carries the descriptor, the merge
// loop (flash.stage = "merge") yields the function's results; the lowering
// reads only the descriptor and builds the split kernel (the block finishing
// a row tile's last part merges the parts) and sm_90a's separate merge
// (calls of at most 8 work units: its own split kernel and the merge kernel)
// in a gpu.module, recorded as a launch contract with its workspaces. The
// loop bodies are empty: the lowering ignores them.
// RUN: flash-opt %s --split-input-file --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s
// RUN: flash-opt %s --split-input-file --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=TILE
// RUN: flash-opt %s --split-input-file --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=PAGEMATH
// RUN: flash-opt %s --split-input-file --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=GROUPMATH
// RUN: flash-opt %s --split-input-file --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=GROUP16
// RUN: flash-opt %s --split-input-file --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=RULE
// RUN: flash-opt %s --split-input-file --flash-lower-to-nvgpu=arch=sm_90a | FileCheck %s --check-prefix=WINDOW

// sm_90a runs the same code with the pipeline its shared memory allows (at
// most half an SM per block): 3 stages at D = 128, 6 at D = 64, 2 at D = 256,
// the stages flash-select-schedule records (splitKVTileShape) and the kernel
// takes from the schedule. A paged kernel has its block-table window after
// them: 1024 i32 where the split count aims at one block an SM (D = 128:
// 4096 + 3·32768 + 4096 bytes), 512 where it aims at two and in the
// separate merge's split kernels (4096 + 3·32768 + 2048). With 3 stages
// the split count and the grid aim at one block an SM (`1*SMs`; two below
// 3 stages, as sm_80's D = 128: Target/SplitKV.h, splitKVBlocksPerSM).
// The kernel's own count of a sequence's parts takes the same term, 1·SMs
// (SMs: %arg16), before the 15/16 clause, in the split kernel and in the
// separate merge's.
// WINDOW, the block-table window (SM80/DecodePages.h, decodeTableWindow):
// 1024 entries in the D = 128 kernel, which aims at one block an SM; a
// thread loads its first 4 (the base of 512) when the part's pages fit, the
// other 4 only when there are more than 512, and stores them alike. The
// separate merge's split kernel and the D = 64 kernel (two blocks an SM)
// keep 512 and load all 4 rounds together.
// WINDOW-LABEL: gpu.func @decode_paged_d128(
// WINDOW: %[[W:.*]] = memref.view %{{.*}}[%c102400][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1024xi32, #gpu.address_space<workgroup>>
// WINDOW: %[[PAGES:[0-9]+]] = arith.addi %{{[0-9]+}}, %c1_i32{{[_0-9]*}} : i32
// WINDOW-NEXT: %c1024_i32 = arith.constant 1024 : i32
// WINDOW-NEXT: %[[FITS:[0-9]+]] = arith.cmpi sle, %[[PAGES]], %c1024_i32 : i32
// WINDOW-NEXT: %c512_i32 = arith.constant 512 : i32
// WINDOW-NEXT: %[[PAST:[0-9]+]] = arith.cmpi sgt, %[[PAGES]], %c512_i32 : i32
// WINDOW-NEXT: %[[E:[0-9]+]]:8 = scf.if %[[FITS]] -> (i32, i32, i32, i32, i32, i32, i32, i32) {
// WINDOW-COUNT-4: memref.load {{.*}} : memref<1099511627776xi32, 1>
// WINDOW-NOT: memref.load
// WINDOW: scf.if %[[PAST]] -> (i32, i32, i32, i32) {
// WINDOW-COUNT-4: memref.load {{.*}} : memref<1099511627776xi32, 1>
// WINDOW: scf.if %[[FITS]] {
// WINDOW-COUNT-4: memref.store %[[E]]#{{[0-3]}}, %[[W]]
// WINDOW: scf.if %[[PAST]] {
// WINDOW-COUNT-4: memref.store %[[E]]#{{[4-7]}}, %[[W]]
// WINDOW-LABEL: gpu.func @decode_paged_d128_separate(
// WINDOW: memref.view %{{.*}}[%c102400][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<512xi32, #gpu.address_space<workgroup>>
// WINDOW: arith.cmpi sle, %{{[0-9]+}}, %c512_i32{{[_0-9]*}} : i32
// WINDOW-NOT: arith.cmpi sgt, %{{[0-9]+}}, %c512_i32
// WINDOW-LABEL: gpu.func @decode_paged_d128_separate_s16(
// WINDOW: memref<512xi32, #gpu.address_space<workgroup>>
// WINDOW-LABEL: gpu.func @decode_paged_d128_s16(
// WINDOW: memref<1024xi32, #gpu.address_space<workgroup>>
// WINDOW-LABEL: gpu.func @decode_paged_d64(
// WINDOW: memref.view %{{.*}}[%c100352][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<512xi32, #gpu.address_space<workgroup>>
// WINDOW: arith.cmpi sle, %{{[0-9]+}}, %c512_i32{{[_0-9]*}} : i32
// WINDOW-NOT: arith.cmpi sgt, %{{[0-9]+}}, %c512_i32
// RULE-LABEL: gpu.func @decode_paged_d128(
// RULE: arith.muli %c1_i32{{[_0-9]*}}, %arg16 : i32
// RULE: arith.muli %c15_i32{{[_0-9]*}}, %arg16 : i32
// RULE-LABEL: gpu.func @decode_paged_d128_separate(
// RULE: arith.muli %c1_i32{{[_0-9]*}}, %arg16 : i32
// RULE: arith.muli %c15_i32{{[_0-9]*}}, %arg16 : i32
// The separate merge (Target/SplitKV.h): the descriptor's list holds three
// kernels of the same arguments (a paged one four more, below), whose grids
// the rule splits between two paths by B·Hkv·row tiles: the split kernel with the fused merge (z =
// B·le(9, work units): calls of more than 8 work units), the separate
// merge's split kernel (z = B·le(work units, 8)) and the merge kernel (128
// threads, (max, sum, 4 O sums) a thread of shared memory, programmatic
// dependent launch, a block per output row and 32 columns, x = 0 past 8
// work units). The fused split kernel counts its parts and merges (the
// atomics) and has no griddepcontrol. The separate merge's split kernels
// are launched with programmatic dependent launch behind the kernel before
// them in the stream (the previous call's merge, or one that is not ours)
// and wait for it before their first global load (the length:
// seq_lens[b]); they trigger their dependents after their K/V loop (the
// last mma) and neither count nor merge; the merge kernel triggers nothing
// and waits before it loads a partial.
// The paged merge kernel loads seq_lens[b] and counts the row's parts before
// its griddepcontrol.wait (seq_lens is no output of the split grid), then
// reads the partials; the contiguous one (Nk an argument) waits first.
// The fused split kernels (not the separate merge's) are given a cluster:
// two blocks along x when grid x is 2 (the pair merge), else one. Grid x is
// no more than the parts of a sequence of the cache's capacity, M·S keys
// (splitKVGridParts).
// CHECK: block_q = 16 : i64
// CHECK-SAME: dynamic_shared_memory = 106496 : i64
// CHECK-SAME: kernels = [{args = [
// CHECK-SAME: cluster = "max(1, 2*eq(min(max(max(min(ceildiv(sub(1*SMs, sub(B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q), 1)), B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), max_splits), 1)*min(max(sub(15*SMs, 16*B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), 0), 1), 1), max(ceildiv(sub(ceildiv(M*S, block_kv), sub(2, 1)), 2), 1)), 2))"
// CHECK-SAME: grid = ["min(max(max(min(ceildiv(sub(1*SMs, sub(B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q), 1)), B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), max_splits), 1)*min(max(sub(15*SMs, 16*B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), 0), 1), 1), max(ceildiv(sub(ceildiv(M*S, block_kv), sub(2, 1)), 2), 1))", "Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)", "B*le(9, B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q))*sub(1, eq(S, 16))*sub(1, eq(S, 64))"], kernel = "decode_paged_d128", threads = 128 : i64}
// CHECK-SAME: {args = ["q:ptr", "k:ptr", "v:ptr", "block_table:ptr", "seq_lens:ptr", "o:ptr", "lse:ptr", "partial_o:ptr", "partial_lse:ptr", "split_counter:ptr", "B:i32", "Hq:i32", "Hkv:i32", "Nq:i32", "S:i32", "M:i32", "SMs:i32", "scale:f32"], dynamic_shared_memory = 104448 : i64, grid = ["min(max(max(min(ceildiv(sub(1*SMs, sub(B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q), 1)), B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), max_splits), 1)*min(max(sub(15*SMs, 16*B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), 0), 1), 1), max(ceildiv(sub(ceildiv(M*S, block_kv), sub(2, 1)), 2), 1))", "Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)", "B*le(B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q), 8)*sub(1, eq(S, 16))*sub(1, eq(S, 64))"], kernel = "decode_paged_d128_separate", programmatic_dependent_launch = true, threads = 128 : i64}
// CHECK-SAME: {args = ["q:ptr", "k:ptr", "v:ptr", "block_table:ptr", "seq_lens:ptr", "o:ptr", "lse:ptr", "partial_o:ptr", "partial_lse:ptr", "split_counter:ptr", "B:i32", "Hq:i32", "Hkv:i32", "Nq:i32", "S:i32", "M:i32", "SMs:i32", "scale:f32"], dynamic_shared_memory = 104448 : i64, grid = ["min(max(max(min(ceildiv(sub(1*SMs, sub(B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q), 1)), B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), max_splits), 1)*min(max(sub(15*SMs, 16*B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), 0), 1), 1), max(ceildiv(sub(ceildiv(M*S, block_kv), sub(2, 1)), 2), 1))", "Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)", "B*le(B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q), 8)*eq(S, 16)"], kernel = "decode_paged_d128_separate_s16", programmatic_dependent_launch = true, threads = 128 : i64}
// CHECK-SAME: {args = ["q:ptr", "k:ptr", "v:ptr", "block_table:ptr", "seq_lens:ptr", "o:ptr", "lse:ptr", "partial_o:ptr", "partial_lse:ptr", "split_counter:ptr", "B:i32", "Hq:i32", "Hkv:i32", "Nq:i32", "S:i32", "M:i32", "SMs:i32", "scale:f32"], dynamic_shared_memory = 104448 : i64, grid = ["min(max(max(min(ceildiv(sub(1*SMs, sub(B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q), 1)), B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), max_splits), 1)*min(max(sub(15*SMs, 16*B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), 0), 1), 1), max(ceildiv(sub(ceildiv(M*S, block_kv), sub(2, 1)), 2), 1))", "Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)", "B*le(B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q), 8)*eq(S, 64)"], kernel = "decode_paged_d128_separate_s64", programmatic_dependent_launch = true, threads = 128 : i64}
// CHECK-SAME: {args = ["q:ptr", "k:ptr", "v:ptr", "block_table:ptr", "seq_lens:ptr", "o:ptr", "lse:ptr", "partial_o:ptr", "partial_lse:ptr", "split_counter:ptr", "B:i32", "Hq:i32", "Hkv:i32", "Nq:i32", "S:i32", "M:i32", "SMs:i32", "scale:f32"], dynamic_shared_memory = 3072 : i64, grid = ["B*Hq*Nq*le(B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q), 8)", "4", "1"], kernel = "decode_paged_d128_merge", programmatic_dependent_launch = true, threads = 128 : i64}
// CHECK-SAME: {args = ["q:ptr", "k:ptr", "v:ptr", "block_table:ptr", "seq_lens:ptr", "o:ptr", "lse:ptr", "partial_o:ptr", "partial_lse:ptr", "split_counter:ptr", "B:i32", "Hq:i32", "Hkv:i32", "Nq:i32", "S:i32", "M:i32", "SMs:i32", "scale:f32"], cluster = "max(1, 2*eq(min(max(max(min(ceildiv(sub(1*SMs, sub(B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q), 1)), B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), max_splits), 1)*min(max(sub(15*SMs, 16*B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), 0), 1), 1), max(ceildiv(sub(ceildiv(M*S, block_kv), sub(2, 1)), 2), 1)), 2))", dynamic_shared_memory = 106496 : i64, grid = ["min(max(max(min(ceildiv(sub(1*SMs, sub(B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q), 1)), B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), max_splits), 1)*min(max(sub(15*SMs, 16*B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), 0), 1), 1), max(ceildiv(sub(ceildiv(M*S, block_kv), sub(2, 1)), 2), 1))", "Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)", "B*le(9, B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q))*eq(S, 16)"], kernel = "decode_paged_d128_s16", threads = 128 : i64}
// CHECK-SAME: {args = ["q:ptr", "k:ptr", "v:ptr", "block_table:ptr", "seq_lens:ptr", "o:ptr", "lse:ptr", "partial_o:ptr", "partial_lse:ptr", "split_counter:ptr", "B:i32", "Hq:i32", "Hkv:i32", "Nq:i32", "S:i32", "M:i32", "SMs:i32", "scale:f32"], cluster = "max(1, 2*eq(min(max(max(min(ceildiv(sub(1*SMs, sub(B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q), 1)), B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), max_splits), 1)*min(max(sub(15*SMs, 16*B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), 0), 1), 1), max(ceildiv(sub(ceildiv(M*S, block_kv), sub(2, 1)), 2), 1)), 2))", dynamic_shared_memory = 106496 : i64, grid = ["min(max(max(min(ceildiv(sub(1*SMs, sub(B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q), 1)), B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), max_splits), 1)*min(max(sub(15*SMs, 16*B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)), 0), 1), 1), max(ceildiv(sub(ceildiv(M*S, block_kv), sub(2, 1)), 2), 1))", "Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q)", "B*le(9, B*Hkv*ceildiv(ceildiv(Hq*Nq, Hkv), block_q))*eq(S, 64)"], kernel = "decode_paged_d128_s64", threads = 128 : i64}]
// CHECK-SAME: op = "paged_attention"
// CHECK-SAME: stages = 3 : i64
// PAGEMATH, the page arithmetic of the kernel for any S (S = %arg14, M =
// %arg15), on pass 0's key of the prologue's first tile: S a power of two
// iff S & (S - 1) = 0; its exponent from S as an f32 (bits >> 23, - 127);
// the key (tile·64 + row, clamped into [0, last]); with S = 2^k its page
// index key >> k and its slot key & (S - 1), else key / S and key - page·S;
// the table entry at batch·M + index; the cache row entry·S + slot.
// PAGEMATH: gpu.func @decode_paged_d128(
// PAGEMATH: %[[TROW:[0-9]+]] = arith.muli %{{[0-9]+}}, %arg15 : i32
// PAGEMATH: %[[SM1:[0-9]+]] = arith.subi %arg14, %c1_i32{{[_0-9]*}} : i32{{[[:space:]]+}}%[[AND:[0-9]+]] = arith.andi %arg14, %[[SM1]] : i32{{[[:space:]]+}}%[[POW2:[0-9]+]] = arith.cmpi eq, %[[AND]], %c0_i32{{[_0-9]*}} : i32{{[[:space:]]+}}%[[F:[0-9]+]] = arith.uitofp %arg14 : i32 to f32{{[[:space:]]+}}%[[BITS:[0-9]+]] = arith.bitcast %[[F]] : f32 to i32{{[[:space:]]+}}%c127_i32 = arith.constant 127 : i32{{[[:space:]]+}}%c23_i32 = arith.constant 23 : i32{{[[:space:]]+}}%[[E:[0-9]+]] = arith.shrui %[[BITS]], %c23_i32 : i32{{[[:space:]]+}}%[[SHIFT:[0-9]+]] = arith.subi %[[E]], %c127_i32 : i32
// PAGEMATH: %[[K0:[0-9]+]] = arith.muli %[[TL:[0-9]+]], %c64_i32_{{[0-9]+}} : i32{{[[:space:]]+}}%[[K1:[0-9]+]] = arith.addi %[[K0]], %{{[0-9]+}} : i32{{[[:space:]]+}}%[[K2:[0-9]+]] = arith.minsi %[[K1]], %[[LAST:[0-9]+]] : i32{{[[:space:]]+}}%[[KEY:[0-9]+]] = arith.maxsi %[[K2]], %c0_i32_{{[0-9]+}} : i32
// PAGEMATH: %[[IF:[0-9]+]]:16 = scf.if %[[POW2]] -> (
// PAGEMATH-NEXT: %[[ONE:c1_i32_[0-9]+]] = arith.constant 1 : i32
// PAGEMATH-NEXT: %[[MASK:[0-9]+]] = arith.subi %arg14, %[[ONE]] : i32
// PAGEMATH-NEXT: %[[PI:[0-9]+]] = arith.shrui %[[KEY]], %[[SHIFT]] : i32
// PAGEMATH: %[[SL:[0-9]+]] = arith.andi %[[KEY]], %[[MASK]] : i32
// PAGEMATH: scf.yield %[[PI]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[SL]],
// PAGEMATH-NEXT: } else {
// PAGEMATH-NEXT: %[[DI:[0-9]+]] = arith.divui %[[KEY]], %arg14 : i32
// PAGEMATH: %[[DM:[0-9]+]] = arith.muli %[[DI]], %arg14 : i32
// PAGEMATH-NEXT: %[[DS:[0-9]+]] = arith.subi %[[KEY]], %[[DM]] : i32
// PAGEMATH: scf.yield %[[DI]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[DS]],
// PAGEMATH: %[[R:[0-9]+]] = arith.addi %[[TROW]], %[[IF]]#0 : i32
// PAGEMATH-NEXT: %[[IX:[0-9]+]] = arith.index_castui %[[R]] : i32 to index
// PAGEMATH-NEXT: %[[PAGE:[0-9]+]] = memref.load %{{[0-9]+}}[%[[IX]]] : memref<1099511627776xi32, 1>
// PAGEMATH: %[[B:[0-9]+]] = arith.muli %[[PAGE]], %arg14 : i32
// PAGEMATH-NEXT: arith.addi %[[B]], %[[IF]]#8 : i32
// CHECK: gpu.func @decode_paged_d128(
// CHECK-NOT: griddepcontrol
// CHECK: atom.acq_rel.gpu.global.add.u32
// CHECK-NOT: griddepcontrol
// GROUPMATH, the grouped form of the separate merge's split kernel for any S
// (a full tile, S = 2^k >= 16): on the prologue's first tile, the first
// group's key (tile·64 + row, clamped to the part's last key), its page index
// key >> k and slot key & (S - 1); the next group's key 16 rows on; the table
// entry at batch·M + index; the group's rows entry·S + slot and 8 (a pass of
// rows at D = 128) after it.
// GROUPMATH: gpu.func @decode_paged_d128_separate(
// GROUPMATH: %[[TROW:[0-9]+]] = arith.muli %{{[0-9]+}}, %arg15 : i32
// GROUPMATH: %[[E:[0-9]+]] = arith.shrui %{{[0-9]+}}, %c23_i32 : i32{{[[:space:]]+}}%[[SHIFT:[0-9]+]] = arith.subi %[[E]], %c127_i32 : i32
// GROUPMATH: %{{[0-9]+}}:16 = scf.if %{{[0-9]+}} -> (
// GROUPMATH-NEXT: %[[Z0:c0_i32_[0-9]+]] = arith.constant 0 : i32
// GROUPMATH-NEXT: %[[T:[0-9]+]] = arith.addi %{{[0-9]+}}, %[[Z0]] : i32
// GROUPMATH-NEXT: %[[ONE:c1_i32_[0-9]+]] = arith.constant 1 : i32
// GROUPMATH-NEXT: %[[MASK:[0-9]+]] = arith.subi %arg14, %[[ONE]] : i32
// GROUPMATH-NEXT: %[[Z1:c0_i32_[0-9]+]] = arith.constant 0 : i32
// GROUPMATH-NEXT: %[[R0:[0-9]+]] = arith.addi %[[ROW:[0-9]+]], %[[Z1]] : i32
// GROUPMATH-NEXT: %[[C64:c64_i32_[0-9]+]] = arith.constant 64 : i32
// GROUPMATH-NEXT: %[[K0:[0-9]+]] = arith.muli %[[T]], %[[C64]] : i32
// GROUPMATH-NEXT: %[[K1:[0-9]+]] = arith.addi %[[K0]], %[[R0]] : i32
// GROUPMATH-NEXT: %[[KEY:[0-9]+]] = arith.minsi %[[K1]], %[[LAST:[0-9]+]] : i32
// GROUPMATH-NEXT: %[[PI:[0-9]+]] = arith.shrui %[[KEY]], %[[SHIFT]] : i32
// GROUPMATH-NEXT: %[[SL:[0-9]+]] = arith.andi %[[KEY]], %[[MASK]] : i32
// GROUPMATH-NEXT: %[[C16:c16_i32_[0-9]+]] = arith.constant 16 : i32
// GROUPMATH-NEXT: %{{[0-9]+}} = arith.addi %[[ROW]], %[[C16]] : i32
// GROUPMATH: %[[IX0:[0-9]+]] = arith.addi %[[TROW]], %[[PI]] : i32
// GROUPMATH-NEXT: %[[IX:[0-9]+]] = arith.index_castui %[[IX0]] : i32 to index
// GROUPMATH-NEXT: %[[PAGE:[0-9]+]] = memref.load %{{[0-9]+}}[%[[IX]]] : memref<1099511627776xi32, 1>
// GROUPMATH: %[[B:[0-9]+]] = arith.muli %[[PAGE]], %arg14 : i32
// GROUPMATH-NEXT: %[[FIRST:[0-9]+]] = arith.addi %[[B]], %[[SL]] : i32
// GROUPMATH-NEXT: %[[C8:c8_i32_[0-9]+]] = arith.constant 8 : i32
// GROUPMATH-NEXT: arith.addi %[[FIRST]], %[[C8]] : i32
// CHECK: gpu.func @decode_paged_d128_separate(
// CHECK-NOT: memref.load
// CHECK: nvvm.griddepcontrol wait
// CHECK-NOT: llvm.load
// CHECK: memref.load {{.*}} : memref<1099511627776xi32, 1>
// CHECK: nvvm.mma.sync
// CHECK: nvvm.griddepcontrol launch_dependents
// CHECK-NOT: nvvm.mma.sync
// CHECK-NOT: atom.acq_rel
// The separate merge's split kernels for pages of 16 and 64 slots (S a
// constant, a page lookup per 16 keys or a tile): the separate one's blocks
// on calls of S = 16 or 64, listed before the merge kernel, which waits on
// whichever split kernel ran.
// CHECK: gpu.func @decode_paged_d128_separate_s16(
// CHECK: nvvm.griddepcontrol wait
// CHECK: nvvm.griddepcontrol launch_dependents
// CHECK-NOT: atom.acq_rel
// CHECK: gpu.func @decode_paged_d128_separate_s64(
// CHECK: nvvm.griddepcontrol wait
// CHECK: nvvm.griddepcontrol launch_dependents
// CHECK-NOT: atom.acq_rel
// TILE, the separate merge's kernel for pages of 64 slots: the same address
// math as the fused one's (below).
// TILE: gpu.func @decode_paged_d128_separate_s64(
// TILE: %[[TROW:[0-9]+]] = arith.muli %{{[0-9]+}}, %arg15 : i32
// TILE: %[[K0:[0-9]+]] = arith.muli %[[TL:[0-9]+]], %c64_i32_{{[0-9]+}} : i32{{[[:space:]]+}}%[[K1:[0-9]+]] = arith.addi %[[K0]], %{{[0-9]+}} : i32{{[[:space:]]+}}%[[K2:[0-9]+]] = arith.minsi %[[K1]], %[[LAST:[0-9]+]] : i32{{[[:space:]]+}}%[[KEY:[0-9]+]] = arith.maxsi %[[K2]], %c0_i32_{{[0-9]+}} : i32
// TILE: %[[F0:[0-9]+]] = arith.muli %[[TL]], %c64_i32_{{[0-9]+}} : i32{{[[:space:]]+}}%[[F1:[0-9]+]] = arith.minsi %[[F0]], %[[LAST]] : i32{{[[:space:]]+}}%[[FIRST:[0-9]+]] = arith.maxsi %[[F1]], %c0_i32_{{[0-9]+}} : i32{{[[:space:]]+}}%c6_i32 = arith.constant 6 : i32{{[[:space:]]+}}%[[PI:[0-9]+]] = arith.shrui %[[FIRST]], %c6_i32 : i32
// TILE-NEXT: %[[ROW:[0-9]+]] = arith.addi %[[TROW]], %[[PI]] : i32
// TILE-NEXT: %[[IX:[0-9]+]] = arith.index_castui %[[ROW]] : i32 to index
// TILE-NEXT: %[[PAGE:[0-9]+]] = memref.load %{{[0-9]+}}[%[[IX]]] : memref<1099511627776xi32, 1>
// TILE-NEXT: %[[M63:c63_i32_[0-9]+]] = arith.constant 63 : i32
// TILE-NEXT: %[[SLOT:[0-9]+]] = arith.andi %[[KEY]], %[[M63]] : i32
// TILE-NEXT: %[[S64:c64_i32_[0-9]+]] = arith.constant 64 : i32
// TILE-NEXT: %[[BASE:[0-9]+]] = arith.muli %[[PAGE]], %[[S64]] : i32
// TILE-NEXT: arith.addi %[[BASE]], %[[SLOT]] : i32
// GROUP16, the kernels for pages of 16 slots (the separate merge's, then
// the fused one): a 16-key group's first key (clamped into [0, last]) gives
// the page index key >> 4 in the sequence's table row (batch·M, %arg15 = M)
// and the slot key & 15; the group's first row is page·16 + slot, the next
// pass's (8 keys on at D = 128) page·16 + ((slot + 8) & 15), wrapped into
// the page.
// GROUP16: gpu.func @decode_paged_d128_separate_s16(
// GROUP16: %[[TROW:[0-9]+]] = arith.muli %{{[0-9]+}}, %arg15 : i32
// GROUP16: %[[C4:c4_i32_[0-9]+]] = arith.constant 4 : i32{{[[:space:]]+}}%[[PI:[0-9]+]] = arith.shrui %[[KEY:[0-9]+]], %[[C4]] : i32{{[[:space:]]+}}%[[M15:c15_i32_[0-9]+]] = arith.constant 15 : i32{{[[:space:]]+}}%[[SLOT:[0-9]+]] = arith.andi %[[KEY]], %[[M15]] : i32
// GROUP16: %[[ROW:[0-9]+]] = arith.addi %[[TROW]], %[[PI]] : i32
// GROUP16-NEXT: %[[IX:[0-9]+]] = arith.index_castui %[[ROW]] : i32 to index
// GROUP16-NEXT: %[[PAGE:[0-9]+]] = memref.load %{{[0-9]+}}[%[[IX]]] : memref<1099511627776xi32, 1>
// GROUP16: %[[S16:c16_i32_[0-9]+]] = arith.constant 16 : i32
// GROUP16-NEXT: %[[BASE:[0-9]+]] = arith.muli %[[PAGE]], %[[S16]] : i32
// GROUP16-NEXT: %{{[0-9]+}} = arith.addi %[[BASE]], %[[SLOT]] : i32
// GROUP16-NEXT: %[[W15:c15_i32_[0-9]+]] = arith.constant 15 : i32
// GROUP16-NEXT: %[[C8:c8_i32_[0-9]+]] = arith.constant 8 : i32
// GROUP16-NEXT: %[[NEXT:[0-9]+]] = arith.addi %[[SLOT]], %[[C8]] : i32
// GROUP16-NEXT: %[[WRAP:[0-9]+]] = arith.andi %[[NEXT]], %[[W15]] : i32
// GROUP16-NEXT: arith.addi %[[BASE]], %[[WRAP]] : i32
// GROUP16: gpu.func @decode_paged_d128_s16(
// GROUP16: %[[TROW2:[0-9]+]] = arith.muli %{{[0-9]+}}, %arg15 : i32
// GROUP16: %[[D4:c4_i32_[0-9]+]] = arith.constant 4 : i32{{[[:space:]]+}}%[[PI2:[0-9]+]] = arith.shrui %[[KEY2:[0-9]+]], %[[D4]] : i32{{[[:space:]]+}}%[[N15:c15_i32_[0-9]+]] = arith.constant 15 : i32{{[[:space:]]+}}%[[SLOT2:[0-9]+]] = arith.andi %[[KEY2]], %[[N15]] : i32
// GROUP16: %[[ROW2:[0-9]+]] = arith.addi %[[TROW2]], %[[PI2]] : i32
// GROUP16-NEXT: %[[IX2:[0-9]+]] = arith.index_castui %[[ROW2]] : i32 to index
// GROUP16-NEXT: %[[PAGE2:[0-9]+]] = memref.load %{{[0-9]+}}[%[[IX2]]] : memref<1099511627776xi32, 1>
// GROUP16: %[[T16:c16_i32_[0-9]+]] = arith.constant 16 : i32
// GROUP16-NEXT: %[[BASE2:[0-9]+]] = arith.muli %[[PAGE2]], %[[T16]] : i32
// GROUP16-NEXT: %{{[0-9]+}} = arith.addi %[[BASE2]], %[[SLOT2]] : i32
// GROUP16-NEXT: %[[X15:c15_i32_[0-9]+]] = arith.constant 15 : i32
// GROUP16-NEXT: %[[D8:c8_i32_[0-9]+]] = arith.constant 8 : i32
// GROUP16-NEXT: %[[NEXT2:[0-9]+]] = arith.addi %[[SLOT2]], %[[D8]] : i32
// GROUP16-NEXT: %[[WRAP2:[0-9]+]] = arith.andi %[[NEXT2]], %[[X15]] : i32
// GROUP16-NEXT: arith.addi %[[BASE2]], %[[WRAP2]] : i32
// CHECK: gpu.func @decode_paged_d128_merge(
// CHECK-NOT: nvvm.griddepcontrol
// CHECK: memref.load {{.*}} : memref<1099511627776xi32, 1>
// CHECK-NOT: llvm.load
// CHECK: nvvm.griddepcontrol wait
// CHECK: llvm.load volatile
// CHECK: gpu.barrier
// CHECK: gpu.return
// The fused split kernels for pages of 16 and 64 slots (S a constant; the
// launch plan gives them the split kernel's blocks on calls of that S).
// CHECK: gpu.func @decode_paged_d128_s16(
// CHECK-NOT: griddepcontrol
// CHECK: atom.acq_rel.gpu.global.add.u32
// CHECK: gpu.func @decode_paged_d128_s64(
// CHECK-NOT: griddepcontrol
// CHECK: atom.acq_rel.gpu.global.add.u32
// CHECK-NOT: griddepcontrol
// TILE, the kernel for pages of 64 slots: the prologue's first tile takes
// one table load, at the page of its first key (tile·64, clamped into
// [0, last] like the keys: LAST), index first >> 6 in the sequence's table
// row (batch·M, %arg15 = M), and each key's cache row is that page·64 plus
// the key's slot (key & 63).
// TILE: gpu.func @decode_paged_d128_s64(
// TILE: %[[TROW:[0-9]+]] = arith.muli %{{[0-9]+}}, %arg15 : i32
// TILE: %[[K0:[0-9]+]] = arith.muli %[[TL:[0-9]+]], %c64_i32_{{[0-9]+}} : i32{{[[:space:]]+}}%[[K1:[0-9]+]] = arith.addi %[[K0]], %{{[0-9]+}} : i32{{[[:space:]]+}}%[[K2:[0-9]+]] = arith.minsi %[[K1]], %[[LAST:[0-9]+]] : i32{{[[:space:]]+}}%[[KEY:[0-9]+]] = arith.maxsi %[[K2]], %c0_i32_{{[0-9]+}} : i32
// TILE: %[[F0:[0-9]+]] = arith.muli %[[TL]], %c64_i32_{{[0-9]+}} : i32{{[[:space:]]+}}%[[F1:[0-9]+]] = arith.minsi %[[F0]], %[[LAST]] : i32{{[[:space:]]+}}%[[FIRST:[0-9]+]] = arith.maxsi %[[F1]], %c0_i32_{{[0-9]+}} : i32{{[[:space:]]+}}%c6_i32 = arith.constant 6 : i32{{[[:space:]]+}}%[[PI:[0-9]+]] = arith.shrui %[[FIRST]], %c6_i32 : i32
// TILE-NEXT: %[[ROW:[0-9]+]] = arith.addi %[[TROW]], %[[PI]] : i32
// TILE-NEXT: %[[IX:[0-9]+]] = arith.index_castui %[[ROW]] : i32 to index
// TILE-NEXT: %[[PAGE:[0-9]+]] = memref.load %{{[0-9]+}}[%[[IX]]] : memref<1099511627776xi32, 1>
// TILE-NEXT: %[[M63:c63_i32_[0-9]+]] = arith.constant 63 : i32
// TILE-NEXT: %[[SLOT:[0-9]+]] = arith.andi %[[KEY]], %[[M63]] : i32
// TILE-NEXT: %[[S64:c64_i32_[0-9]+]] = arith.constant 64 : i32
// TILE-NEXT: %[[BASE:[0-9]+]] = arith.muli %[[PAGE]], %[[S64]] : i32
// TILE-NEXT: arith.addi %[[BASE]], %[[SLOT]] : i32
// CHECK-NOT: gpu.func
func.func @decode_paged_d128(%q: tensor<1x32x1x128xbf16>, %k: tensor<256x16x8x128xbf16>, %v: tensor<256x16x8x128xbf16>, %table: tensor<1x256xi32>, %lens: tensor<1xi32>) -> (tensor<1x32x1x128xbf16>) {
  %partials = tensor.empty() : tensor<64x1x32x1x128xf32>
  %o0 = tensor.empty() : tensor<1x32x1x128xbf16>
  %p = scf.forall (%s, %h, %b) in (64, 8, 1) shared_outs(%part = %partials) -> (tensor<64x1x32x1x128xf32>) {
    scf.forall.in_parallel {
    }
  } {flash.kernel = #flash.kernel<kind = paged, element_type = bf16, batch = 1, q_heads = 32, kv_heads = 8, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = false, lse = false, scale = 0.08838834764831843 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 16, block_kv = 64, stages = 3, warps = 4>, page_size = 16, max_splits = 64>}
  %o = scf.forall (%r) in (32) shared_outs(%out = %o0) -> (tensor<1x32x1x128xbf16>) {
    scf.forall.in_parallel {
    }
  } {flash.stage = "merge"}
  return %o : tensor<1x32x1x128xbf16>
}

// -----

// CHECK: dynamic_shared_memory = 102400 : i64
// CHECK-SAME: stages = 6 : i64
// CHECK-SAME: writes_lse = true
func.func @decode_paged_d64(%q: tensor<1x32x1x64xf16>, %k: tensor<256x16x8x64xf16>, %v: tensor<256x16x8x64xf16>, %table: tensor<1x256xi32>, %lens: tensor<1xi32>) -> (tensor<1x32x1x64xf16>, tensor<1x32x1xf32>) {
  %partials = tensor.empty() : tensor<64x1x32x1x64xf32>
  %o0 = tensor.empty() : tensor<1x32x1x64xf16>
  %l0 = tensor.empty() : tensor<1x32x1xf32>
  %p = scf.forall (%s, %h, %b) in (64, 8, 1) shared_outs(%part = %partials) -> (tensor<64x1x32x1x64xf32>) {
    scf.forall.in_parallel {
    }
  } {flash.kernel = #flash.kernel<kind = paged, element_type = f16, batch = 1, q_heads = 32, kv_heads = 8, seq_q = 1, seq_kv = 4096, head_dim = 64, value_dim = 64, causal = true, lse = true, scale = 0.125 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 16, block_kv = 64, stages = 6, warps = 4>, page_size = 16, max_splits = 64>}
  %o:2 = scf.forall (%r) in (32) shared_outs(%out = %o0, %lout = %l0) -> (tensor<1x32x1x64xf16>, tensor<1x32x1xf32>) {
    scf.forall.in_parallel {
    }
  } {flash.stage = "merge"}
  return %o#0, %o#1 : tensor<1x32x1x64xf16>, tensor<1x32x1xf32>
}

// -----

// CHECK: dynamic_shared_memory = 139264 : i64
// CHECK-SAME: op = "attention_split_kv"
// CHECK-SAME: stages = 2 : i64
// The contiguous separate merge's split kernel waits before its first load
// (Q's copy: the length Nk is an argument); the fused one has no
// griddepcontrol; the merge kernel's first operation is its wait.
// CHECK: gpu.func @decode_split_d256(
// CHECK-NOT: griddepcontrol
// CHECK: gpu.func @decode_split_d256_separate(
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: nvvm.griddepcontrol wait
// CHECK-NOT: nvvm.griddepcontrol wait
// CHECK: gpu.func @decode_split_d256_merge(
// CHECK-NEXT: nvvm.griddepcontrol wait
func.func @decode_split_d256(%q: tensor<1x32x1x256xbf16>, %k: tensor<1x8x4096x256xbf16>, %v: tensor<1x8x4096x256xbf16>) -> (tensor<1x32x1x256xbf16>) {
  %partials = tensor.empty() : tensor<64x1x32x1x256xf32>
  %o0 = tensor.empty() : tensor<1x32x1x256xbf16>
  %p = scf.forall (%s, %h, %b) in (64, 8, 1) shared_outs(%part = %partials) -> (tensor<64x1x32x1x256xf32>) {
    scf.forall.in_parallel {
    }
  } {flash.kernel = #flash.kernel<kind = split_kv, element_type = bf16, batch = 1, q_heads = 32, kv_heads = 8, seq_q = 1, seq_kv = 4096, head_dim = 256, value_dim = 256, causal = true, lse = false, scale = 0.0625 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 16, block_kv = 64, stages = 2, warps = 4>, max_splits = 64>}
  %o = scf.forall (%r) in (32) shared_outs(%out = %o0) -> (tensor<1x32x1x256xbf16>) {
    scf.forall.in_parallel {
    }
  } {flash.stage = "merge"}
  return %o : tensor<1x32x1x256xbf16>
}
