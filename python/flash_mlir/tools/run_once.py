"""Run one attention launch from a bundle directory (for profilers such as ncu).

  python3 -m flash_mlir.tools.run_once --bundles DIR --shape B,Hq,Hkv,N,D [--dtype bf16] [--causal]

ncu example (DRAM bytes of our kernel only):
  ncu --clock-control none --kernel-name regex:flash_fwd \\
      --metrics dram__bytes_read.sum,dram__bytes_write.sum \\
      python3 -m flash_mlir.tools.run_once --bundles DIR --shape 2,16,16,8192,128
"""
import argparse
import sys


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bundles", required=True)
    ap.add_argument("--shape", required=True, help="B,Hq,Hkv,N,D")
    ap.add_argument("--dtype", default="bf16", choices=["bf16", "f16"])
    ap.add_argument("--causal", action="store_true")
    args = ap.parse_args(argv)
    import torch
    from flash_mlir.runtime import KernelLibrary
    b, hq, hkv, n, d = (int(x) for x in args.shape.split(","))
    dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[args.dtype]
    q = torch.randn(b, hq, n, d, device="cuda", dtype=dtype)
    k = torch.randn(b, hkv, n, d, device="cuda", dtype=dtype)
    v = torch.randn(b, hkv, n, d, device="cuda", dtype=dtype)
    lib = KernelLibrary(args.bundles)
    bundle = lib.find(args.dtype, d, args.causal, False, seq_len=n)
    lib.attention(q, k, v, causal=args.causal, bundle=bundle)
    torch.cuda.synchronize()
    print(f"ran {bundle.name} (persistent={bundle.meta.get('persistent')}) on "
          f"B={b} Hq={hq} Hkv={hkv} N={n} D={d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
