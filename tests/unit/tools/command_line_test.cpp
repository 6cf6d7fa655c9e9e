#include "tools/mixerd/command_line.hpp"

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/unit/support/text.hpp"

using mixerd::cli::mode;
using mixerd::cli::parse_result;
using mixerd::test::contains;

namespace {

using env_map = std::map<std::string, std::string>;

mixerd::cli::env_lookup fake_env(env_map vars) {
  return [vars = std::move(vars)](const char* name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

const env_map home_only = {{"HOME", "/home/u"}};

parse_result parse(const std::vector<std::string>& args, const env_map& env = home_only) {
  return mixerd::cli::parse(args, fake_env(env));
}

// Parses a command line that must be accepted.
mixerd::cli::options good(const std::vector<std::string>& args) {
  auto result = parse(args);
  CAPTURE(result.error);
  REQUIRE(result.error.empty());
  return result.opts;
}

// Parses a command line that must be refused; returns the message.
std::string bad(const std::vector<std::string>& args) {
  auto result = parse(args);
  CHECK_FALSE(result.error.empty());
  return result.error;
}

}  // namespace

TEST_CASE("command line defaults") {
  const auto o = good({});
  CHECK(o.what == mode::run);
  CHECK(o.data_dir == "/home/u/.config/mixerd");
  CHECK_FALSE(o.config);
  CHECK_FALSE(o.serial);
  CHECK_FALSE(o.simulate);
  CHECK_FALSE(o.bind);
  CHECK_FALSE(o.controller_port);
  CHECK_FALSE(o.toast_port);
  CHECK_FALSE(o.plants_port);
  CHECK_FALSE(o.log_level);
  CHECK(o.username.empty());
}

TEST_CASE("command line data folder comes from MIXERD_DATA_DIR then XDG_CONFIG_HOME then HOME") {
  const env_map all = {
      {"MIXERD_DATA_DIR", "/srv/mixerd"}, {"XDG_CONFIG_HOME", "/cfg"}, {"HOME", "/home/u"}};
  CHECK(parse({}, all).opts.data_dir == "/srv/mixerd");
  CHECK(parse({}, {{"XDG_CONFIG_HOME", "/cfg"}, {"HOME", "/home/u"}}).opts.data_dir ==
        "/cfg/mixerd");
  CHECK(parse({}, {{"HOME", "/home/u"}}).opts.data_dir == "/home/u/.config/mixerd");
  // Empty variables count as unset.
  CHECK(
      parse({}, {{"MIXERD_DATA_DIR", ""}, {"XDG_CONFIG_HOME", ""}, {"HOME", "/h"}}).opts.data_dir ==
      "/h/.config/mixerd");
  // --data-dir beats them all.
  CHECK(parse({"--data-dir", "/d"}, all).opts.data_dir == "/d");
  CHECK(parse({"set-password", "admin"}, all).opts.data_dir == "/srv/mixerd");
  CHECK(parse({"api-key"}, {{"XDG_CONFIG_HOME", "/cfg"}}).opts.data_dir == "/cfg/mixerd");
}

TEST_CASE("command line takes every flag as --flag value and --flag=value") {
  for (bool inline_form : {false, true}) {
    CAPTURE(inline_form);
    auto flag = [&](const std::string& name, const std::string& value) {
      return inline_form ? std::vector<std::string>{name + "=" + value}
                         : std::vector<std::string>{name, value};
    };
    std::vector<std::string> args;
    for (const auto& [name, value] :
         std::vector<std::pair<std::string, std::string>>{{"--data-dir", "/data"},
                                                          {"--config", "/etc/mixerd.json"},
                                                          {"--serial", "/dev/ttyACM0"},
                                                          {"--bind", "127.0.0.1"},
                                                          {"--controller-port", "5001"},
                                                          {"--toast-port", "8890"},
                                                          {"--plants-port", "8081"},
                                                          {"--log-level", "debug"}}) {
      auto part = flag(name, value);
      args.insert(args.end(), part.begin(), part.end());
    }
    const auto o = good(args);
    CHECK(o.what == mode::run);
    CHECK(o.data_dir == "/data");
    CHECK(o.config == std::optional<std::string>("/etc/mixerd.json"));
    CHECK(o.serial == std::optional<std::string>("/dev/ttyACM0"));
    CHECK(o.bind == std::optional<std::string>("127.0.0.1"));
    CHECK(o.controller_port == std::optional<int>(5001));
    CHECK(o.toast_port == std::optional<int>(8890));
    CHECK(o.plants_port == std::optional<int>(8081));
    CHECK(o.log_level == std::optional<std::string>("debug"));
    CHECK_FALSE(o.simulate);
  }
}

TEST_CASE("command line serial accepts auto and none and simulate stands alone") {
  CHECK(good({"--serial", "auto"}).serial == std::optional<std::string>("auto"));
  CHECK(good({"--serial=none"}).serial == std::optional<std::string>("none"));
  const auto o = good({"--simulate", "--controller-port", "0"});
  CHECK(o.simulate);
  CHECK_FALSE(o.serial);
  CHECK(o.controller_port == std::optional<int>(0));
}

TEST_CASE("command line accepts every log level and refuses others") {
  for (const char* level : {"trace", "debug", "info", "warn", "error"})
    CHECK(good({"--log-level", level}).log_level == std::optional<std::string>(level));
  CHECK(contains(bad({"--log-level", "verbose"}), "--log-level"));
  CHECK(contains(bad({"--log-level=INFO"}), "--log-level"));
}

TEST_CASE("command line accepts ports 0 and 65535") {
  for (const char* flag : {"--controller-port", "--toast-port", "--plants-port"}) {
    CAPTURE(flag);
    const auto low = good({flag, "0"});
    const auto high = good({std::string(flag) + "=65535"});
    const std::string name = flag;
    auto get = [&](const mixerd::cli::options& o) {
      return name == "--controller-port" ? o.controller_port
             : name == "--toast-port"    ? o.toast_port
                                         : o.plants_port;
    };
    CHECK(get(low) == std::optional<int>(0));
    CHECK(get(high) == std::optional<int>(65535));
  }
}

TEST_CASE("command line refuses bad ports naming the flag") {
  for (const char* flag : {"--controller-port", "--toast-port", "--plants-port"}) {
    for (const char* value : {"65536", "-1", "abc", "", "5000x", " 5000", "99999999999"}) {
      CAPTURE(flag);
      CAPTURE(value);
      CHECK(contains(bad({flag, value}), flag));
      CHECK(contains(bad({std::string(flag) + "=" + value}), flag));
    }
  }
}

TEST_CASE("command line refuses a flag without its value") {
  for (const char* flag :
       {"--data-dir", "--config", "--serial", "--bind", "--controller-port", "--log-level"}) {
    CAPTURE(flag);
    CHECK(contains(bad({flag}), flag));
  }
  CHECK(contains(bad({"--data-dir="}), "--data-dir"));
}

TEST_CASE("command line refuses simulate together with serial") {
  const std::string error = bad({"--simulate", "--serial", "/dev/ttyACM0"});
  CHECK(contains(error, "--simulate"));
  CHECK(contains(error, "--serial"));
  CHECK_FALSE(bad({"--serial=auto", "--simulate"}).empty());
  CHECK_FALSE(bad({"--simulate=yes"}).empty());
}

TEST_CASE("command line refuses unknown options and arguments") {
  CHECK(contains(bad({"--bogus"}), "--bogus"));
  CHECK(contains(bad({"--bogus=1"}), "--bogus"));
  CHECK(contains(bad({"-x"}), "-x"));
  CHECK(contains(bad({"run"}), "run"));
  CHECK(contains(bad({"--data-dir", "/d", "extra"}), "extra"));
}

TEST_CASE("command line set-password takes a user and an optional data folder") {
  auto o = good({"set-password", "admin"});
  CHECK(o.what == mode::set_password);
  CHECK(o.username == "admin");
  CHECK(o.data_dir == "/home/u/.config/mixerd");

  o = good({"set-password", "admin", "--data-dir", "/d"});
  CHECK(o.what == mode::set_password);
  CHECK(o.username == "admin");
  CHECK(o.data_dir == "/d");
  CHECK(good({"set-password", "admin", "--data-dir=/e"}).data_dir == "/e");
}

TEST_CASE("command line set-password without a user is refused") {
  CHECK(contains(bad({"set-password"}), "USERNAME"));
  CHECK(contains(bad({"set-password", "--data-dir", "/d"}), "USERNAME"));
}

TEST_CASE("command line api-key takes an optional data folder") {
  auto o = good({"api-key"});
  CHECK(o.what == mode::api_key);
  CHECK(o.data_dir == "/home/u/.config/mixerd");
  o = good({"api-key", "--data-dir", "/d"});
  CHECK(o.what == mode::api_key);
  CHECK(o.data_dir == "/d");
}

TEST_CASE("command line refuses daemon flags after api-key and set-password") {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"api-key", "--serial", "auto"},
                                             {"api-key", "--simulate"},
                                             {"api-key", "--controller-port=5000"},
                                             {"api-key", "--config", "/c.json"},
                                             {"api-key", "--version"},
                                             {"api-key", "extra"},
                                             {"set-password", "admin", "--bind", "0.0.0.0"},
                                             {"set-password", "admin", "--log-level", "debug"},
                                             {"set-password", "admin", "other"}}) {
    CAPTURE(args.back());
    const std::string error = bad(args);
    CHECK(contains(error, args[0]));
    CHECK(contains(error, args.size() > 2 && args[0] == "set-password" ? args[2] : args[1]));
  }
}

