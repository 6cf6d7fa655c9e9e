// The engine's session counts on their own: the caps, that an address's count goes away with
// its last session, when freed memory is handed back, and how often refusals are reported.
#include "gateways/socketio/session_caps.hpp"

#include <chrono>
#include <string>

#include <doctest/doctest.h>

using mixerd::socketio::detail::session_caps;

TEST_CASE("the caps count per address and in all, and forget an address with its last session") {
  session_caps caps(3, 2);
  CHECK(caps.refusal("a").empty());
  caps.opened("a");
  caps.opened("a");
  CHECK(caps.refusal("a") == "Too many sessions from this address");
  CHECK(caps.refusal("b").empty());
  caps.opened("b");
  CHECK(caps.open() == 3);
  CHECK(caps.refusal("c") == "Too many sessions");
  CHECK(caps.refusal("a") == "Too many sessions from this address");  // its own cap first

  caps.closed("a");
  CHECK(caps.refusal("a").empty());
  caps.closed("a");
  caps.closed("b");
  CHECK(caps.open() == 0);
  CHECK(caps.addresses() == 0);  // no count of zero stays behind
  // A close the caps never saw opened changes nothing.
  caps.closed("z");
  CHECK(caps.open() == 0);
  CHECK(caps.refusal("c").empty());
}

TEST_CASE("freed memory is handed back once the sessions fall to a quarter of a large peak") {
  const auto peak = session_caps::trim_after_peak * 2;
  session_caps caps(peak, peak);
  for (std::size_t i = 0; i < peak; ++i)
    caps.opened("address " + std::to_string(i));
  std::size_t handed_back_at = 0;
  int times = 0;
  for (std::size_t i = 0; i < peak; ++i) {
    if (caps.closed("address " + std::to_string(i))) {
      ++times;
      if (times == 1) handed_back_at = caps.open();
    }
  }
  CHECK(times == 1);  // then the peak is the quarter left, below trim_after_peak
  CHECK(handed_back_at == peak / 4);
  CHECK(caps.addresses() == 0);

  // A peak below trim_after_peak never asks for it.
  session_caps small(1000, 1000);
  for (std::size_t i = 0; i + 1 < session_caps::trim_after_peak; ++i)
    small.opened("x");
  bool asked = false;
  for (std::size_t i = 0; i + 1 < session_caps::trim_after_peak; ++i)
    asked = small.closed("x") || asked;
  CHECK_FALSE(asked);
}

TEST_CASE("refusals are reported at once, then once per interval with their number") {
  session_caps caps(0, 0);
  const auto t0 = session_caps::clock::time_point{} + std::chrono::hours(1);
  CHECK(caps.refused(t0) == std::optional<std::size_t>(1));
  for (int i = 0; i < 999; ++i)
    CHECK_FALSE(caps.refused(t0 + std::chrono::seconds(1)));
  CHECK(caps.refused(t0 + session_caps::report_interval) == std::optional<std::size_t>(1000));
  CHECK_FALSE(caps.refused(t0 + session_caps::report_interval + std::chrono::seconds(1)));
}
