#include "protocol/validation.hpp"

#include <charconv>

namespace mixerd::validation {

namespace {
std::string range(const char* name, int lo, int hi) {
  return std::string(name) + " must be an integer from " + std::to_string(lo) + " to " +
         std::to_string(hi);
}
}  // namespace

std::optional<nlohmann::json> json_object(std::string_view body, std::string& error,
                                          bool empty_ok) {
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    if (empty_ok) return nlohmann::json::object();
    error = "Request body must be a JSON object";
    return std::nullopt;
  }
  auto parsed = nlohmann::json::parse(body, nullptr, false);
  if (parsed.is_discarded()) {
    error = "Malformed JSON in request body";
    return std::nullopt;
  }
  if (!parsed.is_object()) {
    error = "Request body must be a JSON object";
    return std::nullopt;
  }
  return parsed;
}

std::optional<int> int_field(const nlohmann::json& body, const char* name, int lo, int hi,
                             std::string& error) {
  auto it = body.find(name);
  if (it == body.end()) {
    error = "Missing field: " + std::string(name);
    return std::nullopt;
  }
  // 57.0 is a float on the wire: the API takes integers only.
  if (!it->is_number_integer()) {
    error = range(name, lo, hi);
    return std::nullopt;
  }
  auto v = it->get<long long>();
  if (v < lo || v > hi) {
    error = range(name, lo, hi);
    return std::nullopt;
  }
  return static_cast<int>(v);
}

std::optional<std::string> string_field(const nlohmann::json& body, const char* name,
                                        std::size_t max_bytes, std::string& error) {
  auto it = body.find(name);
  if (it == body.end()) {
    error = "Missing field: " + std::string(name);
    return std::nullopt;
  }
  if (!it->is_string()) {
    error = std::string(name) + " must be a string";
    return std::nullopt;
  }
  const auto& s = it->get_ref<const std::string&>();
  if (s.size() > max_bytes) {
    error = std::string(name) + " must be at most " + std::to_string(max_bytes) + " bytes";
    return std::nullopt;
  }
  return s;
}

bool device_text(std::string& text, const char* name, std::string& error) {
  for (char& c : text) {
    if (c == '\r' || c == '\n' || c == '\t') {
      c = ' ';
    } else if (is_control_byte(c)) {
      error = std::string(name) + " must not contain control characters";
      return false;
    }
  }
  return true;
}

std::optional<bool> bool_field(const nlohmann::json& body, const char* name, bool fallback,
                               std::string& error) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) {
    error = std::string(name) + " must be true or false";
    return std::nullopt;
  }
  return it->get<bool>();
}

std::optional<int> index_segment(std::string_view segment, const char* name, int lo, int hi,
                                 std::string& error) {
  int value = 0;
  auto [end, ec] = std::from_chars(segment.data(), segment.data() + segment.size(), value);
  if (segment.empty() || ec != std::errc() || end != segment.data() + segment.size() ||
      value < lo || value > hi) {
    error = range(name, lo, hi);
    return std::nullopt;
  }
  return value;
}

}  // namespace mixerd::validation
