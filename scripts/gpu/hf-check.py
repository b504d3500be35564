#!/usr/bin/env python3
"""Hugging Face models on FlashMLIR's attention implementation
(flash_mlir.torch.hf.NAME, "mlir_attention") against "sdpa" (GPU machine;
never in CI).

    python3 scripts/gpu/hf-check.py [--json F] [--batch 4] [--seq 512] [--steps 6]

With transformers installed: flash_mlir.torch.hf.register_hf(), then
AutoModelForCausalLM.from_config(cfg, attn_implementation=...) for a GPT-2
config (4 layers, 12 heads of D=64, dropout 0: the kernels have none) and a
Llama-style config (4 layers, 8 query heads of D=128, 2 K/V heads), random
init (nothing downloaded), the same weights in each implementation. Without
transformers (the GPU machine cannot download it) a stand-in: a small
Llama-like model whose attention modules call the implementation through a
registry as transformers' do (q, k, v B×N×H×D projections viewed as B×H×N×D,
GQA, output back to B×N×H×D), the "sdpa" entry written as transformers'
sdpa_attention_forward behaves, FlashMLIR's entry registered by register_hf()
through a stand-in AttentionInterface. The report says which ran.

For each model, bf16:
- logits: max|impl - ref_f32| for both implementations (ref: the f32 model
  on "sdpa"), pass if flash_mlir's <= 2·sdpa's + 1e-3, and max|flash - sdpa|;
- training: AdamW steps on random tokens, both implementations interleaved
  step by step from the same weights; losses, median step time, tokens/s;
- inference: forward tokens/s (median over interleaved rounds).
"""
import argparse
import copy
import json
import math
import statistics
import sys
import time
import types


def stand_in_models(torch):
    """(registry, configs, build): a Llama-like model whose attention calls
    registry[impl] as transformers' attention modules call
    ALL_ATTENTION_FUNCTIONS[impl]."""
    import torch.nn as nn
    import torch.nn.functional as F
    registry = {}

    def sdpa_forward(module, query, key, value, attention_mask, dropout=0.0, scaling=None,
                     is_causal=None, **kwargs):  # as transformers' sdpa_attention_forward
        is_causal = is_causal if is_causal is not None else getattr(module, "is_causal", True)
        is_causal = query.shape[2] > 1 and attention_mask is None and is_causal
        o = F.scaled_dot_product_attention(query, key, value, attn_mask=attention_mask,
                                           dropout_p=dropout, scale=scaling, is_causal=is_causal,
                                           enable_gqa=query.shape[1] != key.shape[1])
        return o.transpose(1, 2).contiguous(), None

    registry["sdpa"] = sdpa_forward

    class Attention(nn.Module):
        is_causal = True

        def __init__(self, c, impl):
            super().__init__()
            self.c, self.impl = c, impl
            h, d, kvh = c["heads"], c["head_dim"], c["kv_heads"]
            self.q_proj = nn.Linear(c["hidden"], h * d, bias=False)
            self.k_proj = nn.Linear(c["hidden"], kvh * d, bias=False)
            self.v_proj = nn.Linear(c["hidden"], kvh * d, bias=False)
            self.o_proj = nn.Linear(h * d, c["hidden"], bias=False)
            self.scaling = d ** -0.5

        def forward(self, x):
            b, n, _ = x.shape
            d = self.c["head_dim"]
            q = self.q_proj(x).view(b, n, -1, d).transpose(1, 2)
            k = self.k_proj(x).view(b, n, -1, d).transpose(1, 2)
            v = self.v_proj(x).view(b, n, -1, d).transpose(1, 2)
            o, _ = registry[self.impl](self, q, k, v, None, dropout=0.0, scaling=self.scaling)
            return self.o_proj(o.reshape(b, n, -1))

    class Block(nn.Module):
        def __init__(self, c, impl):
            super().__init__()
            self.n1, self.n2 = nn.LayerNorm(c["hidden"]), nn.LayerNorm(c["hidden"])
            self.attn = Attention(c, impl)
            self.mlp = nn.Sequential(nn.Linear(c["hidden"], 4 * c["hidden"]), nn.GELU(),
                                     nn.Linear(4 * c["hidden"], c["hidden"]))

        def forward(self, x):
            x = x + self.attn(self.n1(x))
            return x + self.mlp(self.n2(x))

    class Model(nn.Module):
        def __init__(self, c, impl):
            super().__init__()
            self.c = c
            self.emb = nn.Embedding(c["vocab"], c["hidden"])
            self.pos = nn.Embedding(c["max_len"], c["hidden"])
            self.blocks = nn.ModuleList(Block(c, impl) for _ in range(c["layers"]))
            self.norm = nn.LayerNorm(c["hidden"])
            self.head = nn.Linear(c["hidden"], c["vocab"], bias=False)

        def forward(self, ids, labels=None):
            x = self.emb(ids) + self.pos(torch.arange(ids.shape[1], device=ids.device))
            for blk in self.blocks:
                x = blk(x)
            logits = self.head(self.norm(x))
            loss = None
            if labels is not None:
                loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]).float(),
                                       labels[:, 1:].reshape(-1))
            return types.SimpleNamespace(logits=logits, loss=loss)

    configs = {
        "gpt2-like stand-in (12 heads, D=64)": dict(hidden=768, heads=12, kv_heads=12,
                                                    head_dim=64, layers=4, vocab=8192,
                                                    max_len=2048),
        "llama-like stand-in (8/2 heads GQA, D=128)": dict(hidden=1024, heads=8, kv_heads=2,
                                                           head_dim=128, layers=4, vocab=8192,
                                                           max_len=2048),
    }

    def build(cfg, impl):
        return Model(cfg, impl)

    return registry, configs, build


