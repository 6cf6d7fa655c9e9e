// What the capability table hands to everyone who talks to the capabilities: each capability's
// actor handle (by its interface type), the snapshot slot it publishes its readable state to
// (by the view type), and the contributions to Socket.IO's initial_state. Filled once while the
// actors are spawned, read-only afterwards, so any thread may read it without a lock.
#pragma once

#include <caf/actor.hpp>
#include <caf/actor_cast.hpp>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <typeindex>
#include <vector>

#include "protocol/events.hpp"
#include "protocol/metrics.hpp"
#include "protocol/sensors.hpp"
#include "protocol/snapshot.hpp"

namespace mixerd {

class directory {
 public:
  // Adds `contribute` to the parts of initial_state: it writes its keys into the object.
  using contribution = std::function<void(const directory&, nlohmann::json& state)>;

  template <class Handle>
  void add(const Handle& handle) {
    handles_[typeid(Handle)] = caf::actor_cast<caf::strong_actor_ptr>(handle);
  }

  // The capability's handle, invalid when it does not run.
  template <class Handle>
  Handle get() const {
    auto it = handles_.find(typeid(Handle));
    return it == handles_.end() ? Handle{} : caf::actor_cast<Handle>(it->second);
  }

  // The slot a capability publishes View to, holding `initial` until its actor publishes:
  // readers see a view from the moment the capability is spawned (before its actor first runs).
  template <class View>
  std::shared_ptr<published<View>> slot(View initial) {
    auto fresh = std::make_shared<published<View>>(std::move(initial));
    slots_[typeid(View)] = fresh;
    return fresh;
  }

  // The latest View, or null when no capability publishes one (or it has not yet).
  template <class View>
  std::shared_ptr<const View> view() const {
    auto it = slots_.find(typeid(View));
    if (it == slots_.end()) return nullptr;
    return std::static_pointer_cast<published<View>>(it->second)->load();
  }

  // The slot itself, for an actor that reads another capability's latest view whenever it
  // needs it (the profile actor saving the mixer's state); null when none publishes View.
  template <class View>
  std::shared_ptr<const published<View>> source() const {
    auto it = slots_.find(typeid(View));
    if (it == slots_.end()) return nullptr;
    return std::static_pointer_cast<const published<View>>(it->second);
  }

  void contribute(contribution part) { contributions_.push_back(std::move(part)); }

  // Writes a capability's families of GET /metrics.
  using metrics_writer = void (*)(const directory&, metrics::exposition&);
  void add_metrics(metrics_writer writer) { metrics_.push_back(writer); }
  const std::vector<metrics_writer>& metrics() const { return metrics_; }

  // Reads a capability's sensors (protocol/sensors.hpp) from its views.
  using sensor_source = sensor_readings (*)(const directory&);
  void add_sensors(sensor_source source) { sensors_.push_back(source); }
  // Every row's readings now, in row order.
  sensor_readings readings() const;

  // The event types a capability publishes: the daemon's event set is the union of them.
  void declare(const event_kind_list& kinds) {
    events_.insert(events_.end(), kinds.begin(), kinds.end());
  }
  const event_kind_list& events() const { return events_; }

  // initial_state as every capability that contributes sees it now, from their snapshots.
  nlohmann::json initial_state() const;

 private:
  std::map<std::type_index, caf::strong_actor_ptr> handles_;
  std::map<std::type_index, std::shared_ptr<void>> slots_;
  std::vector<contribution> contributions_;
  event_kind_list events_;
  std::vector<metrics_writer> metrics_;
  std::vector<sensor_source> sensors_;
};

}  // namespace mixerd
