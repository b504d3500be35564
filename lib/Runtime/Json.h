//===- Json.h - the JSON reader of the runtime ------------------*- C++ -*-===//
//
// Launch plans are plain JSON (strings, numbers, booleans, null, arrays,
// objects); a small recursive-descent reader suffices, and the runtime must
// not depend on LLVM, since GPU machines have no LLVM installed.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_RUNTIME_JSON_H
#define FLASH_RUNTIME_JSON_H

#include <cctype>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace flash {
namespace runtime {

/// A JSON value: the subset bundles use.
struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::map<std::string, Json> object;

  bool isNull() const { return kind == Null; }
  const Json *get(const std::string &key) const {
    auto it = object.find(key);
    return it == object.end() ? nullptr : &it->second;
  }
};

class JsonReader {
public:
  explicit JsonReader(const std::string &text) : s(text) {}
  bool parse(Json &out, std::string &error) {
    if (!value(out) || (skip(), pos != s.size())) {
      error = "malformed JSON near byte " + std::to_string(pos);
      return false;
    }
    return true;
  }

private:
  void skip() {
    while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos])))
      ++pos;
  }
  bool literal(const char *word) {
    size_t n = std::char_traits<char>::length(word);
    if (s.compare(pos, n, word) != 0)
      return false;
    pos += n;
    return true;
  }
  bool str(std::string &out) {
    if (s[pos] != '"')
      return false;
    ++pos;
    while (pos < s.size() && s[pos] != '"') {
      char c = s[pos++];
      if (c == '\\' && pos < s.size()) {
        char e = s[pos++];
        switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'u': pos += 4; out += '?'; break; // not used by bundles
        default: out += e;
        }
      } else {
        out += c;
      }
    }
    if (pos >= s.size())
      return false;
    ++pos;
    return true;
  }
  bool value(Json &v) {
    skip();
    if (pos >= s.size())
      return false;
    char c = s[pos];
    if (c == '{') {
      v.kind = Json::Object;
      ++pos;
      skip();
      if (s[pos] == '}') { ++pos; return true; }
      while (true) {
        skip();
        std::string key;
        if (!str(key))
          return false;
        skip();
        if (s[pos++] != ':')
          return false;
        if (!value(v.object[key]))
          return false;
        skip();
        if (s[pos] == ',') { ++pos; continue; }
        if (s[pos] == '}') { ++pos; return true; }
        return false;
      }
    }
    if (c == '[') {
      v.kind = Json::Array;
      ++pos;
      skip();
      if (s[pos] == ']') { ++pos; return true; }
      while (true) {
        v.array.emplace_back();
        if (!value(v.array.back()))
          return false;
        skip();
        if (s[pos] == ',') { ++pos; continue; }
        if (s[pos] == ']') { ++pos; return true; }
        return false;
      }
    }
    if (c == '"') {
      v.kind = Json::String;
      return str(v.string);
    }
    if (literal("true")) { v.kind = Json::Bool; v.boolean = true; return true; }
    if (literal("false")) { v.kind = Json::Bool; return true; }
    if (literal("null")) return true;
    char *end = nullptr;
    v.number = std::strtod(s.c_str() + pos, &end);
    if (end == s.c_str() + pos)
      return false;
    v.kind = Json::Number;
    pos = end - s.c_str();
    return true;
  }

  const std::string &s;
  size_t pos = 0;
};

} // namespace runtime
} // namespace flash

#endif // FLASH_RUNTIME_JSON_H
