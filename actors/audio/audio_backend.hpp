// What the mixer needs from an audio server. The PulseAudio/PipeWire backend implements it in
// a later issue; until then `make_detached_backend` is used, which says plainly that no audio
// server is attached instead of pretending that volumes were applied.
#pragma once

#include <memory>
#include <string>

#include "protocol/requests.hpp"
#include "protocol/types.hpp"

namespace mixerd {

class audio_backend {
 public:
  virtual ~audio_backend() = default;
  // True while an audio server is connected and changes really take effect.
  virtual bool attached() const = 0;
  // Applies a volume (0-100) or mute to whatever an assignment names. Returns false when
  // nothing was changed (no server, or nothing matches the assignment).
  virtual bool set_volume(const assignment& target, int volume) = 0;
  virtual bool set_mute(const assignment& target, bool muted) = 0;
  // System-wide output (master volume and master mute).
  virtual bool set_master_volume(int volume) = 0;
  virtual bool set_master_mute(bool muted) = 0;
  // Applications playing audio now (empty without a server).
  virtual audio_sessions sessions() const = 0;
  // One line for the log, e.g. "no audio server attached".
  virtual std::string describe() const = 0;
};

std::unique_ptr<audio_backend> make_detached_backend();

}  // namespace mixerd
