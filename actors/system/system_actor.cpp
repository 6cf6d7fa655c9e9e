#include "actors/system/system_actor.hpp"

#include <caf/all.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace mixerd {

namespace {

using self_ptr = system_actor::stateful_pointer<system_state>;

// A small file of /proc or /sys, whole; empty when it cannot be read. These files are a page
// at most and the kernel writes them on read, so this never waits on a disk.
std::string read_small_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void sample(self_ptr self) {
  auto& st = self->state;
  auto view = read_system(st.wiring.proc_dir, st.wiring.thermal_dir);
  auto facts = system::facts_of(view);
  st.wiring.view->store(std::move(view));
  if (facts == st.facts) return;
  st.facts = facts;
  self->send(st.wiring.hub, caf::publish_atom_v, event{status_facts{"system", std::move(facts)}});
}

}  // namespace

system_view read_system(const std::string& proc_dir, const std::string& thermal_dir) {
  namespace fs = std::filesystem;
  system_view view;
  view.sampled = true;
  if (auto uptime = system::parse_uptime(read_small_file(fs::path(proc_dir) / "uptime")))
    view.uptime_s = *uptime;
  if (auto load = system::parse_loadavg(read_small_file(fs::path(proc_dir) / "loadavg")))
    view.load = *load;
  std::error_code ec;
  for (fs::directory_iterator zone(thermal_dir, ec), end; !ec && zone != end; zone.increment(ec)) {
    if (zone->path().filename().string().rfind("thermal_zone", 0) != 0) continue;
    auto celsius = system::parse_millidegrees(read_small_file(zone->path() / "temp"));
    if (!celsius || (view.temperature_c && *view.temperature_c >= *celsius)) continue;
    view.temperature_c = celsius;
    auto type = read_small_file(zone->path() / "type");
    while (!type.empty() && (type.back() == '\n' || type.back() == ' '))
      type.pop_back();
    view.thermal_zone = type.empty() ? zone->path().filename().string() : type;
  }
  return view;
}

system_actor::behavior_type system_behavior(self_ptr self, system_wiring wiring) {
  auto& st = self->state;
  st.wiring = std::move(wiring);
  // The view holds the first sample (taken when the row spawned the actor); its facts are what
  // initial_state shows, so the next sample sends an event only when their wording changed.
  if (auto first = st.wiring.view->load()) st.facts = system::facts_of(*first);
  self->delayed_send(self, system::sample_interval, system_sample_due{});
  return {
      [self](system_sample_due) {
        sample(self);
        self->delayed_send(self, system::sample_interval, system_sample_due{});
      },
  };
}

}  // namespace mixerd
