// mixer-sim: a simulated Mixlar device on a pseudo-terminal, driven by commands on stdin.
// Integration tests and users read the first stdout line to find the port, so it is flushed at
// once; every later stdout line is flushed too, for readers on a pipe.
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <exception>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>

#include "protocol/types.hpp"
#include "tools/mixer-sim/simulated_device.hpp"

namespace {

namespace asio = boost::asio;
using boost::system::error_code;

constexpr std::string_view usage =
    R"(usage: mixer-sim [--link PATH] [--demo] [--firmware VERSION] [--quiet] [--help] [--version]

Runs a simulated Mixlar Mix on a pseudo-terminal and prints "mixer-sim: device on <port>".
Then reads commands from stdin, one a line, and shows the serial traffic ("<- " from the host,
"-> " from the device). Stops on SIGINT or SIGTERM; end of stdin does not stop it.

  --link PATH          keep a symlink at PATH pointing at the pty (re-pointed on replug)
  --demo               move the sliders slowly on their own
  --firmware VERSION   firmware version to report (default 2.0.0)
  --quiet              do not show the serial traffic
  --help               this text
  --version            print the version

)";

struct options {
  mixerd::sim::device_options device;
  bool quiet = false;
};

void print_line(std::string_view text) {
  std::cout << text << '\n' << std::flush;
}

// Reads stdin line by line on the io_context, so commands and device I/O share one thread.
class stdin_reader : public std::enable_shared_from_this<stdin_reader> {
 public:
  stdin_reader(asio::io_context& io, int fd, mixerd::sim::simulated_device& device)
      : input_(io, fd), device_(device) {}

  void start() { read_next(); }

 private:
  void read_next() {
    asio::async_read_until(
        input_, asio::dynamic_buffer(buffer_), '\n',
        [self = shared_from_this()](error_code ec, std::size_t n) { self->on_line(ec, n); });
  }

  void on_line(error_code ec, std::size_t n) {
    if (ec) {
      // End of stdin (or a read error): run the last unterminated line, then stop reading and
      // keep serving the device until a signal arrives.
      if (ec != asio::error::operation_aborted && !buffer_.empty()) run(buffer_);
      buffer_.clear();
      return;
    }
    std::string line = buffer_.substr(0, n - 1);
    buffer_.erase(0, n);
    run(line);
    read_next();
  }

  void run(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    auto first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line.substr(first) == "help") {
      std::cout << mixerd::sim::command_help() << std::flush;
      return;
    }
    std::string error = device_.command(line);
    if (!error.empty()) print_line("error: " + error);
  }

  asio::posix::stream_descriptor input_;
  mixerd::sim::simulated_device& device_;
  std::string buffer_;
};

// Returns 0 to go on, else the exit code (after printing what is needed).
int parse_command_line(int argc, char** argv, options& opt) {
  auto bad = [](const std::string& message) {
    std::cerr << "mixer-sim: " << message << " (try --help)\n";
    return 2;
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_inline_value = false;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg.resize(eq);
      has_inline_value = true;
    }
    auto take_value = [&]() -> bool {
      if (has_inline_value) return true;
      if (i + 1 >= argc) return false;
      value = argv[++i];
      return true;
    };
    if (arg == "--link" || arg == "--firmware") {
      if (!take_value() || value.empty()) return bad(arg + " needs a value");
      if (arg == "--link") {
        opt.device.link_path = value;
      } else if (value.find_first_of(",\r\n") != std::string::npos) {
        return bad("--firmware must not contain a comma or a line break");
      } else {
        opt.device.firmware_version = value;
      }
      continue;
    }
    if (has_inline_value) return bad(arg + " takes no value");
    if (arg == "--demo") {
      opt.device.demo = true;
    } else if (arg == "--quiet") {
      opt.quiet = true;
    } else if (arg == "--help" || arg == "-h") {
      std::cout << usage << mixerd::sim::command_help() << std::flush;
      return -1;
    } else if (arg == "--version") {
      std::cout << "mixer-sim " << mixerd::app_version << '\n' << std::flush;
      return -1;
    } else {
      return bad("unknown option '" + arg + "'");
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);  // a reader of our stdout that goes away must not kill us
  options opt;
  if (int code = parse_command_line(argc, argv, opt); code != 0) return code < 0 ? 0 : code;
  if (!opt.quiet) {
    opt.device.trace = [](std::string_view direction, std::string_view line) {
      std::cout << direction << ' ' << line << '\n' << std::flush;
    };
  }

  asio::io_context io;
  std::unique_ptr<mixerd::sim::simulated_device> device;
  try {
    device = mixerd::sim::start_simulated_device(io, opt.device);
  } catch (const std::exception& e) {
    std::cerr << "mixer-sim: cannot start the device: " << e.what() << '\n';
    return 1;
  }
  print_line("mixer-sim: device on " + device->port_path());

  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](error_code ec, int) {
    if (ec) return;
    device.reset();
    io.stop();
  });

  // A dup, so closing the descriptor object never closes the process's own stdin.
  if (int in = ::dup(STDIN_FILENO); in >= 0) {
    try {
      std::make_shared<stdin_reader>(io, in, *device)->start();
    } catch (const std::exception& e) {
      ::close(in);
      std::cerr << "mixer-sim: not reading commands from stdin: " << e.what() << '\n';
    }
  }

  io.run();
  return 0;
}
