#include "gateways/http/freed_memory.hpp"

#include <malloc.h>

#include <atomic>
#include <boost/asio/post.hpp>

namespace mixerd::http {

std::chrono::microseconds release_freed_memory() {
  const auto started = std::chrono::steady_clock::now();
#ifdef __GLIBC__
  malloc_trim(0);
#endif
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                               started);
}

void release_freed_memory_later(const boost::asio::any_io_executor& executor) {
  static std::atomic<bool> posted{false};
  if (posted.exchange(true)) return;
  boost::asio::post(executor, [] {
    posted = false;
    release_freed_memory();
  });
}

}  // namespace mixerd::http
