#include "actors/audio/pulse_client.hpp"

#include <pulse/context.h>
#include <pulse/error.h>
#include <pulse/introspect.h>
#include <pulse/proplist.h>
#include <pulse/subscribe.h>
#include <pulse/thread-mainloop.h>
#include <pulse/volume.h>

#include <algorithm>
#include <caf/all.hpp>
#include <stdexcept>

namespace mixerd {

static_assert(audio::volume_norm == PA_VOLUME_NORM, "protocol/audio.hpp disagrees with libpulse");

namespace {

const char* prop(const pa_proplist* list, const char* key) {
  const char* value = list ? pa_proplist_gets(list, key) : nullptr;
  return value ? value : "";
}

// Holds the mainloop lock for one scope (callbacks run with it held already).
class loop_lock {
 public:
  explicit loop_lock(pa_threaded_mainloop* loop) : loop_(loop) { pa_threaded_mainloop_lock(loop_); }
  ~loop_lock() { pa_threaded_mainloop_unlock(loop_); }
  loop_lock(const loop_lock&) = delete;
  loop_lock& operator=(const loop_lock&) = delete;

 private:
  pa_threaded_mainloop* loop_;
};

}  // namespace

struct pulse_client::callbacks {
  static pulse_client& self(void* user) { return *static_cast<pulse_client*>(user); }

  static void on_state(pa_context* ctx, void* user) {
    auto& client = self(user);
    switch (pa_context_get_state(ctx)) {
      case PA_CONTEXT_READY: {
        client.ready_ = true;
        const char* server = pa_context_get_server(ctx);
        client.post_link(true, server ? server : "audio server");
        pa_context_set_subscribe_callback(ctx, on_event, user);
        auto mask = static_cast<pa_subscription_mask_t>(
            PA_SUBSCRIPTION_MASK_SINK | PA_SUBSCRIPTION_MASK_SOURCE |
            PA_SUBSCRIPTION_MASK_SINK_INPUT | PA_SUBSCRIPTION_MASK_SERVER);
        unref(pa_context_subscribe(ctx, mask, nullptr, nullptr));
        unref(pa_context_get_server_info(ctx, on_server, user));
        unref(pa_context_get_sink_input_info_list(ctx, on_new_stream, user));
        break;
      }
      case PA_CONTEXT_FAILED:
      case PA_CONTEXT_TERMINATED:
        client.ready_ = false;
        client.failed_ = true;
        client.post_link(false, pa_strerror(pa_context_errno(ctx)));
        break;
      default:
        break;
    }
  }

  static void on_event(pa_context* ctx, pa_subscription_event_type_t type, std::uint32_t index,
                       void* user) {
    auto facility = type & PA_SUBSCRIPTION_EVENT_FACILITY_MASK;
    auto what = type & PA_SUBSCRIPTION_EVENT_TYPE_MASK;
    if (facility == PA_SUBSCRIPTION_EVENT_SINK_INPUT) {
      if (what == PA_SUBSCRIPTION_EVENT_REMOVE)
        self(user).post(pulse_stream_gone{index});
      else
        unref(pa_context_get_sink_input_info(
            ctx, index, what == PA_SUBSCRIPTION_EVENT_NEW ? on_new_stream : on_changed_stream,
            user));
    } else if (what == PA_SUBSCRIPTION_EVENT_REMOVE) {
      return;  // a vanished sink or source shows up as a change of the server's defaults
    } else if (facility == PA_SUBSCRIPTION_EVENT_SINK) {
      unref(pa_context_get_sink_info_by_index(ctx, index, on_sink, user));
    } else if (facility == PA_SUBSCRIPTION_EVENT_SOURCE) {
      unref(pa_context_get_source_info_by_index(ctx, index, on_source, user));
    } else if (facility == PA_SUBSCRIPTION_EVENT_SERVER) {
      unref(pa_context_get_server_info(ctx, on_server, user));
    }
  }

