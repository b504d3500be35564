#!/usr/bin/env bash
# Checks that a change to the GPU lowering leaves the emitted kernels byte for
# byte as they were (refactorings of lib/Conversion/FlashToNVGPU must).
#
#   scripts/check-ptx-identity.sh bundles BASELINE_DIR
#       Compiles the shipped bundles of BASELINE_DIR's arch and kinds (read
#       from its file names: flash_fwd_<arch>_... forward, flash_bwd_...
#       backward, flash_decode_split_... / flash_decode_paged_... the decode
#       plans) with this worktree's flash-opt into a temporary directory, the
#       way `python3 -m flash_mlir.compile --ops <those kinds>` ships them
#       (its defaults otherwise: a baseline compiled with other options, e.g.
#       --strides variant, lists its extra files as different), and cmp's
#       every BASELINE_DIR/*.ptx against its new twin. Any bundle missing on
#       either side is a failure.
#   scripts/check-ptx-identity.sh variants record DIR
#   scripts/check-ptx-identity.sh variants compare DIR
#       The forms the shipped bundles do not use: every flash-opt command of
#       a passing RUN line of test/Conversion/*.mlir, and a matrix of the
#       sm_90a lowering options (persistent, ping-pong, rescale,
#       first-tile-mask, tile-order, store-wait, kv-range) over the shapes of
#       test/Conversion/lower-to-nvgpu-sm90a-*.mlir: the lowered gpu.module
#       IR (NAME.mlir) and its PTX through the upstream NVVM pipeline as
#       --flash-to-ptx runs it (NAME.ptx.mlir, the PTX inline in
#       gpu.binary). `record` writes them (run it on the commit before the
#       change); `compare` fails on any PTX difference and lists IR that
#       differs with the same PTX (e.g. constants created in another order)
#       as "ir only"; IR without PTX (sm_80's printed IR does not parse
#       back) must be identical itself.
#
# Both print one line per difference and end with "N identical, N different".
# FLASH_OPT overrides build/bin/flash-opt.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
flash_opt=${FLASH_OPT:-$root/build/bin/flash-opt}
export PATH=/usr/lib/llvm-22/bin:$PATH

