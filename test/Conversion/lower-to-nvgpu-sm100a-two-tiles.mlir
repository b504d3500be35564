// RUN: flash-opt %s --flash-tile --flash-lower-to-nvgpu=arch=sm_100a | FileCheck %s
// RUN: flash-opt %s --flash-tile --flash-lower-to-nvgpu=arch=sm_100a | FileCheck %s --check-prefix=ORDER
// RUN: flash-opt %s --flash-select-schedule=arch=sm_100a | FileCheck %s --check-prefix=SCHEDULE

// flash-lower-to-nvgpu (sm_100a) with two 128-row Q tiles per block
// (block_q = 256: the schedule's choice where 2·(D + Bc) tensor-memory
// columns fit, here D = 128, Bc = 128: 512) and FA4's roles in sixteen
// warps: a softmax warpgroup per tile (warps 0-3, 4-7: S → P only), the
// correction warpgroup (8-11: O's rescale by α in TMEM under a warp vote,
// then both tiles' epilogue through TMA stores), the TMA warp 12 and the
// MMA warp 13 in warpgroup 3 (14 and 15 idle). setmaxnreg: 184 (softmax),
// 88 (correction), 56 (warpgroup 3): 2·128·184 + 128·88 + 128·56 = 65536
// = 128·512, the block's launch share. Tensor memory O_0 | S_0 | O_1 |
// S_1, P_i over S_i's first 64 columns. Never run (no Blackwell GPU here).
// Shared memory (bytes): Q 0, K 65536, V 131072, then the mbarriers: Q full
// 196608, K full 196616, V full 196632, K empty 196648, V empty 196664, S
// full 196680, P full 196696, O done 196712, α full 196728, O ready 196744
// (8 bytes per barrier, one per stage or tile), α 196760, (m, l) 198808.

// SCHEDULE: schedule = #flash.schedule<arch = "sm_100a", block_q = 256, block_kv = 128, stages = 2, warps = 16>

// The launch contract: Q's tensor map boxes of 256 rows (both tiles in one
// load), O's of 128 rows (one tile's TMA store per 64 columns), 512
// threads, 512 TMEM columns, the split recorded.
// CHECK: module attributes {flash.kernels = [{arch = "sm_100a", args = ["q:tensormap", "k:tensormap", "v:tensormap", "o:tensormap", "lse:ptr",
// CHECK-SAME: block_q = 256 : i64
// CHECK-SAME: correction_warpgroup = true
// CHECK-SAME: q_tiles = 2 : i64
// CHECK-SAME: setmaxnreg = [184, 88, 56]
// CHECK-SAME: tensor_maps = [{box = [64, 256, 1], dims = ["D", "N", "B*H"], swizzle = "128B", tensor = "q"}, {box = [64, 128, 1], dims = ["D", "N", "B*H"], swizzle = "128B", tensor = "k"}, {box = [64, 128, 1], dims = ["D", "N", "B*H"], swizzle = "128B", tensor = "v"}, {box = [64, 128, 1], dims = ["D", "N", "B*H"], swizzle = "128B", tensor = "o"}]
// CHECK-SAME: tensor_memory_columns = 512 : i64
// CHECK-SAME: threads = 512 : i64
// CHECK: nvvm.kernel, nvvm.maxntid = array<i32: 512, 1, 1>, nvvm.minctasm = 1 : i32

// The barriers: Q full, K/V full and empty per stage (two), S full and O
// done per tile (one arrival: expect_tx or a tcgen05.commit): 13; P full
// and α full per tile (the tile's 128 softmax threads), O ready per tile
// (the correction warpgroup's 128): 6. No S free: S_i(j+1) is issued after
// P_i(j)·V_j, which has read P_i(j) from S_i's columns.
// CHECK-COUNT-13: nvvm.mbarrier.init %{{.+}}, %c1_i32{{.*}} :
// CHECK-NOT: nvvm.mbarrier.init
// CHECK-COUNT-6: nvvm.mbarrier.init %{{.+}}, %c128_i32{{.*}} :
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init

// The MMA warp (13) allocates 512 columns.
// CHECK: %[[MMAWARP:.+]] = arith.cmpi eq, %{{.+}}, %c13_i32 : i32
// CHECK-NEXT: scf.if %[[MMAWARP]] {
// CHECK-NEXT: %[[COLS:.+]] = arith.constant 512 : i32
// CHECK-NEXT: nvvm.tcgen05.alloc %{{.+}}, %[[COLS]] : !llvm.ptr<3>, i32

