"""The 64-bit L2 cache policies `createpolicy.fractional.L2::<priority>.b64 p, 1.0` gives
on this GPU (by hand on the GPU machine, never in CI; needs torch):

  python3 docs/results/lead-2026-12-06-s53/cache-policy.py [--expect-evict-first 0x12f0000000000000]

A one-thread kernel (PTX, loaded by the driver) stores the three policies; with
--expect-evict-first the script fails unless evict_first's is that value (the constant
of branch s53-evict-first's K/V copies, AsyncCopy.h's kL2EvictFirstPolicy; fifty-third
session, run 4).
"""
import argparse
import ctypes
import sys

import torch

PTX = r"""
.version 8.0
.target sm_80
.address_size 64
.visible .entry policies(.param .u64 out) {
  .reg .b64 %p<4>;
  .reg .b64 %a;
  ld.param.u64 %a, [out];
  cvta.to.global.u64 %a, %a;
  createpolicy.fractional.L2::evict_first.b64 %p1, 1.0;
  createpolicy.fractional.L2::evict_last.b64 %p2, 1.0;
  createpolicy.fractional.L2::evict_normal.b64 %p3, 1.0;
  st.global.u64 [%a], %p1;
  st.global.u64 [%a+8], %p2;
  st.global.u64 [%a+16], %p3;
  ret;
}
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--expect-evict-first", type=lambda s: int(s, 0))
    args = ap.parse_args()
    torch.cuda.init()
    out = torch.zeros(3, dtype=torch.int64, device="cuda")
    cuda = ctypes.CDLL("libcuda.so.1")
    module, function = ctypes.c_void_p(), ctypes.c_void_p()
    assert cuda.cuModuleLoadData(ctypes.byref(module), PTX.encode() + b"\0") == 0
    assert cuda.cuModuleGetFunction(ctypes.byref(function), module, b"policies") == 0
    arg = ctypes.c_uint64(out.data_ptr())
    params = (ctypes.c_void_p * 1)(ctypes.addressof(arg))
    cuda.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [
        ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
    assert cuda.cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, None, params, None) == 0
    torch.cuda.synchronize()
    values = [v & (2**64 - 1) for v in out.tolist()]
    for name, v in zip(["evict_first", "evict_last", "evict_normal"], values):
        print("%-12s 0x%016x" % (name, v))
    if args.expect_evict_first is not None and values[0] != args.expect_evict_first:
        print("evict_first is not 0x%016x" % args.expect_evict_first)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
