// The fuzzer's finding of the thirty-eighth session (seed 3838), reduced by hand:
// MLIR 22's parser of linalg.transpose (and linalg.broadcast's `dimensions`)
// stores the attribute that DenseI64ArrayAttr::parse returns without checking
// it, and a permutation that does not parse leaves a null attribute behind:
//   /usr/lib/llvm-22/bin/mlir-opt upstream-linalg-transpose-parse-crash.mlir   -> segmentation fault
//   build/bin/flash-opt upstream-linalg-transpose-parse-crash.mlir            -> the same (upstream's parser)
// Both print the located parse error first ("expected integer value"), then crash.
func.func @f(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %t = linalg.transpose ins(%a : tensor<2x2xf32>) outs(%b : tensor<2x2xf32>) permutation = [1, %q]
  return %t : tensor<2x2xf32>
}
