#include "protocol/device_codec.hpp"

#include <algorithm>
#include <climits>
#include <initializer_list>
#include <utility>

#include "protocol/limits.hpp"
#include "protocol/validation.hpp"

namespace mixerd::protocol {
namespace {

constexpr std::size_t max_line = limits::max_line_bytes;
// The notification interface only accepts these durations; a toast outside is a caller bug.
constexpr int toast_duration_min = 1000;
constexpr int toast_duration_max = 30000;
// A real encoder cannot produce more detents between two reports; larger values are noise.
constexpr int encoder_delta_max = 1000;

bool is_continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0U) == 0x80U;
}

// Bytes announced by a lead byte; 1 for ASCII and for bytes that cannot start a sequence.
std::size_t sequence_length(char c) {
  const auto u = static_cast<unsigned char>(c);
  if ((u & 0xE0U) == 0xC0U) return 2;
  if ((u & 0xF0U) == 0xE0U) return 3;
  if ((u & 0xF8U) == 0xF0U) return 4;
  return 1;
}

// Plain decimal only (optionally signed): from_chars/stoi would accept spaces or trailing junk
// that the wire must not carry.
bool parse_int(std::string_view text, int& out, bool allow_sign) {
  bool negative = false;
  if (allow_sign && !text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) return false;
  long long value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
    if (value > INT_MAX) return false;
  }
  out = negative ? -static_cast<int>(value) : static_cast<int>(value);
  return true;
}

bool parse_in_range(std::string_view text, int lo, int hi, int& out) {
  return parse_int(text, out, false) && out >= lo && out <= hi;
}

// Matches escape_field: `\` and `,` double, everything else stays one byte.
std::size_t escaped_size(char c) {
  return (c == '\\' || c == ',') ? 2 : 1;
}

std::size_t escaped_size(std::string_view text) {
  std::size_t size = 0;
  for (const char c : text)
    size += escaped_size(c);
  return size;
}

// Longest prefix, on a character boundary, whose escaped form fits `budget`. Cutting the
// unescaped text (not the escaped one) is what keeps a lone `\` from ending a field.
std::string_view fit_escaped(std::string_view text, std::size_t budget) {
  std::size_t used = 0;
  std::size_t n = 0;
  while (n < text.size() && used + escaped_size(text[n]) <= budget)
    used += escaped_size(text[n++]);
  return utf8_prefix(text, n);
}

// Shortens the fields, first of `order` first, until their escaped sizes together fit `budget`.
bool fit_fields(std::initializer_list<std::string*> order, std::size_t budget) {
  std::size_t total = 0;
  for (const std::string* field : order)
    total += escaped_size(*field);
  bool cut = false;
  for (std::string* field : order) {
    if (total <= budget) break;
    const std::size_t size = escaped_size(*field);
    const std::size_t excess = total - budget;
    const std::size_t keep = size > excess ? size - excess : 0;
    field->resize(fit_escaped(*field, keep).size());
    total = total - size + escaped_size(*field);
    cut = true;
  }
  return cut;
}

std::string num(int value, int lo, int hi) {
  return std::to_string(std::clamp(value, lo, hi));
}

std::string mute_target(int index) {
  return index == master_index ? std::string("MASTER") : num(index, 0, limits::mute_count - 1);
}

struct device_encoder {
  std::string operator()(const dev_pong&) const { return "PONG"; }
  std::string operator()(const dev_ack& e) const { return "ACK," + e.command; }
  std::string operator()(const dev_state_connected&) const { return "STATE,CONNECTED"; }
  std::string operator()(const dev_version& e) const {
    return (e.firmware ? "FW_VER," : "VER,") + escape_field(e.version);
  }
  std::string operator()(const dev_type& e) const { return "DEV_TYPE," + escape_field(e.name); }
  // Numbers are written as given so a simulated device can also produce invalid lines.
  std::string operator()(const dev_slider& e) const {
    return "SLIDER," + std::to_string(e.index) + "," + std::to_string(e.value);
  }
  std::string operator()(const dev_macro& e) const {
    return "MACRO," + std::to_string(e.index) + (e.pressed ? ",PRESS" : ",RELEASE");
  }
  std::string operator()(const dev_encoder_turn& e) const {
    return "ENCODER," + std::to_string(e.delta);
  }
  std::string operator()(const dev_encoder_button& e) const {
    return e.pressed ? "ENCODER,PRESS" : "ENCODER,RELEASE";
  }
  std::string operator()(const dev_mute_press& e) const {
    return "MUTE," + (e.index == master_index ? std::string("MASTER") : std::to_string(e.index)) +
           ",PRESS";
  }
  std::string operator()(const dev_page& e) const { return "PAGE," + escape_field(e.name); }
  std::string operator()(const dev_macro_page& e) const {
    return "MPAGE," + std::to_string(e.page);
  }
  std::string operator()(const dev_unknown& e) const { return e.line; }
};

