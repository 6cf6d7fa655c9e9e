// What the two halves of the macro validation share (protocol/macro_kinds.cpp reads one macro,
// protocol/macros.cpp the page set around it): the first problem of a parse and the reading of
// one Macro object. Internal to protocol/; pure.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "protocol/macros.hpp"

namespace mixerd::macros::detail {

// The first problem of a parse: the field it is about (a path such as "steps[2].url", empty for
// the value itself) and what is wrong with it.
struct failure {
  std::string field;
  std::string message;
  bool missing = false;  // the field is absent ("Missing field: <field>")
  bool forbidden = false;
};

// The 400 sentence of a failure.
std::string sentence(const failure& f);
// "must be an integer from lo to hi".
std::string range_text(long long lo, long long hi);
// Unicode characters of valid UTF-8 text.
std::size_t utf8_chars(const std::string& text);

// Reads one Macro object (any kind, `command` only from settings) into its stored form.
std::optional<macro> read_macro(const nlohmann::json& j, origin from, failure& f);

}  // namespace mixerd::macros::detail
