// RUN: flash-opt %s --flash-tile --flash-lower-to-nvgpu=arch=sm_100a | FileCheck %s
// RUN: flash-opt %s --flash-tile --flash-lower-to-nvgpu=arch=sm_100a | FileCheck %s --check-prefix=ORDER
// RUN: flash-opt %s --flash-tile --flash-lower-to-nvgpu=arch=sm_100a | FileCheck %s --check-prefix=EXP2
// RUN: flash-opt %s --flash-tile --flash-lower-to-nvgpu=arch=sm_100a | grep -c 'llvm.nvvm.ex2.approx.ftz.f' | FileCheck %s --check-prefix=MUFU
// RUN: flash-opt %s --flash-tile --flash-lower-to-nvgpu=arch=sm_100a | grep -c 'arith.constant 0x4B400000' | FileCheck %s --check-prefix=POLY

// flash-lower-to-nvgpu (sm_100a): one 128-row Q tile per block in six
// warps. A TMA warp loads Q, K, V (the sm_90a tensor maps and mbarrier
// ring); an MMA warp owns tensor memory and issues S = Q·Kᵀ and O += P·V
// as tcgen05.mma into it, signalled by tcgen05.commit; the softmax
// warpgroup reads rows of S with tcgen05.ld, writes P back with tcgen05.st,
// rescales O in tensor memory only where a row max moved (no correction
// warpgroup with one tile) and writes O through shared memory and TMA
// stores.

// The launch contract: Q, K, V and O as tensor maps (O's boxes: 64 columns
// × 128 rows, the TMA-store epilogue); 192 threads; the TMEM allocation (O
// 128 + S 128 + P 64 columns, rounded up to a power of two).
// CHECK: module attributes {flash.kernels = [{arch = "sm_100a", args = ["q:tensormap", "k:tensormap", "v:tensormap", "o:tensormap", "lse:ptr", "B:i32", "Hq:i32", "Hkv:i32", "Nq:i32", "Nk:i32", "scale:f32"]
// CHECK-SAME: correction_warpgroup = false
// CHECK-SAME: exp2_polynomial = "1/5"
// CHECK-SAME: rescale = "lazy"
// CHECK-SAME: tensor_maps = [{box = [64, 128, 1], dims = ["D", "N", "B*H"], swizzle = "128B", tensor = "q"}, {box = [64, 128, 1], dims = ["D", "N", "B*H"], swizzle = "128B", tensor = "k"}, {box = [64, 128, 1], dims = ["D", "N", "B*H"], swizzle = "128B", tensor = "v"}, {box = [64, 128, 1], dims = ["D", "N", "B*H"], swizzle = "128B", tensor = "o"}]
// CHECK-SAME: tensor_memory_columns = 512 : i64
// CHECK-SAME: threads = 192 : i64
// CHECK: llvm.func @gqa_bf16(%{{.+}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<16 x i64>, nvvm.grid_constant}, %{{.+}}: !llvm.ptr {{.*}}nvvm.grid_constant}, %{{.+}}: !llvm.ptr {{.*}}nvvm.grid_constant}, %{{.+}}: !llvm.ptr {{.*}}nvvm.grid_constant}, %{{.+}}: !llvm.ptr<1>, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: f32)
// CHECK-SAME: nvvm.kernel, nvvm.maxntid = array<i32: 192, 1, 1>, nvvm.minctasm = 1 : i32

// The barrier protocol: thread 0 initialises Q full, K/V full and empty per
// stage (two stages here), S full and O done (one arrival: the producer's
// expect_tx or the MMA thread's tcgen05.commit), S free and P full (the 128
// softmax threads).
// CHECK-COUNT-11: nvvm.mbarrier.init %{{.+}}, %c1_i32{{.*}} :
// CHECK: nvvm.mbarrier.init %{{.+}}, %c128_i32{{.*}} :
// CHECK: nvvm.mbarrier.init %{{.+}}, %c128_i32{{.*}} :
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init

