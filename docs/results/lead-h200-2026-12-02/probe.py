"""Which fails, the first forward+backward CUDA-graph capture of the process, or ours?
Runs torch-dropin-check's check_cuda_graph_backward with torch's own SDPA first (same
top-left causal semantics), then with flash_mlir's drop-in, then flash_mlir's again."""
import importlib.util, json, sys, os
spec = importlib.util.spec_from_file_location("chk", os.path.join(os.path.dirname(__file__), "scripts/gpu/torch-dropin-check.py"))
chk = importlib.util.module_from_spec(spec); spec.loader.exec_module(chk)
import torch
from flash_mlir.torch import scaled_dot_product_attention as ours
order = sys.argv[1].split(",")
impls = {"torch": torch.nn.functional.scaled_dot_product_attention, "ours": ours}
for name in order:
    results = []
    chk.check_cuda_graph_backward(results, impls[name])
    for r in results:
        print(name, "PASS" if r.get("pass") else "FAIL", r["check"], r.get("shape"), r.get("error", "")[:120], flush=True)
