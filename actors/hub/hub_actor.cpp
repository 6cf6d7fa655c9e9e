#include "actors/hub/hub_actor.hpp"

#include <algorithm>
#include <caf/all.hpp>

#include "actors/support/log.hpp"

namespace mixerd {

namespace {
void remove(std::vector<hub_state::subscriber>& list, const caf::actor_addr& who) {
  list.erase(std::remove_if(list.begin(), list.end(),
                            [&](const hub_state::subscriber& s) { return s.who.address() == who; }),
             list.end());
}
}  // namespace

hub_actor::behavior_type hub_behavior(hub_actor::stateful_pointer<hub_state> self,
                                      std::size_t max_subscribers) {
  self->state.max_subscribers = max_subscribers;
  self->set_down_handler(
      [self](const caf::down_msg& down) { remove(self->state.subscribers, down.source); });
  return {
      [self](caf::subscribe_atom, caf::actor& who, event_kind_set kinds) {
        auto& subs = self->state.subscribers;
        auto known = std::find_if(subs.begin(), subs.end(),
                                  [&](const hub_state::subscriber& s) { return s.who == who; });
        if (known != subs.end()) {
          known->kinds = kinds;
          return;
        }
        if (subs.size() >= self->state.max_subscribers) {
          log::warn("hub", "subscription refused: already ", subs.size(), " subscribers");
          return;
        }
        self->monitor(who);
        subs.push_back({std::move(who), kinds});
      },
      [self](caf::unsubscribe_atom, const caf::actor& who) {
        self->demonitor(who);
        remove(self->state.subscribers, who.address());
      },
      [self](caf::publish_atom, const event& e) {
        if (e.empty()) return;
        const auto kind = e.kind().index;
        // One message object shared by all subscribers: CAF messages are copy-on-write.
        caf::message msg;
        for (auto& s : self->state.subscribers) {
          if (!s.kinds.test(kind)) continue;
          if (msg.empty()) msg = caf::make_message(e);
          caf::anon_send(s.who, msg);
        }
      },
  };
}

}  // namespace mixerd
