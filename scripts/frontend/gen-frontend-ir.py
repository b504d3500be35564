#!/usr/bin/env python3
"""Regenerate the real frontend IR that flash-raise-attention is tested on.

Exports small attention programs with torch-mlir's FX importer to
linalg-on-tensors and TOSA and writes one .mlir file per (case, output type)
to test/Frontend/Inputs/.  Run by hand (never in CI: CI has no torch), in a
venv with PyPI torch, torch-mlir and transformers (docs/raise-attention.md):

  python3 -m venv /work/venv-torchmlir
  /work/venv-torchmlir/bin/pip install torch torch-mlir transformers
  /work/venv-torchmlir/bin/python scripts/frontend/gen-frontend-ir.py [--only NAME]

The cases (docs/raise-attention.md lists which are raised and why):
  sdpa_*     F.scaled_dot_product_attention: plain, is_causal (Nq == Nk, and
             Nq != Nk: top-left, not our bottom-right), explicit scale,
             enable_gqa; f32 and bf16.
  eager_*    the softmax(Q·Kᵀ·s [+ mask])·V that eager model code writes:
             GPT-2 style (where(mask, s, finfo.min) from arange compares),
             Llama style (repeat_kv, additive triu constant mask, softmax in f32).
  hf_*       attention blocks of small random-init Hugging Face GPT-2 and
             Llama (GQA) models, weights passed as function arguments (no
             weight constants in the files).
  miss_*     near misses that must NOT be raised: softmax over dim -2, a
             non-causal additive mask, dropout in train mode, a tanh between
             the matmul and the softmax.

Every file starts with a comment naming the case, the torch call and the
shapes of the function's arguments in order; the CPU equivalence test
(python/tests/test_frontend_raise.py) reads the argument types from the
function signature itself.
"""

import argparse
import math
import os
import re
import sys

import torch
import torch.nn.functional as F
from torch_mlir import fx

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT_DIR = os.path.join(REPO, "test", "Frontend", "Inputs")
OUTPUT_TYPES = {"linalg": "linalg-on-tensors", "tosa": "tosa"}

DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16}


