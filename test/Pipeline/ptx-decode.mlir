// REQUIRES: ptxas
// The split-KV (decode) plans through --flash-to-ptx and ptxas: the PTX of a
// paged plan, its launch plan, and the shipped
// decode bundles of both arches (split_kv and paged × bf16/f16 × D
// 64/128/256 × causal × LSE; sm_80's assembled for sm_80 and sm_90) with no
// spill stores, spill loads or stack frame in any kernel.

// RUN: rm -rf %t && flash-opt %s --flash-to-ptx="arch=sm_90a bundle-dir=%t/one" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/one/decode.ptx
// RUN: FileCheck %s --check-prefix=GROUP < %t/one/decode.ptx
// RUN: FileCheck %s --check-prefix=FUSED < %t/one/decode.ptx
// RUN: FileCheck %s --check-prefix=SEP < %t/one/decode.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t/one/decode.json
// RUN: not grep -q membar %t/one/decode.ptx
// RUN: FileCheck %s --check-prefix=PAGES < %t/one/decode.ptx
// RUN: FileCheck %s --check-prefix=TILEPAGE < %t/one/decode.ptx
// RUN: FileCheck %s --check-prefix=TILESEP < %t/one/decode.ptx
// RUN: FileCheck %s --check-prefix=GROUP16 < %t/one/decode.ptx
// RUN: FileCheck %s --check-prefix=PAIR < %t/one/decode.ptx
// RUN: flash-opt %s --flash-to-ptx="arch=sm_90a bundle-dir=%t/none fused-page-sizes=none" -o /dev/null
// RUN: FileCheck %s --check-prefix=NONE < %t/none/decode.ptx
// The kernel: the block table and the lengths read by 32-bit loads,
// cp.async copies of Q, then cp.async gathers of K and V (zero-filled past
// the length: the source size is a register) under an L2 policy
// (decodeKVEvictFirstBytes): evict-first (kL2EvictFirstPolicy) where the
// call's K and V, B·M·S·Hkv·2D elements in 64 bits, exceed the 50 MiB L2,
// else evict-unchanged (the kernel's one createpolicy, which LLVM places
// where it likes: not evict-normal's policy, which slowed L2-resident calls); their shared addresses a
// register and a constant offset, as nvgpu's copies' (not a register alone:
// ptxas 13.0 miscompiled that form); mma.sync on
// ldmatrix fragments; the count of finished parts
// (atom.acq_rel.gpu, no membar.gl anywhere) and the last block's merge (16-byte loads of the f32 partials past L1, a batch
// of 16 parts' loads at D = 128 before their sums, each but the first under
// a branch that skips parts past the count, so ptxas places the blocks in
// its own order); the two-level merge's first level writes a group's result
// into a partial slot (16-byte stores after a warp sync; checked apart,
// GROUP, for the same reason).
// PTX: .target sm_90a
// PTX: .entry decode(
// PTX-NOT: griddepcontrol
// PTX: ld.global.b32
// PTX: createpolicy.fractional.L2::evict_unchanged.b64 [[UNCHANGED:%rd[0-9]+]], 1.0;
// PTX-NOT: createpolicy
// PTX: setp.gt.u64 [[LARGE:%p[0-9]+]], %rd{{[0-9]+}}, 52428800;
// PTX-NOT: createpolicy
// PTX: selp.b64 [[POLICY:%rd[0-9]+]], 1364590687093260288, [[UNCHANGED]], [[LARGE]];
// PTX-NOT: createpolicy
// PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, %r{{[0-9]+}};
// PTX: cp.async.cg.shared.global.L2::cache_hint [%rd{{[0-9]+}}+{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}}, [[POLICY]];
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-NOT: membar.gl
// PTX: atom.acq_rel.gpu.global.add.u32
// PTX-NOT: membar.gl
// The sixteen parts' loads of a batch.
// PTX-COUNT-16: ld.volatile.global.v4.b32
// PTX: atom.global.exch.b32
// sm_90a's separate merge (calls of at most 8 work units, Target/SplitKV.h):
// its own split kernel, which neither counts nor merges and triggers its
// dependents after its K/V loop (its last mma), and the merge kernel, which
// loads the row's length (seq_lens[b], an input: the one 32-bit load) and
// counts its parts, waits for the split grid (griddepcontrol.wait) before it
// loads any partial, then a batch of 8 parts' LSEs and 16-byte O loads a
// thread (each but the first under a branch that skips parts past the
// count), block-combined through shared memory. The fused split kernel (`decode`)
// has no griddepcontrol: it is the code of the targets without the
// separate merge. The separate merge's split kernel is launched behind the
// kernel before it in the stream (programmatic dependent launch) and waits
// for it before its first global load.
// PTX-NOT: griddepcontrol
// PTX: .entry decode_separate(
// PTX-NOT: ld.global
// PTX: griddepcontrol.wait;
// PTX-NOT: atom.
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-NOT: atom.
// PTX: griddepcontrol.launch_dependents;
// PTX-NOT: mma.sync
// PTX-NOT: atom.
// The warps' combine: every warp leaves its 68 words (m, l and the 64
// accumulators of a lane at D = 128) in shared memory and, after a
// barrier, reads the 4 warps' m and l and its quarter of their
// accumulators (4 · (2 + 2 + 16) = 80 words; warp 0 alone read 3 · 68).
// PTX: bar.sync
// PTX-COUNT-68: st.shared.b32
// PTX-NEXT: bar.sync
// PTX-COUNT-80: ld.shared.b32
// PTX-NOT: ld.shared
// PTX: .entry decode_separate_s16(
// PTX: .entry decode_separate_s64(
// PTX: .entry decode_merge(
// PTX-NOT: griddepcontrol.launch_dependents
// PTX-NOT: ld.volatile
// PTX-NOT: griddepcontrol.wait
// PTX: ld.global.b32
// PTX-NOT: ld.volatile
// PTX: griddepcontrol.wait;
// PTX-COUNT-8: ld.volatile.global.v4.b32
// PTX-NOT: ld.volatile.global.v4.b32
// PTX: bar.sync
// PTX: .entry decode_s16(
// GROUP: atom.acq_rel.gpu.global.add.u32
// GROUP: bar.warp.sync{{[[:space:]]+}}-1;
// GROUP: st.global.v4.b32
// The paged start of the separate merge's split kernel (calls of at most 8
// work units; docs/benchmarks.md, twenty-second session). Its prologue tile
// (stages = 2: one) wholly inside the length with S = 2^k >= 16 takes one
// table load per 16 keys (4 at D = 128, 8 rows a pass) in a uniform branch,
// the other side the 8 per-pass loads; then the window's first and last
// page (divisions only in the branch for S not a power of two) and the
// window's 4 loads a thread with no branch among them, all before the
// first copy (Q's); the full tiles' K/V copies without the zero-fill
// operand (`, 16;`), the other form after them. The fused kernel keeps the
// per-pass lookups and copies with the zero-fill operand only.
// FUSED: .entry decode(
// FUSED-NOT: ], 16;
// FUSED: .entry decode_separate(
// SEP: .entry decode_separate(
// SEP: ld.global.b32
// SEP-COUNT-4: ld.global.b32
// SEP-NOT: ld.global.b32
// SEP: bra.uni
// SEP-COUNT-8: ld.global.b32
// SEP-NOT: cp.async
// SEP: div.u32
// SEP-NEXT: div.u32
// SEP-NOT: cp.async
// SEP: ld.global.b32
// SEP-NOT: bra
// SEP: ld.global.b32
// SEP-NOT: bra
// SEP: ld.global.b32
// SEP-NOT: bra
// SEP: ld.global.b32
// SEP-NOT: bra
// SEP: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, %r{{[0-9]+}};
// SEP: cp.async.cg.shared.global.L2::cache_hint [{{.*}}], [{{.*}}], 16, %rd{{[0-9]+}};
// SEP: cp.async.cg.shared.global.L2::cache_hint [{{.*}}], [{{.*}}], 16, %r{{[0-9]+}}, %rd{{[0-9]+}};
// SEP: .entry decode_separate_s16(
// The fused split kernels for pages of 16 and 64 slots (sm_90a's default
// fused-page-sizes), after the merge kernel, and the separate merge's split
// kernels for pages of 16 and 64 slots (sizes 2^k >= 16 only), before it: the code
// of the split kernel and of the separate merge's with S a constant, so no
// shift computed from S (its exponent as an f32), which the kernels for any
// S have. With fused-page-sizes=none the plan has only the kernels for any
// S.
// PAGES: .entry decode(
// PAGES: cvt.rn.f32.u32
// PAGES: .entry decode_separate(
// PAGES: cvt.rn.f32.u32
// PAGES: .entry decode_separate_s16(
// PAGES-NOT: cvt.rn.f32.u32
// PAGES: .entry decode_separate_s64(
// PAGES-NOT: cvt.rn.f32.u32
// PAGES: .entry decode_merge(
// PAGES: .entry decode_s16(
// PAGES-NOT: cvt.rn.f32.u32
// PAGES: .entry decode_s64(
// PAGES-NOT: cvt.rn.f32.u32
// PAGES-NOT: .entry
// The kernel for pages of 64 slots looks a tile's page up once (its keys lie
// in one page): in its K/V loop, after the wait and the barrier, one window
// load (ld.shared.b32) before the tile's copies, where a kernel for pages of
// 16 looks a page up per 16 keys and one for any S each copy's page.
// TILEPAGE: .entry decode_s64(
// TILEPAGE: cp.async.wait_group 0;
// TILEPAGE-NEXT: bar.sync 0;
// TILEPAGE: ld.shared.b32
// TILEPAGE-NOT: ld.shared
// TILEPAGE: cp.async.cg.shared.global
// So does the separate merge's kernel for pages of 64 slots, which has no
// grouped form (one lookup per 16 keys of a full tile) either.
// TILESEP: .entry decode_separate_s64(
// TILESEP: cp.async.wait_group 0;
// TILESEP-NEXT: bar.sync 0;
// TILESEP: ld.shared.b32
// TILESEP-NOT: ld.shared
// TILESEP: cp.async.cg.shared.global
// TILESEP: .entry decode_merge(
// The kernels for pages of 16 slots look a page up once per 16 keys: in
// their K/V loop, after the wait and the barrier, 4 window loads a tile at
// D = 128 (8 rows a pass, 2 passes a 16-key group) before its copies, where
// a lookup a key takes 8.
// GROUP16: .entry decode_separate_s16(
// GROUP16: cp.async.wait_group 0;
// GROUP16-NEXT: bar.sync 0;
// GROUP16-COUNT-4: ld.shared.b32
// GROUP16-NOT: ld.shared
// GROUP16: cp.async.cg.shared.global
// GROUP16: .entry decode_s16(
// GROUP16: cp.async.wait_group 0;
// GROUP16-NEXT: bar.sync 0;
// GROUP16-COUNT-4: ld.shared.b32
// GROUP16-NOT: ld.shared
// GROUP16: cp.async.cg.shared.global
// The pair merge (sm_90a's fused split kernels, launched in clusters of two
// along x when grid x is 2; docs/gpu.md): the kernel checks the cluster's
// size at run time, and where it is 2 each block leaves its partials in its
// shared memory, meets the other at a cluster barrier, reads both blocks'
// O rows (16-byte loads) and LSEs through distributed shared memory and
// meets it again before it exits. The separate merge's kernels have none
// of it; the fused kernels for one page size have it too.
// PAIR: .entry decode(
// PAIR: mov.u32 %r{{[0-9]+}}, %cluster_nctaid.x;
// PAIR-NEXT: mov.u32 %r{{[0-9]+}}, %cluster_nctarank;
// PAIR: barrier.cluster.arrive.release;
// PAIR-NEXT: barrier.cluster.wait.acquire;
// PAIR: mov.u32 %r{{[0-9]+}}, %cluster_ctarank;
// PAIR: mapa.shared::cluster.u32
// PAIR: ld.shared::cluster.v4.f32
// PAIR: ld.shared::cluster.f32
// PAIR: mapa.shared::cluster.u32
// PAIR: ld.shared::cluster.v4.f32
// PAIR: ld.shared::cluster.f32
// PAIR-NOT: ld.shared::cluster
// PAIR: barrier.cluster.arrive.release;
// PAIR-NEXT: barrier.cluster.wait.acquire;
// PAIR-NOT: cluster
// PAIR: .entry decode_separate(
// PAIR-NOT: cluster
// PAIR: .entry decode_s16(
// PAIR: barrier.cluster.arrive.release;
// PAIR: .entry decode_s64(
// PAIR: barrier.cluster.arrive.release;
// NONE: .entry decode_separate(
// NONE-NOT: .entry
// NONE: .entry decode_merge(
// NONE-NOT: .entry
// The launch plan: op, the paged tensors, the kernel, workspaces whose
// sizes are formulas.
// The separate merge's kernels launched with programmatic dependent launch,
// the fused split kernels in clusters of max(1, 2·eq(grid x, 2)) blocks.
// JSON: "kernels": [
// JSON: "cluster": {
// JSON-NEXT: "x": [
// JSON-NEXT: "max",
// JSON-NEXT: 1,
// JSON-NEXT: [
// JSON-NEXT: "mul",
// JSON-NEXT: 2,
// JSON-NEXT: [
// JSON-NEXT: "eq",
// JSON: "name": "decode"{{$}}
// JSON-NOT: "cluster"
// JSON: "name": "decode_separate",
// JSON-NEXT: "programmatic_dependent_launch": true
// JSON: "name": "decode_separate_s16",
// JSON-NEXT: "programmatic_dependent_launch": true
// JSON: "name": "decode_separate_s64",
// JSON-NEXT: "programmatic_dependent_launch": true
// JSON: "name": "decode_merge",
// JSON-NEXT: "programmatic_dependent_launch": true
// JSON: "cluster": {
// JSON: "name": "decode_s16"{{$}}
// JSON: "cluster": {
// JSON: "name": "decode_s64"{{$}}
// JSON: "op": "paged_attention",
// JSON: "name": "block_table",
// JSON-NEXT: "output": false,
// JSON-NEXT: "required": true,
// JSON-NEXT: "shape": [
// JSON-NEXT: "B",
// JSON-NEXT: "M"
// JSON: "workspaces": [
// JSON-NEXT: {
// JSON-NEXT: "bytes": [
// JSON-NEXT: "mul",
// JSON-NEXT: [
// JSON-NEXT: "max",
// JSON-NEXT: [
// JSON-NEXT: "mul",
// JSON-NEXT: [
// JSON-NEXT: "max",
// JSON-NEXT: [
// JSON-NEXT: "min",
// JSON-NEXT: [
// JSON-NEXT: "ceildiv",
// JSON-NEXT: [
// JSON-NEXT: "sub",

