// REQUIRES: ptxas, cuobjdump
// The SASS of the sm_100a forward (cuobjdump -sass; CUDA here has neither
// cuobjdump nor the nvdisasm it calls: PyPI's nvidia-cuda-cuobjdump and
// nvidia-cuda-nvdisasm have them, found through $CUOBJDUMP and
// $NVDISASM_PATH or PATH): every shipped cubin issues Blackwell's UTC*MMA
// (tcgen05.mma) and has no spills; O leaves by TMA stores (UTMASTG) in
// every one (the one-tile D = 256 kernels and the two-tile ones with the
// correction warpgroup).
// RUN: rm -rf %t && %python -m flash_mlir.compile --out %t --arch sm_100a --ops forward > /dev/null
// RUN: %python -m flash_mlir.tools.check_bundles %t --expect 24 --sass 'UTC[A-Z0-9]*MMA' | FileCheck %s
// CHECK-NOT: BAD
// CHECK: OK  flash_fwd_sm_100a_bf16_d128 sm_100a registers={{[0-9]+}} spill_stores=0 spill_loads=0 stack=0 sass[UTC[A-Z0-9]*MMA]={{[1-9][0-9]*}}
// CHECK: bundles, 0 bad
// RUN: %python -m flash_mlir.tools.check_bundles %t --expect 24 --sass 'UTMASTG' | FileCheck %s --check-prefix=STORES
// STORES-NOT: BAD
// STORES: OK  flash_fwd_sm_100a_bf16_d128 sm_100a registers={{[0-9]+}} spill_stores=0 spill_loads=0 stack=0 sass[UTMASTG]={{[1-9][0-9]*}}
// STORES: OK  flash_fwd_sm_100a_bf16_d256 sm_100a registers={{[0-9]+}} spill_stores=0 spill_loads=0 stack=0 sass[UTMASTG]={{[1-9][0-9]*}}
// STORES: bundles, 0 bad