// Threads 0-255: the softmax warpgroups, raised to 184 registers. Per K/V
// tile: S (128 columns, two loads of 64: ptxas compiles a tcgen05.ld within
// the 128-register launch cap), no rescale here (no vote): α (j ≥ 1) and,
// with the last tile, (m, l) to shared memory, α full (196728); P (64
// columns of pairs) over S, one wait for the stores, P full (196696).
// CHECK: arith.cmpi slt, %{{.+}}, %c256_i32{{.*}} : i32
// CHECK-NEXT: scf.if
// CHECK-NEXT: nvvm.setmaxregister  increase 184
// CHECK: nvvm.tcgen05.ld %{{.+}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
// CHECK: nvvm.tcgen05.ld %{{.+}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
// CHECK: nvvm.tcgen05.wait <load>
// CHECK-NOT: nvvm.vote.sync
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK: arith.constant 196728 : i32
// CHECK: nvvm.mbarrier.arrive
// CHECK-NOT: nvvm.vote.sync
// CHECK: nvvm.tcgen05.st %{{.+}}, %{{.+}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
// CHECK-NEXT: nvvm.tcgen05.wait <store>
// CHECK-NEXT: nvvm.tcgen05.fence <before>
// CHECK-NEXT: arith.constant 196696 : i32
// CHECK: nvvm.mbarrier.arrive

// Threads 256-383: the correction warpgroup, down to 88. For j ≥ 1 and
// each tile (tile 0 under its own range): α full (196728 + 8·i) and O done
// (196712 + 8·i; the ring's base, then the slot's 8·i) at parity (j − 1) & 1, α_i(j) from shared memory, the warp
// vote, O_i rescaled in chunks of 32 columns, the stores' wait, O ready
// (196744 + 8·i).
// CHECK: arith.cmpi slt, %{{.+}}, %c384_i32 : i32
// CHECK-NEXT: scf.if
// CHECK-NEXT: nvvm.setmaxregister  decrease 88
// CHECK: scf.for %{{.+}} = %c1_i32{{.*}} to
// CHECK: arith.constant 196728 : i32
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: arith.constant 196712 : i32
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK: nvvm.vote.sync {{ *}}any
// CHECK: nvvm.tcgen05.ld %{{.+}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
// CHECK: nvvm.tcgen05.st %{{.+}}, %{{.+}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
// CHECK: nvvm.tcgen05.wait <store>
// CHECK-NEXT: nvvm.tcgen05.fence <before>
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 196744 : i32
// CHECK: nvvm.mbarrier.arrive
// Tile 1 (no range check): the same rings at slot 1 (base + 8·1).
// CHECK: arith.constant 196728 : i32
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: arith.constant 196712 : i32
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.vote.sync {{ *}}any
// CHECK: arith.constant 196744 : i32
// CHECK: nvvm.mbarrier.arrive
// The epilogues (Q's load landed: Q full; then per tile its last O done),
// (m, l) from shared memory, O = acc / l in chunks of 32 columns into Q_i's
// swizzled boxes, the async-proxy fence, named barrier 1 for the 128
// threads, thread 256's two TMA stores (64 columns each) and commit, per
// tile; then its wait for the stores' reads.
// CHECK: arith.constant 196608 : i32
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK: llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK: nvvm.tcgen05.ld %{{.+}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.barrier id = %{{.+}} number_of_threads = %c128_i32
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.global.shared.cta %arg3,
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.barrier id = %{{.+}} number_of_threads = %c128_i32
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.global.shared.cta %arg3,
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}

// Warpgroup 3 gives registers back (56); thread 384 (warp 12) loads Q
// (both tiles: 256 rows × 128 columns × 2 bytes = 65536 bytes) and K/V.
// CHECK: nvvm.setmaxregister  decrease 56
// CHECK: arith.cmpi eq, %{{.+}}, %c384_i32{{.*}} : i32
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c65536_i32 : !llvm.ptr<3>, i32
// CHECK: arith.cmpi eq, %{{.+}}, %c416_i32 : i32

