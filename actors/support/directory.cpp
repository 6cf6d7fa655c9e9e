#include "actors/support/directory.hpp"

#include <iterator>

#include "protocol/json.hpp"

namespace mixerd {

nlohmann::json directory::initial_state() const {
  nlohmann::json state = nlohmann::json::object();
  for (const auto& part : contributions_)
    part(*this, state);
  json::complete_initial_state(state);
  return state;
}

sensor_readings directory::readings() const {
  sensor_readings all;
  for (auto source : sensors_) {
    auto some = source(*this);
    all.insert(all.end(), std::make_move_iterator(some.begin()),
               std::make_move_iterator(some.end()));
  }
  return all;
}

}  // namespace mixerd
