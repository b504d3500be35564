#!/usr/bin/env bash
# The sanitizer run: builds flash-opt and flash-runtime-check with AddressSanitizer
# and UndefinedBehaviorSanitizer over our code (LLVM/MLIR are Debian's, not
# instrumented) into build-asan/, then runs the lit suite and the fuzzer's
# corpus (python/flash_mlir/testing/fuzz.py) on it. Every sanitizer report goes
# to a log file under build-asan/sanitizer-logs: a report fails the run even
# where a test expects a non-zero exit (`not flash-opt ...`), which would
# otherwise hide it. Ends with one line "sanitize: clean" or "sanitize: N reports".
#
# FLASH_JOBS: build jobs (2). FLASH_SANITIZE_MUTANTS: fuzz inputs (150).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH=/usr/lib/llvm-22/bin:$PATH
build=build-asan
flags="-fsanitize=address,undefined -fno-sanitize=vptr -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g1"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_USE_LINKER=lld \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >/dev/null || exit 1
fi
# Every binary lit runs: flash-opt, the C API's test, the runtime (which the
# embedding test links) and its checker.
targets=(flash-opt)
for t in flash-capi-test flash_runtime flash-runtime-check; do
  ninja -C "$build" -t targets all 2>/dev/null | grep -q "^$t:" && targets+=("$t")
done
ninja -C "$build" -j "${FLASH_JOBS:-2}" "${targets[@]}" || { echo "sanitize: build failed"; exit 1; }

logs="$root/$build/sanitizer-logs"
rm -rf "$logs"
mkdir -p "$logs"
# detect_leaks=0: Debian's MLIR keeps its uniqued storage until exit by design;
# leaks in our passes would be per-op growth, which the fuzzer's timeouts see.
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs from the
# headers our instrumented code includes, and Debian's uninstrumented libMLIR
# then uses the same slabs without unpoisoning them: false use-after-poison
# reports (seen on 2026-12-01 in finalize-memref-to-llvm).
export ASAN_OPTIONS="log_path=$logs/asan:detect_leaks=0:allow_user_poisoning=0:abort_on_error=0:symbolize=1"
export UBSAN_OPTIONS="log_path=$logs/ubsan:print_stacktrace=1:halt_on_error=1"
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-22/bin/llvm-symbolizer
status=0

echo "== lit on $build/bin/flash-opt"
# Left out: the embedding example's driver, which its own build script links
# without the sanitizer flags, so it cannot load the instrumented runtime
# ("ASan runtime does not come first"); CI runs it on the plain build.
/usr/lib/llvm-22/bin/lit -s --filter-out 'Integration/Embedding/driver-dry' "$build/test" ||
  status=1

echo "== fuzzer corpus on $build/bin/flash-opt"
PYTHONPATH="$root/python" /usr/bin/python3 -m flash_mlir.testing.fuzz \
  --flash-opt "$build/bin/flash-opt" --mutants "${FLASH_SANITIZE_MUTANTS:-150}" \
  --timeout 60 --jobs "${FLASH_JOBS:-2}" || status=1

if [ -x "$build/bin/flash-runtime-check" ]; then
  # No GPU here: run it on the CUDA stub library (every driver call fails), so
  # that its usage and error paths run under the sanitizers; a refusal exits
  # non-zero below 128, a signal fails the run.
  echo "== $build/bin/flash-runtime-check on the CUDA stub (no GPU)"
  mkdir -p "$build/cuda-stub"
  ln -sf /usr/local/cuda/lib64/stubs/libcuda.so "$build/cuda-stub/libcuda.so.1"
  for args in "" "test/Pipeline/does-not-exist.json"; do
    LD_LIBRARY_PATH="$root/$build/cuda-stub" "$build/bin/flash-runtime-check" $args
    rc=$?
    echo "exit $rc"
    [ "$rc" -ge 128 ] && status=1
  done
fi

reports=$(find "$logs" -type f | wc -l)
if [ "$reports" -ne 0 ]; then
  for f in "$logs"/*; do echo "---- $f"; head -60 "$f"; done
  echo "sanitize: $reports reports"
  exit 1
fi
[ "$status" -eq 0 ] && echo "sanitize: clean" || echo "sanitize: clean reports, but a test failed"
exit "$status"