// The MMA warp allocates 512 columns once (and gives up the permit); the
// block synchronises around it with tcgen05 fences, then reads the address.
// CHECK: %[[MMAWARP:.+]] = arith.cmpi eq, %{{.+}}, %c5_i32{{.*}} : i32
// CHECK-NEXT: scf.if %[[MMAWARP]] {
// CHECK-NEXT: %[[COLS:.+]] = arith.constant 512 : i32
// CHECK-NEXT: nvvm.tcgen05.alloc %{{.+}}, %[[COLS]] : !llvm.ptr<3>, i32
// CHECK-NEXT: nvvm.tcgen05.relinquish_alloc_permit
// CHECK: nvvm.tcgen05.fence <before>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: nvvm.tcgen05.fence <after>
// CHECK-NEXT: %[[TMEM:.+]] = llvm.load %{{.+}} : !llvm.ptr<3> -> i32

// The softmax warpgroup: rows of S (128 columns) by tcgen05.ld 32x32b, S
// handed back, P (64 columns of packed pairs) by tcgen05.st, handed over.
// CHECK: nvvm.tcgen05.ld %{{.+}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<128xi32>
// CHECK: nvvm.tcgen05.wait <load>
// CHECK: nvvm.tcgen05.fence <before>
// CHECK: nvvm.mbarrier.arrive
// O is rescaled in TMEM after the previous P·V, under a warp vote.
// CHECK: nvvm.vote.sync {{ *}}any
// CHECK: nvvm.tcgen05.ld %{{.+}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
// CHECK: nvvm.tcgen05.st %{{.+}}, %{{.+}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
// CHECK: nvvm.tcgen05.st %{{.+}}, %{{.+}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
// CHECK: nvvm.tcgen05.wait <store>
// The epilogue (shared with sm_90a: Epilogue.h, row-per-thread words): O's
// pairs into Q's swizzled boxes in shared memory, the async-proxy fence,
// the warpgroup's named barrier, one TMA store per 64 columns by thread 0,
// and its wait for the stores' reads before the block's end.
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: %[[THREADS:.+]] = arith.constant 128 : i32
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1 : i32
// CHECK-NEXT: %[[ID:.+]] = arith.addi %{{.+}}, %[[ONE]] : i32
// CHECK-NEXT: nvvm.barrier id = %[[ID]] number_of_threads = %[[THREADS]]
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %arg3, %{{.+}}, box[%c0_i32{{.*}}, %{{.+}}, %{{.+}}]
// CHECK-NEXT: arith.constant 16384 : i32
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %arg3, %{{.+}}, box[%c64_i32{{.*}}, %{{.+}}, %{{.+}}]
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}