usage() { sed -n '4,25p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 2 ] || usage

same=0 different=0
verdict() {
  echo "$same identical, $different different"
  [ "$different" -eq 0 ]
}

case "$1" in
bundles)
  base=$(cd "$2" && pwd)
  first=$(ls "$base"/flash_*_sm_*.ptx 2>/dev/null | sed -n 1p)
  [ -n "$first" ] || { echo "no flash_*_sm_*.ptx in $base"; exit 2; }
  arch=$(basename "$first" | sed -E 's/^flash_[a-z_]*_(sm_[0-9]+a?)_.*/\1/')
  ops=""
  for kind in fwd:forward bwd:backward decode_split:split_kv decode_paged:paged; do
    ls "$base"/flash_${kind%%:*}_"$arch"_*.ptx >/dev/null 2>&1 && ops="$ops${ops:+,}${kind#*:}"
  done
  cubins=$arch
  [ "$arch" = sm_80 ] && cubins=sm_80,sm_90
  tmp=$(mktemp -d /tmp/ptx-identity.XXXXXX)
  trap 'rm -rf "$tmp"' EXIT
  PYTHONPATH=$root/python python3 -m flash_mlir.compile --out "$tmp" --arch "$arch" --ops "$ops" \
    --cubin-archs "$cubins" --flash-opt "$flash_opt" >/dev/null
  for ptx in "$base"/*.ptx; do
    name=$(basename "$ptx")
    if cmp -s "$ptx" "$tmp/$name"; then
      same=$((same + 1))
    else
      echo "DIFFERENT: $name"; different=$((different + 1))
    fi
  done
  for ptx in "$tmp"/*.ptx; do
    [ -e "$base/$(basename "$ptx")" ] || { echo "NEW: $(basename "$ptx")"; different=$((different + 1)); }
  done
  echo "$arch: compared against $base"
  verdict
  ;;
variants)
  mode=$2 dir=${3:?variants needs a directory}
  tmp=$(mktemp -d /tmp/ptx-variants.XXXXXX)
  trap 'rm -rf "$tmp"' EXIT
  # NAME.mlir (lowered IR) -> NAME.ptx.mlir, unless the lowering failed.
  to_ptx() {
    grep -q "gpu.module" "$1" || return 0
    # stdout only (a chunk that fails prints nothing there; stderr would
    # interleave at random); the translation's timing dropped.
    "$flash_opt" - --split-input-file --gpu-lower-to-nvvm-pipeline="cubin-chip=$2 cubin-features=+ptx80 cubin-format=isa opt-level=3" \
      <"$1" 2>/dev/null | sed -E 's/LLVMIRToISATimeInMs = [0-9]+ : i64, //' >"${1%.mlir}.ptx.mlir" || true
  }
  # The lit RUN lines that pass: the flash-opt part of each, %s substituted.
  for test in "$root"/test/Conversion/*.mlir; do
    n=0
    while IFS= read -r line; do
      n=$((n + 1))
      cmd=${line#*RUN: }
      case "$cmd" in not\ *) continue ;; esac
      cmd=${cmd%%|*}
      cmd=${cmd//%s/$test}
      cmd=${cmd/flash-opt/$flash_opt}
      # Diagnostics name the file: drop the checkout's path, so that a
      # recording compares across worktrees.
      eval "$cmd" 2>&1 | sed "s|$root/||g" >"$tmp/$(basename "$test" .mlir).run$n.mlir" || true
      case "$cmd" in *sm_80*) chip=sm_80 ;; *) chip=sm_90a ;; esac
      to_ptx "$tmp/$(basename "$test" .mlir).run$n.mlir" $chip
    done < <(grep -h "// RUN: " "$test")
  done
  # The option matrix over the sm_90a test inputs (errors are recorded too).
  for test in "$root"/test/Conversion/lower-to-nvgpu-sm90a-*.mlir; do
    [ "${test%errors.mlir}" = "$test" ] || continue
    i=0
    for persistent in yes no; do
      for opts in "ping-pong=no" "ping-pong=yes" "rescale=eager" "rescale=lazy" \
        "rescale=lazy-late" "first-tile-mask=branch" "first-tile-mask=always" \
        "tile-order=grouped" "tile-order=head" "store-wait=immediate" \
        "store-wait=deferred" "kv-range=warpgroup" "kv-range=block" \
        "kv-range=warpgroup ping-pong=no" "rescale=lazy tile-order=grouped store-wait=deferred"; do
        i=$((i + 1))
        "$flash_opt" "$test" --split-input-file --flash-tile \
          --flash-select-kernel-form="persistent=$persistent $opts" \
          --flash-lower-to-nvgpu=arch=sm_90a 2>&1 | sed "s|$root/||g" \
          >"$tmp/$(basename "$test" .mlir).matrix$i.mlir" || true
        to_ptx "$tmp/$(basename "$test" .mlir).matrix$i.mlir" sm_90a
      done
    done
  done
  case "$mode" in
  record)
    rm -rf "$dir"; mkdir -p "$dir"; cp "$tmp"/*.mlir "$dir"/
    echo "recorded $(ls "$dir" | wc -l) lowered variants in $dir"
    ;;
  compare)
    for f in "$dir"/*.mlir; do
      name=$(basename "$f")
      case "$name" in
      *.ptx.mlir)
        if cmp -s "$f" "$tmp/$name"; then
          same=$((same + 1))
        else
          echo "DIFFERENT: $name"; different=$((different + 1))
        fi ;;
      *)
        cmp -s "$f" "$tmp/$name" && continue
        # IR whose PTX could not be made (an error, or IR that does not
        # parse back, as sm_80's printed nvgpu.device_async_create_group)
        # must itself be identical.
        if grep -qs "gpu.binary" "$dir/${name%.mlir}.ptx.mlir"; then
          echo "ir only: $name"
        else
          echo "DIFFERENT: $name"; different=$((different + 1))
        fi ;;
      esac
    done
    for f in "$tmp"/*.ptx.mlir; do
      [ -e "$dir/$(basename "$f")" ] || { echo "NEW: $(basename "$f")"; different=$((different + 1)); }
    done
    verdict
    ;;
  *) usage ;;
  esac
  ;;
*) usage ;;
esac
