// flash-opt rejects, with a located error, the custom forms of linalg.transpose,
// linalg.broadcast and linalg.reduce whose list MLIR 22's parser crashes on
// (tools/flash-opt/ParserGuard.h), and leaves every other input to the parser.
//
// RUN: split-file --leading-lines %s %t
// RUN: not flash-opt %t/token.mlir 2>&1 | FileCheck %s --check-prefix=TOKEN
// RUN: not flash-opt - < %t/token.mlir 2>&1 | FileCheck %s --check-prefix=STDIN
// RUN: not flash-opt %t/lists.mlir 2>&1 | FileCheck %s --check-prefix=LISTS
// RUN: not flash-opt --split-input-file %t/split.mlir -o %t/split.out 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not test -e %t/split.out
// RUN: flash-opt %t/valid.mlir | FileCheck %s --check-prefix=VALID
// RUN: flash-opt %t/valid.mlir --emit-bytecode -o %t/valid.mlirbc
// RUN: flash-opt %t/valid.mlirbc | FileCheck %s --check-prefix=VALID
// RUN: not flash-opt %t/clean.mlir 2>&1 | FileCheck %s --check-prefix=CLEAN --implicit-check-not="flash-opt stops here"

//--- token.mlir
// The fuzzer's input of the thirty-eighth session: a value where an integer goes.
func.func @f(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // TOKEN: token.mlir:[[@LINE+3]]:96: error: custom op 'linalg.transpose' expected an i64 integer, true or false in `permutation = [...]` (flash-opt stops here: MLIR 22's parser crashes on this list)
  // TOKEN-NEXT: permutation = [1, %q]
  // STDIN: <stdin>:[[@LINE+1]]:96: error: custom op 'linalg.transpose' expected an i64 integer
  %t = linalg.transpose ins(%a : tensor<2x2xf32>) outs(%b : tensor<2x2xf32>) permutation = [1, %q]
  return %t : tensor<2x2xf32>
}

