// The configuration's history (docs/api/settings.md, "History and rollback"): before every change
// of settings.json the version it replaces is kept in DATA_DIR/history/, one file per change, the
// newest `keep` only. Each file is written atomically (mode 0600: it holds the secrets the
// settings hold), so a kill in the middle of a write leaves the history as it was. Its writers
// (the settings actor, the command line's set-password and api-key) hold settings.lock, as for
// settings.json itself, and take the next id from the folder.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace mixerd {

struct config_history_entry {
  std::string id;       // "17": increasing, never reused while the folder exists
  std::string time;     // local time of the change, "2026-11-28T06:41:16"
  std::string source;   // api, web, file, cli, rollback
  std::string summary;  // the changed key paths
};

class config_history {
 public:
  // Opens (and makes, mode 0700) `folder`, removing what a write cut short left there.
  config_history(std::string folder, std::size_t keep);

  // Keeps `before`, the version a change replaces, as the newest entry; the oldest entries past
  // `keep` are removed. An error when the entry cannot be written (the change goes on: the
  // history is a help, not a gate).
  std::error_code record(const nlohmann::json& before, const std::string& source,
                         const std::string& summary);

  // Records `before` when `after` changes configuration, not only live state (the schema's
  // x-live values), with the changed key paths as the summary; nothing otherwise.
  std::error_code keep(const nlohmann::json& before, const nlohmann::json& after,
                       const nlohmann::json& schema, const std::string& source);

  // The version the newest entry kept; nullopt when there is none.
  std::optional<nlohmann::json> newest_version() const;

  // Newest first. A file that cannot be read or parsed is left out (and left alone).
  std::vector<config_history_entry> list() const;

  // The version kept by entry `id` (the settings before that change); nullopt when there is no
  // such entry or it cannot be read.
  std::optional<nlohmann::json> version_before(const std::string& id) const;

  const std::string& folder() const { return folder_; }

 private:
  std::string path_of(unsigned long long id) const;
  std::vector<unsigned long long> ids() const;  // ascending
  // Removes the oldest of `known` (ascending) past `keep_`.
  void prune(const std::vector<unsigned long long>& known) const;

  std::string folder_;
  std::size_t keep_;
  unsigned long long next_id_ = 1;
};

}  // namespace mixerd
