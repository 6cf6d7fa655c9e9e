#include "actors/support/directory.hpp"

#include "protocol/json.hpp"

namespace mixerd {

nlohmann::json directory::initial_state() const {
  nlohmann::json state = nlohmann::json::object();
  for (const auto& part : contributions_)
    part(*this, state);
  json::complete_initial_state(state);
  return state;
}

}  // namespace mixerd
