#include "actors/support/settings_file.hpp"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include "tests/unit/support/files.hpp"
#include "tests/unit/support/text.hpp"
#include "tests/unit/support/wait.hpp"

using namespace mixerd;
using mixerd::test::contains;
using mixerd::test::eventually;
using mixerd::test::file_mode;
using mixerd::test::folder_entries;
using mixerd::test::is_lower_hex;
using mixerd::test::read_file;
using mixerd::test::temp_dir;
using mixerd::test::write_file;

namespace {

// Loads `text` written to a settings file in `dir`; returns the error text (empty when ok).
std::string load_error(const temp_dir& dir, const std::string& text) {
  const std::string path = dir.file("settings.json");
  write_file(path, text);
  return settings_file::load(path).error;
}

// True when /proc/locks shows a process waiting for a lock on the file with inode `inode`.
bool lock_has_waiter(ino_t inode) {
  std::ifstream locks("/proc/locks");
  const std::string needle = ":" + std::to_string(inode) + " ";
  for (std::string line; std::getline(locks, line);)
    if (line.find("->") != std::string::npos && line.find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("load of a missing file gives an empty object") {
  temp_dir dir;
  auto result = settings_file::load(dir.file("missing.json"));
  CHECK(result.ok());
  CHECK(result.settings == nlohmann::json::object());
}

TEST_CASE("load of an empty or blank file is broken, naming the file") {
  // Taken as "no settings" it turned the login off and dropped every secret at the next save.
  temp_dir dir;
  for (const std::string text : {"", "  \n\t\r\n"}) {
    CAPTURE(text);
    const std::string error = load_error(dir, text);
    CHECK(contains(error, dir.file("settings.json") + ": is empty"));
  }
}

TEST_CASE("update refuses an empty file with exit code 2 and leaves it untouched") {
  temp_dir dir;
  settings_file::paths paths{dir.path(), dir.file("settings.json")};
  write_file(paths.settings, "\n");
  bool asked = false;
  auto result = settings_file::update(paths, [&](nlohmann::json& s) {
    asked = true;
    return settings_file::ensure_secrets(s);
  });
  CHECK(result.exit_code == 2);
  CHECK(contains(result.error, "is empty"));
  CHECK(contains(result.error, "left untouched"));
  CHECK_FALSE(asked);
  CHECK(read_file(paths.settings) == "\n");
}

TEST_CASE("load of broken JSON names the path and the line and column") {
  temp_dir dir;
  const std::string error =
      load_error(dir, "{\n  \"controller_port\": 5000,\n  \"toast_port\": ,\n}\n");
  CAPTURE(error);
  CHECK(contains(error, dir.file("settings.json") + ":3:17: not valid JSON"));
}

TEST_CASE("load of a number too large for a double is broken JSON, not an exception") {
  // Found by fuzzing: nlohmann reports the overflow as out_of_range, not parse_error.
  temp_dir dir;
  const std::string error = load_error(dir, "{\n  \"master_volume\": 1e400\n}\n");
  CAPTURE(error);
  CHECK(contains(error, dir.file("settings.json") + ": not valid JSON"));
  CHECK(contains(error, "number overflow"));
}

TEST_CASE("load of valid settings returns them with unknown keys kept") {
  temp_dir dir;
  const std::string path = dir.file("settings.json");
  write_file(path, R"({"controller_port": 5001, "future_key": {"nested": [1, 2]}, "x": null})");
  auto result = settings_file::load(path);
  CHECK(result.ok());
  CHECK(result.settings["controller_port"] == 5001);
  CHECK(result.settings["future_key"]["nested"] == nlohmann::json::array({1, 2}));
  CHECK(result.settings.contains("x"));
}

TEST_CASE("load of a bad port names the file the line and the key") {
  temp_dir dir;
  const std::string error =
      load_error(dir, "{\n  \"toast_port\": 8889,\n  \"controller_port\": 70000\n}\n");
  CAPTURE(error);
  CHECK(contains(error, dir.file("settings.json") + ":3: key 'controller_port'"));
  CHECK(contains(error, "0 to 65535"));
}

TEST_CASE("load of a bad slider assignment names the nested key") {
  temp_dir dir;
  const std::string text = R"({
  "sliders": [
    {"label": "Music"},
    {
      "label": "Game",
      "assignment": {"type": "bogus"}
    }
  ]
})";
  const std::string error = load_error(dir, text);
  CAPTURE(error);
  CHECK(contains(error, dir.file("settings.json") + ":6: key 'sliders[1].assignment.type'"));
}

TEST_CASE("load names the line of the second slider when the first has an assignment too") {
  temp_dir dir;
  const std::string text = R"({
  "sliders": [
    {"assignment": {"type": "unassigned"}},
    {"assignment": {"type": "bogus"}}
  ]
})";
  const std::string error = load_error(dir, text);
  CAPTURE(error);
  // Regression: array indices in the key path used to be ignored (line 3 was reported).
  CHECK(contains(error, dir.file("settings.json") + ":4: key 'sliders[1].assignment.type'"));
}

