// Request validation at the gateways (ranges, types and lengths are checked where a
// request enters, from the numbers in limits.hpp). Each check returns the value or fills
// `error` with a sentence that names the field, for a 400 body.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace mixerd::validation {

// The body as a JSON object. An empty body counts as {} when `empty_ok`.
std::optional<nlohmann::json> json_object(std::string_view body, std::string& error,
                                          bool empty_ok = false);
// An integer field in [lo, hi]; missing, fractional, boolean or out of range is an error.
std::optional<int> int_field(const nlohmann::json& body, const char* name, int lo, int hi,
                             std::string& error);
std::optional<std::string> string_field(const nlohmann::json& body, const char* name,
                                        std::size_t max_bytes, std::string& error);
// Free text that reaches the device (labels, application names, toast text): `\r`, `\n` and `\t`
// become spaces in place. Any other control byte (C0 or DEL) makes it an error naming `name`,
// since the device would show it raw or take it as part of its line protocol.
bool device_text(std::string& text, const char* name, std::string& error);
// True for a byte that device_text refuses or turns into a space.
constexpr bool is_control_byte(char c) {
  return static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
}
// An optional boolean (absent = fallback).
std::optional<bool> bool_field(const nlohmann::json& body, const char* name, bool fallback,
                               std::string& error);
// A path segment holding a decimal integer in [lo, hi], e.g. the {index} of /api/sliders/{index}.
std::optional<int> index_segment(std::string_view segment, const char* name, int lo, int hi,
                                 std::string& error);

}  // namespace mixerd::validation
