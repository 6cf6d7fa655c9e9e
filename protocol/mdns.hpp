// The mDNS capability (docs/api.md section 1, "mDNS"; protocol/README.md, "mDNS"): the controller
// is advertised through the Avahi daemon as `_http._tcp` (`_https._tcp` with TLS) and
// `_mixerd._tcp`, TXT `path=/` and `version=<app version>`. The setting, the records and the
// messages of the mdns actor. Pure: no I/O.
#pragma once

#include <caf/replies_to.hpp>
#include <caf/type_id.hpp>
#include <caf/typed_actor.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/plugins.hpp"
#include "protocol/settings.hpp"

namespace mixerd {

// The daemon, once the controller listens: its bound port (port 0 in the settings is picked at
// start) and whether it speaks TLS.
struct mdns_listening {
  std::uint16_t port = 0;
  bool tls = false;
};

// From the Avahi client's callbacks (on Avahi's poll thread) to the actor: something changed,
// the actor reads the current state itself.
struct mdns_avahi_changed {};

using mdns_actor =
    caf::typed_actor<caf::reacts_to<mdns_listening>, caf::reacts_to<mdns_avahi_changed>,
                     caf::reacts_to<settings_reloaded>>;

namespace mdns {

inline constexpr std::string_view settings_key = "mdns";
inline constexpr std::string_view mixerd_type = "_mixerd._tcp";
// DNS-SD's limit for an instance name (one DNS label).
inline constexpr std::size_t max_name_bytes = 63;

// The setting `mdns`: true unless it is false.
bool enabled_in(const nlohmann::json& settings);

// "mixerd on <host>", cut to max_name_bytes without splitting a UTF-8 character.
std::string instance_name(std::string_view host_name);

// One service to publish under the instance name.
struct service_record {
  std::string type;  // "_http._tcp"
  std::uint16_t port = 0;
  std::vector<std::string> txt;  // "key=value"
};

// The controller's services: the web type (_http._tcp, or _https._tcp with TLS) and
// _mixerd._tcp, both with TXT path=/ and version=<app version>.
std::vector<service_record> records_for(const mdns_listening& where);

}  // namespace mdns

namespace settings_schema {
struct part;
}  // namespace settings_schema

// Its key of settings.json: mdns.
settings_schema::part mdns_settings();

}  // namespace mixerd

// The mdns capability's CAF type-ID block, chained after the plugins block (docs/architecture.md,
// "Type IDs"). Its values never leave the process: no serialization needed.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::mdns_listening)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::mdns_avahi_changed)

CAF_BEGIN_TYPE_ID_BLOCK(mixerd_mdns, caf::id_block::mixerd_plugins::end)
CAF_ADD_TYPE_ID(mixerd_mdns, (mixerd::mdns_listening))
CAF_ADD_TYPE_ID(mixerd_mdns, (mixerd::mdns_avahi_changed))
CAF_END_TYPE_ID_BLOCK(mixerd_mdns)
