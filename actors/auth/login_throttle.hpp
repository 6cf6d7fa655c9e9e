// The failed-login throttle (docs/api.md, "Throttle"): every login attempt counts against its
// client when it arrives, before its password is checked; with `max_attempts` counted in the
// last `window`, the next attempt is refused until the oldest leaves the window. A successful
// login clears its client; an attempt that was never checked (the checks were busy) is taken
// back. Pure: the caller passes the time.
//
// A client is an IPv4 address, or the /64 network of an IPv6 address (one host usually holds a
// whole /64 and can pick a new address from it for every attempt). Memory is bounded: at most
// `max_clients` clients are tracked. When that many have attempts in the window, every further
// client counts in one shared entry with the same limit: a full table never lets an attempt go
// uncounted, it only makes new clients share one allowance until tracked ones leave the window.
#pragma once

#include <chrono>
#include <cstddef>
#include <list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mixerd::auth {

class login_throttle {
 public:
  using clock = std::chrono::steady_clock;

  // Where one admitted attempt was counted, to clear or take it back later.
  struct counted {
    std::string client;   // empty for the shared entry
    bool shared = false;  // counted in the shared entry (the table was full)
    clock::time_point at;
  };

  struct admission {
    bool admitted = false;
    int retry_after = 0;      // refused: whole seconds (at least 1) until the oldest leaves
    std::size_t earlier = 0;  // admitted: attempts already counted in the same entry
    counted ticket;           // admitted: where this one counts
  };

  login_throttle(std::size_t max_attempts, clock::duration window, std::size_t max_clients);

  // Counts an attempt from `address` at `now`, or refuses it (and counts nothing).
  admission admit(std::string_view address, clock::time_point now);
  // A successful login: its client starts over. In the shared entry, only its own attempt is
  // taken back (the others there are other clients').
  void clear(const counted& ticket);
  // Takes back one attempt that was never checked.
  void withdraw(const counted& ticket);

  std::size_t tracked_clients() const { return by_client_.size(); }
  std::size_t shared_attempts() const { return shared_.size(); }

 private:
  struct entry {
    std::vector<clock::time_point> times;  // counted attempts, oldest first
    std::list<std::string>::iterator recency;
  };
  void forget_expired(clock::time_point now);
  void prune(std::vector<clock::time_point>& times, clock::time_point now) const;
  static void remove_one(std::vector<clock::time_point>& times, clock::time_point at);

  std::size_t max_attempts_;
  clock::duration window_;
  std::size_t max_clients_;
  std::unordered_map<std::string, entry> by_client_;
  std::list<std::string> recency_;  // by latest counted attempt, least recent first
  std::vector<clock::time_point> shared_;
};

}  // namespace mixerd::auth
