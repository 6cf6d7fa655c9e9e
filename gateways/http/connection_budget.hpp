// How many connections the listeners may hold, so that connections can never take the file
// descriptors that settings writes, the serial device and the audio server need. One budget is
// shared by every listener of the daemon: a cap on all connections together and a cap per client
// address (IPv6 clients counted per /64). When a new connection would pass a cap, the oldest idle
// connection (one waiting for a request: before its first one or between keep-alive requests) of
// the same address, or for the total cap of any address, is closed to make room; when there is
// none, the new connection is refused (closed at once, unanswered).
// Threading: io thread only (every listener runs on the one io thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>

namespace mixerd::http {

namespace detail {
class session_base;
}

struct connection_caps {
  std::size_t total = 0;
  std::size_t per_address = 0;
};

// The caps for a soft RLIMIT_NOFILE: fds kept in reserve for everything that is not a
// connection (files, the serial device, the audio server, the listeners, the runtime's own),
// a total of at most `max_total`, and a quarter of that per address.
inline constexpr std::size_t kFdReserve = 128;
inline constexpr std::size_t kMaxConnections = 2048;
connection_caps caps_for_fd_limit(std::uint64_t soft_limit);

class connection_budget;

// One admitted connection's place in the budget; the session that owns the connection holds it
// (the HTTP session, then the WebSocket session it upgraded to). Released when destroyed, by
// release(), or when the budget closes the connection to make room.
class connection_ticket {
 public:
  connection_ticket() = default;
  connection_ticket(connection_ticket&& other) noexcept;
  connection_ticket& operator=(connection_ticket&& other) noexcept;
  connection_ticket(const connection_ticket&) = delete;
  connection_ticket& operator=(const connection_ticket&) = delete;
  ~connection_ticket() { release(); }

  // The connection waits for a request: the budget may close it (through `session`).
  void idle(std::weak_ptr<detail::session_base> session);
  // The connection is working on a request (or became a WebSocket): the budget leaves it alone.
  void busy();
  void release();

 private:
  friend class connection_budget;
  struct place;
  connection_ticket(std::shared_ptr<connection_budget> budget, place* at);

  std::shared_ptr<connection_budget> budget_;
  place* place_ = nullptr;
};

class connection_budget : public std::enable_shared_from_this<connection_budget> {
 public:
  explicit connection_budget(connection_caps caps) : caps_(caps) {}

  enum class outcome { admitted, admitted_after_closing_idle, refused };
  struct admission {
    outcome what = outcome::refused;
    connection_ticket ticket;  // empty when refused
  };
  // A new connection from `address` (the client IP as the listener reports it).
  admission admit(const std::string& address);

  // Closes the oldest idle connection of any address, e.g. when accept() ran out of file
  // descriptors; false when no connection is idle.
  bool close_oldest_idle();

  const connection_caps& caps() const { return caps_; }
  std::size_t open() const { return open_; }
  std::size_t open_from(const std::string& address) const;

 private:
  friend class connection_ticket;
  struct group {
    std::size_t open = 0;
    std::list<connection_ticket::place*> idle;  // oldest first
  };

  void mark_idle(connection_ticket::place& at, std::weak_ptr<detail::session_base> session);
  void mark_busy(connection_ticket::place& at);
  void forget(connection_ticket::place& at);
  bool close_oldest(std::list<connection_ticket::place*>& idle);

  connection_caps caps_;
  std::size_t open_ = 0;
  std::unordered_map<std::string, group> groups_;
  std::list<connection_ticket::place*> idle_;  // every idle connection, oldest first
};

}  // namespace mixerd::http
