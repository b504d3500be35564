//===- ParserGuard.h - input MLIR 22's parser crashes on ------*- C++ -*-===//
//
// MLIR 22's custom parsers of linalg.transpose (`permutation = [...]`),
// linalg.broadcast and linalg.reduce (`dimensions = [...]`) store whatever
// DenseI64ArrayAttr::parse returns without checking it. When the list does
// not parse (a missing `[`, a token that is not an integer, a value past i64,
// a missing `,` or `]`), they print the located parse error and then
// dereference a null attribute: mlir-opt and any tool built on the parser
// crash. flash-opt reads its input first and rejects such text with a located
// error of its own, so that bad input is a diagnostic, never a crash
// (docs/testing.md, "Fuzzing").
//
// The scan follows the custom form up to the list as those parsers read it
// (`<{...}>`, an attribute dictionary, `ins(...)`, `outs(...)`, then the
// keyword and `=`) and accepts exactly the lists they turn into an attribute:
// `[]` or comma-separated `true`, `false` and decimal or hexadecimal integers
// (optionally negative) within i64. Anything the parsers reject cleanly on
// their own (a missing keyword or `=`) is left to them; the generic form
// (`"linalg.transpose"(...) <{permutation = array<...>}>`) parses safely.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_TOOLS_FLASH_OPT_PARSERGUARD_H
#define FLASH_TOOLS_FLASH_OPT_PARSERGUARD_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::flash {

/// Text in the input that MLIR 22's parser would crash on.
struct ParserCrashHazard {
  /// Where the list (or what stands in its place) starts, inside the text.
  const char *loc;
  std::string message;
};

/// Every such place in `text` (MLIR text: bytecode, whose strings are not
/// quoted, must not be passed), in order.
llvm::SmallVector<ParserCrashHazard> findParserCrashHazards(llvm::StringRef text);

} // namespace mlir::flash

#endif // FLASH_TOOLS_FLASH_OPT_PARSERGUARD_H
