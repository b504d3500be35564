// RUN: flash-opt %s --flash-tile --flash-lower-to-nvgpu=arch=sm_100a | FileCheck %s
// RUN: flash-opt %s --flash-tile --flash-lower-to-nvgpu=arch=sm_100a | FileCheck %s --check-prefix=ORDER
// RUN: flash-opt %s --flash-select-schedule=arch=sm_100a | FileCheck %s --check-prefix=SCHEDULE

// flash-lower-to-nvgpu (sm_100a) with two 128-row Q tiles per block
// (block_q = 256: the schedule's choice where 2·(D + Bc) tensor-memory
// columns fit, here D = 128, Bc = 128: 512). Twelve warps: a softmax
// warpgroup per tile (warps 0-3, 4-7), the TMA warp 8 and the MMA warp 9
// in warpgroup 2 (10 and 11 idle); setmaxnreg moves registers to the
// softmax warpgroups (208) from warpgroup 2 (88) within the block's
// launch share of 168 per thread: 2·128·208 + 128·88 = 168·384. Tensor memory O_0 | S_0 | O_1 | S_1, P_i over S_i's first 64
// columns. Never run (no Blackwell GPU here).

// SCHEDULE: schedule = #flash.schedule<arch = "sm_100a", block_q = 256, block_kv = 128, stages = 2, warps = 12>

// The launch contract: Q's tensor map boxes of 256 rows (both tiles in one
// load), 384 threads, 512 TMEM columns, the split recorded.
// CHECK: module attributes {flash.kernels = [{arch = "sm_100a"
// CHECK-SAME: block_q = 256 : i64
// CHECK-SAME: q_tiles = 2 : i64
// CHECK-SAME: setmaxnreg = [208, 88]
// CHECK-SAME: tensor_maps = [{box = [64, 256, 1], dims = ["D", "N", "B*H"], swizzle = "128B", tensor = "q"}, {box = [64, 128, 1], dims = ["D", "N", "B*H"], swizzle = "128B", tensor = "k"}, {box = [64, 128, 1], dims = ["D", "N", "B*H"], swizzle = "128B", tensor = "v"}]
// CHECK-SAME: tensor_memory_columns = 512 : i64
// CHECK-SAME: threads = 384 : i64
// CHECK: nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32

// The barriers: Q full, K/V full and empty per stage (two), S full and O
// done per tile (one arrival: expect_tx or a tcgen05.commit): 13; P full
// per tile (the tile's 128 softmax threads): 2. No S free: S_i(j+1) is
// issued after P_i(j)·V_j, which has read P_i(j) from S_i's columns.
// CHECK-COUNT-13: nvvm.mbarrier.init %{{.+}}, %c1_i32{{.*}} :
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: nvvm.mbarrier.init %{{.+}}, %c128_i32{{.*}} :
// CHECK: nvvm.mbarrier.init %{{.+}}, %c128_i32{{.*}} :
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init

// The MMA warp (9) allocates 512 columns.
// CHECK: %[[MMAWARP:.+]] = arith.cmpi eq, %{{.+}}, %c9_i32 : i32
// CHECK-NEXT: scf.if %[[MMAWARP]] {
// CHECK-NEXT: %[[COLS:.+]] = arith.constant 512 : i32
// CHECK-NEXT: nvvm.tcgen05.alloc %{{.+}}, %[[COLS]] : !llvm.ptr<3>, i32
// CHECK: %[[TMEM:.+]] = llvm.load %{{.+}} : !llvm.ptr<3> -> i32

// Threads 0-255: the softmax warpgroups, raised to 208 registers. Tile =
// warp / 4, TMEM lane base 32·(warp mod 4). Per K/V tile: S (128 columns)
// in (no S free); P (64 columns of pairs) out over S at once (P_{j-1}·V_{j-1}
// was issued before S_j: it has read P_{j-1}); then, after O done, the
// rescale of O under a warp vote; one wait for the stores, P full.
// CHECK: arith.cmpi slt, %{{.+}}, %c256_i32{{.*}} : i32
// CHECK-NEXT: scf.if
// CHECK-NEXT: nvvm.setmaxregister  increase 208
// CHECK: nvvm.tcgen05.ld %{{.+}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<128xi32>
// CHECK: nvvm.tcgen05.wait <load>
// CHECK-NOT: nvvm.mbarrier.arrive
// CHECK: nvvm.tcgen05.st %{{.+}}, %{{.+}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
// CHECK-NOT: nvvm.mbarrier.arrive
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.vote.sync {{ *}}any
// CHECK: nvvm.tcgen05.ld %{{.+}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
// CHECK: nvvm.tcgen05.st %{{.+}}, %{{.+}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
// CHECK-NOT: nvvm.mbarrier.arrive
// CHECK: nvvm.tcgen05.wait <store>
// CHECK-NEXT: nvvm.tcgen05.fence <before>
// CHECK: nvvm.mbarrier.arrive

// Warpgroup 2 gives registers back (88); thread 256 (warp 8) loads Q (both
// tiles: 256 rows × 128 columns × 2 bytes = 65536 bytes) and K/V.
// CHECK: nvvm.setmaxregister  decrease 88
// CHECK-NEXT: arith.constant 256 : i32
// CHECK-NEXT: arith.cmpi eq, %{{.+}}, %c256_i32{{.*}} : i32
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c65536_i32 : !llvm.ptr<3>, i32
// CHECK: arith.cmpi eq, %{{.+}}, %c288_i32 : i32

// The MMA thread (288, warp 9), in the designed order: S_0(0) into columns
// 128.. (S_0), S_1(0) into 384.. (S_1; A = Q's rows 128-255, 16384 bytes
// into each 64-column block of Q), then per K/V tile j: P_0(j)·V_j
// into O_0 (column 0, A = P_0 at 128), S_0(j+1), P_1(j)·V_j into O_1 (256,
// A = P_1 at 384), S_1(j+1). Tile 0 runs under its own (shorter, causal)
// range: its MMAs sit under an scf.if. Commits: sFull_0; K's release and
// sFull_1 after S_1; oDone_0 after P_0·V; V's release and oDone_1 after
// P_1·V.
// ORDER: arith.cmpi eq, %{{.+}}, %c288_i32 : i32
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
