#include "actors/mdns/mdns_actor.hpp"

#include <avahi-client/client.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>

#include <caf/all.hpp>
#include <chrono>

#include "actors/support/log.hpp"

namespace mixerd {

namespace {

constexpr std::string_view component = "mdns";
// Without a system bus there is no client to wait with: look again this often.
constexpr auto no_bus_retry = std::chrono::seconds(10);

using self_ptr = mdns_impl::stateful_pointer<mdns_state>;

// Avahi's thread lock, held for every call into the client library from the actor's thread.
class avahi_lock {
 public:
  explicit avahi_lock(AvahiThreadedPoll* poll) : poll_(poll) { avahi_threaded_poll_lock(poll_); }
  ~avahi_lock() { avahi_threaded_poll_unlock(poll_); }
  avahi_lock(const avahi_lock&) = delete;
  avahi_lock& operator=(const avahi_lock&) = delete;

 private:
  AvahiThreadedPoll* poll_;
};

// The callbacks run on Avahi's thread (or inside avahi_client_new): they only post.
void tell(void* userdata) {
  caf::anon_send(*static_cast<caf::actor*>(userdata), mdns_avahi_changed{});
}

void on_client(AvahiClient*, AvahiClientState, void* userdata) {
  tell(userdata);
}

void on_group(AvahiEntryGroup*, AvahiEntryGroupState, void* userdata) {
  tell(userdata);
}

// Adds every record to the (empty) group and commits it; AVAHI_ERR_COLLISION when the name is
// taken locally.
int add_services(mdns_state& st) {
  for (const auto& r : mdns::records_for(*st.where)) {
    AvahiStringList* txt = nullptr;
    for (const auto& t : r.txt)
      txt = avahi_string_list_add(txt, t.c_str());
    const int ret = avahi_entry_group_add_service_strlst(
        st.group, AVAHI_IF_UNSPEC, AVAHI_PROTO_UNSPEC, AvahiPublishFlags{}, st.instance.c_str(),
        r.type.c_str(), nullptr, nullptr, r.port, txt);
    avahi_string_list_free(txt);
    if (ret < 0) return ret;
  }
  return avahi_entry_group_commit(st.group);
}

void take_alternative_name(mdns_state& st) {
  char* other = avahi_alternative_service_name(st.instance.c_str());
  log::info(component, "the name '", st.instance, "' is taken; trying '", other, "'");
  st.instance = other;
  avahi_free(other);
}

// Registers the services when the client runs and the port is known. Called with the lock held.
void publish(mdns_state& st) {
  if (!st.client || !st.where || avahi_client_get_state(st.client) != AVAHI_CLIENT_S_RUNNING)
    return;
  if (!st.group) {
    st.group = avahi_entry_group_new(st.client, on_group, st.self_handle);
    if (!st.group) {
      log::warn(component, "cannot create an Avahi entry group: ",
                avahi_strerror(avahi_client_errno(st.client)));
      return;
    }
  }
  if (!avahi_entry_group_is_empty(st.group)) return;
  for (int attempt = 0; attempt < 10; ++attempt) {
    const int ret = add_services(st);
    if (ret == AVAHI_OK) return;
    avahi_entry_group_reset(st.group);
    if (ret != AVAHI_ERR_COLLISION) {
      log::warn(component, "cannot advertise the controller: ", avahi_strerror(ret));
      return;
    }
    take_alternative_name(st);
  }
}

void open_client(self_ptr self) {
  auto& st = self->state;
  if (!st.poll) {
    st.poll = avahi_threaded_poll_new();
    if (!st.poll || avahi_threaded_poll_start(st.poll) < 0) {
      log::warn(component, "cannot start Avahi's thread; not advertising");
      st.close();
      return;
    }
  }
  avahi_lock lock(st.poll);
  int error = 0;
  st.client = avahi_client_new(avahi_threaded_poll_get(st.poll), AVAHI_CLIENT_NO_FAIL, on_client,
                               st.self_handle, &error);
  if (!st.client) {
    // No system bus: nothing to wait on, so look again later.
    if (!st.told_absent)
      log::info(component, "no Avahi daemon (", avahi_strerror(error),
                "); the controller is not advertised until one runs");
    st.told_absent = true;
    self->delayed_send(self, no_bus_retry, mdns_avahi_changed{});
    return;
  }
  if (avahi_client_get_state(st.client) == AVAHI_CLIENT_CONNECTING && !st.told_absent) {
    log::info(component, "no Avahi daemon yet; the controller is advertised once one runs");
    st.told_absent = true;
  }
}

// Avahi said something changed: act on the client's and the group's current states.
void on_changed(self_ptr self) {
  auto& st = self->state;
  if (!st.enabled) return;
  if (!st.client) return open_client(self);
  bool reopen = false;
  {
    avahi_lock lock(st.poll);
    switch (avahi_client_get_state(st.client)) {
      case AVAHI_CLIENT_S_RUNNING:
        if (st.group && avahi_entry_group_get_state(st.group) == AVAHI_ENTRY_GROUP_COLLISION) {
          take_alternative_name(st);
          avahi_entry_group_reset(st.group);
          st.told_published = false;
        }
        publish(st);
        if (st.group && avahi_entry_group_get_state(st.group) == AVAHI_ENTRY_GROUP_ESTABLISHED &&
            !st.told_published) {
          log::info(component, "advertised as '", st.instance, "' on port ", st.where->port);
          st.told_published = true;
          st.told_absent = false;
        }
        break;
      case AVAHI_CLIENT_S_COLLISION:
      case AVAHI_CLIENT_S_REGISTERING:
        // The host name changes: our records go again once the client runs.
        if (st.group) avahi_entry_group_reset(st.group);
        st.told_published = false;
        break;
      case AVAHI_CLIENT_FAILURE:
        // The daemon went away (or the bus did): a new client waits for it to come back.
        log::info(component, "Avahi: ", avahi_strerror(avahi_client_errno(st.client)),
                  "; waiting for the daemon");
        avahi_client_free(st.client);  // frees its group too
        st.client = nullptr;
        st.group = nullptr;
        reopen = true;
        break;
      case AVAHI_CLIENT_CONNECTING:
        break;
    }
  }
  if (reopen) {
    st.told_published = false;
    st.told_absent = true;
    open_client(self);
  }
}

void set_enabled(self_ptr self, bool enabled) {
  auto& st = self->state;
  if (enabled == st.enabled) return;
  st.enabled = enabled;
  log::info(component, enabled ? "mdns on" : "mdns off: the controller is no longer advertised");
  if (!enabled) {
    st.close();
  } else {
    st.told_absent = false;
    open_client(self);
  }
}

}  // namespace

void mdns_state::close() {
  // Stopping first: no callback runs while the client is freed (it withdraws the services).
  if (poll) avahi_threaded_poll_stop(poll);
  if (client) avahi_client_free(client);
  if (poll) avahi_threaded_poll_free(poll);
  client = nullptr;
  group = nullptr;
  poll = nullptr;
  told_published = false;
}

mdns_state::~mdns_state() {
  close();
  delete self_handle;
}

mdns_impl::behavior_type mdns_behavior(mdns_impl::stateful_pointer<mdns_state> self,
                                       settings_actor settings, nlohmann::json initial_settings,
                                       std::string host_name) {
  auto& st = self->state;
  st.enabled = mdns::enabled_in(initial_settings);
  st.host_name = std::move(host_name);
  st.instance = mdns::instance_name(st.host_name);
  st.self_handle = new caf::actor(caf::actor_cast<caf::actor>(self));
  if (settings) self->send(settings, watch_atom_v, caf::actor_cast<caf::actor>(self));
  if (st.enabled) open_client(self);
  return {
      [self](const mdns_listening& where) {
        auto& st = self->state;
        st.where = where;
        if (!st.enabled || !st.client) return;
        avahi_lock lock(st.poll);
        if (st.group) avahi_entry_group_reset(st.group);
        st.told_published = false;
        publish(st);
      },
      [self](mdns_avahi_changed) { on_changed(self); },
      [self](const settings_reloaded& reloaded) {
        set_enabled(self, mdns::enabled_in(reloaded.settings));
      },
  };
}

}  // namespace mixerd
