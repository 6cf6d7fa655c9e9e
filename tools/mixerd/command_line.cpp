#include "tools/mixerd/command_line.hpp"

#include <charconv>

#include "actors/support/log.hpp"
#include "protocol/settings_schema.hpp"

namespace mixerd::cli {

namespace {

std::string default_data_dir(const env_lookup& env) {
  if (auto d = env("MIXERD_DATA_DIR"); d && !d->empty()) return *d;
  if (auto x = env("XDG_CONFIG_HOME"); x && !x->empty()) return *x + "/mixerd";
  auto home = env("HOME");
  return (home && !home->empty() ? *home : std::string(".")) + "/.config/mixerd";
}

std::optional<int> parse_port(const std::string& text) {
  int value = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0 || value > 65535)
    return std::nullopt;
  return value;
}

}  // namespace

std::string usage() {
  return R"(Usage:
  mixerd [--data-dir DIR] [--config FILE] [--serial PORT|auto|none] [--simulate]
         [--bind ADDR] [--controller-port N] [--toast-port N] [--plants-port N]
         [--log-level trace|debug|info|warn|error] [--version] [--help]
  mixerd set-password USERNAME [--data-dir DIR]   password read from stdin; turns login on
  mixerd api-key [--data-dir DIR]                 prints the notification API key

Runs the mixing-control daemon: keeps the USB device link alive and serves the remote
controller (default port 5000), the notification API (8889) and the plant store (8080).

Options:
  --data-dir DIR        settings, profiles, plugins and certificates live here
                        (default: $MIXERD_DATA_DIR, else $XDG_CONFIG_HOME/mixerd,
                        else ~/.config/mixerd; created on first start)
  --config FILE         settings file (default DATA_DIR/settings.json)
  --serial PORT         device port: a path such as /dev/ttyACM0, 'auto' (default: find the
                        device by USB id 1209:4D58, then any Espressif 303A port) or 'none'
  --simulate            run the built-in simulated device on a pseudo-terminal
  --bind ADDR           address to listen on (default 0.0.0.0: every interface)
  --controller-port N   remote controller port (default 5000; 0 picks a free port)
  --toast-port N        notification API port (default 8889; 0 picks a free port)
  --plants-port N       plant store port (default 8080; 0 picks a free port)
  --log-level LEVEL     trace, debug, info (default), warn or error
  --version             print the version and exit
  --help                print this help and exit

Ports given here beat settings.json, which beats the defaults.
SIGHUP re-reads settings.json. Exit codes: 0 clean stop, 1 runtime failure (port in use,
another daemon on the data folder), 2 bad command line, settings file or certificates.
)";
}

parse_result parse(const std::vector<std::string>& args, const env_lookup& env) {
  parse_result result;
  auto& o = result.opts;
  std::size_t i = 0;
  if (!args.empty() && (args[0] == "set-password" || args[0] == "api-key")) {
    o.what = args[0] == "api-key" ? mode::api_key : mode::set_password;
    i = 1;
    if (o.what == mode::set_password) {
      if (args.size() < 2 || args[1].rfind("--", 0) == 0) {
        result.error = "set-password needs a USERNAME";
        return result;
      }
      o.username = args[1];
      i = 2;
    }
  }
  const bool daemon = o.what == mode::run;
  for (; i < args.size(); ++i) {
    std::string arg = args[i];
    std::optional<std::string> inline_value;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_value = arg.substr(eq + 1);
      arg.resize(eq);
    }
    auto value = [&]() -> std::optional<std::string> {
      if (inline_value) return inline_value;
      if (i + 1 < args.size()) return args[++i];
      result.error = arg + " needs a value";
      return std::nullopt;
    };
    auto port = [&](std::optional<int>& out) {
      auto v = value();
      if (!v) return;
      out = parse_port(*v);
      if (!out) result.error = arg + " must be a port number from 0 to 65535, not '" + *v + "'";
    };
    if (arg == "--help" || arg == "-h") {
      o.what = mode::help;
      return result;
    }
    if (arg == "--version" && daemon) {
      o.what = mode::version;
      return result;
    }
    if (arg == "--data-dir") {
      if (auto v = value()) o.data_dir = *v;
    } else if (!daemon) {
      result.error = "unknown option for " + std::string(args[0]) + ": " + args[i];
    } else if (arg == "--config") {
      if (auto v = value()) o.config = *v;
    } else if (arg == "--serial") {
      if (auto v = value()) o.serial = *v;
    } else if (arg == "--simulate" && !inline_value) {
      o.simulate = true;
    } else if (arg == "--bind") {
      if (auto v = value()) {
        if (settings_schema::is_ip_address(*v))
          o.bind = *v;
        else
          result.error =
              "--bind must be an IP address such as 0.0.0.0 or 127.0.0.1, not '" + *v + "'";
      }
    } else if (arg == "--controller-port") {
      port(o.controller_port);
    } else if (arg == "--toast-port") {
      port(o.toast_port);
    } else if (arg == "--plants-port") {
      port(o.plants_port);
    } else if (arg == "--log-level") {
      if (auto v = value()) {
        if (log::level_from_string(*v))
          o.log_level = *v;
        else
          result.error = "--log-level must be trace, debug, info, warn or error, not '" + *v + "'";
      }
    } else {
      result.error = "unknown option: " + args[i];
    }
    if (!result.error.empty()) return result;
    if (daemon && o.data_dir.empty() && arg == "--data-dir") {
      result.error = "--data-dir must not be empty";
      return result;
    }
  }
  if (o.simulate && o.serial) {
    result.error = "--simulate and --serial cannot be combined (--simulate is its own device)";
    return result;
  }
  if (o.data_dir.empty()) o.data_dir = default_data_dir(env);
  return result;
}

}  // namespace mixerd::cli
