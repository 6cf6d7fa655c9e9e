#include "protocol/system.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace mixerd::system {

namespace {

// One number at the front of `text` after any blanks; `text` moves past it.
std::optional<double> take_number(std::string_view& text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data() || !std::isfinite(value)) return std::nullopt;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  return value;
}

// `value` with `decimals` digits after the point ("0.42", "48.3").
std::string fixed(double value, int decimals) {
  char out[32];
  std::snprintf(out, sizeof out, "%.*f", decimals, value);
  return out;
}

}  // namespace

std::optional<double> parse_uptime(std::string_view text) {
  auto seconds = take_number(text);
  if (!seconds || *seconds < 0) return std::nullopt;
  return seconds;
}

std::optional<std::array<double, 3>> parse_loadavg(std::string_view text) {
  std::array<double, 3> load{};
  for (auto& average : load) {
    auto value = take_number(text);
    if (!value || *value < 0) return std::nullopt;
    average = *value;
  }
  return load;
}

std::optional<double> parse_millidegrees(std::string_view text) {
  auto value = take_number(text);
  if (!value) return std::nullopt;
  // Only a line end may follow: "48312abc" is not a temperature.
  for (char c : text)
    if (c != '\n' && c != ' ') return std::nullopt;
  return *value / 1000.0;
}

std::string uptime_text(double seconds) {
  const auto s = static_cast<long long>(seconds);
  const long long minute = 60, hour = 60 * minute, day = 24 * hour;
  if (s < minute) return std::to_string(s) + " s";
  if (s < hour) return std::to_string(s / minute) + " min";
  if (s < day) return std::to_string(s / hour) + " h " + std::to_string(s % hour / minute) + " min";
  return std::to_string(s / day) + " d " + std::to_string(s % day / hour) + " h";
}

nlohmann::json to_json(const system_view& view) {
  nlohmann::json out{
      {"uptime_s", static_cast<long long>(view.uptime_s)},
      {"load", {view.load[0], view.load[1], view.load[2]}},
      {"temperature_c", nullptr},
      {"thermal_zone", nullptr},
  };
  if (view.temperature_c) {
    out["temperature_c"] = std::round(*view.temperature_c * 10) / 10;
    out["thermal_zone"] = view.thermal_zone;
  }
  return out;
}

std::vector<status_fact> facts_of(const system_view& view) {
  if (!view.sampled) return {};
  std::vector<status_fact> facts{
      {"Uptime", uptime_text(view.uptime_s)},
      {"Load",
       fixed(view.load[0], 2) + ", " + fixed(view.load[1], 2) + ", " + fixed(view.load[2], 2)},
  };
  if (view.temperature_c) facts.push_back({"Temperature", fixed(*view.temperature_c, 1) + " °C"});
  return facts;
}

sensor_readings sensors_of(const system_view& view) {
  if (!view.sampled) return {};
  sensor_readings out{
      {"uptime", "Uptime", "s", "duration", "total_increasing",
       std::to_string(static_cast<long long>(view.uptime_s))},
      {"load_1m", "Load (1 min)", "", "", "measurement", fixed(view.load[0], 2)},
      {"load_5m", "Load (5 min)", "", "", "measurement", fixed(view.load[1], 2)},
      {"load_15m", "Load (15 min)", "", "", "measurement", fixed(view.load[2], 2)},
  };
  if (view.temperature_c)
    out.push_back({"temperature", "Temperature", "°C", "temperature", "measurement",
                   fixed(*view.temperature_c, 1)});
  return out;
}

}  // namespace mixerd::system