// RUN: %python -m flash_mlir.compile --out %t/sm80 --arch sm_80 --cubin-archs sm_80,sm_90 --ops split_kv,paged > %t/sm80.log
// RUN: %python -m flash_mlir.tools.check_bundles %t/sm80 --expect 48 | FileCheck %s --check-prefix=SPILLS
// RUN: %python -m flash_mlir.compile --out %t/sm90a --arch sm_90a --ops split_kv,paged > %t/sm90a.log
// RUN: %python -m flash_mlir.tools.check_bundles %t/sm90a --expect 48 | FileCheck %s --check-prefix=SPILLS
// SPILLS-NOT: BAD
// SPILLS: 48 bundles, 0 bad

func.func @decode(%q: tensor<1x32x1x128xbf16>, %k: tensor<256x16x8x128xbf16>, %v: tensor<256x16x8x128xbf16>, %table: tensor<1x256xi32>, %lens: tensor<1xi32>) -> (tensor<1x32x1x128xbf16>, tensor<1x32x1xf32>) {
  %partials = tensor.empty() : tensor<64x1x32x1x128xf32>
  %o0 = tensor.empty() : tensor<1x32x1x128xbf16>
  %l0 = tensor.empty() : tensor<1x32x1xf32>
  %p = scf.forall (%s, %h, %b) in (64, 8, 1) shared_outs(%part = %partials) -> (tensor<64x1x32x1x128xf32>) {
    scf.forall.in_parallel {
    }
  } {flash.kernel = #flash.kernel<kind = paged, element_type = bf16, batch = 1, q_heads = 32, kv_heads = 8, seq_q = 1, seq_kv = 4096, head_dim = 128, value_dim = 128, causal = true, lse = true, scale = 0.08838834764831843 : f32, schedule = #flash.schedule<arch = "sm_90a", block_q = 16, block_kv = 64, stages = 2, warps = 4>, page_size = 16, max_splits = 64>}
  %o:2 = scf.forall (%r) in (32) shared_outs(%out = %o0, %lout = %l0) -> (tensor<1x32x1x128xbf16>, tensor<1x32x1xf32>) {
    scf.forall.in_parallel {
    }
  } {flash.stage = "merge"}
  return %o#0, %o#1 : tensor<1x32x1x128xbf16>, tensor<1x32x1xf32>
}
