#include "tools/mixerd/open_files.hpp"

#include <sys/resource.h>

#include <doctest/doctest.h>

#include <algorithm>

TEST_CASE("the soft open-files limit rises to the hard one, at most to the ceiling, never down") {
  rlimit saved{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &saved) == 0);
  rlimit lowered = saved;
  lowered.rlim_cur = std::min<rlim_t>(saved.rlim_cur, 256);
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &lowered) == 0);

  const auto raised = mixerd::raise_open_files_limit(300);
  CHECK(raised.error.empty());
  CHECK(raised.before == lowered.rlim_cur);
  CHECK(raised.hard == saved.rlim_max);
  CHECK(raised.soft ==
        std::max<std::uint64_t>(lowered.rlim_cur, std::min<std::uint64_t>(saved.rlim_max, 300)));
  rlimit now{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &now) == 0);
  CHECK(now.rlim_cur == raised.soft);
  CHECK(now.rlim_max == saved.rlim_max);

  // A lower ceiling than the limit in force changes nothing.
  const auto again = mixerd::raise_open_files_limit(100);
  CHECK(again.soft == raised.soft);
  CHECK(again.before == raised.soft);

  ::setrlimit(RLIMIT_NOFILE, &saved);
}
