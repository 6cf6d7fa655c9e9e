// Fuzz target: bytes from the serial port (protocol/device_codec). The input is what the device
// (or a simulator reading host lines) sends. Checked, beyond "no crash":
// - line_splitter gives the same lines for any chunking of the bytes, and the lines of a plain
//   reference splitter written from protocol/README.md (\n, \r\n, \r; empty lines skipped;
//   over 255 bytes: its first 255 once, marked overlong);
// - every device line that parses to a known event re-encodes to a line that parses to the same
//   event, with values in their ranges; unknown lines keep their text;
// - every host line that parses to a known command re-encodes within 255 bytes to the same
//   command (or, when shortened, to prefixes of its free text);
// - escape_field/split_fields round-trip any fields; utf8_prefix never splits a character.
#include <algorithm>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "protocol/device_codec.hpp"
#include "protocol/limits.hpp"
#include "protocol/validation.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace mixerd::protocol;
using mixerd::fuzz::as_text;
using mixerd::fuzz::valid_utf8;
constexpr std::size_t max_line = mixerd::limits::max_line_bytes;

using line_list = std::vector<std::pair<std::string, bool>>;

line_list reference_lines(std::string_view bytes) {
  line_list out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= bytes.size(); ++i) {
    const bool end = i == bytes.size();
    if (!end && bytes[i] != '\n' && bytes[i] != '\r') continue;
    const auto run = bytes.substr(start, i - start);
    if (run.size() > max_line) {
      out.emplace_back(std::string(run.substr(0, max_line)), true);
    } else if (!run.empty() && !end) {  // an unterminated short tail is still pending
      out.emplace_back(std::string(run), false);
    }
    start = i + 1;
  }
  return out;
}

line_list split_in_chunks(std::string_view bytes, mixerd::fuzz::numbers& pick, int mode) {
  line_list out;
  line_splitter splitter;
  const line_splitter::sink collect = [&out](std::string_view line, bool overlong) {
    out.emplace_back(std::string(line), overlong);
  };
  while (!bytes.empty()) {
    std::size_t n = bytes.size();
    if (mode == 1) n = 1;
    if (mode == 2) n = 1 + pick.below(std::min<std::size_t>(bytes.size(), 300));
    splitter.feed(bytes.substr(0, n), collect);
    bytes.remove_prefix(n);
  }
  return out;
}

// A field as the codec should hand it back: escape_field turns CR and LF into spaces.
// What the encoder makes of free text: every control byte a space.
std::string without_control_bytes(std::string s) {
  std::replace_if(s.begin(), s.end(), mixerd::validation::is_control_byte, ' ');
  return s;
}

bool has_control_byte(std::string_view text) {
  return std::any_of(text.begin(), text.end(), mixerd::validation::is_control_byte);
}

void check_device_line(const std::string& line) {
  const device_event event = parse_device_line(line);
  if (const auto* unknown = std::get_if<dev_unknown>(&event)) {
    FUZZ_CHECK(unknown->line == line, line);
    return;
  }
  if (const auto* s = std::get_if<dev_slider>(&event)) {
    FUZZ_CHECK(s->index >= 0 && s->index < mixerd::limits::slider_count, line);
    FUZZ_CHECK(s->value >= 0 && s->value <= 100, line);
  }
  if (const auto* m = std::get_if<dev_macro>(&event))
    FUZZ_CHECK(m->index >= 0 && m->index < mixerd::limits::macro_count, line);
  if (const auto* e = std::get_if<dev_encoder_turn>(&event))
    FUZZ_CHECK(e->delta != 0 && e->delta >= -1000 && e->delta <= 1000, line);
  if (const auto* m = std::get_if<dev_mute_press>(&event))
    FUZZ_CHECK(m->index >= master_index && m->index < mixerd::limits::mute_count, line);
  if (const auto* p = std::get_if<dev_macro_page>(&event))
    FUZZ_CHECK(p->page >= 0 && p->page < mixerd::limits::macro_page_count, line);
  if (const auto* a = std::get_if<dev_ack>(&event)) FUZZ_CHECK("ACK," + a->command == line, line);

  const std::string encoded = encode_device_event(event);
  const device_event again = parse_device_line(encoded);
  FUZZ_CHECK(again.index() == event.index(), line + " -> " + encoded);
  FUZZ_CHECK(encode_device_event(again) == encoded, line + " -> " + encoded);
}

// The text fields of a host command, in a fixed order, for comparisons.
std::vector<std::string> text_fields(const host_command& c) {
  if (const auto* v = std::get_if<cmd_vol>(&c)) return {v->label};
  if (const auto* m = std::get_if<cmd_macro>(&c)) return {m->name, m->icon};
  if (const auto* t = std::get_if<cmd_toast>(&c))
    return {t->icon, t->color, t->message, t->subtitle};
  return {};
}

