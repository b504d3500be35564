# CPU stand-in run of the HF glue (helper h6, 2026-12-02): counts copy ops per training step
# for transformers sdpa vs flash_mlir's EagerAttention (kernels faked). PYTHONPATH=python python3 cpu-copy-count.py
"""CPU simulation of the HF GPT-2 / Llama training step's attention glue: count
copies (aten::contiguous/clone/copy_/cat) per step for sdpa vs ours (fake kernels)."""
import sys, collections, torch, transformers
from torch.profiler import profile, ProfilerActivity
import flash_mlir.torch as ft
from flash_mlir.torch import sdpa

class Lib:
    def attention(self, q, k, v, causal=False, scale=None, return_lse=False, out=None):
        o = torch.empty_like(q)  # the sm_90a plans: O in q's layout
        lse = q.new_empty(q.shape[:3], dtype=torch.float32)
        return (o, lse) if return_lse else o
    def attention_backward(self, q, k, v, o, do, lse, *a, **kw):
        for t in (q, k, v, o, do): assert t.is_contiguous()
        return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
lib = Lib(); ft.register_torch_op(lib)

def ours(module, query, key, value, attention_mask, dropout=0.0, scaling=None, is_causal=None, **kw):
    out = sdpa._run(lib, True, query, key, value, True, scaling, "top_left")
    return out.transpose(1, 2).contiguous(), None
transformers.AttentionInterface.register("sim", ours)
from transformers.masking_utils import AttentionMaskInterface, sdpa_mask
AttentionMaskInterface.register("sim", sdpa_mask)

def cfgs():
    yield "gpt2", transformers.GPT2Config(n_layer=4, n_head=12, n_embd=768, vocab_size=512, n_positions=128)
    yield "llama", transformers.LlamaConfig(num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=2,
        hidden_size=1024, intermediate_size=2048, vocab_size=512, max_position_embeddings=128)
for name, cfg in cfgs():
    for impl in ("sdpa", "sim"):
        torch.manual_seed(0)
        m = transformers.AutoModelForCausalLM.from_config(cfg, attn_implementation=impl).to(torch.bfloat16)
        ids = torch.randint(0, 512, (2, 64))
        m(input_ids=ids, labels=ids).loss.backward()
        with profile(activities=[ProfilerActivity.CPU]) as p:
            m(input_ids=ids, labels=ids).loss.backward()
        c = collections.Counter()
        for e in p.events():
            if e.name in ("aten::contiguous", "aten::clone", "aten::copy_", "aten::cat", "aten::stack", "aten::_unsafe_view", "aten::reshape"):
                c[e.name] += 1
        print(name, impl, dict(sorted(c.items())))