// The MMA thread (416, warp 13), in the designed order: S_0(0) into columns
// 128.. (S_0), S_1(0) into 384.. (S_1; A = Q's rows 128-255, 16384 bytes
// into each 64-column block of Q), then per K/V tile j: P_0(j)·V_j
// into O_0 (column 0, A = P_0 at 128), S_0(j+1), P_1(j)·V_j into O_1 (256,
// A = P_1 at 384), S_1(j+1). Tile 0 runs under its own (shorter, causal)
// range: its MMAs sit under an scf.if. Commits: sFull_0; K's release and
// sFull_1 after S_1; oDone_0 after P_0·V; V's release and oDone_1 after
// P_1·V. Each P_i(j)·V_j waits for P full_i (196696 + 8·i) and, for j > 0,
// O ready_i (196744 + 8·i: the correction has rescaled O_i), then V full.
// ORDER: arith.cmpi eq, %{{.+}}, %c416_i32 : i32
// ORDER: scf.if
// ORDER: scf.if
// ORDER: arith.addi %{{.+}}, %c128_i32{{.*}} : i32
// ORDER-NEXT: arith.constant 136316048 : i32
// ORDER-COUNT-8: nvvm.tcgen05.mma %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} {{.*}} : (!llvm.ptr<6>, i64, i64, i32, i1)
// ORDER: nvvm.tcgen05.commit
// ORDER-NOT: nvvm.tcgen05.commit
// ORDER-NOT: nvvm.tcgen05.mma
// ORDER: arith.constant 16384 : i32
// ORDER-NOT: nvvm.tcgen05.mma
// ORDER: arith.addi %{{.+}}, %c384_i32{{.*}} : i32
// ORDER-NEXT: arith.constant 136316048 : i32
// ORDER-COUNT-8: nvvm.tcgen05.mma %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} {{.*}} : (!llvm.ptr<6>, i64, i64, i32, i1)
// ORDER: nvvm.tcgen05.commit
// ORDER: nvvm.tcgen05.commit
// ORDER: scf.for
// ORDER: scf.if
// ORDER: arith.constant 196696 : i32
// ORDER: nvvm.mbarrier.try_wait.parity
// ORDER-NEXT: arith.constant 0 : i32
// ORDER-NEXT: arith.cmpi sgt, %{{.+}}, %c0_i32{{.*}} : i32
// ORDER-NEXT: scf.if
// ORDER-NOT: nvvm.tcgen05.mma
// ORDER: arith.constant 196744 : i32
// ORDER-NOT: nvvm.tcgen05.mma
// ORDER: nvvm.mbarrier.try_wait.parity
// ORDER-NOT: nvvm.tcgen05.mma
// ORDER: arith.constant 196632 : i32
// ORDER-DAG: arith.addi %{{.+}}, %c0_i32{{.*}} : i32
// ORDER-DAG: arith.addi %{{.+}}, %c128_i32{{.*}} : i32
// ORDER: arith.constant 136381584 : i32
// ORDER-COUNT-8: nvvm.tcgen05.mma %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} {{.*}} : (!llvm.ptr<6>, !llvm.ptr<6>, i64, i32, i1)
// ORDER: nvvm.tcgen05.commit
// ORDER-NOT: nvvm.tcgen05.commit
// ORDER-NOT: nvvm.tcgen05.mma
// ORDER: scf.if
// ORDER: arith.addi %{{.+}}, %c128_i32{{.*}} : i32
// ORDER-NEXT: arith.constant 136316048 : i32
// ORDER-COUNT-8: nvvm.tcgen05.mma %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} {{.*}} : (!llvm.ptr<6>, i64, i64, i32, i1)
// ORDER: nvvm.tcgen05.commit
// ORDER-NOT: nvvm.tcgen05.commit
// ORDER-NOT: nvvm.tcgen05.mma
// ORDER: arith.constant 196696 : i32
// ORDER-NOT: nvvm.tcgen05.mma
// ORDER: arith.constant 196744 : i32
// ORDER-NOT: nvvm.tcgen05.mma
// ORDER-DAG: arith.addi %{{.+}}, %c256_i32{{.*}} : i32
// ORDER-DAG: arith.addi %{{.+}}, %c384_i32{{.*}} : i32
// ORDER: arith.constant 136381584 : i32
// ORDER-COUNT-8: nvvm.tcgen05.mma %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} {{.*}} : (!llvm.ptr<6>, !llvm.ptr<6>, i64, i32, i1)
// ORDER: nvvm.tcgen05.commit
// ORDER: nvvm.tcgen05.commit
// ORDER: scf.if
// ORDER: arith.addi %{{.+}}, %c384_i32{{.*}} : i32
// ORDER-NEXT: arith.constant 136316048 : i32
// ORDER-COUNT-8: nvvm.tcgen05.mma %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} {{.*}} : (!llvm.ptr<6>, i64, i64, i32, i1)
// ORDER: nvvm.tcgen05.commit
// ORDER: nvvm.tcgen05.commit
// ORDER-NOT: nvvm.tcgen05.commit
// ORDER-NOT: nvvm.tcgen05.mma
// ORDER: nvvm.tcgen05.dealloc %{{.+}}, %{{.+}} : !llvm.ptr<6>, i32

func.func @two_tiles(%q: tensor<2x8x1000x128xbf16>, %k: tensor<2x2x1000x128xbf16>, %v: tensor<2x2x1000x128xbf16>) -> (tensor<2x8x1000x128xbf16>, tensor<2x8x1000xf32>) {
  %o, %l = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_100a", block_q = 256, block_kv = 128, stages = 2, warps = 16>}
      : tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16> -> tensor<2x8x1000x128xbf16>, tensor<2x8x1000xf32>
  return %o, %l : tensor<2x8x1000x128xbf16>, tensor<2x8x1000xf32>
}
