//===- ParserGuard.cpp - input MLIR 22's parser crashes on ----------------===//
//
// See ParserGuard.h. A small scanner over the text, not a parser: it knows
// MLIR's comments, strings and bracket nesting, the three ops' custom forms up
// to their list, and what DenseI64ArrayAttr::parse accepts.
//
//===----------------------------------------------------------------------===//

#include "ParserGuard.h"

#include "llvm/ADT/APInt.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir::flash;

namespace {

/// The custom forms whose list the parser stores unchecked.
struct GuardedOp {
  llvm::StringLiteral name;
  llvm::StringLiteral keyword;
};
constexpr GuardedOp kGuardedOps[] = {
    {"linalg.transpose", "permutation"},
    {"linalg.broadcast", "dimensions"},
    {"linalg.reduce", "dimensions"},
};

bool isIdStart(char c) { return llvm::isAlpha(c) || c == '_'; }
bool isIdChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
}

class Scanner {
public:
  explicit Scanner(llvm::StringRef text) : text(text) {}

  llvm::SmallVector<ParserCrashHazard> run() {
    while (pos < text.size()) {
      char c = text[pos];
      if (c == '"') {
        skipString();
      } else if (text.substr(pos).starts_with("//")) {
        skipLine();
      } else if (c == '%' || c == '@' || c == '^' || c == '#' || c == '!') {
        // A value, symbol, block, attribute alias or type alias name: its
        // suffix is not an op name.
        ++pos;
        while (pos < text.size() && (isIdChar(text[pos]) || text[pos] == '-'))
          ++pos;
      } else if (isIdStart(c)) {
        llvm::StringRef id = identifier();
        for (const GuardedOp &op : kGuardedOps)
          if (id == op.name)
            checkCustomForm(op);
      } else if (llvm::isDigit(c)) {
        // A number (`0x1f`, `2e5`): its letters are no identifier.
        while (pos < text.size() && (isIdChar(text[pos])))
          ++pos;
      } else {
        ++pos;
      }
    }
    return std::move(hazards);
  }

private:
  char peek() const { return pos < text.size() ? text[pos] : '\0'; }

  void skipLine() {
    size_t eol = text.find('\n', pos);
    pos = eol == llvm::StringRef::npos ? text.size() : eol + 1;
  }

  void skipTrivia() {
    while (pos < text.size()) {
      if (llvm::isSpace(text[pos]))
        ++pos;
      else if (text.substr(pos).starts_with("//"))
        skipLine();
      else
        return;
    }
  }

  /// At `"`: past the closing quote (or to the end).
  void skipString() {
    for (++pos; pos < text.size(); ++pos) {
      if (text[pos] == '\\')
        ++pos;
      else if (text[pos] == '"') {
        ++pos;
        return;
      }
    }
  }

  /// At `(`, `[` or `{`: past its matching bracket. False when the text ends
  /// first (the parser reports that cleanly).
  bool skipGroup() {
    llvm::SmallVector<char> closers;
    while (pos < text.size()) {
      char c = text[pos];
      if (c == '"') {
        skipString();
        continue;
      }
      if (text.substr(pos).starts_with("//")) {
        skipLine();
        continue;
      }
      ++pos;
      if (c == '(')
        closers.push_back(')');
      else if (c == '[')
        closers.push_back(']');
      else if (c == '{')
        closers.push_back('}');
      else if (c == ')' || c == ']' || c == '}') {
        if (closers.empty() || closers.back() != c)
          return false;
        closers.pop_back();
        if (closers.empty())
          return true;
      }
    }
    return false;
  }

  llvm::StringRef identifier() {
    size_t start = pos;
    while (pos < text.size() && isIdChar(text[pos]))
      ++pos;
    return text.slice(start, pos);
  }

  /// After the op's name: `<{...}>`, `{...}`, `ins(...)`, `outs(...)`, then
  /// the keyword. Anything else is the parser's to report.
  void checkCustomForm(const GuardedOp &op) {
    while (true) {
      skipTrivia();
      char c = peek();
      if (c == '<' || c == '>') {
        ++pos;
      } else if (c == '(' || c == '[' || c == '{') {
        if (!skipGroup())
          return;
      } else if (isIdStart(c)) {
        size_t start = pos;
        llvm::StringRef id = identifier();
        if (id == "ins" || id == "outs")
          continue;
        if (id == op.keyword)
          checkList(op);
        else
          pos = start;
        return;
      } else {
        return;
      }
    }
  }

