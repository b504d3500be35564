#!/usr/bin/env bash
# Installs what building and testing FlashMLIR needs on Debian 12, if missing:
# LLVM/MLIR 22 (Debian packages), ninja, lld, zstd headers (LLVM's CMake
# config needs them), numpy and pytest for Debian's /usr/bin/python3.
set -euo pipefail
packages=(llvm-22-dev llvm-22-tools mlir-22-tools libmlir-22-dev lld-22 ninja-build
          libzstd-dev cmake g++ python3 python3-numpy python3-pytest)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