def hf_models(torch, transformers):
    from transformers import AutoModelForCausalLM, GPT2Config, LlamaConfig
    configs = {
        "GPT-2 (4 layers, 12 heads, D=64)": GPT2Config(
            n_layer=4, n_embd=768, n_head=12, n_positions=2048, vocab_size=8192,
            attn_pdrop=0.0, resid_pdrop=0.0, embd_pdrop=0.0),
        "Llama (4 layers, 8/2 heads GQA, D=128)": LlamaConfig(
            hidden_size=1024, intermediate_size=2816, num_hidden_layers=4,
            num_attention_heads=8, num_key_value_heads=2, vocab_size=8192,
            max_position_embeddings=2048),
    }

    def build(cfg, impl):
        # A copy each: from_config records the implementation in the config,
        # which the models built before from it would then follow too.
        return AutoModelForCausalLM.from_config(copy.deepcopy(cfg), attn_implementation=impl)

    return configs, build


def sync(torch):
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def timed(torch, fn):
    sync(torch)
    start = time.perf_counter()
    out = fn()
    sync(torch)
    return time.perf_counter() - start, out


def name_probe(torch, transformers):
    """Why the implementation is not named "flash_mlir": registers the same
    function under that name and builds GPT-2 with it; records transformers'
    error and its "flash" test (is_flash_attention_requested)."""
    import inspect
    import flash_mlir.torch.hf as fhf
    from transformers import AutoModelForCausalLM, GPT2Config
    r = {"name": "flash_mlir"}
    fhf.register_hf(name="flash_mlir")
    try:
        AutoModelForCausalLM.from_config(GPT2Config(n_layer=1, n_embd=64, n_head=2,
                                                    vocab_size=128),
                                         attn_implementation="flash_mlir")
        r["built"] = True
    except Exception as e:
        r["built"] = False
        r["error"] = f"{type(e).__name__}: {e}"[:400]
        import traceback
        frames = traceback.extract_tb(e.__traceback__)
        r["raised_at"] = [f"{f.filename.split('site-packages/')[-1]}:{f.lineno} {f.name}"
                          for f in frames][-4:]
    try:
        from transformers.utils.generic import is_flash_attention_requested as f
        lines, first = inspect.getsourcelines(f)
        path = inspect.getsourcefile(f).split("site-packages/")[-1]
        r["flash_test"] = [f"{path}:{first + i} {ln.strip()}" for i, ln in enumerate(lines)
                           if '"flash" in' in ln]
    except Exception as e:  # another version: the lines that test for "flash"
        import os
        root = os.path.dirname(transformers.__file__)
        r["flash_test"] = [f"is_flash_attention_requested: {type(e).__name__}"[:100]]
        for rel in ("utils/generic.py", "modeling_utils.py",
                    "modeling_flash_attention_utils.py"):
            try:
                with open(os.path.join(root, rel)) as f:
                    r["flash_test"] += [f"transformers/{rel}:{i + 1} {ln.strip()}"
                                        for i, ln in enumerate(f) if '"flash" in' in ln][:3]
            except OSError:
                pass
    return r


