#include "protocol/status_facts.hpp"

namespace mixerd {

bool operator==(const status_fact& a, const status_fact& b) {
  return a.label == b.label && a.value == b.value;
}

nlohmann::json to_json(const std::vector<status_fact>& facts) {
  auto list = nlohmann::json::array();
  for (const auto& f : facts)
    list.push_back({{"label", f.label}, {"value", f.value}});
  return list;
}

nlohmann::json status_facts::to_json() const {
  return {{"source", source}, {"facts", mixerd::to_json(facts)}};
}

}  // namespace mixerd
