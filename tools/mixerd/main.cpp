// mixerd: the mixing-control daemon. See `mixerd --help` and protocol/README.md.
#include <csignal>
#include <cstdlib>
#include <iostream>

#include "protocol/types.hpp"
#include "tools/mixerd/capability_table.hpp"
#include "tools/mixerd/command_line.hpp"
#include "tools/mixerd/daemon.hpp"
#include "tools/mixerd/subcommands.hpp"
#include "tools/mixerd/system.hpp"

int main(int argc, char** argv) {
  using namespace mixerd;
  // A closed stderr pipe (mixerd | tee, then tee stops) must not kill the daemon.
  std::signal(SIGPIPE, SIG_IGN);
  // Every settings key and kind of macro of this build, before settings.json is read by any mode.
  install_declarations(capability_table());
  std::vector<std::string> args(argv + 1, argv + argc);
  auto parsed = cli::parse(args, [](const char* name) -> std::optional<std::string> {
    if (const char* v = std::getenv(name)) return std::string(v);
    return std::nullopt;
  });
  if (!parsed.error.empty()) {
    std::cerr << "mixerd: " << parsed.error << "\nTry 'mixerd --help'.\n";
    return 2;
  }
  switch (parsed.opts.what) {
    case cli::mode::help:
      std::cout << cli::usage();
      return 0;
    case cli::mode::version:
      std::cout << "mixerd " << app_version << "\n";
      return 0;
    case cli::mode::set_password:
      return subcommands::set_password(parsed.opts);
    case cli::mode::api_key:
      return subcommands::api_key(parsed.opts);
    case cli::mode::run:
      break;
  }
  return run_daemon(parsed.opts);
}