class Fn(torch.nn.Module):
    """A module whose forward is a plain function of its tensor inputs."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def rand(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


# ---------------------------------------------------------------------------
# F.scaled_dot_product_attention
# ---------------------------------------------------------------------------

def sdpa_cases():
    cases = {}
    for dt in ("f32", "bf16"):
        t = DTYPES[dt]
        q, k, v = rand(1, 2, 8, 8, dtype=t), rand(1, 2, 8, 8, dtype=t), rand(1, 2, 8, 8, dtype=t)
        cases["sdpa_plain_" + dt] = (
            "F.scaled_dot_product_attention(q, k, v)",
            lambda q, k, v: F.scaled_dot_product_attention(q, k, v), (q, k, v))
        cases["sdpa_causal_" + dt] = (
            "F.scaled_dot_product_attention(q, k, v, is_causal=True), Nq == Nk",
            lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), (q, k, v))
        cases["sdpa_scale_" + dt] = (
            "F.scaled_dot_product_attention(q, k, v, scale=0.3)",
            lambda q, k, v: F.scaled_dot_product_attention(q, k, v, scale=0.3), (q, k, v))
        qg = rand(2, 4, 8, 16, dtype=t)
        kg, vg = rand(2, 2, 12, 16, dtype=t), rand(2, 2, 12, 8, dtype=t)
        cases["sdpa_gqa_" + dt] = (
            "F.scaled_dot_product_attention(q, k, v, enable_gqa=True), Hq=4 Hkv=2, Nq=8 Nk=12, Dv=8",
            lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True), (qg, kg, vg))
        cases["sdpa_gqa_causal_" + dt] = (
            "F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True), Hq=4 Hkv=2",
            lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True),
            (qg, rand(2, 2, 8, 16, dtype=t), rand(2, 2, 8, 8, dtype=t)))
    # Nq != Nk with is_causal: PyTorch's mask is top-left aligned, ours is
    # bottom-right: must not be raised as causal.
    q, k, v = rand(1, 2, 4, 8), rand(1, 2, 8, 8), rand(1, 2, 8, 8)
    cases["miss_sdpa_causal_topleft_f32"] = (
        "F.scaled_dot_product_attention(q, k, v, is_causal=True), Nq=4 != Nk=8 (top-left)",
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), (q, k, v))
    return cases


# ---------------------------------------------------------------------------
# Hand-written attention as eager model code writes it
# ---------------------------------------------------------------------------

def gpt2_style(q, k, v):
    # GPT-2 (transformers < 4.48): scores / sqrt(D), a boolean lower-triangular
    # mask and torch.where with the most negative f32.
    n = q.shape[-2]
    scores = torch.matmul(q, k.transpose(-1, -2))
    scores = scores / torch.full([], v.size(-1) ** 0.5, dtype=scores.dtype)
    rows = torch.arange(n).unsqueeze(1)
    cols = torch.arange(n).unsqueeze(0)
    keep = cols <= rows
    scores = torch.where(keep, scores, torch.finfo(scores.dtype).min)
    probs = F.softmax(scores, dim=-1)
    return torch.matmul(probs, v)


def llama_style(q, k, v):
    # Llama eager: repeat_kv for GQA, * scaling, + additive triu mask of
    # finfo.min, softmax in f32 then back to the input type.
    n_rep = q.shape[1] // k.shape[1]
    b, hkv, n, d = k.shape
    k = k[:, :, None, :, :].expand(b, hkv, n_rep, n, d).reshape(b, hkv * n_rep, n, d)
    v = v[:, :, None, :, :].expand(b, hkv, n_rep, n, v.shape[-1]).reshape(b, hkv * n_rep, n, v.shape[-1])
    scores = torch.matmul(q, k.transpose(2, 3)) * (d ** -0.5)
    mask = torch.full((n, n), torch.finfo(torch.float32).min).triu(1)
    scores = scores + mask
    probs = F.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
    return torch.matmul(probs, v)


def plain_style(q, k, v):
    # No mask: softmax(Q·Kᵀ·s)·V with the scale a product.
    return torch.matmul(torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * 0.25, dim=-1), v)


def eager_cases():
    cases = {}
    for dt in ("f32", "bf16"):
        t = DTYPES[dt]
        q, k, v = rand(1, 2, 8, 16, dtype=t), rand(1, 2, 8, 16, dtype=t), rand(1, 2, 8, 16, dtype=t)
        cases["eager_gpt2_causal_" + dt] = ("GPT-2 style where(triu) mask", gpt2_style, (q, k, v))
        cases["eager_plain_" + dt] = ("softmax(q @ k.T * 0.25) @ v", plain_style, (q, k, v))
    q, k, v = rand(1, 4, 8, 16), rand(1, 2, 8, 16), rand(1, 2, 8, 16)
    cases["eager_llama_gqa_causal_f32"] = ("Llama style repeat_kv + additive triu mask", llama_style, (q, k, v))
    qb, kb, vb = (x.to(torch.bfloat16) for x in (q, k, v))
    cases["eager_llama_gqa_causal_bf16"] = ("Llama style repeat_kv + additive triu mask", llama_style, (qb, kb, vb))
    # A GPU-sized one (D = 64, which the kernels take) for docs/embedding.md's
    # worked example from torch-mlir's linalg to PTX.
    t = torch.bfloat16
    q, k, v = rand(1, 4, 128, 64, dtype=t), rand(1, 4, 128, 64, dtype=t), rand(1, 4, 128, 64, dtype=t)
    cases["eager_gpt2_causal_d64_bf16"] = ("GPT-2 style where(triu) mask, D = 64", gpt2_style, (q, k, v))
    return cases


# ---------------------------------------------------------------------------
# Near misses
# ---------------------------------------------------------------------------

def miss_cases():
    q, k, v = rand(1, 2, 8, 8), rand(1, 2, 8, 8), rand(1, 2, 8, 8)
    cases = {}
    cases["miss_softmax_dim2_f32"] = (
        "softmax over dim -2",
        lambda q, k, v: torch.matmul(torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * 0.25, dim=-2), v),
        (q, k, v))
    g = torch.Generator().manual_seed(7)
    bias = torch.randn(8, 8, generator=g)

    def additive(q, k, v):
        return torch.matmul(torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * 0.25 + bias, dim=-1), v)
    cases["miss_additive_bias_f32"] = ("a non-causal additive mask (a random constant)", additive, (q, k, v))

    def tanh_between(q, k, v):
        return torch.matmul(torch.softmax(torch.tanh(torch.matmul(q, k.transpose(-2, -1))) * 0.25, dim=-1), v)
    cases["miss_tanh_f32"] = ("tanh between Q·Kᵀ and the softmax", tanh_between, (q, k, v))

    def dropout(q, k, v):
        p = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * 0.25, dim=-1)
        return torch.matmul(F.dropout(p, p=0.5, training=True), v)
    cases["miss_dropout_f32"] = ("dropout(p=0.5) in train mode on the probabilities", dropout, (q, k, v))
    return cases


# ---------------------------------------------------------------------------
# Hugging Face attention blocks (random init, weights as arguments)
# ---------------------------------------------------------------------------

class WeightsAsArgs(torch.nn.Module):
    """Calls `block` with its parameters taken from the arguments, so that the
    exported function has no weight constants."""

    def __init__(self, block, call):
        super().__init__()
        self.block = block
        self.names = [n for n, _ in block.named_parameters()]
        self.call = call

    def forward(self, *args):
        params = dict(zip(self.names, args[:len(self.names)]))
        out = torch.func.functional_call(
            self.block, params, args=(), kwargs=self.call(*args[len(self.names):]))
        return out[0]  # the attention output, not the probabilities


def causal_additive_mask(n):
    """The 1×1×n×n mask eager HF attention adds: 0 on and below the diagonal,
    the most negative f32 above, built from aranges inside forward."""
    rows = torch.arange(n).unsqueeze(1)
    cols = torch.arange(n).unsqueeze(0)
    zero = torch.zeros((), dtype=torch.float32)
    most_negative = torch.full((), torch.finfo(torch.float32).min)
    return torch.where(cols > rows, most_negative, zero)[None, None]


def hf_cases():
    import transformers
    from transformers import GPT2Config, LlamaConfig
    from transformers.models.gpt2.modeling_gpt2 import GPT2Attention
    from transformers.models.llama.modeling_llama import LlamaAttention, LlamaRotaryEmbedding

    torch.manual_seed(0)
    cases = {}
    n, hidden = 8, 32

    gcfg = GPT2Config(n_embd=hidden, n_head=2, n_layer=1, n_positions=n, attn_implementation="eager")
    gpt2 = GPT2Attention(gcfg, layer_idx=0).eval()
    gw = [p.detach() for p in gpt2.parameters()]
    x = rand(1, n, hidden)
    cases["hf_gpt2_attention_f32"] = (
        "transformers %s GPT2Attention (eager, eval), hidden=%d heads=2, causal additive mask"
        % (transformers.__version__, hidden),
        WeightsAsArgs(gpt2, lambda h: dict(hidden_states=h, attention_mask=causal_additive_mask(n))),
        (*gw, x))

    lcfg = LlamaConfig(hidden_size=hidden, num_attention_heads=4, num_key_value_heads=2,
                       head_dim=8, num_hidden_layers=1, max_position_embeddings=n,
                       attn_implementation="eager")
    llama = LlamaAttention(lcfg, layer_idx=0).eval()
    rope = LlamaRotaryEmbedding(lcfg)
    pos = torch.arange(n).unsqueeze(0)
    cos, sin = rope(x, pos)
    lw = [p.detach() for p in llama.parameters()]
    cases["hf_llama_attention_gqa_f32"] = (
        "transformers %s LlamaAttention (eager, eval), hidden=%d heads=4 kv_heads=2 head_dim=8, "
        "RoPE cos/sin as arguments, causal additive mask" % (transformers.__version__, hidden),
        WeightsAsArgs(llama, lambda h, c, s: dict(hidden_states=h, position_embeddings=(c, s),
                                                   attention_mask=causal_additive_mask(n))),
        (*lw, x, cos, sin))
    return cases


# ---------------------------------------------------------------------------

def export(module, inputs, output_type):
    m = fx.export_and_import(module, *inputs, output_type=output_type, func_name="forward")
    return str(m)


def tidy(text):
    """Drop the #loc lines torch-mlir may add and trailing blanks."""
    lines = [l.rstrip() for l in text.splitlines() if not l.startswith("#loc")]
    return "\n".join(lines).strip() + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="regex over case names")
    ap.add_argument("--out", default=OUT_DIR)
    args = ap.parse_args()
    torch.manual_seed(0)
    cases = {}
    cases.update(sdpa_cases())
    cases.update(eager_cases())
    cases.update(miss_cases())
    cases.update(hf_cases())
    os.makedirs(args.out, exist_ok=True)
    for name, (what, fn, inputs) in sorted(cases.items()):
        if args.only and not re.search(args.only, name):
            continue
        module = fn if isinstance(fn, torch.nn.Module) else Fn(fn)
        module.eval()
        if name == "miss_dropout_f32":
            module.train()
        for short, output_type in OUTPUT_TYPES.items():
            try:
                text = tidy(export(module, inputs, output_type))
            except Exception as e:  # report and go on: one case must not stop the rest
                print("%s (%s): export failed: %s" % (name, short, str(e).splitlines()[0]), file=sys.stderr)
                continue
            if re.search(r'(^|[\s"=])(tm_tensor|torch|stablehlo)\.[a-z_]+[\s"(<]', text.split("{-#")[0], re.M):
                print("%s (%s): skipped, holds ops MLIR 22 lacks" % (name, short), file=sys.stderr)
                continue
            shapes = ", ".join("x".join(map(str, t.shape)) + ":" + str(t.dtype).replace("torch.", "")
                               for t in inputs)
            header = ("// %s (%s), generated by scripts/frontend/gen-frontend-ir.py with torch %s,\n"
                      "// torch-mlir FX importer output_type=%s. Do not edit.\n"
                      "// %s\n// arguments: %s\n" % (name, short, torch.__version__, output_type, what, shapes))
            path = os.path.join(args.out, "%s.%s.mlir" % (name, short))
            with open(path, "w") as f:
                f.write(header + text)
            print("wrote %s (%d bytes)" % (os.path.relpath(path, REPO), len(header) + len(text)))


if __name__ == "__main__":
    main()
