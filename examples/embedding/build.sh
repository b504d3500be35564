#!/usr/bin/env bash
# Builds the embedding example (docs/embedding.md, "runtime ABI from lowered
# host code") into OUT: from a torch-mlir function with an attention among
# other ops to kernels (bundles), an object file of the host code and a C
# driver linked with libflash_runtime.so. No GPU needed here.
#
#   bash examples/embedding/build.sh OUT [--seq N] [--head-dim D] [--arch sm_90a]
#
# OUT/block.mlir        the input (make_block.py: the committed frontend file, scaled)
# OUT/raised.mlir       after flash-raise-attention
# OUT/bundles/          flash-extract-attention-kernels + --flash-to-ptx
# OUT/host.llvm.mlir    --flash-host-to-llvm
# OUT/block.o           mlir-translate --mlir-to-llvmir | llc
# OUT/driver            driver.c + block.o + libflash_runtime.so (rpath $ORIGIN)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: build.sh OUT [--seq N] [--head-dim D] [--arch ARCH]}
shift
seq=1024 head_dim=64 arch=sm_90a
while [ $# -gt 0 ]; do
  case "$1" in
    --seq) seq=$2; shift 2 ;;
    --head-dim) head_dim=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    *) echo "build.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
llvm=/usr/lib/llvm-22/bin
flash_opt=${FLASH_OPT:-$root/build/bin/flash-opt}
runtime_dir=${FLASH_RUNTIME_DIR:-$root/build/lib}
mkdir -p "$out"
set -x
/usr/bin/python3 "$root/examples/embedding/make_block.py" --seq "$seq" --head-dim "$head_dim" \
  > "$out/block.mlir"
"$flash_opt" "$out/block.mlir" --flash-raise-attention --canonicalize --cse -o "$out/raised.mlir"
# Kernels: one bundle per attention key of the module.
"$flash_opt" "$out/raised.mlir" --flash-extract-attention-kernels \
  --flash-to-ptx="arch=$arch bundle-dir=$out/bundles" -o /dev/null
# Host code: runtime calls, bufferized, lowered to LLVM, an object file.
"$flash_opt" "$out/raised.mlir" --flash-host-to-llvm -o "$out/host.llvm.mlir"
"$llvm/mlir-translate" --mlir-to-llvmir "$out/host.llvm.mlir" -o "$out/block.ll"
"$llvm/llc" -O2 -filetype=obj -relocation-model=pic "$out/block.ll" -o "$out/block.o"
# The driver: the embedder's C, the object, the runtime.
cp "$runtime_dir/libflash_runtime.so" "$out/"
cc -O2 -std=c11 -Wall -DH=2 -DN="$seq" -DD="$head_dim" -I "$root/include" \
  "$root/examples/embedding/driver.c" "$out/block.o" -L "$out" -lflash_runtime -ldl \
  -Wl,-rpath,'$ORIGIN' -o "$out/driver"