//--- lists.mlir
// Every way the list can fail, all in one run, each reported where the parser's
// own first error would be (a token it did not expect: at the end of the one
// before; a token that is no integer: on it, after any minus; past i64: at the
// minus or the number). python/tests/test_parser_guard.py checks this against
// mlir-opt on random lists.
func.func @f(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %c: tensor<2xf32>) -> tensor<2x2xf32> {
  // LISTS: lists.mlir:[[@LINE+1]]:94: error: custom op 'linalg.transpose' expected ',' or ']' in `permutation = [...]`
  %0 = linalg.transpose ins(%a : tensor<2x2xf32>) outs(%b : tensor<2x2xf32>) permutation = [1 0]
  // LISTS: lists.mlir:[[@LINE+1]]:98: error: custom op 'linalg.transpose' expected an i64 integer, true or false in `permutation = [...]`
  %1 = linalg.transpose ins(%a : tensor<2x2xf32>) outs(%b : tensor<2x2xf32>) permutation = [1, 0,]
  // LISTS: lists.mlir:[[@LINE+1]]:93: error: custom op 'linalg.transpose' expected an i64 integer, true or false
  %2 = linalg.transpose ins(%a : tensor<2x2xf32>) outs(%b : tensor<2x2xf32>) permutation = [9223372036854775808, 0]
  // LISTS: lists.mlir:[[@LINE+1]]:93: error: custom op 'linalg.transpose' expected an i64 integer, true or false
  %3 = linalg.transpose ins(%a : tensor<2x2xf32>) outs(%b : tensor<2x2xf32>) permutation = [0x8000000000000000, 0]
  // LISTS: lists.mlir:[[@LINE+1]]:93: error: custom op 'linalg.transpose' expected an i64 integer, true or false
  %4 = linalg.transpose ins(%a : tensor<2x2xf32>) outs(%b : tensor<2x2xf32>) permutation = [1.0, 0]
  // LISTS: lists.mlir:[[@LINE+1]]:98: error: custom op 'linalg.transpose' expected an i64 integer, true or false
  %5 = linalg.transpose {x} ins(%a : tensor<2x2xf32>) outs(%b : tensor<2x2xf32>) permutation = [-true, 0]
  // LISTS: lists.mlir:[[@LINE+1]]:90: error: custom op 'linalg.broadcast' expected an i64 integer, true or false in `dimensions = [...]`
  %6 = linalg.broadcast ins(%c : tensor<2xf32>) outs(%b : tensor<2x2xf32>) dimensions = [x]
  // LISTS: lists.mlir:[[@LINE+1]]:85: error: custom op 'linalg.reduce' expected '[' in `dimensions = [...]`
  %7 = linalg.reduce ins(%a : tensor<2x2xf32>) outs(%c : tensor<2xf32>) dimensions = 1
    (%x: f32, %y: f32) {
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<2x2xf32>
}

//--- split.mlir
// With --split-input-file the whole file is rejected (the crash would end every
// chunk's run), located in the file's own lines, and no output file is written.
func.func @ok() {
  return
}
// -----
func.func @f(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // SPLIT: split.mlir:[[@LINE+1]]:94: error: custom op 'linalg.transpose' expected ',' or ']'
  %t = linalg.transpose ins(%a : tensor<2x2xf32>) outs(%b : tensor<2x2xf32>) permutation = [1 0]
  return %t : tensor<2x2xf32>
}

//--- valid.mlir
// Lists the parser takes (hexadecimal, negative zero, `false`, comments and
// line breaks inside) and text that only looks like the three forms: a string,
// a comment, a symbol and a value named like them, the generic form; and the
// same module as bytecode, whose strings are not quoted (not scanned).
// linalg.transpose ins(%a : tensor<2x2xf32>) outs(%b : tensor<2x2xf32>) permutation = [x]
func.func @linalg.transpose(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %c: tensor<2xf32>)
    -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2x2xf32>)
    attributes {note = "linalg.broadcast ins(%c : tensor<2xf32>) outs(%b : tensor<2x2xf32>) dimensions = [x"} {
  // VALID-LABEL: func.func @linalg.transpose
  // VALID: linalg.transpose ins(%{{.*}} : tensor<2x2xf32>) outs(%{{.*}} : tensor<2x2xf32>) permutation = [1, 0]
  %0 = linalg.transpose ins(%a : tensor<2x2xf32>) outs(%b : tensor<2x2xf32>) permutation = [0x1, -0]
  // VALID: linalg.transpose ins(%{{.*}} : tensor<2x2xf32>) outs(%{{.*}} : tensor<2x2xf32>) permutation = [1, 0]
  %1 = linalg.transpose ins(%a : tensor<2x2xf32>) outs(%b : tensor<2x2xf32>) permutation = [ 1 , // one
      false ]
  // VALID: linalg.broadcast ins(%{{.*}} : tensor<2xf32>) outs(%{{.*}} : tensor<2x2xf32>) dimensions = [1]
  %2 = linalg.broadcast ins(%c : tensor<2xf32>) outs(%b : tensor<2x2xf32>) dimensions = [1]
  // VALID: linalg.reduce ins(%{{.*}} : tensor<2x2xf32>) outs(%{{.*}} : tensor<2xf32>) dimensions = [0]
  %3 = linalg.reduce ins(%a : tensor<2x2xf32>) outs(%c : tensor<2xf32>) dimensions = [0]
    (%x: f32, %y: f32) {
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
  %linalg.transpose = "linalg.transpose"(%a, %b) <{permutation = array<i64: 1, 0>}> ({
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0, %1, %linalg.transpose, %3, %2 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2x2xf32>
}

//--- clean.mlir
// A missing `=` is the parser's own clean error: no crash, nothing of ours.
func.func @f(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // CLEAN: clean.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected '='
  %t = linalg.transpose ins(%a : tensor<2x2xf32>) outs(%b : tensor<2x2xf32>) permutation [1, 0]
  return %t : tensor<2x2xf32>
}