// encode_host_command keeps the line limit, never emits a control byte, and the simulated device
// reads back the same command; shortened text is a prefix of the original on a character
// boundary (valid UTF-8 stays valid).
void check_host_command(const host_command& command, const std::string& context) {
  const encoded_line line = encode_host_command(command);
  FUZZ_CHECK(line.text.size() <= max_line, context);
  FUZZ_CHECK(!has_control_byte(line.text), context);
  if (std::holds_alternative<cmd_unknown>(command)) return;
  const host_command back = parse_host_line(line.text);
  FUZZ_CHECK(back.index() == command.index(), context + " -> " + line.text);
  FUZZ_CHECK(encode_host_command(back).text == line.text, context + " -> " + line.text);
  const auto before = text_fields(command);
  const auto after = text_fields(back);
  FUZZ_CHECK(before.size() == after.size(), context);
  bool any_shorter = false;
  for (std::size_t i = 0; i < before.size(); ++i) {
    const std::string original = without_control_bytes(before[i]);
    if (!line.shortened) {
      FUZZ_CHECK(after[i] == original, context + " -> " + line.text);
      continue;
    }
    FUZZ_CHECK(original.compare(0, after[i].size(), after[i]) == 0, context + " -> " + line.text);
    any_shorter = any_shorter || after[i].size() < original.size();
    if (valid_utf8(original)) FUZZ_CHECK(valid_utf8(after[i]), context + " -> " + line.text);
  }
  if (line.shortened) FUZZ_CHECK(any_shorter, context + " -> " + line.text);
}

void check_host_line(const std::string& line) {
  const host_command command = parse_host_line(line);
  if (const auto* unknown = std::get_if<cmd_unknown>(&command)) {
    FUZZ_CHECK(unknown->line == line, line);
    return;
  }
  check_host_command(command, line);
}

// Fields joined with escape_field split back into the same fields (control bytes become spaces).
void check_fields(const std::vector<std::string>& fields, const std::string& context) {
  std::string joined;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const std::string escaped = escape_field(fields[i]);
    FUZZ_CHECK(!has_control_byte(escaped), context);
    joined += (i == 0 ? "" : ",") + escaped;
  }
  const auto back = split_fields(joined);
  FUZZ_CHECK(back.size() == fields.size(), context + " -> " + joined);
  for (std::size_t i = 0; i < fields.size(); ++i)
    FUZZ_CHECK(back[i] == without_control_bytes(fields[i]), context + " -> " + joined);
}

void check_utf8_prefix(std::string_view text, std::size_t max_bytes) {
  const auto prefix = utf8_prefix(text, max_bytes);
  FUZZ_CHECK(prefix.data() == text.data() && prefix.size() <= max_bytes, std::string(text));
  if (text.size() <= max_bytes) FUZZ_CHECK(prefix.size() == text.size(), std::string(text));
  // A character is at most 4 bytes: at most 3 bytes more than needed are given up.
  if (text.size() > max_bytes) FUZZ_CHECK(prefix.size() + 3 >= max_bytes, std::string(text));
  if (valid_utf8(text)) FUZZ_CHECK(valid_utf8(prefix), std::string(text));
}

// Host commands with free text taken from the input: NUL-separated parts.
void check_built_commands(std::string_view bytes) {
  auto parts = mixerd::fuzz::split_on(bytes, '\0');
  parts.resize(std::max<std::size_t>(parts.size(), 5));
  const int number = parts[0].empty() ? 0 : static_cast<signed char>(parts[0][0]) * 300;
  const std::string context(bytes);
  check_host_command(cmd_vol{number % 7 - 1, parts[1], number}, context);
  check_host_command(cmd_macro{number % 11 - 1, parts[1], parts[2]}, context);
  check_host_command(cmd_toast{number, parts[1], parts[2], parts[3], parts[4]}, context);
  check_host_command(cmd_unknown{std::string(bytes)}, context);
  check_fields(parts, context);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes = as_text(data, size);
  const line_list expected = reference_lines(bytes);
  mixerd::fuzz::numbers pick(mixerd::fuzz::input_hash(bytes));
  for (int mode = 0; mode < 3; ++mode) {
    const line_list got = split_in_chunks(bytes, pick, mode);
    FUZZ_CHECK(got == expected, "chunking mode " + std::to_string(mode));
  }
  for (const auto& [line, overlong] : expected) {
    check_device_line(line);
    check_host_line(line);
    check_fields(split_fields(line), line);
  }
  // Lines are parsed as given too (the device actor never passes a terminator, but the codec
  // must not care).
  check_device_line(std::string(bytes));
  check_host_line(std::string(bytes));
  for (std::size_t max : {std::size_t{0}, std::size_t{1}, std::size_t{3}, max_line, size / 2})
    check_utf8_prefix(bytes, max);
  check_built_commands(bytes);
  return 0;
}
