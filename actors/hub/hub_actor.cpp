#include "actors/hub/hub_actor.hpp"

#include <algorithm>
#include <caf/all.hpp>

#include "actors/log.hpp"
#include "protocol/messages.hpp"

namespace mixerd {

namespace {
void remove(std::vector<caf::actor>& list, const caf::actor_addr& who) {
  list.erase(std::remove_if(list.begin(), list.end(),
                            [&](const caf::actor& a) { return a.address() == who; }),
             list.end());
}
}  // namespace

caf::behavior hub_actor(caf::stateful_actor<hub_state>* self, std::size_t max_subscribers) {
  self->state.max_subscribers = max_subscribers;
  self->set_down_handler(
      [self](const caf::down_msg& down) { remove(self->state.subscribers, down.source); });
  return {
      [self](caf::subscribe_atom, caf::actor& who) {
        auto& subs = self->state.subscribers;
        if (std::find(subs.begin(), subs.end(), who) != subs.end()) return;
        if (subs.size() >= self->state.max_subscribers) {
          log::warn("hub", "subscription refused: already ", subs.size(), " subscribers");
          return;
        }
        self->monitor(who);
        subs.push_back(std::move(who));
      },
      [self](caf::unsubscribe_atom, const caf::actor& who) {
        self->demonitor(who);
        remove(self->state.subscribers, who.address());
      },
      [self](caf::publish_atom, const event& e) {
        // One message object shared by all subscribers: CAF messages are copy-on-write.
        auto msg = caf::make_message(e);
        for (auto& s : self->state.subscribers)
          self->send(s, msg);
      },
  };
}

}  // namespace mixerd
