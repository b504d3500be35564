#!/usr/bin/env bash
# The test command: installs dependencies, builds, runs every lit test and
# every Python test, and ends with one line "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/install-deps.sh || { echo "0 passed, 1 failed"; exit 1; }
bash scripts/build.sh || { echo "0 passed, 1 failed"; exit 1; }
mkdir -p build/test-results
rm -f build/test-results/*.xml

# lit: every .mlir under test/ (ptxas-dependent tests need CUDA's ptxas).
/usr/lib/llvm-22/bin/lit -sv build/test --xunit-xml-output build/test-results/lit.xml
# Python: the oracle and the CPU property tests (they run build/bin/flash-opt).
PYTHONPATH="$root/python" /usr/bin/python3 -m pytest -q python/tests \
  --junitxml=build/test-results/pytest.xml

# The CMake package: `cmake --install` into build/embedding/prefix, then
# examples/out-of-tree (its own my-opt) configured and built against it alone,
# and run on a torch-mlir file (docs/embedding.md).
PYTHONPATH="$root/python" /usr/bin/python3 -m pytest -q examples/out-of-tree/test_out_of_tree.py \
  --junitxml=build/test-results/embedding.xml

/usr/bin/python3 scripts/summarize-tests.py build/test-results/lit.xml build/test-results/pytest.xml \
  build/test-results/embedding.xml
