#!/usr/bin/env bash
set -u
cd /work/wt-h3
F=lib/Conversion/FlashToNVGPU/SM80/BackwardKernel.cpp
H=include/flash/Conversion/FlashToNVGPU/SM90/BackwardKernel.h
cp $F /tmp/F.orig; cp $H /tmp/H.orig
# A: zero the whole row block, rows past Nq (the next head's) too
sed -i 's|    Value rows = km.minsi(km.i32(kBackwardRowBlock), km.sub(seqQ, firstRow));|    Value rows = km.i32(kBackwardRowBlock);|' $F
grep -q "Value rows = km.i32(kBackwardRowBlock);" $F && (cd build && ninja -j2 flash-opt > /dev/null) && cp build/bin/flash-opt /work/s24/flash-opt-plantA
cp /tmp/F.orig $F
# B: no zero stores (the accumulator keeps the previous call's dQ)
sed -i 's|    vector::StoreOp::create(b, loc, zeros, globalAccum, ValueRange{element},|    if (false) vector::StoreOp::create(b, loc, zeros, globalAccum, ValueRange{element},|' $F
grep -q "if (false) vector::StoreOp" $F && (cd build && ninja -j2 flash-opt > /dev/null) && cp build/bin/flash-opt /work/s24/flash-opt-plantB
cp /tmp/F.orig $F
# C: the switch off: the lit test must fail
sed -i 's|constexpr bool kBackwardAccumulatorKeptZero = true;|constexpr bool kBackwardAccumulatorKeptZero = false;|' $H
(cd build && ninja -j2 flash-opt > /dev/null && /usr/lib/llvm-22/bin/lit test/Pipeline/ptx-sm90a-backward-accumulator-kept-zero.mlir 2>&1 | tail -3) > /work/s24/plantC-lit.txt
cp /tmp/H.orig $H
touch $F $H
(cd build && ninja -j2 flash-opt > /dev/null && /usr/lib/llvm-22/bin/lit test/Pipeline/ptx-sm90a-backward-accumulator-kept-zero.mlir 2>&1 | tail -1) >> /work/s24/plantC-lit.txt
cmp build/bin/flash-opt /work/plans/flash-opt-s25 && echo "restored = s25" >> /work/s24/plantC-lit.txt
echo done
