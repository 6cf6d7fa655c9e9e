// The simulated device: the far end of a pseudo-terminal that answers like the open firmware
// (protocol/README.md, "Simulator") and produces input from text commands. Used by the mixer-sim
// tool and by `mixerd --simulate`; both drive it on an Asio io_context.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace boost::asio {
class io_context;
}

namespace mixerd::sim {

struct device_options {
  // When set, a symlink at this path always points at the current pty (re-pointed on replug).
  std::string link_path;
  std::string firmware_version = "2.0.0";
  std::string device_type = "Mixlar Mix";
  bool demo = false;  // move the sliders slowly on their own
  // Every line the host sends and every line the device sends, for logs ("<- " / "-> ").
  std::function<void(std::string_view direction, std::string_view line)> trace;
};

class simulated_device {
 public:
  virtual ~simulated_device() = default;
  // Path of the pty the host opens (the symlink when link_path is set, else /dev/pts/N).
  virtual std::string port_path() const = 0;
  // Runs one input command (`slider 2 57`, `press 3`, `release 3`, `mute 1`, `mute master`,
  // `encoder -2`, `encoder press`, `encoder release`, `page MAIN`, `mpage 2`, `unplug`,
  // `replug`, `demo on|off`, `raw <line>`). Returns an empty string on success, else an error
  // message for the user.
  virtual std::string command(std::string_view line) = 0;
};

// Opens the pty and starts serving on `io`. Throws std::system_error when no pty can be opened.
std::unique_ptr<simulated_device> start_simulated_device(boost::asio::io_context& io,
                                                         device_options options);

// Help text listing the commands, for `mixer-sim --help` and the `help` command.
std::string_view command_help();

}  // namespace mixerd::sim
