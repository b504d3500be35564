import importlib.util, json, os, torch, transformers
here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("hf_check", os.path.join(here, "scripts/gpu/hf-check.py"))
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
print("name probe: transformers", transformers.__version__, "torch", torch.__version__)
print(json.dumps(m.name_probe(torch, transformers), indent=1))
