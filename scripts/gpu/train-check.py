#!/usr/bin/env python3
"""Training with FlashMLIR's attention against torch SDPA (run by hand on a GPU).

Two checks of issue #16 in one run, on the same GPU:

1. A small GPT-style model (random init, synthetic tokens; no download)
   trained twice from the same seed on the same batches: once with
   torch.ops.flash_mlir.attention (our forward and backward kernels through
   autograd) and once with F.scaled_dot_product_attention. The loss curves
   must agree within bf16 noise; the step times are reported.
2. The FlashAttention paper's GPT-2 medium attention shape (N=1024, D=64,
   16 heads, batch 64, causal), forward + backward of attention alone:
   standard attention (Q·Kᵀ, mask, softmax, ·V as separate torch ops), SDPA's
   FA2 and cuDNN backends and ours, interleaved rounds, median.

  python3 scripts/gpu/train-check.py --bundles DIR [DIR...] --json out.json
      [--dropin] [--profile DIR]

--dropin also trains with flash_mlir.torch.scaled_dot_product_attention (the
drop-in: an autograd.Function, no custom op) and reports its step time and
loss curve next to the custom op's. --profile DIR profiles two more steps of
each model with torch.profiler (CPU and CUDA) and writes the tables sorted by
CUDA time and by self CPU time to DIR/<impl>-{cuda,cpu}.txt, plus each
step's host time (until the optimizer step returns) and wall time.

Needs torch with CUDA and libflash_runtime.so (FLASH_RUNTIME_LIB or build/lib).
"""

import argparse
import json
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "python"))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402


class Block(nn.Module):
    def __init__(self, width, heads, attention):
        super().__init__()
        self.heads, self.attention = heads, attention
        self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(),
                                 nn.Linear(4 * width, width))

    def forward(self, x):
        b, n, w = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(w, dim=2)
        # B×H×N×D, contiguous (the kernels take contiguous tensors today).
        q, k, v = (t.view(b, n, self.heads, w // self.heads).transpose(1, 2).contiguous()
                   for t in (q, k, v))
        y = self.attention(q, k, v).transpose(1, 2).reshape(b, n, w)
        x = x + self.proj(y)
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab, width, heads, layers, length, attention):
        super().__init__()
        self.tok = nn.Embedding(vocab, width)
        self.pos = nn.Embedding(length, width)
        self.blocks = nn.ModuleList(Block(width, heads, attention) for _ in range(layers))
        self.ln = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


