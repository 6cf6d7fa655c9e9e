#include "actors/auth/login_throttle.hpp"

#include <algorithm>

#include "protocol/network.hpp"

namespace mixerd::auth {

login_throttle::login_throttle(std::size_t max_attempts, clock::duration window,
                               std::size_t max_clients)
    : max_attempts_(std::max<std::size_t>(max_attempts, 1)),
      window_(window),
      max_clients_(std::max<std::size_t>(max_clients, 1)) {}

void login_throttle::prune(std::vector<clock::time_point>& times, clock::time_point now) const {
  times.erase(times.begin(), std::find_if(times.begin(), times.end(),
                                          [&](clock::time_point t) { return now - t < window_; }));
}

void login_throttle::remove_one(std::vector<clock::time_point>& times, clock::time_point at) {
  auto it = std::find(times.begin(), times.end(), at);
  if (it != times.end()) times.erase(it);
}

// Clients are ordered by their latest counted attempt, so those whose window has passed are at
// the front. (An attempt taken back can leave a client a little older than its place says; it
// then goes when the ones before it do, at most one window later.)
void login_throttle::forget_expired(clock::time_point now) {
  while (!recency_.empty()) {
    auto it = by_client_.find(recency_.front());
    if (!it->second.times.empty() && now - it->second.times.back() < window_) break;
    by_client_.erase(it);
    recency_.pop_front();
  }
  prune(shared_, now);
}

login_throttle::admission login_throttle::admit(std::string_view address, clock::time_point now) {
  forget_expired(now);
  admission out;
  auto client = network::client_of(address);
  auto found = by_client_.find(client);
  if (found == by_client_.end() && by_client_.size() < max_clients_) {
    recency_.push_back(client);
    entry fresh;
    fresh.times.reserve(max_attempts_);
    fresh.recency = std::prev(recency_.end());
    found = by_client_.emplace(client, std::move(fresh)).first;
  }
  const bool shared = found == by_client_.end();
  auto& times = shared ? shared_ : found->second.times;
  prune(times, now);
  if (times.size() >= max_attempts_) {
    auto wait = std::chrono::ceil<std::chrono::seconds>(times.front() + window_ - now).count();
    out.retry_after = static_cast<int>(std::max<decltype(wait)>(wait, 1));
    return out;
  }
  out.admitted = true;
  out.earlier = times.size();
  times.push_back(now);
  if (!shared) recency_.splice(recency_.end(), recency_, found->second.recency);
  out.ticket = {shared ? std::string() : std::move(client), shared, now};
  return out;
}

void login_throttle::clear(const counted& ticket) {
  if (ticket.shared) return remove_one(shared_, ticket.at);
  auto it = by_client_.find(ticket.client);
  if (it == by_client_.end()) return;
  recency_.erase(it->second.recency);
  by_client_.erase(it);
}

void login_throttle::withdraw(const counted& ticket) {
  if (ticket.shared) return remove_one(shared_, ticket.at);
  auto it = by_client_.find(ticket.client);
  if (it == by_client_.end()) return;
  remove_one(it->second.times, ticket.at);
  if (it->second.times.empty()) {
    recency_.erase(it->second.recency);
    by_client_.erase(it);
  }
}

}  // namespace mixerd::auth
