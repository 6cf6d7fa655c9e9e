// settings.json on disk: load and validate, atomic writes, the writers' lock, the pid file and
// the generated secrets. Shared by the settings actor and the set-password / api-key subcommands
// so that every writer follows the same rules (docs/api.md, "Data folder").
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <system_error>

namespace mixerd::settings_file {

struct paths {
  std::string data_dir;
  std::string settings;  // DATA_DIR/settings.json unless --config says otherwise
  std::string lock() const { return data_dir + "/settings.lock"; }
  std::string pid() const { return data_dir + "/mixerd.pid"; }
};

struct load_result {
  nlohmann::json settings = nlohmann::json::object();
  std::string error;  // empty when ok; else names the file, the key, the problem and the line
  bool ok() const { return error.empty(); }
};

// Reads and validates. A missing file is an empty object (first start); an empty or blank
// file is broken like any other (a write cut short, a truncating editor): taken as "no
// settings" it would turn the login off and drop every secret. A guarded key set to null is
// kept as null (settings_schema::take_cleared removes it for the actors).
load_result load(const std::string& path);

// One locked read-modify-write of the settings file, as every writer must do it. `change`
// edits the loaded settings and says whether it changed anything; only then is the file
// written. exit_code follows the command line's exit codes: 0 done, 1 lock or write failed, 2 the
// file is broken (and was left untouched). `error` says what went wrong, naming the file.
struct update_result {
  nlohmann::json settings;
  bool changed = false;
  int exit_code = 0;
  std::string error;
};
update_result update(const paths& where, const std::function<bool(nlohmann::json&)>& change);

// Temp file in the same folder, fsync, rename over, fsync the folder; mode 0600.
std::error_code write_atomically(const std::string& path, const std::string& contents);

// Reads at most `limit` bytes of a file (pass one more than the file's bound, so that an
// oversized file shows). `missing` when it does not exist; `failed` with `error` ("cannot be
// read: <reason>") otherwise. With `follow_links` false a symbolic link is not followed (fails).
enum class read_status { ok, missing, failed };
read_status read_bounded(const std::string& path, std::size_t limit, std::string& text,
                         std::string& error, bool follow_links = true);

// Removes what a write_atomically cut short by a kill leaves behind: ".NAME.XXXXXX" files next
// to `path`. Only for the file's one writer, while no write of its own is under way.
void remove_leftover_temporaries(const std::string& path);
// Pretty JSON with a trailing newline, the way the file is written.
std::string serialize(const nlohmann::json& settings);

// Holds the advisory lock on DATA_DIR/settings.lock for one read-modify-write.
class write_lock {
 public:
  explicit write_lock(const std::string& lock_path);
  ~write_lock();
  write_lock(const write_lock&) = delete;
  write_lock& operator=(const write_lock&) = delete;
  bool held() const { return fd_ >= 0; }
  const std::error_code& error() const { return error_; }

 private:
  int fd_ = -1;
  std::error_code error_;
};

// 256 random bits from OpenSSL's CSPRNG, as 64 lowercase hex digits.
std::string random_secret();
// Adds toast_api_key and plant_store_token when missing or null (cleared); true when something
// was added.
bool ensure_secrets(nlohmann::json& settings);

// Creates the data folder (0700) and its parents when missing.
std::error_code ensure_data_dir(const std::string& dir);

// The daemon's pid file, locked for the daemon's lifetime: a second daemon on the same data
// folder cannot take it. Removed on destruction.
class pid_file {
 public:
  explicit pid_file(std::string path);
  ~pid_file();
  pid_file(const pid_file&) = delete;
  pid_file& operator=(const pid_file&) = delete;
  bool held() const { return fd_ >= 0; }
  std::optional<long> other_pid() const { return other_pid_; }  // set when held() is false

 private:
  std::string path_;
  int fd_ = -1;
  std::optional<long> other_pid_;
};

// The pid of a daemon running on this data folder, if any (its pid file is locked).
std::optional<long> running_daemon(const std::string& pid_path);

}  // namespace mixerd::settings_file
