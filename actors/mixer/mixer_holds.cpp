#include "actors/mixer/mixer_holds.hpp"

#include <algorithm>

namespace mixerd {

bool mute_holds::hold(int index, bool now, bool muted, const std::string& holder) {
  auto [it, first] = by_index_.try_emplace(index);
  auto& held = it->second;
  if (first) held.before = now;
  auto& list = held.holders;
  list.erase(std::remove_if(list.begin(), list.end(),
                            [&](const holder_state& h) { return h.holder == holder; }),
             list.end());
  list.push_back({holder, muted});
  return muted;
}

std::optional<bool> mute_holds::release(int index, const std::string& holder) {
  auto it = by_index_.find(index);
  if (it == by_index_.end()) return std::nullopt;
  auto& list = it->second.holders;
  auto mine = std::find_if(list.begin(), list.end(),
                           [&](const holder_state& h) { return h.holder == holder; });
  if (mine == list.end()) return std::nullopt;
  list.erase(mine);
  if (!list.empty()) return list.back().muted;
  const bool before = it->second.before;
  by_index_.erase(it);
  return before;
}

}  // namespace mixerd
