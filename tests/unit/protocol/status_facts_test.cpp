#include "protocol/status_facts.hpp"

#include <doctest/doctest.h>

#include "protocol/events.hpp"

namespace m = mixerd;
using nlohmann::json;

TEST_CASE("status facts reach clients as one list per source") {
  m::status_facts facts{"system", {{"Uptime", "3 h 12 min"}, {"Load", "0.42"}}};
  CHECK(facts.to_json() == json{{"source", "system"},
                                {"facts",
                                 {{{"label", "Uptime"}, {"value", "3 h 12 min"}},
                                  {{"label", "Load"}, {"value", "0.42"}}}}});
  CHECK(m::to_json(std::vector<m::status_fact>{}) == json::array());
  m::event e{facts};
  CHECK(e.wire_name() == "status_facts");
  CHECK(e.for_clients());
  CHECK(e.payload() == facts.to_json());
}
