// The sample plant store (docs/api.md, "Plant store"): the pure parts.
// Bearer header parsing, the {id} path segment, the plants.json format and its bounds, and the
// messages between the plant store gateway and the plant store actor. No I/O.
#pragma once

#include <caf/replies_to.hpp>
#include <caf/type_id.hpp>
#include <caf/typed_actor.hpp>
#include "protocol/network.hpp"
#include "protocol/settings.hpp"

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace mixerd::plants {

// Bounds. A plants.json over any of them is broken (and left untouched).
inline constexpr std::size_t max_file_bytes = 1024 * 1024;
inline constexpr std::size_t max_plants = 10'000;
inline constexpr std::size_t max_name_bytes = 256;
inline constexpr int max_json_depth = 16;  // nlohmann's dump recurses: bounded before parsing
// Bounds of a request.
inline constexpr std::size_t max_token_bytes = 1024;
inline constexpr std::size_t max_id_chars = 32;

// ---- Authorization: Bearer <token> (RFC 6750 section 2.1) -------------------------------------
enum class bearer_problem { none, missing, wrong_scheme, malformed };

struct bearer {
  bearer_problem problem = bearer_problem::missing;
  std::string token;  // set when problem is none
};

// `value` is the Authorization header's value, empty when the header is absent. The scheme is
// matched case-insensitively, then one or more spaces, then a token68 (letters, digits and
// -._~+/ then optional trailing '='), at most max_token_bytes; trailing spaces/tabs are ignored.
bearer parse_bearer(std::string_view value);
// The 401 message for a problem (never for none).
std::string_view bearer_message(bearer_problem problem);

// ---- DELETE /plants/{id} ----------------------------------------------------------------------
// Decimal digits with an optional leading '-' (as std::from_chars reads them, like the
// controller's indices), within int64, at most max_id_chars characters. Anything else
// ('+', spaces, fractions, exponents, hex, empty, out of range) is nullopt.
std::optional<std::int64_t> parse_id(std::string_view segment);

// ---- plants.json: [{"id": <int64>, "name": "<string>"}, ...] ----------------------------------
// Keys beyond id and name are kept as they are.
struct parsed_plants {
  nlohmann::json list = nlohmann::json::array();
  std::string error;  // empty when ok; else the problem (with line and column for bad JSON)
  bool ok() const { return error.empty(); }
};

// Parses and validates the text of plants.json: a JSON array of at most max_plants objects,
// each with an int64 "id" (unique in the file) and a "name" string of at most max_name_bytes;
// nesting at most max_json_depth deep; an empty file is broken.
parsed_plants parse_plants(std::string_view text);
// Empty when `list` is valid, else the problem (the rules of parse_plants).
std::string validate_plants(const nlohmann::json& list);
// Pretty JSON (2 spaces) with a trailing newline, the way the file is written.
std::string serialize(const nlohmann::json& list);
// The plants written when plants.json does not exist yet (first start).
nlohmann::json sample_plants();
// Position of the plant with `id` in a valid list.
std::optional<std::size_t> find(const nlohmann::json& list, std::int64_t id);

}  // namespace mixerd::plants

namespace mixerd {

// -> plant_delete_outcome. Sent by the gateway once the Authorization header holds a
// well-formed bearer token; the actor checks the token first, then the id.
struct plant_delete {
  std::string token;
  std::optional<std::int64_t> id;  // nullopt: the {id} segment is not an int64
};

struct plant_delete_outcome {
  enum class result { deleted, unauthorized, bad_id, unknown_id, unavailable, write_failed };
  result what = result::unauthorized;
  std::string detail;  // unavailable, write_failed: what is wrong
};

// The plant store capability: owns DATA_DIR/plants.json and the bearer token.
using plants_actor = caf::typed_actor<caf::replies_to<plant_delete>::with<plant_delete_outcome>,
                                      caf::reacts_to<settings_reloaded>>;

namespace settings_schema {
struct part;
}  // namespace settings_schema

// Its key of settings.json: plant_store_token.
settings_schema::part plants_settings();

}  // namespace mixerd

// The plants capability's CAF type-ID block, chained after the network block (docs/architecture.md,
// "Type IDs"). Its values never leave the process: no serialization needed.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::plant_delete)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::plant_delete_outcome)

CAF_BEGIN_TYPE_ID_BLOCK(mixerd_plants, caf::id_block::mixerd_network::end)
CAF_ADD_TYPE_ID(mixerd_plants, (mixerd::plant_delete))
CAF_ADD_TYPE_ID(mixerd_plants, (mixerd::plant_delete_outcome))
CAF_END_TYPE_ID_BLOCK(mixerd_plants)
