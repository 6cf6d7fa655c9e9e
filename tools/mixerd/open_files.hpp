// The daemon's limit on open files (RLIMIT_NOFILE). A service gets a soft limit of 1024 unless
// told otherwise, however high the hard limit: mixerd raises the soft one itself (it uses epoll,
// never select(), so descriptors above 1024 are fine) and sizes its connection caps from it.
#pragma once

#include <cstdint>
#include <string>

namespace mixerd {

// Above this the soft limit is not raised: the connection caps never need more, and a child
// process (the overlay's command) inherits the limit.
inline constexpr std::uint64_t kOpenFilesCeiling = 65536;

struct open_files_limit {
  std::uint64_t before = 0;  // the soft limit mixerd was started with
  std::uint64_t soft = 0;    // the soft limit now
  std::uint64_t hard = 0;
  std::string error;  // why getrlimit/setrlimit failed; the limits then stay as they were
};

// Raises the soft limit to the hard one (at most `ceiling`; never lowers it).
open_files_limit raise_open_files_limit(std::uint64_t ceiling = kOpenFilesCeiling);

}  // namespace mixerd
