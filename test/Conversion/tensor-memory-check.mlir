// RUN: flash-opt %s --split-input-file --flash-test-check-tensor-memory -verify-diagnostics
// RUN: not flash-opt %s --split-input-file --flash-test-check-tensor-memory=blocks-per-sm=2 2>&1 | FileCheck %s --check-prefix=TWO

// The static tensor-memory check that flash-lower-to-nvgpu applies to every
// sm_100a kernel (sm100::checkTensorMemory), on hand-written kernels: an
// allocation of a power of two of 32..512 columns, freed by a dealloc of as
// many under the same condition later in the kernel's body, with nothing
// that leaves the body in between; the columns of all allocations times the
// blocks resident on an SM within 512.

// The shape the sm_100a forward kernel has: one warp allocates and frees,
// under the same i1, around the block's work.
// TWO: error: tensor-memory check: 512 columns × 2 resident blocks exceed the 512 columns of an SM
llvm.func @balanced(%slot: !llvm.ptr<3>, %warp: i32) {
  %c5 = llvm.mlir.constant(5 : i32) : i32
  %owner = llvm.icmp "eq" %warp, %c5 : i32
  scf.if %owner {
    %n = llvm.mlir.constant(512 : i32) : i32
    nvvm.tcgen05.alloc %slot, %n : !llvm.ptr<3>, i32
  }
  %base = llvm.load %slot : !llvm.ptr<3> -> i32
  scf.if %owner {
    %n = llvm.mlir.constant(512 : i32) : i32
    %t = llvm.inttoptr %base : i32 to !llvm.ptr<6>
    nvvm.tcgen05.dealloc %t, %n : !llvm.ptr<6>, i32
  }
  llvm.return
}

// -----

llvm.func @never_freed(%slot: !llvm.ptr<3>) {
  %n = llvm.mlir.constant(128 : i32) : i32
  // expected-error @+1 {{tensor-memory check: tcgen05.alloc of 128 columns has no tcgen05.dealloc of as many under the same condition later in the kernel's body}}
  nvvm.tcgen05.alloc %slot, %n : !llvm.ptr<3>, i32
  llvm.return
}

// -----

// Freed on one path only: the dealloc sits under another condition.
llvm.func @other_condition(%slot: !llvm.ptr<3>, %a: i1, %b: i1) {
  scf.if %a {
    %n = llvm.mlir.constant(256 : i32) : i32
    // expected-error @+1 {{tcgen05.alloc of 256 columns has no tcgen05.dealloc}}
    nvvm.tcgen05.alloc %slot, %n : !llvm.ptr<3>, i32
  }
  %base = llvm.load %slot : !llvm.ptr<3> -> i32
  scf.if %b {
    %n = llvm.mlir.constant(256 : i32) : i32
    %t = llvm.inttoptr %base : i32 to !llvm.ptr<6>
    nvvm.tcgen05.dealloc %t, %n : !llvm.ptr<6>, i32
  }
  llvm.return
}

// -----

// Freed inside a loop or a nested branch: not on every path (or more than
// once).
llvm.func @dealloc_in_branch(%slot: !llvm.ptr<3>, %a: i1) {
  %n = llvm.mlir.constant(64 : i32) : i32
  // expected-error @+1 {{has no tcgen05.dealloc}}
  nvvm.tcgen05.alloc %slot, %n : !llvm.ptr<3>, i32
  %base = llvm.load %slot : !llvm.ptr<3> -> i32
  scf.if %a {
    %t = llvm.inttoptr %base : i32 to !llvm.ptr<6>
    nvvm.tcgen05.dealloc %t, %n : !llvm.ptr<6>, i32
  }
  llvm.return
}

// -----

// Freed with another column count.
llvm.func @wrong_count(%slot: !llvm.ptr<3>) {
  %n = llvm.mlir.constant(256 : i32) : i32
  %m = llvm.mlir.constant(128 : i32) : i32
  // expected-error @+1 {{has no tcgen05.dealloc of as many}}
  nvvm.tcgen05.alloc %slot, %n : !llvm.ptr<3>, i32
  %base = llvm.load %slot : !llvm.ptr<3> -> i32
  %t = llvm.inttoptr %base : i32 to !llvm.ptr<6>
  nvvm.tcgen05.dealloc %t, %m : !llvm.ptr<6>, i32
  llvm.return
}

// -----

llvm.func @not_a_power_of_two(%slot: !llvm.ptr<3>) {
  %n = llvm.mlir.constant(192 : i32) : i32
  // expected-error @+1 {{tensor-memory check: tcgen05.alloc must ask for a constant power of two of 32..512 columns}}
  nvvm.tcgen05.alloc %slot, %n : !llvm.ptr<3>, i32
  %base = llvm.load %slot : !llvm.ptr<3> -> i32
  %t = llvm.inttoptr %base : i32 to !llvm.ptr<6>
  nvvm.tcgen05.dealloc %t, %n : !llvm.ptr<6>, i32
  llvm.return
}

// -----

// Two allocations of 512 columns in one block: more than an SM has.
// expected-error @+1 {{tensor-memory check: 1024 columns × 1 resident blocks exceed the 512 columns of an SM}}
llvm.func @too_many(%slot: !llvm.ptr<3>, %slot2: !llvm.ptr<3>) {
  %n = llvm.mlir.constant(512 : i32) : i32
  nvvm.tcgen05.alloc %slot, %n : !llvm.ptr<3>, i32
  nvvm.tcgen05.alloc %slot2, %n : !llvm.ptr<3>, i32
  %base = llvm.load %slot : !llvm.ptr<3> -> i32
  %t = llvm.inttoptr %base : i32 to !llvm.ptr<6>
  nvvm.tcgen05.dealloc %t, %n : !llvm.ptr<6>, i32
  %base2 = llvm.load %slot2 : !llvm.ptr<3> -> i32
  %t2 = llvm.inttoptr %base2 : i32 to !llvm.ptr<6>
  nvvm.tcgen05.dealloc %t2, %n : !llvm.ptr<6>, i32
  llvm.return
}