TEST_CASE("command line help and version") {
  CHECK(good({"--help"}).what == mode::help);
  CHECK(good({"-h"}).what == mode::help);
  CHECK(good({"--version"}).what == mode::version);
  CHECK(good({"--data-dir", "/d", "--help"}).what == mode::help);
  CHECK(good({"--controller-port", "1", "--version"}).what == mode::version);
  CHECK(good({"api-key", "--help"}).what == mode::help);
  CHECK(good({"set-password", "admin", "--help"}).what == mode::help);
}

TEST_CASE("usage mentions every flag and both commands") {
  const std::string text = mixerd::cli::usage();
  for (const char* part : {"--data-dir",
                           "--config",
                           "--serial",
                           "--simulate",
                           "--bind",
                           "--controller-port",
                           "--toast-port",
                           "--plants-port",
                           "--log-level",
                           "--version",
                           "--help",
                           "set-password",
                           "api-key",
                           "USERNAME",
                           "auto",
                           "none",
                           "MIXERD_DATA_DIR",
                           "XDG_CONFIG_HOME",
                           "~/.config/mixerd",
                           "5000",
                           "8889",
                           "8080",
                           "trace",
                           "debug",
                           "info",
                           "warn",
                           "error"}) {
    CAPTURE(part);
    CHECK(contains(text, part));
  }
}