// The exponentials of the softmax (the model's split, sm100Exp2Split: one
// column in five on the FMA units): α and columns 1-4 of every five by
// ex2.approx on the MUFU, columns 0, 5, 10, ... by the polynomial
// (KernelMath::exp2Polynomial): clamp to -127 keeping NaN (maximumf), round
// by adding 1.5·2^23, f = x − j, three fma (c3, c2, c1, then 1), times 2^j
// made from its bits: (bits(t) << 23) + bits(1.0).
// EXP2: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// EXP2: %[[X0:.+]] = llvm.intr.fma
// EXP2-NEXT: %[[LOW:.+]] = arith.constant -1.270000e+02 : f32
// EXP2-NEXT: %[[XC:.+]] = arith.maximumf %[[X0]], %[[LOW]] : f32
// EXP2-NEXT: %[[MAGIC:.+]] = arith.constant 0x4B400000 : f32
// EXP2-NEXT: %[[T:.+]] = arith.addf %[[XC]], %[[MAGIC]] : f32
// EXP2-NEXT: %[[J:.+]] = arith.subf %[[T]], %[[MAGIC]] : f32
// EXP2-NEXT: %[[F:.+]] = arith.subf %[[XC]], %[[J]] : f32
// EXP2-NEXT: %[[C1:.+]] = arith.constant 0.242210373 : f32
// EXP2-NEXT: %[[C2:.+]] = arith.constant 0.0550085828 : f32
// EXP2-NEXT: %[[P2:.+]] = llvm.intr.fma(%[[F]], %[[C2]], %[[C1]])
// EXP2-NEXT: %[[C0:.+]] = arith.constant 0.693282902 : f32
// EXP2-NEXT: %[[P1:.+]] = llvm.intr.fma(%[[F]], %[[P2]], %[[C0]])
// EXP2-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// EXP2-NEXT: %[[P:.+]] = llvm.intr.fma(%[[F]], %[[P1]], %[[ONE]])
// EXP2-NEXT: %[[C23:.+]] = arith.constant 23 : i32
// EXP2-NEXT: %[[TB:.+]] = arith.bitcast %[[T]] : f32 to i32
// EXP2-NEXT: %[[JB:.+]] = arith.shli %[[TB]], %[[C23]] : i32
// EXP2-NEXT: %[[BIAS:.+]] = arith.constant 1065353216 : i32
// EXP2-NEXT: %[[SB:.+]] = arith.addi %[[JB]], %[[BIAS]] : i32
// EXP2-NEXT: %[[SCALE:.+]] = arith.bitcast %[[SB]] : i32 to f32
// EXP2-NEXT: arith.mulf %[[P]], %[[SCALE]] : f32
// EXP2-COUNT-4: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// EXP2-NOT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// EXP2: arith.constant 0x4B400000 : f32
// Over the kernel: two softmax loops (unmasked, masked) of 128 columns:
// 2·(102 + α) = 206 ex2.approx and 2·26 polynomials.
// MUFU: 206
// POLY: 52

// The TMA warp: Q once, K and V per stage (the sm_90a helpers).
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global

// The MMA thread: S = Q·Kᵀ as D/16 = 8 tcgen05.mma (SS, N = 128), each
// commit after it; O += P·V as Bc/16 = 8 tcgen05.mma with A in TMEM.
// CHECK-COUNT-8: nvvm.tcgen05.mma %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>} : (!llvm.ptr<6>, i64, i64, i32, i1)
// CHECK: nvvm.tcgen05.commit
// CHECK: nvvm.tcgen05.commit
// CHECK: nvvm.tcgen05.fence <after>
// CHECK-COUNT-8: nvvm.tcgen05.mma %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>} : (!llvm.ptr<6>, !llvm.ptr<6>, i64, i32, i1)
// CHECK: nvvm.tcgen05.commit
// CHECK: nvvm.tcgen05.commit

// At the end every warp is done with TMEM; the MMA warp frees it under the
// same condition as the alloc.
// CHECK: nvvm.tcgen05.fence <before>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.if %[[MMAWARP]] {
// CHECK-NEXT: nvvm.tcgen05.fence <after>
// CHECK: nvvm.tcgen05.dealloc %{{.+}}, %{{.+}} : !llvm.ptr<6>, i32
// CHECK: llvm.return

// The instruction descriptors: bf16 A and B, f32 D, M = 128 (8 << 24);
// S: N = 128 (16 << 17), both K-major: 0x08200490 = 136316048;
// P·V: N = 128, B (V) MN-major (1 << 16): 0x08210490 = 136381584.
// ORDER-DAG: arith.constant 136316048 : i32
// ORDER-DAG: arith.constant 136381584 : i32

func.func @gqa_bf16(%q: tensor<2x8x1000x128xbf16>, %k: tensor<2x2x1000x128xbf16>, %v: tensor<2x2x1000x128xbf16>) -> (tensor<2x8x1000x128xbf16>, tensor<2x8x1000xf32>) {
  %o, %l = flash.attention %q, %k, %v {causal, schedule = #flash.schedule<arch = "sm_100a", block_q = 128, block_kv = 128, stages = 2, warps = 6>}
      : tensor<2x8x1000x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16> -> tensor<2x8x1000x128xbf16>, tensor<2x8x1000xf32>
  return %o, %l : tensor<2x8x1000x128xbf16>, tensor<2x8x1000xf32>
}