TEST_CASE("load of bad mutes names mutes.individual") {
  temp_dir dir;
  const std::string error =
      load_error(dir, "{\n  \"mutes\": {\n    \"individual\": [true, false]\n  }\n}\n");
  CAPTURE(error);
  CHECK(contains(error, dir.file("settings.json") + ":3: key 'mutes.individual'"));
  CHECK(contains(error, "4 booleans"));
}

TEST_CASE("load of a top-level array is refused") {
  temp_dir dir;
  const std::string error = load_error(dir, "[1, 2]\n");
  CAPTURE(error);
  CHECK(contains(error, dir.file("settings.json")));
  CHECK(contains(error, "must be a JSON object"));
}

TEST_CASE("write_atomically writes the contents with mode 0600 and leaves no temp file") {
  temp_dir dir;
  const std::string path = dir.file("settings.json");
  const std::string contents = settings_file::serialize({{"controller_port", 5000}});
  CHECK_FALSE(settings_file::write_atomically(path, contents));
  CHECK(read_file(path) == contents);
  CHECK(file_mode(path) == 0600);
  CHECK(folder_entries(dir.path()) == std::set<std::string>{"settings.json"});
}

TEST_CASE("write_atomically replaces an existing file") {
  temp_dir dir;
  const std::string path = dir.file("settings.json");
  write_file(path, "old contents that are longer than the new ones\n");
  REQUIRE(::chmod(path.c_str(), 0644) == 0);
  CHECK_FALSE(settings_file::write_atomically(path, "{}\n"));
  CHECK(read_file(path) == "{}\n");
  CHECK(file_mode(path) == 0600);
  CHECK(folder_entries(dir.path()) == std::set<std::string>{"settings.json"});
}

TEST_CASE("write_atomically fails with an error code when the folder does not exist") {
  temp_dir dir;
  const std::string path = dir.file("absent/settings.json");
  std::error_code ec = settings_file::write_atomically(path, "{}\n");
  CHECK(ec);
  CHECK(ec == std::errc::no_such_file_or_directory);
  CHECK(folder_entries(dir.path()).empty());
}

TEST_CASE("serialize writes pretty JSON with a trailing newline that loads back") {
  temp_dir dir;
  const nlohmann::json settings = {{"a", 1}, {"b", {{"c", true}}}};
  const std::string text = settings_file::serialize(settings);
  CHECK(text.back() == '\n');
  CHECK(text.find("\n  \"a\": 1") != std::string::npos);
  CHECK(nlohmann::json::parse(text) == settings);
}

TEST_CASE("random_secret gives 64 lowercase hex digits and differs between calls") {
  const std::string a = settings_file::random_secret();
  const std::string b = settings_file::random_secret();
  CHECK(a.size() == 64);
  CHECK(b.size() == 64);
  CHECK(is_lower_hex(a));
  CHECK(is_lower_hex(b));
  CHECK(a != b);
}

TEST_CASE("ensure_secrets adds both keys only when missing") {
  nlohmann::json settings = nlohmann::json::object();
  CHECK(settings_file::ensure_secrets(settings));
  REQUIRE(settings.contains("toast_api_key"));
  REQUIRE(settings.contains("plant_store_token"));
  CHECK(is_lower_hex(settings["toast_api_key"].get<std::string>()));
  CHECK(settings["plant_store_token"].get<std::string>().size() == 64);
  CHECK(settings["toast_api_key"] != settings["plant_store_token"]);

  const nlohmann::json before = settings;
  CHECK_FALSE(settings_file::ensure_secrets(settings));
  CHECK(settings == before);

  nlohmann::json partial = {{"toast_api_key", "0123456789abcdef0123"}, {"other", 1}};
  CHECK(settings_file::ensure_secrets(partial));
  CHECK(partial["toast_api_key"] == "0123456789abcdef0123");
  CHECK(partial["plant_store_token"].get<std::string>().size() == 64);
  CHECK(partial["other"] == 1);

  // null clears a secret: a new one is made, as on a first start.
  nlohmann::json cleared = {{"toast_api_key", nullptr}, {"plant_store_token", "0123456789abcdef"}};
  CHECK(settings_file::ensure_secrets(cleared));
  CHECK(cleared["toast_api_key"].get<std::string>().size() == 64);
  CHECK(cleared["plant_store_token"] == "0123456789abcdef");
}

