"""Head-pair experiment (fifty-first session, by hand on the GPU machine).

A paged cache P x S x Hkv x D holds a slot's kv-heads side by side, so a block
that reads one kv-head reads D * 2 bytes out of every S-slot row of
Hkv * D * 2 bytes (128 of 1024 at D = 64, GQA 32/8). Two neighbouring kv-heads
2h, 2h+1 are one row of 2D elements of the same cache viewed as
P x S x Hkv/2 x 2D. Attention of each of their q-heads over that view is exact
when the q-head's D values sit in its kv-head's half of a 2D-wide query row and
the other half is 0 (q . [k_2h, k_2h+1] = q . k_2h for finite K), and its output
is its half of the 2D-wide result. So the 2D kernel on the view reads the same
bytes as the D kernel, in runs of 2D * 2 bytes.

This times, in the same rounds (decode_bench's graph_time and rotation): the D
plan on the cache as it is ('paged S=..'), the 2D plan on the paired view
('paged S=.. pair': the kernel alone, its query built once), the same with
the query built and the output's halves taken by torch in every call ('..
pair+glue'), our contiguous split-KV plan and SDPA cuDNN / FA2 at D; max error
of each against SDPA's f32 result.

  python3 pair.py --bundles DIR --head-dim 64 --json out.json
"""
import argparse
import json
import statistics
import sys

