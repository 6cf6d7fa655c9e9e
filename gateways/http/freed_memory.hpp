// Handing freed heap memory back to the system. glibc keeps the pages of freed blocks in its
// heaps; after a flood of sessions, or a client that made the daemon queue megabytes for it
// before it was dropped, RSS would stay at the flood's peak although nothing uses that memory.
#pragma once

#include <chrono>
#include <cstddef>

#include <boost/asio/any_io_executor.hpp>

namespace mixerd::http {

// Hands the free pages of every malloc heap back to the system (glibc's malloc_trim). It walks
// every heap: call it in an io turn of its own, never per request. Returns the time it took.
std::chrono::microseconds release_freed_memory();

// Posts one release_freed_memory to `executor`; calls while one is posted join it.
void release_freed_memory_later(const boost::asio::any_io_executor& executor);

// A client that once had at least this much output waiting: when it ends, its memory goes back
// (smaller amounts are not worth a walk of every heap).
inline constexpr std::size_t trim_after_bytes = 1024 * 1024;

}  // namespace mixerd::http
