#include "gateways/socketio/session_caps.hpp"

#include <algorithm>
#include <utility>

namespace mixerd::socketio::detail {

namespace {
constexpr std::string_view too_many_from_address = "Too many sessions from this address";
constexpr std::string_view too_many_sessions = "Too many sessions";
}  // namespace

std::string_view session_caps::refusal(const std::string& address) const {
  auto it = per_address_.find(address);
  if (it != per_address_.end() && it->second >= max_per_address_) return too_many_from_address;
  if (open_ >= max_total_) return too_many_sessions;
  return {};
}

void session_caps::opened(const std::string& address) {
  ++open_;
  ++per_address_[address];
  peak_ = std::max(peak_, open_);
}

bool session_caps::closed(const std::string& address) {
  if (auto it = per_address_.find(address); it != per_address_.end()) {
    if (--it->second == 0) per_address_.erase(it);
    --open_;
  }
  if (peak_ < trim_after_peak || open_ > peak_ / 4) return false;
  peak_ = open_;
  return true;
}

std::optional<std::size_t> session_caps::refused(clock::time_point now) {
  ++unreported_;
  if (now < next_report_) return std::nullopt;
  next_report_ = now + report_interval;
  return std::exchange(unreported_, 0);
}

}  // namespace mixerd::socketio::detail