def compare(torch, name, cfg, build, batch, seq, steps, device="cuda"):
    torch.manual_seed(0)
    ref = build(cfg, "sdpa").to(device, torch.float32)
    state = ref.state_dict()
    import flash_mlir.torch.hf as fhf
    impls = ("sdpa", fhf.NAME)
    models = {}
    for impl in impls:
        m = build(cfg, impl).to(device, torch.bfloat16)
        m.load_state_dict(state)
        models[impl] = m
    r = {"model": name, "batch": batch, "seq": seq,
         "attn_implementation": {impl: getattr(getattr(m, "config", None),
                                               "_attn_implementation", impl)
                                 for impl, m in models.items()},
         "reference_attn_implementation": getattr(getattr(ref, "config", None),
                                                  "_attn_implementation", "sdpa")}
    vocab = ref.get_input_embeddings().weight.shape[0] if hasattr(
        ref, "get_input_embeddings") else cfg["vocab"]
    gen = torch.Generator(device=device).manual_seed(1)
    ids = torch.randint(0, vocab, (batch, seq), device=device, generator=gen)
    with torch.no_grad():
        ref_logits = ref(ids).logits.float()
        logits = {impl: models[impl](ids).logits.float() for impl in impls}
    err = {impl: float((logits[impl] - ref_logits).abs().max()) for impl in impls}
    r["logits_max_err_vs_f32"] = err
    ours = impls[1]
    r["logits_max_flash_vs_sdpa"] = float((logits[ours] - logits["sdpa"]).abs().max())
    r["logits_nan"] = bool(torch.isnan(logits[ours]).any())
    r["logits_pass"] = (not r["logits_nan"]) and err[ours] <= 2 * err["sdpa"] + 1e-3
    del ref, ref_logits
    # Inference: forward tokens/s, interleaved rounds.
    fwd = {impl: [] for impl in impls}
    with torch.no_grad():
        for impl in impls:
            models[impl](ids)
        for rnd in range(7):
            for impl in (impls if rnd % 2 == 0 else impls[::-1]):
                t, _ = timed(torch, lambda: models[impl](ids))
                fwd[impl].append(t)
    r["forward_ms"] = {impl: 1e3 * statistics.median(v) for impl, v in fwd.items()}
    r["forward_tokens_per_s"] = {impl: batch * seq / statistics.median(v)
                                 for impl, v in fwd.items()}
    # Training: AdamW, interleaved step by step, from the same weights.
    opts = {impl: torch.optim.AdamW(models[impl].parameters(), lr=1e-4) for impl in impls}
    losses = {impl: [] for impl in impls}
    times = {impl: [] for impl in impls}
    for impl in impls:
        models[impl].train()
    for step in range(steps):
        for impl in (impls if step % 2 == 0 else impls[::-1]):
            m, opt = models[impl], opts[impl]

            def one():
                out = m(ids, labels=ids)
                out.loss.backward()
                opt.step()
                opt.zero_grad(set_to_none=True)
                return float(out.loss)

            t, loss = timed(torch, one)
            losses[impl].append(loss)
            times[impl].append(t)
    r["train_losses"] = losses
    warm = min(2, steps - 1)
    r["train_step_ms"] = {impl: 1e3 * statistics.median(v[warm:]) for impl, v in times.items()}
    r["train_tokens_per_s"] = {impl: batch * seq / statistics.median(v[warm:])
                               for impl, v in times.items()}
    r["train_pass"] = all(math.isfinite(x) for x in losses[ours]) and \
        abs(losses[ours][0] - losses["sdpa"][0]) <= 0.02 * abs(losses["sdpa"][0])
    return r


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", default=None)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--dry-run-cpu", action="store_true",
                    help="check the script on a CPU: torch's SDPA stands in for the kernels "
                    "behind the registered name (no kernel runs; the numbers mean nothing)")
    args = ap.parse_args(argv)
    import torch
    import flash_mlir.torch.hf as fhf
    device = "cpu" if args.dry_run_cpu else "cuda"
    report = {"torch": torch.__version__,
              "device": "cpu (dry run: torch's SDPA stands in for the kernels)"
              if args.dry_run_cpu else torch.cuda.get_device_name()}
    if args.dry_run_cpu:
        import flash_mlir.torch.sdpa as fsdpa

        def stand_in(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                     scale=None, enable_gqa=False, **kwargs):
            fsdpa.check_call(*(tuple(t.shape) for t in (query, key, value)),
                             [fsdpa._DTYPE_NAMES[str(t.dtype)] for t in (query, key, value)],
                             "cuda", attn_mask is not None, dropout_p, scale, enable_gqa,
                             kwargs.get("causal_alignment", "top_left"))
            report["stand_in_calls"] = report.get("stand_in_calls", 0) + 1
            return torch.nn.functional.scaled_dot_product_attention(
                query, key, value, is_causal=is_causal, scale=scale, enable_gqa=enable_gqa)

        fsdpa.scaled_dot_product_attention = stand_in
    try:
        import transformers
        report["transformers"] = transformers.__version__
        report["mode"] = "transformers"
        report["name_probe"] = name_probe(torch, transformers)
        print(json.dumps(report["name_probe"]), flush=True)
        fhf.register_hf()
        configs, build = hf_models(torch, transformers)
    except ImportError as e:
        report["transformers"] = None
        report["mode"] = f"stand-in (transformers not importable: {e})"
        registry, configs, build = stand_in_models(torch)
        stand_in = types.ModuleType("transformers")

        class AttentionInterface:
            @staticmethod
            def register(name, fn):
                registry[name] = fn

        stand_in.AttentionInterface = AttentionInterface
        sys.modules["transformers"] = stand_in
        fhf.register_hf()
        del sys.modules["transformers"]
        report["registered"] = sorted(registry)
    print(json.dumps(report), flush=True)
    report["models"] = []
    for name, cfg in configs.items():
        try:
            r = compare(torch, name, cfg, build, args.batch, args.seq, args.steps, device)
        except Exception as e:
            import traceback
            r = {"model": name, "error": f"{type(e).__name__}: {e}"[:800],
                 "trace": traceback.format_exc()[-1500:]}
        report["models"].append(r)
        print(json.dumps(r), flush=True)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(report, f, indent=1)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    ok = all(m.get("logits_pass") and m.get("train_pass") for m in report["models"])
    print("hf-check:", "PASS" if ok else "FAIL", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