struct host_encoder {
  encoded_line operator()(const cmd_ready&) const { return {"READY", false}; }
  encoded_line operator()(const cmd_ping&) const { return {"PING", false}; }
  encoded_line operator()(const cmd_ver&) const { return {"VER", false}; }
  encoded_line operator()(const cmd_dev_type&) const { return {"DEV_TYPE", false}; }
  encoded_line operator()(const cmd_vol& c) const {
    const std::string head = "VOL," + num(c.index, 0, limits::slider_count - 1) + ",";
    const std::string tail = "," + num(c.volume, limits::volume_min, limits::volume_max);
    std::string label = c.label;
    const bool cut = fit_fields({&label}, max_line - head.size() - tail.size());
    return {head + escape_field(label) + tail, cut};
  }
  encoded_line operator()(const cmd_macro& c) const {
    const std::string head = "MACRO," + num(c.index, 0, limits::macro_count - 1) + ",";
    std::string name = c.name;
    std::string icon = c.icon;
    // The icon is only cut when even an empty name cannot make room for it.
    const bool cut = fit_fields({&name, &icon}, max_line - head.size() - 1);
    return {head + escape_field(name) + "," + escape_field(icon), cut};
  }
  encoded_line operator()(const cmd_brightness& c) const {
    return {"BRIGHTNESS," + num(c.value, 0, 100), false};
  }
  encoded_line operator()(const cmd_reboot&) const { return {"REBOOT", false}; }
  encoded_line operator()(const cmd_mute& c) const {
    return {"MUTE," + mute_target(c.index) + (c.muted ? ",1" : ",0"), false};
  }
  encoded_line operator()(const cmd_master& c) const {
    return {"MASTER," + num(c.volume, limits::volume_min, limits::volume_max), false};
  }
  encoded_line operator()(const cmd_macro_page& c) const {
    return {"MPAGE," + num(c.page, 0, limits::macro_page_count - 1), false};
  }
  encoded_line operator()(const cmd_toast& c) const {
    const std::string head =
        "TOAST," + num(c.duration_ms, toast_duration_min, toast_duration_max) + ",";
    std::string icon = c.icon;
    std::string color = c.color;
    std::string message = c.message;
    std::string subtitle = c.subtitle;
    // Shortening order (protocol/README.md): subtitle, then message; icon and color only if they
    // alone are too long.
    const bool cut = fit_fields({&subtitle, &message, &color, &icon}, max_line - head.size() - 3);
    return {head + escape_field(icon) + "," + escape_field(color) + "," + escape_field(message) +
                "," + escape_field(subtitle),
            cut};
  }
  encoded_line operator()(const cmd_unknown& c) const {
    std::string line = c.line;
    std::replace_if(line.begin(), line.end(), validation::is_control_byte, ' ');
    const std::size_t keep = utf8_prefix(line, max_line).size();
    const bool cut = keep < line.size();
    line.resize(keep);
    return {std::move(line), cut};
  }
};

}  // namespace

device_event parse_device_line(std::string_view line) {
  // ACK echoes the command byte for byte, escapes included, so it is not split.
  if (line.substr(0, 4) == "ACK,") return dev_ack{std::string(line.substr(4))};
  std::vector<std::string> f = split_fields(line);
  const std::string& key = f[0];
  int a = 0;
  int b = 0;
  switch (f.size()) {
    case 1:
      if (key == "PONG") return dev_pong{};
      break;
    case 2:
      if (key == "STATE" && f[1] == "CONNECTED") return dev_state_connected{};
      if (key == "VER") return dev_version{std::move(f[1]), false};
      if (key == "FW_VER") return dev_version{std::move(f[1]), true};
      if (key == "DEV_TYPE") return dev_type{std::move(f[1])};
      if (key == "PAGE") return dev_page{std::move(f[1])};
      if (key == "MPAGE" && parse_in_range(f[1], 0, limits::macro_page_count - 1, a)) {
        return dev_macro_page{a};
      }
      if (key == "ENCODER") {
        if (f[1] == "PRESS") return dev_encoder_button{true};
        if (f[1] == "RELEASE") return dev_encoder_button{false};
        if (parse_int(f[1], a, true) && a != 0 && a >= -encoder_delta_max &&
            a <= encoder_delta_max) {
          return dev_encoder_turn{a};
        }
      }
      break;
    case 3:
      if (key == "SLIDER" && parse_in_range(f[1], 0, limits::slider_count - 1, a) &&
          parse_in_range(f[2], limits::volume_min, limits::volume_max, b)) {
        return dev_slider{a, b};
      }
      if (key == "MACRO" && parse_in_range(f[1], 0, limits::macro_count - 1, a) &&
          (f[2] == "PRESS" || f[2] == "RELEASE")) {
        return dev_macro{a, f[2] == "PRESS"};
      }
      if (key == "MUTE" && f[2] == "PRESS") {
        if (f[1] == "MASTER") return dev_mute_press{master_index};
        if (parse_in_range(f[1], 0, limits::mute_count - 1, a)) return dev_mute_press{a};
      }
      break;
    default:
      break;
  }
  return dev_unknown{std::string(line)};
}

