// The libpulse side of the audio actor (PulseAudio, or PipeWire through pipewire-pulse). One
// pa_threaded_mainloop thread lives as long as the client; each connection attempt gets a fresh
// context. Server callbacks become pulse_* messages (protocol/audio.hpp) to the owner, in the
// order the server sent them; the owner's changes become libpulse requests. It keeps no audio
// state of its own: the audio actor owns the mirror of the server and the desired state.
#pragma once

#include <caf/actor.hpp>
#include <caf/weak_intrusive_ptr.hpp>
#include <cstdint>
#include <deque>
#include <string>

#include "protocol/audio.hpp"

struct pa_threaded_mainloop;
struct pa_context;
struct pa_operation;

namespace mixerd {

class pulse_client {
 public:
  // Starts the mainloop thread; observations go to `owner` (held weakly).
  explicit pulse_client(const caf::actor& owner);
  ~pulse_client();  // disconnects and joins the mainloop thread
  pulse_client(const pulse_client&) = delete;
  pulse_client& operator=(const pulse_client&) = delete;

  // Drops any current context and starts connecting to the user's server (PULSE_SERVER or the
  // default socket; never autospawns one). The outcome arrives as pulse_link.
  void connect();

  // Each sends one request; its acknowledgement arrives as pulse_op_done. Ignored while the
  // context is not ready. `channels` is the object's channel count: all get the same volume.
  // When the acknowledged change was the last one waiting for a sink or source, a fresh
  // pulse_device of it follows (read after the server applied the change).
  void set_volume(audio_object target, std::uint8_t channels, std::uint32_t raw);
  void set_mute(audio_object target, bool muted);

 private:
  struct callbacks;  // the C callbacks, friends of this class
  void drop_context();
  void issued(pa_operation* op, audio_object target);
  void post_link(bool connected, std::string detail);
  template <class T>
  void post(T&& msg);

  caf::weak_actor_ptr owner_;
  pa_threaded_mainloop* loop_ = nullptr;
  pa_context* ctx_ = nullptr;
  // Guarded by the mainloop lock, like everything libpulse:
  bool ready_ = false;
  bool failed_ = false;  // the current context has reported its failure
  // Changes still waiting for the server's acknowledgement, oldest first. The server answers a
  // context's requests in order, so each acknowledgement belongs to the front one.
  std::deque<audio_object> waiting_;
};

}  // namespace mixerd
