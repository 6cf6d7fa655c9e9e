// The CAF type-ID block of mixerd: every type that travels between actors. Each capability's
// messages and interface are declared in protocol/<capability>.hpp; atoms in protocol/atoms.hpp.
#pragma once

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/type_id.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "protocol/atoms.hpp"
#include "protocol/audio.hpp"
#include "protocol/auth.hpp"
#include "protocol/device.hpp"
#include "protocol/device_codec.hpp"
#include "protocol/events.hpp"
#include "protocol/hub.hpp"
#include "protocol/macro_runs.hpp"
#include "protocol/macros.hpp"
#include "protocol/mdns.hpp"
#include "protocol/mixer.hpp"
#include "protocol/music.hpp"
#include "protocol/network.hpp"
#include "protocol/plants.hpp"
#include "protocol/plugins.hpp"
#include "protocol/profiles.hpp"
#include "protocol/settings.hpp"
#include "protocol/smarthome.hpp"
#include "protocol/stream.hpp"
#include "protocol/toast.hpp"
#include "protocol/types.hpp"

namespace mixerd {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, device_view& x) {
  return f(caf::meta::type_name("device_status"), x.connected, x.port, x.page, x.firmware_version,
           x.device_type);
}

}  // namespace mixerd

// Variants, JSON values and snapshots never leave the process: no serialization needed.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(nlohmann::json)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::event)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::event_kind_set)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::protocol::host_command)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::mixer_snapshot)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::settings_reloaded)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::set_slider_value)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::set_slider_assignment)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::toggle_mute)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::set_master_volume)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::assignment)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::audio_sessions)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::audio_slider_target)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::audio_slider_level)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::audio_master_level)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::master_observed)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::pulse_link)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::pulse_defaults)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::pulse_device)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::pulse_stream)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::pulse_stream_gone)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::pulse_op_done)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::auth_check)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::auth_state)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::login_attempt)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::login_outcome)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::logout_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::toast_admit)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::toast_admission)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::toast_post)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::toast_outcome)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::toast_notice)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::toast_handler_list)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::toast_switch)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::toast_switch_result)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::toast_history)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::toast_loaded)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::network_snapshot)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::plant_delete)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::plant_delete_outcome)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::mixer_apply)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::macro_trigger)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::macro_trigger_outcome)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::macro_edit)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::macro)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::macro_page_rename)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::macro_replace)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::profile_load)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::profile_outcome)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::macro_links)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::macro_step_done)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::profile_create)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::profile_save)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::profile_delete)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::profile_get)
// smarthome
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::smarthome_command)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::smarthome_outcome)
// stream
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::stream_scene_set)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::stream_source_set)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::stream_outcome)
// music
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::mpris_player_update)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::mpris_player_gone)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::mpris_call_done)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::media_command)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::media_outcome)
// plugins
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::plugin_switch)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::plugin_switch_result)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::plugin_macro_ask)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::plugin_macro_run)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::plugin_macro_outcome)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::plugin_output)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::plugin_ended)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::plugin_timer)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::mdns_listening)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::mdns_avahi_changed)

CAF_BEGIN_TYPE_ID_BLOCK(mixerd, caf::first_custom_type_id)

