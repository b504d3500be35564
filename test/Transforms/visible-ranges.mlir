// RUN: flash-opt %s --flash-test-visible-ranges | FileCheck %s
// RUN: flash-opt %s --flash-test-visible-ranges="max-len=40 max-tile=3" | FileCheck %s --check-prefix=LONG

// The visible-range model of VisibleKV.h on integers, checked against loops
// over every row and key for all Nq, Nk <= 20 (then <= 40 with tiles <= 3),
// Br, Bc <= 8, causal or not: the forward's K/V range of each Q tile
// (visited tiles, unmasked tiles, kvEnd) and the backward's Q range of each
// K/V tile (first, firstUnmasked, numTiles), so each is the other's
// transpose. 2 x 21 x 21 x 8 x 8 configurations.
// CHECK: flash-test-visible-ranges: 56448 configurations, {{[0-9]+}} tile pairs: visibleKVTiles and visibleQTiles agree with brute force
// LONG: flash-test-visible-ranges: 30258 configurations, {{[0-9]+}} tile pairs: visibleKVTiles and visibleQTiles agree with brute force
module {}