  static void on_server(pa_context* ctx, const pa_server_info* info, void* user) {
    if (!info) return;
    pulse_defaults d;
    d.sink = info->default_sink_name ? info->default_sink_name : "";
    d.source = info->default_source_name ? info->default_source_name : "";
    d.server = std::string(info->server_name ? info->server_name : "audio server") + " " +
               (info->server_version ? info->server_version : "");
    // The defaults' own state follows, so that the owner has both in one order.
    if (!d.sink.empty())
      unref(pa_context_get_sink_info_by_name(ctx, d.sink.c_str(), on_sink, user));
    if (!d.source.empty())
      unref(pa_context_get_source_info_by_name(ctx, d.source.c_str(), on_source, user));
    self(user).post(std::move(d));
  }

  template <class Info>
  static pulse_device device_of(audio_object_kind kind, const Info& i) {
    return pulse_device{{kind, i.index},           i.name ? i.name : "",      i.volume.channels,
                        pa_cvolume_min(&i.volume), pa_cvolume_max(&i.volume), i.mute != 0};
  }

  static void on_sink(pa_context*, const pa_sink_info* info, int eol, void* user) {
    if (eol == 0 && info) self(user).post(device_of(audio_object_kind::sink, *info));
  }

  static void on_source(pa_context*, const pa_source_info* info, int eol, void* user) {
    if (eol == 0 && info) self(user).post(device_of(audio_object_kind::source, *info));
  }

  static void stream(const pa_sink_input_info* info, bool fresh, void* user) {
    pulse_stream s;
    s.index = info->index;
    s.who.name = prop(info->proplist, PA_PROP_APPLICATION_NAME);
    s.who.binary = prop(info->proplist, PA_PROP_APPLICATION_PROCESS_BINARY);
    s.who.id = prop(info->proplist, PA_PROP_APPLICATION_ID);
    // PipeWire's access module names a Flatpak client's app here (pipewire-pulse passes it on).
    s.who.flatpak_id = prop(info->proplist, "pipewire.access.portal.app_id");
    s.channels = info->volume.channels;
    s.volume_min = pa_cvolume_min(&info->volume);
    s.volume_max = pa_cvolume_max(&info->volume);
    s.muted = info->mute != 0;
    s.volume_writable = info->has_volume && info->volume_writable;
    s.fresh = fresh;
    self(user).post(std::move(s));
  }

  static void on_new_stream(pa_context*, const pa_sink_input_info* info, int eol, void* user) {
    if (eol == 0 && info) stream(info, true, user);
  }

  static void on_changed_stream(pa_context*, const pa_sink_input_info* info, int eol, void* user) {
    if (eol == 0 && info) stream(info, false, user);
  }

  static void on_done(pa_context* ctx, int /*success: a vanished stream fails, harmlessly*/,
                      void* user) {
    auto& client = self(user);
    if (client.waiting_.empty()) return;
    auto target = client.waiting_.front();
    client.waiting_.pop_front();
    client.post(pulse_op_done{target});
    // The owner drops the reports of an object that arrive while changes of its wait (they
    // may predate them). Once the last one is acknowledged, the object is read again: that report
    // reflects our change and anything the server applied around it, even when our change
    // itself changed nothing and so brings no change event of its own.
    if (std::find(client.waiting_.begin(), client.waiting_.end(), target) != client.waiting_.end())
      return;
    if (target.kind == audio_object_kind::sink)
      unref(pa_context_get_sink_info_by_index(ctx, target.index, on_sink, user));
    else if (target.kind == audio_object_kind::source)
      unref(pa_context_get_source_info_by_index(ctx, target.index, on_source, user));
    else
      unref(pa_context_get_sink_input_info(ctx, target.index, on_changed_stream, user));
  }

