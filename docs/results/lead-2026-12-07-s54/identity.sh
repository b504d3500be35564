set -e
cd /work/main
export PYTHONPATH=python
for fo in new:build/bin/flash-opt old:/tmp/flash-opt-s52; do
  n=${fo%%:*}; f=${fo#*:}
  for a in sm_80 sm_90a sm_100a; do
    rm -rf /tmp/s54/id-$n-$a
    python3 -m flash_mlir.compile --arch $a --out /tmp/s54/id-$n-$a --flash-opt $f --cubin-archs none > /dev/null 2>&1 || python3 -m flash_mlir.compile --arch $a --out /tmp/s54/id-$n-$a --flash-opt $f > /dev/null
  done
done
for a in sm_80 sm_90a sm_100a; do
  echo "$a: $(ls /tmp/s54/id-new-$a/*.ptx | wc -l) ptx"
  for p in /tmp/s54/id-new-$a/*.ptx; do cmp -s $p /tmp/s54/id-old-$a/$(basename $p) || echo "differs: $(basename $p)"; done
done
