#include "protocol/hotkeys.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace mixerd::hotkeys {

namespace {

constexpr std::array<std::string_view, 4> modifier_order{"ctrl", "shift", "alt", "super"};

constexpr std::size_t max_text_bytes = 64;

std::vector<std::string> make_key_names() {
  std::vector<std::string> names;
  for (char c = 'a'; c <= 'z'; ++c)
    names.emplace_back(1, c);
  for (char c = '0'; c <= '9'; ++c)
    names.emplace_back(1, c);
  for (int f = 1; f <= 24; ++f)
    names.push_back("f" + std::to_string(f));
  for (
      const char* named :
      {"enter",          "esc",        "tab",       "space",       "backspace",        "delete",
       "insert",         "home",       "end",       "page_up",     "page_down",        "up",
       "down",           "left",       "right",     "print",       "media_play_pause", "media_next",
       "media_previous", "media_stop", "volume_up", "volume_down", "volume_mute"})
    names.emplace_back(named);
  return names;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (auto& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

const std::vector<std::string>& key_names() {
  static const std::vector<std::string> names = make_key_names();
  return names;
}

std::optional<combo> parse(std::string_view text, std::string& error) {
  if (text.empty() || text.size() > max_text_bytes) {
    error = "must be a key such as ctrl+shift+m, alt+f4 or media_play_pause";
    return std::nullopt;
  }
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    auto plus = text.find('+', start);
    parts.push_back(
        lower(text.substr(start, plus == std::string_view::npos ? plus : plus - start)));
    if (plus == std::string_view::npos) break;
    start = plus + 1;
  }
  std::array<bool, modifier_order.size()> seen{};
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    auto it = std::find(modifier_order.begin(), modifier_order.end(), parts[i]);
    if (it == modifier_order.end()) {
      error = "has '" + parts[i] + "' where a modifier (ctrl, shift, alt, super) belongs";
      return std::nullopt;
    }
    auto at = static_cast<std::size_t>(it - modifier_order.begin());
    if (seen[at]) {
      error = "names the modifier '" + parts[i] + "' twice";
      return std::nullopt;
    }
    seen[at] = true;
  }
  const auto& key = parts.back();
  const auto& names = key_names();
  if (std::find(names.begin(), names.end(), key) == names.end()) {
    error = key.empty() ? "must end with a key after its modifiers"
                        : "has the unknown key '" + key +
                              "' (a-z, 0-9, f1-f24, enter, esc, tab, space, media_play_pause, ...)";
    return std::nullopt;
  }
  combo result;
  for (std::size_t m = 0; m < modifier_order.size(); ++m)
    if (seen[m]) result.modifiers.emplace_back(modifier_order[m]);
  result.key = key;
  return result;
}

std::string to_string(const combo& c) {
  std::string out;
  for (const auto& m : c.modifiers)
    out += m + "+";
  return out + c.key;
}

}  // namespace mixerd::hotkeys