  static void unref(pa_operation* op) {
    if (op) pa_operation_unref(op);
  }
};

pulse_client::pulse_client(const caf::actor& owner)
    : owner_(caf::actor_cast<caf::weak_actor_ptr>(owner)), loop_(pa_threaded_mainloop_new()) {
  if (!loop_ || pa_threaded_mainloop_start(loop_) < 0)
    throw std::runtime_error("cannot start the libpulse mainloop thread");
  pa_threaded_mainloop_set_name(loop_, "mixerd-pulse");
}

pulse_client::~pulse_client() {
  {
    loop_lock lock(loop_);
    drop_context();
  }
  pa_threaded_mainloop_stop(loop_);
  pa_threaded_mainloop_free(loop_);
}

void pulse_client::drop_context() {
  if (!ctx_) return;
  pa_context_set_state_callback(ctx_, nullptr, nullptr);
  pa_context_set_subscribe_callback(ctx_, nullptr, nullptr);
  pa_context_disconnect(ctx_);
  pa_context_unref(ctx_);
  ctx_ = nullptr;
  ready_ = false;
  waiting_.clear();
}

void pulse_client::connect() {
  loop_lock lock(loop_);
  drop_context();
  ctx_ = pa_context_new(pa_threaded_mainloop_get_api(loop_), "mixerd");
  if (!ctx_) return post_link(false, "cannot create a libpulse context");
  pa_context_set_state_callback(ctx_, callbacks::on_state, this);
  failed_ = false;
  if (pa_context_connect(ctx_, nullptr, PA_CONTEXT_NOAUTOSPAWN, nullptr) < 0) {
    // Usually the state callback has said so already; the owner must hear it exactly once.
    bool told = failed_;
    std::string reason = pa_strerror(pa_context_errno(ctx_));
    drop_context();
    if (!told) post_link(false, reason);
  }
}

void pulse_client::set_volume(audio_object target, std::uint8_t channels, std::uint32_t raw) {
  if (channels == 0 || channels > PA_CHANNELS_MAX) return;
  loop_lock lock(loop_);
  if (!ready_) return;
  pa_cvolume volume;
  pa_cvolume_set(&volume, channels, raw);
  pa_operation* op = nullptr;
  switch (target.kind) {
    case audio_object_kind::stream:
      op = pa_context_set_sink_input_volume(ctx_, target.index, &volume, callbacks::on_done, this);
      break;
    case audio_object_kind::sink:
      op = pa_context_set_sink_volume_by_index(ctx_, target.index, &volume, callbacks::on_done,
                                               this);
      break;
    case audio_object_kind::source:
      op = pa_context_set_source_volume_by_index(ctx_, target.index, &volume, callbacks::on_done,
                                                 this);
      break;
  }
  issued(op, target);
}

void pulse_client::set_mute(audio_object target, bool muted) {
  loop_lock lock(loop_);
  if (!ready_) return;
  pa_operation* op = nullptr;
  switch (target.kind) {
    case audio_object_kind::stream:
      op = pa_context_set_sink_input_mute(ctx_, target.index, muted, callbacks::on_done, this);
      break;
    case audio_object_kind::sink:
      op = pa_context_set_sink_mute_by_index(ctx_, target.index, muted, callbacks::on_done, this);
      break;
    case audio_object_kind::source:
      op = pa_context_set_source_mute_by_index(ctx_, target.index, muted, callbacks::on_done, this);
      break;
  }
  issued(op, target);
}

void pulse_client::issued(pa_operation* op, audio_object target) {
  if (!op) {
    post(pulse_op_done{target});  // refused at once (context going down): nothing is pending
    return;
  }
  waiting_.push_back(target);
  pa_operation_unref(op);
}

void pulse_client::post_link(bool connected, std::string detail) {
  post(pulse_link{connected, std::move(detail)});
}

template <class T>
void pulse_client::post(T&& msg) {
  if (auto owner = caf::actor_cast<caf::actor>(owner_)) caf::anon_send(owner, std::forward<T>(msg));
}

}  // namespace mixerd