std::string encode_device_event(const device_event& event) {
  return std::visit(device_encoder{}, event);
}

encoded_line encode_host_command(const host_command& command) {
  return std::visit(host_encoder{}, command);
}

host_command parse_host_line(std::string_view line) {
  std::vector<std::string> f = split_fields(line);
  const std::string& key = f[0];
  int a = 0;
  int b = 0;
  switch (f.size()) {
    case 1:
      if (key == "READY") return cmd_ready{};
      if (key == "PING") return cmd_ping{};
      if (key == "VER") return cmd_ver{};
      if (key == "DEV_TYPE") return cmd_dev_type{};
      if (key == "REBOOT") return cmd_reboot{};
      break;
    case 2:
      if (key == "BRIGHTNESS" && parse_in_range(f[1], 0, 100, a)) return cmd_brightness{a};
      if (key == "MASTER" && parse_in_range(f[1], limits::volume_min, limits::volume_max, a)) {
        return cmd_master{a};
      }
      if (key == "MPAGE" && parse_in_range(f[1], 0, limits::macro_page_count - 1, a)) {
        return cmd_macro_page{a};
      }
      break;
    case 3:
      if (key == "MUTE" && (f[2] == "0" || f[2] == "1")) {
        if (f[1] == "MASTER") return cmd_mute{master_index, f[2] == "1"};
        if (parse_in_range(f[1], 0, limits::mute_count - 1, a)) return cmd_mute{a, f[2] == "1"};
      }
      break;
    case 4:
      if (key == "VOL" && parse_in_range(f[1], 0, limits::slider_count - 1, a) &&
          parse_in_range(f[3], limits::volume_min, limits::volume_max, b)) {
        return cmd_vol{a, std::move(f[2]), b};
      }
      if (key == "MACRO" && parse_in_range(f[1], 0, limits::macro_count - 1, a)) {
        return cmd_macro{a, std::move(f[2]), std::move(f[3])};
      }
      break;
    case 6:
      if (key == "TOAST" && parse_in_range(f[1], toast_duration_min, toast_duration_max, a)) {
        return cmd_toast{a, std::move(f[2]), std::move(f[3]), std::move(f[4]), std::move(f[5])};
      }
      break;
    default:
      break;
  }
  return cmd_unknown{std::string(line)};
}

std::string escape_field(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (const char c : text) {
    if (c == '\\' || c == ',') {
      out += '\\';
      out += c;
    } else if (validation::is_control_byte(c)) {
      // The gateways refuse control bytes in free text (validation::device_text); this keeps any
      // that arrive another way (a hand-edited file, a plugin) off the device's line.
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::vector<std::string> split_fields(std::string_view line) {
  std::vector<std::string> fields(1);
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    // Only the two escapes escape_field writes are undone; any other `\` (including a trailing
    // one) is literal text, which keeps unescaped labels from older hosts readable.
    if (c == '\\' && i + 1 < line.size() && (line[i + 1] == '\\' || line[i + 1] == ',')) {
      fields.back() += line[++i];
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::size_t cut = max_bytes;
  if (is_continuation(text[cut])) {
    // A character is at most 4 bytes, so its lead byte is at most 3 bytes back.
    std::size_t lead = cut;
    for (int back = 0; back < 3 && lead > 0; ++back) {
      --lead;
      if (!is_continuation(text[lead])) break;
    }
    // Stray continuation bytes (invalid UTF-8) belong to no character and may be cut anywhere.
    if (!is_continuation(text[lead]) && lead + sequence_length(text[lead]) > cut) cut = lead;
  }
  return text.substr(0, cut);
}

void line_splitter::feed(std::string_view bytes, const sink& on_line) {
  while (!bytes.empty()) {
    const std::size_t end = bytes.find_first_of("\r\n");
    const bool terminated = end != std::string_view::npos;
    const std::string_view chunk = bytes.substr(0, end);
    bytes.remove_prefix(terminated ? end + 1 : bytes.size());

    if (discarding_) {
      discarding_ = !terminated;
      continue;
    }
    // Common case: a whole line inside one read is handed out without copying. Empty lines
    // (including the second half of a "\r\n" split across reads) are skipped.
    if (terminated && pending_.empty() && chunk.size() <= max_line) {
      if (!chunk.empty()) on_line(chunk, false);
      continue;
    }
    if (pending_.capacity() < max_line) pending_.reserve(max_line);
    const std::size_t room = max_line - pending_.size();
    if (chunk.size() > room) {
      pending_.append(chunk.substr(0, room));
      on_line(pending_, true);
      pending_.clear();
      discarding_ = !terminated;
      continue;
    }
    pending_.append(chunk);
    if (terminated) {
      if (!pending_.empty()) on_line(pending_, false);
      pending_.clear();
    }
  }
}

void line_splitter::reset() {
  pending_.clear();
  discarding_ = false;
}

}  // namespace mixerd::protocol
