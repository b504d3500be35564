"""Command-line tools: gpu_check, bench, run_once (GPU machine), check_bundles.

  python3 -m flash_mlir.tools.gpu_check --bundles DIR
  python3 -m flash_mlir.tools.bench --bundles DIR --json bench.json
  python3 -m flash_mlir.tools.run_once --bundles DIR --shape B,Hq,Hkv,N,D
  python3 -m flash_mlir.tools.check_bundles DIR --expect N
"""
