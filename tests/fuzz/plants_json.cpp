// Fuzz target: plants.json as the plant store actor loads it (protocol/plants parse_plants).
// Checked: an accepted list obeys the documented bounds (array of at most 10,000 objects with a
// unique int64 id and a name of at most 256 bytes, nesting at most 16 deep), serialize -> parse
// gives it back unchanged (every delete rewrites the file), and find() locates each id; a
// refused file leaves an empty list and says why.
#include <cstdint>
#include <set>
#include <string>

#include "protocol/plants.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace mixerd;

int depth(const nlohmann::json& j) {
  if (!j.is_structured()) return 0;
  int deepest = 0;
  for (const auto& item : j)
    deepest = std::max(deepest, depth(item));
  return deepest + 1;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  const std::string context(text);
  const auto parsed = plants::parse_plants(text);
  if (!parsed.ok()) {
    FUZZ_CHECK(parsed.list == nlohmann::json::array(), context);
    return 0;
  }
  const auto& list = parsed.list;
  FUZZ_CHECK(list.is_array() && list.size() <= plants::max_plants, context);
  FUZZ_CHECK(depth(list) <= plants::max_json_depth, context);
  FUZZ_CHECK(plants::validate_plants(list).empty(), context);
  std::set<std::int64_t> ids;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto& p = list[i];
    FUZZ_CHECK(p.is_object() && p["name"].is_string(), context);
    FUZZ_CHECK(p["name"].get_ref<const std::string&>().size() <= plants::max_name_bytes, context);
    const auto id = p["id"].get<std::int64_t>();
    FUZZ_CHECK(ids.insert(id).second, context);
    FUZZ_CHECK(plants::find(list, id) == i, context);
  }
  for (const std::int64_t probe : {std::int64_t{0}, std::int64_t{-1}, INT64_MAX, INT64_MIN})
    if (ids.count(probe) == 0) FUZZ_CHECK(!plants::find(list, probe).has_value(), context);

  const std::string saved = plants::serialize(list);
  const auto again = plants::parse_plants(saved);
  FUZZ_CHECK(again.ok(), context + " -> " + saved + " : " + again.error);
  FUZZ_CHECK(again.list == list, context + " -> " + saved);
  return 0;
}