TEST_CASE("ensure_data_dir creates nested folders and refuses a file") {
  temp_dir dir;
  const std::string nested = dir.file("a/b/c");
  CHECK_FALSE(settings_file::ensure_data_dir(nested));
  CHECK(std::filesystem::is_directory(nested));
  CHECK_FALSE(settings_file::ensure_data_dir(nested));  // already there: fine

  write_file(dir.file("plain"), "x");
  CHECK(settings_file::ensure_data_dir(dir.file("plain")));
}

TEST_CASE("ensure_data_dir creates the data folder with mode 0700") {
  temp_dir dir;
  const std::string data_dir = dir.file("mixerd");
  REQUIRE_FALSE(settings_file::ensure_data_dir(data_dir));
  // The folder holds secrets and certificates: private to the user whatever the umask.
  CHECK(mixerd::test::file_mode(data_dir) == 0700);
}

TEST_CASE("a second write_lock blocks until the first is released") {
  temp_dir dir;
  const std::string lock_path = dir.file("settings.lock");
  std::optional<settings_file::write_lock> first;
  first.emplace(lock_path);
  REQUIRE(first->held());

  struct stat st {};
  REQUIRE(::stat(lock_path.c_str(), &st) == 0);

  std::atomic<bool> started{false};
  std::atomic<bool> acquired{false};
  std::atomic<bool> second_held{false};
  std::thread other([&] {
    started = true;
    settings_file::write_lock second(lock_path);
    second_held = second.held();
    acquired = true;
  });
  REQUIRE(eventually([&] { return started.load(); }));
  // The kernel lists the second thread as a waiter on the lock file: it is blocked in flock.
  CHECK(eventually([&] { return lock_has_waiter(st.st_ino) || acquired.load(); }));
  CHECK_FALSE(acquired.load());

  first.reset();
  CHECK(eventually([&] { return acquired.load(); }));
  other.join();
  CHECK(second_held.load());
}

TEST_CASE("write_lock reports an error when the lock file cannot be created") {
  temp_dir dir;
  settings_file::write_lock lock(dir.file("absent/settings.lock"));
  CHECK_FALSE(lock.held());
  CHECK(lock.error() == std::errc::no_such_file_or_directory);
}

TEST_CASE("a second pid_file on the same path is not held and names the first pid") {
  temp_dir dir;
  const std::string path = dir.file("mixerd.pid");
  settings_file::pid_file first(path);
  REQUIRE(first.held());
  CHECK_FALSE(first.other_pid());
  CHECK(read_file(path) == std::to_string(::getpid()) + "\n");

  settings_file::pid_file second(path);
  CHECK_FALSE(second.held());
  REQUIRE(second.other_pid());
  CHECK(*second.other_pid() == static_cast<long>(::getpid()));
}

TEST_CASE("running_daemon returns the pid while the pid file is held and nullopt after") {
  temp_dir dir;
  const std::string path = dir.file("mixerd.pid");
  CHECK_FALSE(settings_file::running_daemon(path));
  {
    settings_file::pid_file held(path);
    REQUIRE(held.held());
    auto pid = settings_file::running_daemon(path);
    REQUIRE(pid);
    CHECK(*pid == static_cast<long>(::getpid()));
  }
  CHECK_FALSE(settings_file::running_daemon(path));
  CHECK_FALSE(std::filesystem::exists(path));
}

TEST_CASE("running_daemon ignores a stale pid file that nobody locks") {
  temp_dir dir;
  const std::string path = dir.file("mixerd.pid");
  write_file(path, "12345\n");
  CHECK_FALSE(settings_file::running_daemon(path));

  settings_file::pid_file taken(path);  // a new daemon takes over the stale file
  CHECK(taken.held());
  CHECK(read_file(path) == std::to_string(::getpid()) + "\n");
}
