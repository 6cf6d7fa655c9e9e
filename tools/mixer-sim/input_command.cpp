#include "tools/mixer-sim/input_command.hpp"

#include <charconv>
#include <vector>

#include "protocol/limits.hpp"

namespace mixerd::sim {

namespace {

constexpr int encoder_max_delta = 1000;

constexpr std::string_view help_text =
    R"(Commands (buttons and sliders count from 1 like the web API; the wire counts from 0):
  slider <1-4> <0-100>   move a slider               -> SLIDER,<i-1>,<v>
  press <1-9>            press a macro button        -> MACRO,<i-1>,PRESS
  release <1-9>          release a macro button      -> MACRO,<i-1>,RELEASE
  mute <1-4>             press a mute button         -> MUTE,<i-1>,PRESS
  mute master            press the master mute       -> MUTE,MASTER,PRESS
  encoder <n>            turn the encoder n detents  -> ENCODER,<n> (n != 0, < 0 = counter-clockwise)
  encoder press|release  the encoder switch          -> ENCODER,PRESS / ENCODER,RELEASE
  page <NAME>            the display shows a page    -> PAGE,<NAME>
  mpage <0-3>            switch the macro page       -> MPAGE,<n> (0-based, as macro pages in the API)
  raw <line>             send a line verbatim
  unplug                 pull the cable: the pty closes and the host sees a hang-up
  replug                 plug in again on a new pty (a --link path is re-pointed to it)
  demo on|off            move the sliders slowly on their own
  help                   this text
)";

std::string_view trim(std::string_view s) {
  constexpr std::string_view space = " \t\r\n";
  auto first = s.find_first_not_of(space);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(space) - first + 1);
}

std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> words;
  while (!(s = trim(s)).empty()) {
    auto end = s.find_first_of(" \t");
    words.push_back(s.substr(0, end));
    s = end == std::string_view::npos ? std::string_view{} : s.substr(end);
  }
  return words;
}

}  // namespace

std::optional<int> parse_bounded_int(std::string_view s, int min, int max) {
  // from_chars takes no '+', but people type "encoder +2".
  if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
    if (s.empty() || s.front() < '0' || s.front() > '9') return std::nullopt;
  }
  int value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || value < min || value > max) {
    return std::nullopt;
  }
  return value;
}

input_command parse_input_command(std::string_view text) {
  using k = input_command::kind;
  auto fail = [](std::string message) { return input_command{k::error, {}, std::move(message)}; };
  auto emit = [](protocol::device_event e) {
    return input_command{k::device_line, std::move(e), {}};
  };
  auto words = split_words(text);
  if (words.empty()) return {};
  std::string_view verb = words[0];
  // Everything after the verb, for the commands that take free text.
  std::string_view rest = trim(trim(text).substr(verb.size()));
  std::size_t args = words.size() - 1;

  if (verb == "help") return {k::help, {}, {}};
  if (verb == "demo") {
    if (args != 1 || (words[1] != "on" && words[1] != "off")) return fail("usage: demo on|off");
    return {words[1] == "on" ? k::demo_on : k::demo_off, {}, {}};
  }
  if (verb == "unplug") return {k::unplug, {}, {}};
  if (verb == "replug") return {k::replug, {}, {}};
  if (verb == "slider") {
    if (args != 2) return fail("usage: slider <1-4> <0-100>");
    auto index = parse_bounded_int(words[1], 1, limits::slider_count);
    if (!index) return fail("slider index must be 1-4");
    auto value = parse_bounded_int(words[2], limits::volume_min, limits::volume_max);
    if (!value) return fail("slider value must be 0-100");
    return emit(protocol::dev_slider{*index - 1, *value});
  }
  if (verb == "press" || verb == "release") {
    if (args != 1) return fail("usage: " + std::string(verb) + " <1-9>");
    auto index = parse_bounded_int(words[1], 1, limits::macro_count);
    if (!index) return fail("macro button must be 1-9");
    return emit(protocol::dev_macro{*index - 1, verb == "press"});
  }
  if (verb == "mute") {
    if (args != 1) return fail("usage: mute <1-4>|master");
    if (words[1] == "master") return emit(protocol::dev_mute_press{protocol::master_index});
    auto index = parse_bounded_int(words[1], 1, limits::mute_count);
    if (!index) return fail("mute index must be 1-4 or 'master'");
    return emit(protocol::dev_mute_press{*index - 1});
  }
  if (verb == "encoder") {
    if (args != 1) return fail("usage: encoder <n>|press|release");
    if (words[1] == "press" || words[1] == "release")
      return emit(protocol::dev_encoder_button{words[1] == "press"});
    auto delta = parse_bounded_int(words[1], -encoder_max_delta, encoder_max_delta);
    if (!delta || *delta == 0)
      return fail("encoder delta must be a non-zero integer from -1000 to 1000");
    return emit(protocol::dev_encoder_turn{*delta});
  }
  if (verb == "page") {
    if (rest.empty()) return fail("usage: page <NAME>");
    return emit(protocol::dev_page{std::string(rest)});
  }
  if (verb == "mpage") {
    if (args != 1) return fail("usage: mpage <0-3>");
    auto page = parse_bounded_int(words[1], 0, limits::macro_page_count - 1);
    if (!page) return fail("macro page must be 0-3");
    return emit(protocol::dev_macro_page{*page});
  }
  if (verb == "raw") {
    if (rest.empty()) return fail("usage: raw <line>");
    return {k::raw_line, {}, std::string(rest)};
  }
  return fail("unknown command '" + std::string(verb) + "' (try 'help')");
}

std::string_view input_help() {
  return help_text;
}

}  // namespace mixerd::sim
