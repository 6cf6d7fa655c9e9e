// mixerd's command line, as docs/api.md "Command line" gives it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mixerd::cli {

enum class mode { run, set_password, api_key, help, version };

struct options {
  mode what = mode::run;
  std::string data_dir;
  std::optional<std::string> config;
  std::optional<std::string> serial;
  bool simulate = false;
  std::optional<std::string> bind;
  std::optional<int> controller_port;
  std::optional<int> toast_port;
  std::optional<int> plants_port;
  std::optional<std::string> log_level;
  std::string username;  // set-password
};

struct parse_result {
  options opts;
  std::string error;  // empty when the command line is good
};

using env_lookup = std::function<std::optional<std::string>(const char*)>;

// `args` excludes the program name. `env` resolves MIXERD_DATA_DIR, XDG_CONFIG_HOME, HOME.
parse_result parse(const std::vector<std::string>& args, const env_lookup& env);

std::string usage();

}  // namespace mixerd::cli
