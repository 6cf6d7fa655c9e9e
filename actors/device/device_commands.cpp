// The device's command: send one raw line to the device (a plugin's send_serial). Local code
// only: a network client never writes raw lines to the device.
#include "actors/device/device_commands.hpp"

#include <algorithm>
#include <caf/send.hpp>

#include "protocol/device.hpp"
#include "protocol/validation.hpp"

namespace mixerd {

namespace {

constexpr std::size_t max_line_bytes = 255;

bool read_line(const nlohmann::json& input, nlohmann::json& args, commands::problem& why) {
  auto it = input.find("line");
  if (it == input.end()) {
    why.text = "Missing field: line";
    return false;
  }
  if (!it->is_string()) {
    why.text = "line must be a string";
    return false;
  }
  const auto& line = it->get_ref<const std::string&>();
  if (line.empty()) {
    why.text = "line is empty";
    return false;
  }
  if (line.size() > max_line_bytes) {
    why.text = "line is over " + std::to_string(max_line_bytes) + " bytes";
    return false;
  }
  if (std::any_of(line.begin(), line.end(), validation::is_control_byte)) {
    why.text = "line holds a control byte (it must be one line)";
    return false;
  }
  args["line"] = line;
  return true;
}

// Answers whether the line was queued: only while the device is connected.
void send(const command_call_ptr& call) {
  auto device = call->dir().get<device_actor>();
  auto status = call->dir().view<device_view>();
  if (!device || !status || !status->connected) return call->ok({{"sent", false}});
  caf::anon_send(device, protocol::host_command{protocol::cmd_unknown{call->text("line")}});
  call->ok({{"sent", true}});
}

}  // namespace

std::vector<command> device_commands() {
  auto line = commands::text("line", max_line_bytes, "One line, without its line feed");
  line.read = read_line;
  return {
      {"device.send",
       "Sends one raw line to the device while it is connected",
       {line},
       commands::permission::local,
       "Device not available",
       send},
  };
}

}  // namespace mixerd
