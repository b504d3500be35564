"""Same-size read reference (nineteenth session, H2): torch sum over one bf16
tensor of exactly the K + V bytes of each decode_bench row, timed as
decode_bench times everything (median of CUDA-graph replays of 20 calls), and
the 4 GiB read ceiling of decode_bench, in the same process."""
import sys
import torch
from flash_mlir.tools.decode_bench import graph_time

big = torch.ones(1 << 31, device="cuda", dtype=torch.bfloat16)
ms = graph_time(lambda: big.sum(), calls=5, replays=5)
ceiling = big.numel() * 2 / (ms * 1e-3) / 1e12
del big
print(f"read ceiling (sum over 4 GiB): {ceiling:.2f} TB/s")
rows = [(8, 1, 1, 8192), (8, 1, 1, 32768), (8, 1, 1, 131072), (8, 1, 64, 1024),
        (8, 1, 128, 2048), (8, 1, 8, 32768), (32, 8, 1, 8192), (32, 8, 1, 32768),
        (32, 8, 1, 131072), (32, 8, 64, 1024), (32, 8, 128, 2048), (32, 8, 8, 32768)]
for hq, hkv, b, length in rows:
    kv = 2 * b * hkv * length * 128  # elements of K + V
    x = torch.ones(kv, device="cuda", dtype=torch.bfloat16)
    times = [graph_time(lambda: x.sum()) for _ in range(3)]
    t = sorted(times)[1]
    tb = kv * 2 / (t * 1e-3) / 1e12
    print(f"GQA {hq}/{hkv} B={b} L={length}: K+V {kv * 2 / 1e6:.0f} MB, sum {t * 1e3:.2f} us "
          f"{tb:.2f} TB/s ({100 * tb / ceiling:.0f}% of ceiling), rounds "
          + " ".join(f"{v * 1e3:.2f}" for v in times), flush=True)
    del x