  /// Where the parser reports a token it did not expect: not at the token
  /// but at the end of what precedes it, back over blanks, line breaks and
  /// `//` comments, so that our error lands where its first one would.
  const char *wrongTokenLoc() const {
    llvm::StringRef before = text.take_front(pos);
    while (true) {
      before = before.rtrim(" \t");
      if (before.empty())
        return text.data() + pos;
      if (before.back() != '\n' && before.back() != '\r')
        return before.end();
      before = before.drop_back();
      llvm::StringRef line = before;
      size_t lineStart = line.find_last_of("\n\r");
      if (lineStart != llvm::StringRef::npos)
        line = line.drop_front(lineStart);
      size_t comment = line.find("//");
      if (comment != llvm::StringRef::npos)
        before = before.drop_back(line.size() - comment);
    }
  }

  /// `wrongToken`: the parser expected another token here (its location
  /// backs up as wrongTokenLoc says); otherwise the token here is no value.
  void report(const GuardedOp &op, llvm::StringRef what, bool wrongToken) {
    hazards.push_back(
        {wrongToken ? wrongTokenLoc() : text.data() + pos,
         llvm::formatv("custom op '{0}' expected {1} in `{2} = [...]` "
                       "(flash-opt stops here: MLIR 22's parser crashes on "
                       "this list)",
                       op.name, what, op.keyword)
             .str()});
  }

  /// After the keyword: `= [` elements `]`.
  void checkList(const GuardedOp &op) {
    skipTrivia();
    if (peek() != '=')
      return; // The parser's own `expected '='`, no crash.
    ++pos;
    skipTrivia();
    if (peek() != '[')
      return report(op, "'['", /*wrongToken=*/true);
    ++pos;
    skipTrivia();
    if (peek() == ']')
      return;
    while (true) {
      skipTrivia();
      if (!element())
        return report(op, "an i64 integer, true or false",
                      /*wrongToken=*/false);
      skipTrivia();
      if (peek() == ']')
        return;
      if (peek() != ',')
        return report(op, "',' or ']'", /*wrongToken=*/true);
      ++pos;
    }
  }

  /// One element as DenseI64ArrayAttr::parse takes it: `true`, `false`, or
  /// an integer token, optionally after `-`, within i64. When it is not one,
  /// leaves `pos` where the parser reports that.
  bool element() {
    size_t start = pos;
    if (isIdStart(peek())) {
      llvm::StringRef id = identifier();
      if (id == "true" || id == "false")
        return true;
      pos = start;
      return false;
    }
    bool negative = peek() == '-';
    if (negative) {
      ++pos;
      skipTrivia();
    }
    // The parser reports a token that is no integer where it stands, after
    // the minus, and a value past i64 at the minus.
    size_t tokenStart = pos;
    size_t digitsStart = pos;
    unsigned radix = 10;
    if (text.substr(pos).starts_with("0x") && pos + 2 < text.size() &&
        llvm::isHexDigit(text[pos + 2])) {
      radix = 16;
      pos += 2;
      digitsStart = pos;
      while (pos < text.size() && llvm::isHexDigit(text[pos]))
        ++pos;
    } else {
      while (pos < text.size() && llvm::isDigit(text[pos]))
        ++pos;
    }
    llvm::StringRef digits = text.slice(digitsStart, pos);
    // `1.5` is a float token; `1x` and `1e3` are the integer 1 and then an
    // identifier, which the list's `,` or `]` then fails on.
    if (digits.empty() || (radix == 10 && peek() == '.')) {
      pos = tokenStart;
      return false;
    }
    llvm::APInt value;
    if (digits.getAsInteger(radix, value)) {
      pos = tokenStart;
      return false;
    }
    // i64: up to 2^63 - 1, or 2^63 after a minus.
    unsigned bits = value.getActiveBits();
    bool fits = bits <= 63 || (negative && bits == 64 && value.isPowerOf2());
    if (!fits)
      pos = start;
    return fits;
  }

  llvm::StringRef text;
  size_t pos = 0;
  llvm::SmallVector<ParserCrashHazard> hazards;
};

} // namespace

llvm::SmallVector<ParserCrashHazard>
mlir::flash::findParserCrashHazards(llvm::StringRef text) {
  return Scanner(text).run();
}
