#include "actors/audio/audio_backend.hpp"

namespace mixerd {

namespace {

// Used when no audio server is reachable (or none is built in yet): state is still tracked
// by the mixer and shown on the device, but nothing is claimed to have been applied.
class detached_backend final : public audio_backend {
 public:
  bool attached() const override { return false; }
  bool set_volume(const assignment&, int) override { return false; }
  bool set_mute(const assignment&, bool) override { return false; }
  bool set_master_volume(int) override { return false; }
  bool set_master_mute(bool) override { return false; }
  audio_sessions sessions() const override { return {}; }
  std::string describe() const override { return "no audio server attached"; }
};

}  // namespace

std::unique_ptr<audio_backend> make_detached_backend() {
  return std::make_unique<detached_backend>();
}

}  // namespace mixerd
