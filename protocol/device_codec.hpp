// The device line codec: text lines of the serial link <-> typed values, both directions.
// Pure functions, no I/O (protocol/README.md "Serial protocol" is the authority).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mixerd::protocol {

// Index used on the wire for the master mute (`MUTE,MASTER,...`).
inline constexpr int master_index = -1;

// ---- Device to host ---------------------------------------------------------------------------
struct dev_pong {};
struct dev_ack {
  std::string command;  // the echoed command, e.g. "READY" or "VOL,0,Music,50"
};
struct dev_state_connected {};
struct dev_version {
  std::string version;
  bool firmware = false;  // true for FW_VER, false for VER
};
struct dev_type {
  std::string name;
};
struct dev_slider {
  int index = 0;  // 0-3 (wire index)
  int value = 0;  // 0-100
};
struct dev_macro {
  int index = 0;  // 0-8
  bool pressed = false;
};
struct dev_encoder_turn {
  int delta = 0;  // signed detents, positive = clockwise
};
struct dev_encoder_button {
  bool pressed = false;
};
struct dev_mute_press {
  int index = 0;  // 0-3, or master_index
};
struct dev_page {
  std::string name;
};
struct dev_macro_page {
  int page = 0;  // 0-3
};
// Any other line: boot chatter, lines with out-of-range values, future firmware lines.
struct dev_unknown {
  std::string line;
};

using device_event = std::variant<dev_pong, dev_ack, dev_state_connected, dev_version, dev_type,
                                  dev_slider, dev_macro, dev_encoder_turn, dev_encoder_button,
                                  dev_mute_press, dev_page, dev_macro_page, dev_unknown>;

// Parses one line (terminator already removed). Never fails: what is not understood is
// dev_unknown carrying the line.
device_event parse_device_line(std::string_view line);
// Encodes a device event as the firmware would print it (without the '\n').
std::string encode_device_event(const device_event& event);

// ---- Host to device ---------------------------------------------------------------------------
struct cmd_ready {};
struct cmd_ping {};
struct cmd_ver {};
struct cmd_dev_type {};
struct cmd_vol {
  int index = 0;  // 0-3
  std::string label;
  int volume = 0;
};
struct cmd_macro {
  int index = 0;
  std::string name;
  std::string icon;
};
struct cmd_brightness {
  int value = 0;
};
struct cmd_reboot {};
struct cmd_mute {
  int index = 0;  // 0-3, or master_index
  bool muted = false;
};
struct cmd_master {
  int volume = 0;
};
struct cmd_macro_page {
  int page = 0;
};
struct cmd_toast {
  int duration_ms = 3000;
  std::string icon;
  std::string color;
  std::string message;
  std::string subtitle;
};
struct cmd_unknown {
  std::string line;
};

using host_command =
    std::variant<cmd_ready, cmd_ping, cmd_ver, cmd_dev_type, cmd_vol, cmd_macro, cmd_brightness,
                 cmd_reboot, cmd_mute, cmd_master, cmd_macro_page, cmd_toast, cmd_unknown>;

struct encoded_line {
  std::string text;        // without the '\n'; at most limits::max_line_bytes bytes
  bool shortened = false;  // free text was cut to fit the line limit
};

// Encodes a command as a line. Free-text fields are escaped; a line that would exceed the
// limit loses characters from the end of its free text (toast: subtitle first, then message)
// at UTF-8 character boundaries.
encoded_line encode_host_command(const host_command& command);
// Parses a host line as the simulated device reads it; unknown lines give cmd_unknown.
host_command parse_host_line(std::string_view line);

// ---- Fields and framing -----------------------------------------------------------------------
// `\` -> `\\`, `,` -> `\,`; control bytes (C0 and DEL: line breaks end a line, the others the
// device would show raw) become spaces.
std::string escape_field(std::string_view text);
// Splits on unescaped commas and removes the escapes.
std::vector<std::string> split_fields(std::string_view line);
// Longest prefix of `text` of at most `max_bytes` bytes that ends on a UTF-8 character boundary.
std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes);

// Cuts a byte stream into lines. Accepts "\n", "\r\n" and "\r" alone; skips empty lines.
// A line longer than limits::max_line_bytes is reported once as overlong (its first
// max_line_bytes bytes) and the rest of it, up to the next terminator, is dropped.
class line_splitter {
 public:
  using sink = std::function<void(std::string_view line, bool overlong)>;
  void feed(std::string_view bytes, const sink& on_line);
  void reset();

 private:
  std::string pending_;
  bool discarding_ = false;
};

}  // namespace mixerd::protocol
