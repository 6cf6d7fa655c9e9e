#include "protocol/events.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace mixerd {

namespace detail {
std::size_t next_event_kind_index(std::string_view wire_name) {
  static std::atomic<std::size_t> next{0};
  const auto index = next.fetch_add(1, std::memory_order_relaxed);
  if (index >= max_event_kinds) {
    // A build with more event types than the set holds is a programming error, found at once.
    std::fprintf(stderr, "mixerd: more than %zu event kinds (at %s): raise max_event_kinds\n",
                 max_event_kinds, std::string(wire_name).c_str());
    std::abort();
  }
  return index;
}
}  // namespace detail

event_kind_set client_kinds(const event_kind_list& declared) {
  event_kind_set set;
  for (const auto* kind : declared)
    if (kind->for_clients) set.set(kind->index);
  return set;
}

}  // namespace mixerd
