#include "actors/settings/config_history.hpp"

#include <algorithm>
#include <filesystem>

#include "actors/support/local_time.hpp"
#include "actors/support/settings_file.hpp"
#include "protocol/settings_api.hpp"

namespace mixerd {

namespace {

namespace fs = std::filesystem;

// An entry's file name is its id and ".json": 1 to 18 digits, no leading zero.
std::optional<unsigned long long> id_of(const std::string& name) {
  constexpr std::string_view suffix = ".json";
  if (name.size() <= suffix.size() || name.size() > 18 + suffix.size() ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  const auto digits = name.substr(0, name.size() - suffix.size());
  if (digits[0] == '0' ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stoull(digits);
}

std::optional<nlohmann::json> read_entry(const std::string& path) {
  std::string text;
  std::string error;
  // An entry is a whole settings file and a few fields: the file's own bound, with room.
  constexpr std::size_t limit = 4 * 1024 * 1024;
  if (settings_file::read_bounded(path, limit + 1, text, error) != settings_file::read_status::ok ||
      text.size() > limit)
    return std::nullopt;
  auto entry = nlohmann::json::parse(text, nullptr, false);
  if (!entry.is_object() || !entry.contains("settings") || !entry["settings"].is_object())
    return std::nullopt;
  return entry;
}

}  // namespace

config_history::config_history(std::string folder, std::size_t keep)
    : folder_(std::move(folder)), keep_(keep) {
  if (settings_file::ensure_data_dir(folder_)) return;  // record() says why
  std::error_code ec;
  // A write cut short leaves its temporary file (".NAME.XXXXXX") and never a half entry.
  for (const auto& e : fs::directory_iterator(folder_, ec)) {
    const auto name = e.path().filename().string();
    if (!name.empty() && name[0] == '.' && e.is_regular_file(ec)) fs::remove(e.path(), ec);
  }
  auto known = ids();
  if (!known.empty()) next_id_ = known.back() + 1;
  // A kill between an entry's rename and the pruning leaves one entry too many.
  prune(known);
}

void config_history::prune(const std::vector<unsigned long long>& known) const {
  std::error_code ignored;
  for (std::size_t i = 0; known.size() > keep_ && i < known.size() - keep_; ++i)
    fs::remove(path_of(known[i]), ignored);
}

std::string config_history::path_of(unsigned long long id) const {
  return folder_ + "/" + std::to_string(id) + ".json";
}

std::vector<unsigned long long> config_history::ids() const {
  std::vector<unsigned long long> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder_, ec))
    if (auto id = id_of(e.path().filename().string()); id && e.is_regular_file(ec))
      out.push_back(*id);
  std::sort(out.begin(), out.end());
  return out;
}

std::error_code config_history::record(const nlohmann::json& before, const std::string& source,
                                       const std::string& summary) {
  if (auto ec = settings_file::ensure_data_dir(folder_)) return ec;
  auto known = ids();
  // Another writer (the command line) may have added entries since.
  const auto id = std::max(next_id_, known.empty() ? 1ULL : known.back() + 1);
  nlohmann::json entry = {{"id", std::to_string(id)},
                          {"time", local_timestamp()},
                          {"source", source},
                          {"summary", summary},
                          {"settings", before}};
  if (auto ec = settings_file::write_atomically(path_of(id), settings_file::serialize(entry)))
    return ec;
  next_id_ = id + 1;
  known.push_back(id);
  prune(known);
  return {};
}

std::error_code config_history::keep(const nlohmann::json& before, const nlohmann::json& after,
                                     const nlohmann::json& schema, const std::string& source) {
  const auto paths = settings_api::configuration_paths(before, after, schema);
  if (paths.empty()) return {};
  return record(before, source, settings_api::summary(paths));
}

std::optional<nlohmann::json> config_history::newest_version() const {
  auto known = ids();
  if (known.empty()) return std::nullopt;
  auto entry = read_entry(path_of(known.back()));
  if (!entry) return std::nullopt;
  return (*entry)["settings"];
}

std::vector<config_history_entry> config_history::list() const {
  std::vector<config_history_entry> out;
  auto known = ids();
  for (auto it = known.rbegin(); it != known.rend(); ++it) {
    auto entry = read_entry(path_of(*it));
    if (!entry) continue;
    out.push_back({std::to_string(*it), entry->value("time", ""), entry->value("source", ""),
                   entry->value("summary", "")});
  }
  return out;
}

std::optional<nlohmann::json> config_history::version_before(const std::string& id) const {
  auto number = id_of(id + ".json");
  if (!number) return std::nullopt;
  auto entry = read_entry(path_of(*number));
  if (!entry) return std::nullopt;
  return (*entry)["settings"];
}

}  // namespace mixerd
