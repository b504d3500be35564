#!/usr/bin/env bash
# Configures and builds flash-opt into build/ (Ninja, lld, 2 jobs).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export PATH=/usr/lib/llvm-22/bin:$PATH
if [ ! -f "$root/build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$root/build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_USE_LINKER=lld \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >/dev/null
fi
ninja -C "$root/build" -j "${FLASH_JOBS:-2}" all mlir-doc
