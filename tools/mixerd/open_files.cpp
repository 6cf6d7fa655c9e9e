#include "tools/mixerd/open_files.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace mixerd {

open_files_limit raise_open_files_limit(std::uint64_t ceiling) {
  open_files_limit out;
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    out.error = std::string("getrlimit: ") + std::strerror(errno);
    return out;
  }
  // RLIM_INFINITY is the largest rlim_t: the ceiling applies to it like to any other number.
  out.before = out.soft = limit.rlim_cur;
  out.hard = limit.rlim_max;
  const auto wanted =
      std::max<std::uint64_t>(limit.rlim_cur, std::min<std::uint64_t>(limit.rlim_max, ceiling));
  if (wanted == limit.rlim_cur) return out;
  limit.rlim_cur = static_cast<rlim_t>(wanted);
  if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) {
    out.error = std::string("setrlimit: ") + std::strerror(errno);
    return out;
  }
  out.soft = wanted;
  return out;
}

}  // namespace mixerd
