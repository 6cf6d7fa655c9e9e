#include "protocol/audio.hpp"

#include <algorithm>
#include <cmath>

#include "protocol/json.hpp"

namespace mixerd {

// ---- Events ------------------------------------------------------------------------------

nlohmann::json audio_status::to_json() const {
  return {{"connected", connected}, {"server", server}};
}

}  // namespace mixerd

namespace mixerd::audio {

namespace {

std::string_view without_exe(std::string_view name) {
  constexpr std::string_view exe = ".exe";
  if (name.size() > exe.size()) {
    auto tail = name.substr(name.size() - exe.size());
    if (std::equal(tail.begin(), tail.end(), exe.begin(), [](char a, char b) {
          return (a >= 'A' && a <= 'Z' ? a + ('a' - 'A') : a) == b;
        }))
      return name.substr(0, name.size() - exe.size());
  }
  return name;
}

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c;
}

}  // namespace

std::uint32_t raw_volume(int percent) {
  percent = std::clamp(percent, limits::volume_min, limits::volume_max);
  return static_cast<std::uint32_t>(std::lround(percent * (volume_norm / 100.0)));
}

int percent_volume(std::uint32_t raw) {
  auto percent = std::lround(raw * (100.0 / volume_norm));
  return static_cast<int>(std::clamp<long>(percent, limits::volume_min, limits::volume_max));
}

bool same_app(std::string_view a, std::string_view b) {
  a = without_exe(a);
  b = without_exe(b);
  return !a.empty() && a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(),
                    [](char x, char y) { return lower(x) == lower(y); });
}

bool covers(const assignment& target, std::string_view app_name, std::string_view binary) {
  if (target.type != assignment_type::app) return false;
  return std::any_of(target.names.begin(), target.names.end(), [&](const std::string& name) {
    return same_app(name, app_name) || same_app(name, binary);
  });
}

std::string_view session_name(std::string_view app_name, std::string_view binary) {
  return binary.empty() ? app_name : binary;
}

}  // namespace mixerd::audio
