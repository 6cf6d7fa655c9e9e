#include "protocol/plants.hpp"
#include "protocol/json.hpp"
#include "protocol/settings_schema.hpp"
#include "protocol/uri.hpp"

#include <charconv>
#include <limits>
#include <unordered_set>

namespace mixerd::plants {

namespace {

bool is_token68_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~' || c == '+' || c == '/';
}

bool token68(std::string_view t) {
  std::size_t i = 0;
  while (i < t.size() && is_token68_char(t[i]))
    ++i;
  if (i == 0) return false;
  while (i < t.size() && t[i] == '=')
    ++i;
  return i == t.size();
}

std::string at(std::size_t index) {
  return "plant at index " + std::to_string(index) + ": ";
}

}  // namespace

bearer parse_bearer(std::string_view value) {
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
    value.remove_suffix(1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
    value.remove_prefix(1);
  bearer out;
  if (value.empty()) return out;  // missing
  auto space = value.find_first_of(" \t");
  if (!uri::iequals(value.substr(0, space), "Bearer")) {
    out.problem = bearer_problem::wrong_scheme;
    return out;
  }
  out.problem = bearer_problem::malformed;
  if (space == std::string_view::npos || value[space] != ' ') return out;
  auto token = value.substr(space);
  while (!token.empty() && token.front() == ' ')
    token.remove_prefix(1);
  if (token.size() > max_token_bytes || !token68(token)) return out;
  out.problem = bearer_problem::none;
  out.token = std::string(token);
  return out;
}

std::string_view bearer_message(bearer_problem problem) {
  switch (problem) {
    case bearer_problem::missing:
      return "Missing bearer token (Authorization: Bearer <token>)";
    case bearer_problem::wrong_scheme:
      return "Authorization scheme must be Bearer";
    case bearer_problem::malformed:
      return "Malformed bearer token";
    case bearer_problem::none:
      break;
  }
  return "Invalid bearer token";
}

std::optional<std::int64_t> parse_id(std::string_view segment) {
  if (segment.empty() || segment.size() > max_id_chars) return std::nullopt;
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(segment.data(), segment.data() + segment.size(), value);
  if (ec != std::errc() || end != segment.data() + segment.size()) return std::nullopt;
  return value;
}

parsed_plants parse_plants(std::string_view text) {
  parsed_plants out;
  if (text.size() > max_file_bytes) {
    out.error = "larger than " + std::to_string(max_file_bytes) + " bytes";
    return out;
  }
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    out.error = "empty; expected a JSON array of plants";
    return out;
  }
  auto list = mixerd::json::parse_depth_limited(text, max_json_depth, out.error);
  if (!list) return out;
  out.list = std::move(*list);
  out.error = validate_plants(out.list);
  if (!out.ok()) out.list = nlohmann::json::array();
  return out;
}

std::string validate_plants(const nlohmann::json& list) {
  if (!list.is_array()) return "must be a JSON array of plants";
  if (list.size() > max_plants) return "holds more than " + std::to_string(max_plants) + " plants";
  std::unordered_set<std::int64_t> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto& p = list[i];
    if (!p.is_object()) return at(i) + "must be an object";
    auto id = p.find("id");
    if (id == p.end()) return at(i) + "\"id\" is missing";
    if (!id->is_number_integer() ||
        (id->is_number_unsigned() &&
         id->get<std::uint64_t>() >
             static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())))
      return at(i) + "\"id\" must be an integer (int64)";
    auto name = p.find("name");
    if (name == p.end() || !name->is_string()) return at(i) + "\"name\" must be a string";
    if (name->get_ref<const std::string&>().size() > max_name_bytes)
      return at(i) + "\"name\" is longer than " + std::to_string(max_name_bytes) + " bytes";
    auto value = id->get<std::int64_t>();
    if (!seen.insert(value).second)
      return at(i) + "id " + std::to_string(value) + " appears more than once";
  }
  return {};
}

std::string serialize(const nlohmann::json& list) {
  return list.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

nlohmann::json sample_plants() {
  static constexpr const char* names[] = {
      "Monstera deliciosa",     "Ficus lyrata",       "Sansevieria trifasciata",
      "Epipremnum aureum",      "Calathea orbifolia", "Zamioculcas zamiifolia",
      "Spathiphyllum wallisii", "Aloe vera",          "Pilea peperomioides",
      "Strelitzia nicolai",
  };
  auto list = nlohmann::json::array();
  std::int64_t id = 1;
  for (const char* name : names)
    list.push_back({{"id", id++}, {"name", name}});
  return list;
}

std::optional<std::size_t> find(const nlohmann::json& list, std::int64_t id) {
  for (std::size_t i = 0; i < list.size(); ++i)
    if (list[i]["id"].get<std::int64_t>() == id) return i;
  return std::nullopt;
}

}  // namespace mixerd::plants

namespace mixerd {

// ---- Settings: the plant store's token ---------------------------------------------------------

settings_schema::part plants_settings() {
  return {"plants",
          {settings_schema::guarded(
              {"plant_store_token",
               settings_schema::secret_schema(
                   "The plant store's bearer token; made on first start, at least 16 "
                   "characters")})}};
}

}  // namespace mixerd