def sdpa(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def train(attention, args, batches):
    torch.manual_seed(args.seed)
    model = GPT(args.vocab, args.width, args.heads, args.layers, args.length,
                attention).cuda().to(torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    losses, times = [], []
    for step, (x, y) in enumerate(batches):
        loss, _, wall = train_step(model, opt, x, y, args.vocab)
        times.append(wall)
        losses.append(loss.item())
        if not math.isfinite(losses[-1]):
            break
    return losses, times


def train_step(model, opt, x, y, vocab):
    """One AdamW step from a synchronised start: (loss, host seconds until
    the optimizer step returns, wall seconds until the GPU is done)."""
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    logits = model(x)
    loss = F.cross_entropy(logits.float().view(-1, vocab), y.view(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    host = time.perf_counter() - t0
    torch.cuda.synchronize()
    return loss, host, time.perf_counter() - t0


def synthetic_batches(args):
    """Tokens with learnable structure (a noisy periodic sequence) so the
    loss falls, from a fixed generator."""
    g = torch.Generator(device="cuda").manual_seed(args.seed + 1)
    out = []
    for _ in range(args.steps):
        start = torch.randint(0, args.vocab, (args.batch, 1), device="cuda", generator=g)
        ramp = torch.arange(args.length + 1, device="cuda") * 7
        seq = (start + ramp) % args.vocab
        noise = torch.randint(0, args.vocab, seq.shape, device="cuda", generator=g)
        keep = torch.rand(seq.shape, device="cuda", generator=g) < 0.9
        seq = torch.where(keep, seq, noise)
        out.append((seq[:, :-1].contiguous(), seq[:, 1:].contiguous()))
    return out


def attention_timing(ours, rounds, warmup=3, iters=10):
    """GPT-2 medium attention, forward + backward, median ms per call."""
    b, h, n, d = 64, 16, 1024, 64
    torch.manual_seed(0)
    q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16,
                           requires_grad=True) for _ in range(3))
    do = torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16)
    mask = torch.triu(torch.ones(n, n, device="cuda", dtype=torch.bool), 1)

    def standard():
        s = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(d))
        p = torch.softmax(s.masked_fill(mask, float("-inf")), dim=-1)
        return p @ v

    from torch.nn.attention import SDPBackend, sdpa_kernel

    def backend(kind):
        def run():
            with sdpa_kernel(kind):
                return F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return run

    cases = {"standard": standard, "sdpa_fa2": backend(SDPBackend.FLASH_ATTENTION),
             "sdpa_cudnn": backend(SDPBackend.CUDNN_ATTENTION),
             "flash_mlir": lambda: ours(q, k, v)}
    results = {name: [] for name in cases}
    for name, fn in cases.items():
        for _ in range(warmup):
            torch.autograd.grad(fn(), (q, k, v), do)
    for _ in range(rounds):
        for name, fn in cases.items():
            start, end = torch.cuda.Event(True), torch.cuda.Event(True)
            start.record()
            for _ in range(iters):
                torch.autograd.grad(fn(), (q, k, v), do)
            end.record()
            torch.cuda.synchronize()
            results[name].append(start.elapsed_time(end) / iters)
    return {name: statistics.median(ms) for name, ms in results.items()}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bundles", nargs="+", required=True)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--length", type=int, default=1024)
    p.add_argument("--width", type=int, default=512)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--vocab", type=int, default=4096)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--json")
    p.add_argument("--dropin", action="store_true",
                   help="also train with flash_mlir.torch.scaled_dot_product_attention")
    p.add_argument("--profile", metavar="DIR",
                   help="write torch.profiler tables of two steps per model here")
    args = p.parse_args()

    from flash_mlir.runtime import KernelLibrary
    from flash_mlir.torch import register_torch_op
    libs = [KernelLibrary(d) for d in args.bundles]
    lib = libs[0] if len(libs) == 1 else _Union(libs)
    op = register_torch_op(lib)

    def ours(q, k, v):
        return op(q, k, v, True, 0.0)

    batches = synthetic_batches(args)
    loss_ours, t_ours = train(ours, args, batches)
    loss_ref, t_ref = train(sdpa, args, batches)
    n = min(len(loss_ours), len(loss_ref))
    diffs = [abs(a - b) for a, b in zip(loss_ours[:n], loss_ref[:n])]
    tail = slice(max(0, n - 50), n)
    report = {
        "model": {k: getattr(args, k) for k in ("steps", "batch", "length", "width", "heads",
                                               "layers", "vocab", "lr", "seed")},
        "loss_flash_mlir": loss_ours, "loss_sdpa": loss_ref,
        "loss_first": [loss_ours[0], loss_ref[0]],
        "loss_last50_mean": [statistics.mean(loss_ours[tail]), statistics.mean(loss_ref[tail])],
        "max_abs_loss_diff": max(diffs), "mean_abs_loss_diff": statistics.mean(diffs),
        "step_ms_median": [1e3 * statistics.median(t_ours[5:]),
                           1e3 * statistics.median(t_ref[5:])],
        "all_finite": all(math.isfinite(x) for x in loss_ours + loss_ref),
    }
    print(f"steps {n}: loss first {loss_ours[0]:.4f} / {loss_ref[0]:.4f}, "
          f"last-50 mean {report['loss_last50_mean'][0]:.4f} / "
          f"{report['loss_last50_mean'][1]:.4f} (ours / sdpa), max |diff| "
          f"{report['max_abs_loss_diff']:.4f}, mean |diff| {report['mean_abs_loss_diff']:.4f}")
    print(f"step time median: ours {report['step_ms_median'][0]:.2f} ms, "
          f"sdpa {report['step_ms_median'][1]:.2f} ms")
    timing = attention_timing(ours, args.rounds)
    report["gpt2_medium_attention_fwd_bwd_ms"] = timing
    for name, ms in timing.items():
        print(f"GPT-2 medium attention fwd+bwd {name:>11}: {ms:8.3f} ms "
              f"(standard / this = {timing['standard'] / ms:.2f}x)")
    models = {"flash_mlir_op": ours, "sdpa": sdpa}
    if args.dropin:
        from flash_mlir.torch import scaled_dot_product_attention

        def dropin(q, k, v):
            return scaled_dot_product_attention(q, k, v, is_causal=True, library=lib)

        loss_d, t_d = train(dropin, args, batches)
        m = min(len(loss_d), len(loss_ref))
        report["loss_flash_mlir_dropin"] = loss_d
        report["max_abs_loss_diff_dropin"] = max(abs(a - b) for a, b in
                                                 zip(loss_d[:m], loss_ref[:m]))
        report["step_ms_median_dropin"] = 1e3 * statistics.median(t_d[5:])
        print(f"drop-in: max |loss diff| vs sdpa {report['max_abs_loss_diff_dropin']:.4f}, "
              f"step time median {report['step_ms_median_dropin']:.2f} ms")
        models["flash_mlir_dropin"] = dropin
    if args.profile:
        report["profile"] = profile_steps(models, args, batches)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


def profile_steps(models, args, batches):
    """Two profiled steps per model (after three unprofiled ones): tables in
    args.profile, host and wall time per step returned."""
    from torch.profiler import ProfilerActivity, profile
    os.makedirs(args.profile, exist_ok=True)
    out = {}
    for name, attention in models.items():
        torch.manual_seed(args.seed)
        model = GPT(args.vocab, args.width, args.heads, args.layers, args.length,
                    attention).cuda().to(torch.bfloat16)
        opt = torch.optim.AdamW(model.parameters(), lr=args.lr)

        def step(x, y):
            return train_step(model, opt, x, y, args.vocab)[1:]

        for x, y in batches[:3]:
            step(x, y)
        times = [step(x, y) for x, y in batches[3:8]]
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for x, y in batches[8:10]:
                step(x, y)
        events = prof.key_averages()
        for key, sort in (("cuda", "self_cuda_time_total"), ("cpu", "self_cpu_time_total")):
            with open(os.path.join(args.profile, f"{name}-{key}.txt"), "w") as f:
                f.write(events.table(sort_by=sort, row_limit=40))
        out[name] = {"host_ms": [1e3 * h for h, _ in times],
                     "wall_ms": [1e3 * w for _, w in times]}
        print(f"profile {name}: host ms {['%.2f' % v for v in out[name]['host_ms']]}, "
              f"wall ms {['%.2f' % v for v in out[name]['wall_ms']]}")
    return out


class _Union:
    """Several bundle directories as one library: the first that has a plan."""

    def __init__(self, libs):
        self.libs = libs

    def _first(self, method, *a, **kw):
        errors = []
        for lib in self.libs:
            try:
                return getattr(lib, method)(*a, **kw)
            except ValueError as e:
                errors.append(str(e))
        raise ValueError("; ".join(errors))

    def attention(self, *a, **kw):
        return self._first("attention", *a, **kw)

    def attention_backward(self, *a, **kw):
        return self._first("attention_backward", *a, **kw)


if __name__ == "__main__":
    main()