CAF_ADD_TYPE_ID(mixerd, (mixerd::device_view))
CAF_ADD_TYPE_ID(mixerd, (nlohmann::json))
CAF_ADD_TYPE_ID(mixerd, (mixerd::event))
CAF_ADD_TYPE_ID(mixerd, (mixerd::event_kind_set))
CAF_ADD_TYPE_ID(mixerd, (mixerd::protocol::host_command))
CAF_ADD_TYPE_ID(mixerd, (mixerd::mixer_snapshot))
CAF_ADD_TYPE_ID(mixerd, (mixerd::settings_reloaded))
CAF_ADD_TYPE_ID(mixerd, (mixerd::set_slider_value))
CAF_ADD_TYPE_ID(mixerd, (mixerd::set_slider_assignment))
CAF_ADD_TYPE_ID(mixerd, (mixerd::toggle_mute))
CAF_ADD_TYPE_ID(mixerd, (mixerd::set_master_volume))
CAF_ADD_TYPE_ID(mixerd, (mixerd::assignment))
CAF_ADD_TYPE_ID(mixerd, (mixerd::audio_sessions))
CAF_ADD_TYPE_ID(mixerd, (mixerd::audio_slider_target))
CAF_ADD_TYPE_ID(mixerd, (mixerd::audio_slider_level))
CAF_ADD_TYPE_ID(mixerd, (mixerd::audio_master_level))
CAF_ADD_TYPE_ID(mixerd, (mixerd::master_observed))
CAF_ADD_TYPE_ID(mixerd, (mixerd::pulse_link))
CAF_ADD_TYPE_ID(mixerd, (mixerd::pulse_defaults))
CAF_ADD_TYPE_ID(mixerd, (mixerd::pulse_device))
CAF_ADD_TYPE_ID(mixerd, (mixerd::pulse_stream))
CAF_ADD_TYPE_ID(mixerd, (mixerd::pulse_stream_gone))
CAF_ADD_TYPE_ID(mixerd, (mixerd::pulse_op_done))
CAF_ADD_TYPE_ID(mixerd, (mixerd::auth_check))
CAF_ADD_TYPE_ID(mixerd, (mixerd::auth_state))
CAF_ADD_TYPE_ID(mixerd, (mixerd::login_attempt))
CAF_ADD_TYPE_ID(mixerd, (mixerd::login_outcome))
CAF_ADD_TYPE_ID(mixerd, (mixerd::logout_request))
CAF_ADD_TYPE_ID(mixerd, (mixerd::toast_admit))
CAF_ADD_TYPE_ID(mixerd, (mixerd::toast_admission))
CAF_ADD_TYPE_ID(mixerd, (mixerd::toast_post))
CAF_ADD_TYPE_ID(mixerd, (mixerd::toast_outcome))
CAF_ADD_TYPE_ID(mixerd, (mixerd::toast_notice))
CAF_ADD_TYPE_ID(mixerd, (mixerd::toast_handler_list))
CAF_ADD_TYPE_ID(mixerd, (mixerd::toast_switch))
CAF_ADD_TYPE_ID(mixerd, (mixerd::toast_switch_result))
CAF_ADD_TYPE_ID(mixerd, (mixerd::toast_history))
CAF_ADD_TYPE_ID(mixerd, (mixerd::toast_loaded))
CAF_ADD_TYPE_ID(mixerd, (mixerd::network_snapshot))
CAF_ADD_TYPE_ID(mixerd, (mixerd::plant_delete))
CAF_ADD_TYPE_ID(mixerd, (mixerd::plant_delete_outcome))
CAF_ADD_TYPE_ID(mixerd, (mixerd::mixer_apply))
CAF_ADD_TYPE_ID(mixerd, (mixerd::macro_trigger))
CAF_ADD_TYPE_ID(mixerd, (mixerd::macro_trigger_outcome))
CAF_ADD_TYPE_ID(mixerd, (mixerd::macro_edit))
CAF_ADD_TYPE_ID(mixerd, (mixerd::macro))
CAF_ADD_TYPE_ID(mixerd, (mixerd::macro_page_rename))
CAF_ADD_TYPE_ID(mixerd, (mixerd::macro_replace))
CAF_ADD_TYPE_ID(mixerd, (mixerd::profile_load))
CAF_ADD_TYPE_ID(mixerd, (mixerd::profile_outcome))
CAF_ADD_TYPE_ID(mixerd, (mixerd::macro_links))
CAF_ADD_TYPE_ID(mixerd, (mixerd::macro_step_done))
CAF_ADD_TYPE_ID(mixerd, (mixerd::profile_create))
CAF_ADD_TYPE_ID(mixerd, (mixerd::profile_save))
CAF_ADD_TYPE_ID(mixerd, (mixerd::profile_delete))
CAF_ADD_TYPE_ID(mixerd, (mixerd::profile_get))
// smarthome
CAF_ADD_TYPE_ID(mixerd, (mixerd::smarthome_command))
CAF_ADD_TYPE_ID(mixerd, (mixerd::smarthome_outcome))
// stream
CAF_ADD_TYPE_ID(mixerd, (mixerd::stream_scene_set))
CAF_ADD_TYPE_ID(mixerd, (mixerd::stream_source_set))
CAF_ADD_TYPE_ID(mixerd, (mixerd::stream_outcome))
// music
CAF_ADD_TYPE_ID(mixerd, (mixerd::mpris_player_update))
CAF_ADD_TYPE_ID(mixerd, (mixerd::mpris_player_gone))
CAF_ADD_TYPE_ID(mixerd, (mixerd::mpris_call_done))
CAF_ADD_TYPE_ID(mixerd, (mixerd::media_command))
CAF_ADD_TYPE_ID(mixerd, (mixerd::media_outcome))
// plugins
CAF_ADD_TYPE_ID(mixerd, (mixerd::plugin_switch))
CAF_ADD_TYPE_ID(mixerd, (mixerd::plugin_switch_result))
CAF_ADD_TYPE_ID(mixerd, (mixerd::plugin_macro_ask))
CAF_ADD_TYPE_ID(mixerd, (mixerd::plugin_macro_run))
CAF_ADD_TYPE_ID(mixerd, (mixerd::plugin_macro_outcome))
CAF_ADD_TYPE_ID(mixerd, (mixerd::plugin_output))
CAF_ADD_TYPE_ID(mixerd, (mixerd::plugin_ended))
CAF_ADD_TYPE_ID(mixerd, (mixerd::plugin_timer))
// mdns
CAF_ADD_TYPE_ID(mixerd, (mixerd::mdns_listening))
CAF_ADD_TYPE_ID(mixerd, (mixerd::mdns_avahi_changed))

CAF_END_TYPE_ID_BLOCK(mixerd)
