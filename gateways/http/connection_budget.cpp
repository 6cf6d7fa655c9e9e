#include "gateways/http/connection_budget.hpp"

#include <algorithm>

#include "gateways/http/detail.hpp"
#include "protocol/network.hpp"

namespace mixerd::http {

struct connection_ticket::place {
  std::string group;
  std::weak_ptr<detail::session_base> session;
  bool counted = true;  // false once the budget let go of it (closed to make room)
  bool idle = false;
  std::list<place*>::iterator in_all;
  std::list<place*>::iterator in_group;
};

connection_caps caps_for_fd_limit(std::uint64_t soft_limit) {
  const auto reserve = std::min<std::uint64_t>(kFdReserve, soft_limit / 2);
  const auto total = std::min<std::uint64_t>(kMaxConnections, soft_limit - reserve);
  connection_caps caps;
  caps.total = std::max<std::size_t>(1, static_cast<std::size_t>(total));
  caps.per_address = std::max<std::size_t>(1, caps.total / 4);
  return caps;
}

// ---- connection_ticket --------------------------------------------------------------------------

connection_ticket::connection_ticket(std::shared_ptr<connection_budget> budget, place* at)
    : budget_(std::move(budget)), place_(at) {}

connection_ticket::connection_ticket(connection_ticket&& other) noexcept
    : budget_(std::move(other.budget_)), place_(other.place_) {
  other.place_ = nullptr;
}

connection_ticket& connection_ticket::operator=(connection_ticket&& other) noexcept {
  if (this != &other) {
    release();
    budget_ = std::move(other.budget_);
    place_ = other.place_;
    other.place_ = nullptr;
  }
  return *this;
}

void connection_ticket::idle(std::weak_ptr<detail::session_base> session) {
  if (place_ && place_->counted) budget_->mark_idle(*place_, std::move(session));
}

void connection_ticket::busy() {
  if (place_ && place_->counted) budget_->mark_busy(*place_);
}

void connection_ticket::release() {
  if (!place_) return;
  budget_->forget(*place_);
  delete place_;
  place_ = nullptr;
  budget_.reset();
}

// ---- connection_budget --------------------------------------------------------------------------

connection_budget::admission connection_budget::admit(const std::string& address) {
  admission result;
  auto key = network::client_of(address);
  bool closed_idle = false;
  {
    auto found = groups_.find(key);
    if (found != groups_.end() && found->second.open >= caps_.per_address) {
      if (!close_oldest(found->second.idle)) return result;
      closed_idle = true;
    }
  }
  if (open_ >= caps_.total) {
    if (!close_oldest(idle_)) return result;
    closed_idle = true;
  }
  // Looked up again: closing may have erased the group.
  auto& g = groups_[key];
  ++g.open;
  ++open_;
  auto* at = new connection_ticket::place{std::move(key), {}, true, false, {}, {}};
  result.ticket = connection_ticket(shared_from_this(), at);
  result.what = closed_idle ? outcome::admitted_after_closing_idle : outcome::admitted;
  return result;
}

bool connection_budget::close_oldest_idle() {
  return close_oldest(idle_);
}

std::size_t connection_budget::open_from(const std::string& address) const {
  auto found = groups_.find(network::client_of(address));
  return found == groups_.end() ? 0 : found->second.open;
}

void connection_budget::mark_idle(connection_ticket::place& at,
                                  std::weak_ptr<detail::session_base> session) {
  at.session = std::move(session);
  if (at.idle) return;
  at.idle = true;
  at.in_all = idle_.insert(idle_.end(), &at);
  auto& g = groups_[at.group];
  at.in_group = g.idle.insert(g.idle.end(), &at);
}

void connection_budget::mark_busy(connection_ticket::place& at) {
  if (!at.idle) return;
  at.idle = false;
  idle_.erase(at.in_all);
  groups_[at.group].idle.erase(at.in_group);
  at.session.reset();
}

void connection_budget::forget(connection_ticket::place& at) {
  if (!at.counted) return;
  mark_busy(at);
  at.counted = false;
  --open_;
  auto found = groups_.find(at.group);
  if (found != groups_.end() && --found->second.open == 0) groups_.erase(found);
}

bool connection_budget::close_oldest(std::list<connection_ticket::place*>& idle) {
  while (!idle.empty()) {
    auto* at = idle.front();
    auto session = at->session.lock();
    // Forgetting the last connection of an address erases its group, and `idle` with it.
    const bool was_last = idle.size() == 1;
    // Let go first: closing releases the ticket, which must then find nothing to undo.
    forget(*at);
    if (session) {
      session->close();
      return true;
    }
    if (was_last) return false;
  }
  return false;
}

}  // namespace mixerd::http
