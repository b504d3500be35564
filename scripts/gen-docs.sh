#!/usr/bin/env bash
# Regenerates docs/generated/*.md from the TableGen files (ops, attributes,
# dialect, passes). Run after changing a .td file and commit the result;
# python/tests/test_docs.py fails when they drift from the .td files.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ninja -C "$root/build" mlir-doc >/dev/null
mkdir -p "$root/docs/generated"
cp "$root/build/docs/Flash/FlashDialect.md" "$root/build/docs/Flash/FlashOps.md" \
   "$root/build/docs/Flash/FlashAttrs.md" "$root/build/docs/FlashPasses.md" \
   "$root/build/docs/FlashConversionPasses.md" "$root/build/docs/FlashBundlePasses.md" \
   "$root/docs/generated/"
echo "docs/generated updated"