from flash_mlir.tools.decode_bench import (graph_time, parse_rows, page_placement,
                                           page_sizes, rotating)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bundles", required=True)
    ap.add_argument("--json", default=None)
    ap.add_argument("--rows", default="1x8192,1x32768,1x131072,8x32768,64x1024,64x8192,128x2048")
    ap.add_argument("--gqa", default="32/8")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--head-dim", type=int, choices=(64, 128), default=64)
    ap.add_argument("--page-sizes", type=page_sizes, default=[16, 64])
    args = ap.parse_args(argv)
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from flash_mlir.runtime import KernelLibrary

    lib = KernelLibrary(args.bundles)
    d, t = args.head_dim, torch.bfloat16
    big = torch.ones(1 << 31, device="cuda", dtype=t)
    ceiling_ms = graph_time(lambda: big.sum(), calls=5, replays=5)
    ceiling = big.numel() * 2 / (ceiling_ms * 1e-3) / 1e12
    del big
    print(f"read ceiling (sum over 4 GiB): {ceiling:.2f} TB/s", flush=True)
    rows = []
    for hq, hkv in [tuple(int(x) for x in g.split("/")) for g in args.gqa.split(",")]:
        assert hkv % 2 == 0, "pairs need an even Hkv"
        group = hq // hkv
        for b, length in parse_rows(args.rows):
            q = torch.randn(b, hq, 1, d, device="cuda", dtype=t)
            k = torch.randn(b, hkv, length, d, device="cuda", dtype=t)
            v = torch.randn(b, hkv, length, d, device="cuda", dtype=t)
            lens = torch.full((b,), length, dtype=torch.int32, device="cuda")
            # Which half of its pair's 2D-wide row each q-head's kv-head is.
            half = ((torch.arange(hq, device="cuda") // group) % 2).view(1, hq, 1, 1, 1)
            index = half.expand(b, hq, 1, 1, d)

            def pair_query(q=q, index=index):
                qp = q.new_zeros(b, hq, 1, 2, d)
                qp.scatter_(3, index, q.unsqueeze(3))
                return qp.view(b, hq, 1, 2 * d)

            def own_half(op, index=index):
                return op.view(b, hq, 1, 2, d).gather(3, index).squeeze(3)

            qp = pair_query()
            impls, checks = {}, {}
            for page in args.page_sizes:
                pages = b * length // page
                perm = page_placement(b, length, page, "shuffled",
                                      lambda n: torch.randperm(n, device="cuda"),
                                      lambda n: torch.arange(n, device="cuda"))
                kc = torch.empty(pages, page, hkv, d, device="cuda", dtype=t)
                vc = torch.empty_like(kc)
                kc[perm] = k.permute(0, 2, 1, 3).reshape(pages, page, hkv, d)
                vc[perm] = v.permute(0, 2, 1, 3).reshape(pages, page, hkv, d)
                table = perm.view(b, length // page).to(torch.int32).contiguous()
                kp = kc.view(pages, page, hkv // 2, 2 * d)
                vp = vc.view(pages, page, hkv // 2, 2 * d)
                out = torch.empty_like(q)
                outp = torch.empty_like(qp)
                name = f"paged S={page}"
                impls[name] = (lambda kc=kc, vc=vc, table=table, out=out:
                               lib.paged_attention(q, kc, vc, table, lens, out=out))
                checks[name] = impls[name]
                impls[name + " pair"] = (
                    lambda kp=kp, vp=vp, table=table, outp=outp:
                    lib.paged_attention(qp, kp, vp, table, lens, scale=d ** -0.5, out=outp))
                checks[name + " pair"] = (lambda f=impls[name + " pair"]: own_half(f()))
                impls[name + " pair+glue"] = (
                    lambda kp=kp, vp=vp, table=table, outp=outp:
                    own_half(lib.paged_attention(pair_query(), kp, vp, table, lens,
                                                 scale=d ** -0.5, out=outp)))
                checks[name + " pair+glue"] = impls[name + " pair+glue"]
            out_c = torch.empty_like(q)
            impls["split_kv contiguous"] = lambda: lib.attention(q, k, v, out=out_c)
            checks["split_kv contiguous"] = impls["split_kv contiguous"]
            for label, backend in (("SDPA cuDNN", SDPBackend.CUDNN_ATTENTION),
                                   ("SDPA FA2", SDPBackend.FLASH_ATTENTION)):
                def call(backend=backend):
                    with sdpa_kernel([backend]):
                        return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
                impls[label] = checks[label] = call
            ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                 enable_gqa=True)
            errors = {}
            for name, fn in checks.items():
                try:
                    r = fn().float()
                    errors[name] = (r - ref).abs().max().item()
                    if not torch.isfinite(r).all():
                        errors[name] = float("nan")
                except Exception as e:
                    errors[name] = f"error: {str(e)[:160]}"
            names = [n for n in impls if not isinstance(errors[n], str)]
            times = {n: [] for n in names}
            for r in range(args.rounds):
                for name in names[r % len(names):] + names[:r % len(names)]:
                    ms = graph_time(impls[name])
                    if ms is not None:
                        times[name].append(ms)
            nbytes = 2 * b * hkv * length * d * 2 + 2 * b * hq * d * 2
            row = {"B": b, "L": length, "Hq": hq, "Hkv": hkv, "D": d, "bytes": nbytes,
                   "ceiling_TBps": ceiling, "impls": {}}
            print(f"GQA {hq}/{hkv} B={b} L={length} D={d}", flush=True)
            for name in impls:
                if times.get(name):
                    ms = statistics.median(times[name])
                    row["impls"][name] = {"ms": ms, "all_ms": times[name],
                                          "max_err": errors[name]}
                    print(f"  {name:24s} {ms * 1e3:9.1f} us  "
                          f"{100 * nbytes / (ms * 1e-3) / 1e12 / ceiling:4.0f}% of ceiling  "
                          f"max err {errors[name]:.2e}", flush=True)
                else:
                    row["impls"][name] = {"error": errors.get(name)}
                    print(f"  {name:24s} not timed: {errors.get(name)}", flush=True)
            for page in args.page_sizes:
                ours = row["impls"].get(f"paged S={page}", {}).get("ms")
                for suffix in (" pair", " pair+glue"):
                    other = row["impls"].get(f"paged S={page}{suffix}", {}).get("ms")
                    if ours and other:
                        print(f"  S={page}{suffix} time / paged S={page}: {other / ours:.3f}")
            rows.append(row)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"argv": sys.argv, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
