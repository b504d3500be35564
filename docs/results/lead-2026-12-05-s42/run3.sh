#!/usr/bin/env bash
# s42 run 3: the new runtime (build/r41/libnew) on the forward and backward plans, whose
# launches also go through the changed planCall (tensor maps' addresses written per call):
# gpu_check of main's bf16 D = 128 sm_90a forward plans (build/id40/fwd_sm_90a, PTX
# identical to main's) and backward plans (compile --ops backward --arch sm_90a
# --dtypes bf16 --head-dims 128), copied as json + cubin into build/r42/fwd; the torch
# op and CUDA-graph paths too.
#   run(command="bash build/r41/run3b.sh", carry=["build/r41", "build/r42"])
. "$(dirname "$0")/device-run.sh"
export FLASH_RUNTIME_LIB=$S/libnew/libflash_runtime.so
F=$S/../r42/fwd
step fwd 200 python3 -m flash_mlir.tools.gpu_check --bundles $F --dtypes bf16 --head-dims 128 --json $O/fwd.json
step fwdop 120 python3 -m flash_mlir.tools.gpu_check --bundles $F --dtypes bf16 --head-dims 128 --torch-op --graph --json $O/fwdop.json
step bwd 200 python3 -m flash_mlir.tools.gpu_check --bundles $F --mode backward --dtypes bf16 --json $O/bwd.json
finish
