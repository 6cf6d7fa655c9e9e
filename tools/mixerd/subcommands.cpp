#include "tools/mixerd/subcommands.hpp"

#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include <iostream>
#include <string>

#include "actors/auth/password_hash.hpp"
#include "actors/settings/config_history.hpp"
#include "actors/support/settings_file.hpp"
#include "protocol/auth.hpp"
#include "protocol/limits.hpp"
#include "protocol/settings_schema.hpp"

namespace mixerd::subcommands {

namespace {

settings_file::paths paths_of(const cli::options& opts) {
  return {opts.data_dir, opts.data_dir + "/settings.json"};
}

// Reads one line from stdin; on a terminal the typing is not echoed.
std::optional<std::string> read_secret_line(const char* prompt) {
  const bool tty = ::isatty(STDIN_FILENO) == 1;
  termios saved{};
  if (tty) {
    std::cerr << prompt << std::flush;
    ::tcgetattr(STDIN_FILENO, &saved);
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    ::tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
  }
  std::string line;
  bool ok = static_cast<bool>(std::getline(std::cin, line));
  if (tty) {
    ::tcsetattr(STDIN_FILENO, TCSANOW, &saved);
    std::cerr << "\n";
  }
  if (!ok) return std::nullopt;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

void reload_daemon(const settings_file::paths& paths) {
  if (auto pid = settings_file::running_daemon(paths.pid()); pid && *pid > 0) {
    if (::kill(static_cast<pid_t>(*pid), SIGHUP) == 0)
      std::cerr << "mixerd: told the running daemon (pid " << *pid << ") to reload settings\n";
  }
}

// Locked read-modify-write of settings.json; a running daemon is told to re-read it. The version
// before it goes to the history (source "cli") under the same lock. Returns the exit code.
int modify_settings(const settings_file::paths& paths,
                    const std::function<bool(nlohmann::json&)>& change) {
  if (auto ec = settings_file::ensure_data_dir(paths.data_dir)) {
    std::cerr << "mixerd: cannot create " << paths.data_dir << ": " << ec.message() << "\n";
    return 1;
  }
  auto result = settings_file::update(paths, [&](nlohmann::json& settings) {
    const auto before = settings;
    if (!change(settings)) return false;
    config_history history(paths.data_dir + "/history", limits::config_history_size);
    if (auto ec = history.keep(before, settings, settings_schema::document(), "cli"))
      std::cerr << "mixerd: cannot keep the version before this change in " << history.folder()
                << ": " << ec.message() << "\n";
    return true;
  });
  if (result.exit_code != 0) {
    std::cerr << "mixerd: " << result.error << "\n";
    return result.exit_code;
  }
  if (result.changed) reload_daemon(paths);
  return 0;
}

}  // namespace

int set_password(const cli::options& opts) {
  const auto& user = opts.username;
  if (auto problem = username_problem(user); !problem.empty()) {
    std::cerr << "mixerd: USERNAME " << problem << "\n";
    return 2;
  }
  auto password = read_secret_line("New password: ");
  if (!password) {
    std::cerr << "mixerd: no password given on standard input\n";
    return 2;
  }
  if (::isatty(STDIN_FILENO) == 1) {
    auto again = read_secret_line("Repeat password: ");
    if (!again || *again != *password) {
      std::cerr << "mixerd: the passwords differ; nothing was changed\n";
      return 2;
    }
  }
  if (password->empty()) {
    std::cerr << "mixerd: the password must not be empty\n";
    return 2;
  }
  auto hash = password_hash::make(*password);
  int rc = modify_settings(paths_of(opts), [&](nlohmann::json& s) {
    s["auth_enabled"] = true;
    s["auth_username"] = user;
    s["auth_password_hash"] = hash;
    return true;
  });
  if (rc == 0) std::cout << "Password stored for '" << user << "' (auth_enabled is now true).\n";
  return rc;
}

int api_key(const cli::options& opts) {
  std::string key;
  int rc = modify_settings(paths_of(opts), [&](nlohmann::json& s) {
    bool added = settings_file::ensure_secrets(s);
    key = s["toast_api_key"].get<std::string>();
    return added;
  });
  if (rc == 0) std::cout << key << "\n";
  return rc;
}

}  // namespace mixerd::subcommands
