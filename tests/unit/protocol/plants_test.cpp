#include "protocol/plants.hpp"

#include <doctest/doctest.h>

#include <string>

using json = nlohmann::json;
namespace plants = mixerd::plants;
using plants::bearer_problem;

namespace {

bearer_problem problem_of(std::string_view header) {
  return plants::parse_bearer(header).problem;
}

// Validates a plant list that must be refused; returns the problem sentence.
std::string refused(const json& list) {
  auto problem = plants::validate_plants(list);
  CAPTURE(list.dump());
  CHECK_FALSE(problem.empty());
  return problem;
}

}  // namespace

TEST_CASE("parse_bearer takes the token of a Bearer header") {
  auto b = plants::parse_bearer("Bearer abc123");
  CHECK(b.problem == bearer_problem::none);
  CHECK(b.token == "abc123");
  // The scheme is case-insensitive; more spaces and trailing whitespace are fine.
  CHECK(plants::parse_bearer("bearer abc").token == "abc");
  CHECK(plants::parse_bearer("BEARER   abc \t").token == "abc");
  // token68: letters, digits, -._~+/ and trailing '='.
  CHECK(plants::parse_bearer("Bearer aZ09-._~+/==").token == "aZ09-._~+/==");
}

TEST_CASE("parse_bearer tells missing, wrong scheme and malformed apart") {
  CHECK(problem_of("") == bearer_problem::missing);
  CHECK(problem_of("   ") == bearer_problem::missing);
  CHECK(problem_of("Basic dXNlcjpwYXNz") == bearer_problem::wrong_scheme);
  CHECK(problem_of("Token abc") == bearer_problem::wrong_scheme);
  CHECK(problem_of("Bearerabc") == bearer_problem::wrong_scheme);
  CHECK(problem_of("abc") == bearer_problem::wrong_scheme);
  CHECK(problem_of("Bearer") == bearer_problem::malformed);
  CHECK(problem_of("Bearer   ") == bearer_problem::malformed);
  CHECK(problem_of("Bearer\tabc") == bearer_problem::malformed);
  CHECK(problem_of("Bearer abc def") == bearer_problem::malformed);
  CHECK(problem_of("Bearer abc,def") == bearer_problem::malformed);
  CHECK(problem_of("Bearer =abc") == bearer_problem::malformed);
  CHECK(problem_of("Bearer ab=c") == bearer_problem::malformed);
  CHECK(problem_of("Bearer \"abc\"") == bearer_problem::malformed);
  CHECK(problem_of("Bearer " + std::string(plants::max_token_bytes, 'a')) == bearer_problem::none);
  CHECK(problem_of("Bearer " + std::string(plants::max_token_bytes + 1, 'a')) ==
        bearer_problem::malformed);
  for (auto p : {bearer_problem::missing, bearer_problem::wrong_scheme, bearer_problem::malformed})
    CHECK_FALSE(plants::bearer_message(p).empty());
}

TEST_CASE("parse_id reads decimal int64 only") {
  CHECK(plants::parse_id("1") == std::optional<std::int64_t>(1));
  CHECK(plants::parse_id("0") == std::optional<std::int64_t>(0));
  CHECK(plants::parse_id("-7") == std::optional<std::int64_t>(-7));
  CHECK(plants::parse_id("007") == std::optional<std::int64_t>(7));
  CHECK(plants::parse_id("9223372036854775807") == std::optional<std::int64_t>(INT64_MAX));
  CHECK(plants::parse_id("-9223372036854775808") == std::optional<std::int64_t>(INT64_MIN));
  for (const char* bad :
       {"", "-", "+1", " 1", "1 ", "1.0", "1e3", "0x10", "abc", "1a", "٣", "9223372036854775808",
        "-9223372036854775809", "99999999999999999999999", "00000000000000000000000000000000001"})
    CHECK_MESSAGE(!plants::parse_id(bad), bad);
}

TEST_CASE("parse_plants accepts the samples and keeps extra keys") {
  auto samples = plants::sample_plants();
  CHECK(samples.size() == 10);
  CHECK(plants::validate_plants(samples).empty());
  auto parsed = plants::parse_plants(plants::serialize(samples));
  REQUIRE(parsed.ok());
  CHECK(parsed.list == samples);
  CHECK(plants::serialize(samples).back() == '\n');

  auto extra = plants::parse_plants(R"([{"id": 5, "name": "Fern", "tags": {"light": ["low"]}}])");
  REQUIRE(extra.ok());
  CHECK(extra.list[0]["tags"]["light"][0] == "low");
  CHECK(plants::parse_plants("[]").ok());
  CHECK(plants::parse_plants(R"([{"id": -3, "name": ""}])").ok());
  CHECK(plants::parse_plants(R"([{"id": 9223372036854775807, "name": "max"}])").ok());
}

TEST_CASE("parse_plants refuses broken files with a reason") {
  auto bad_json = plants::parse_plants("[\n  {\"id\": 1, \"name\": \"a\"\n");
  CHECK_FALSE(bad_json.ok());
  CHECK(bad_json.error.find("not valid JSON") != std::string::npos);
  CHECK(bad_json.error.find("line 3") != std::string::npos);
  CHECK(bad_json.list == json::array());
  CHECK(plants::parse_plants("").error.find("empty") != std::string::npos);
  CHECK(plants::parse_plants(" \n").error.find("empty") != std::string::npos);
  CHECK(plants::parse_plants("{\"id\": 1}").error == "must be a JSON array of plants");
  CHECK_FALSE(plants::parse_plants("[{\"id\": 1, \"name\": \"\xff\"}]").ok());  // not UTF-8
  // Found by fuzzing: a number too large for a double threw out of parse_plants.
  auto overflow = plants::parse_plants(R"([{"id": 1e400, "name": "a"}])");
  CHECK(overflow.error.find("not valid JSON") != std::string::npos);
  CHECK(overflow.error.find("number overflow") != std::string::npos);
  CHECK(overflow.list == json::array());

  std::string deep =
      R"([{"id": 1, "name": "a", "x": )" + std::string(20, '[') + std::string(20, ']') + "}]";
  CHECK(plants::parse_plants(deep).error.find("nested deeper") != std::string::npos);
  std::string just_ok = R"([{"id": 1, "name": "a", "x": )" +
                        std::string(plants::max_json_depth - 2, '[') +
                        std::string(plants::max_json_depth - 2, ']') + "}]";
  CHECK(plants::parse_plants(just_ok).ok());
  std::string huge = "[" + std::string(plants::max_file_bytes, ' ') + "]";
  CHECK(plants::parse_plants(huge).error.find("larger than") != std::string::npos);
}

TEST_CASE("validate_plants names the plant and the field") {
  CHECK(refused(json::array({1})) == "plant at index 0: must be an object");
  CHECK(refused(json::array({{{"name", "a"}}})) == "plant at index 0: \"id\" is missing");
  for (const json& id : {json("1"), json(1.5), json(true), json(nullptr),
                         json(std::uint64_t{9223372036854775808ULL})})
    CHECK(refused(json::array({{{"id", id}, {"name", "a"}}})) ==
          "plant at index 0: \"id\" must be an integer (int64)");
  CHECK(refused(json::array({{{"id", 1}}})) == "plant at index 0: \"name\" must be a string");
  CHECK(refused(json::array({{{"id", 1}, {"name", 3}}})) ==
        "plant at index 0: \"name\" must be a string");
  CHECK(refused(json::array({{{"id", 1}, {"name", std::string(plants::max_name_bytes + 1, 'n')}}}))
            .find("longer than 256 bytes") != std::string::npos);
  CHECK(plants::validate_plants(
            json::array({{{"id", 1}, {"name", std::string(plants::max_name_bytes, 'n')}}}))
            .empty());
  CHECK(
      refused(json::array(
          {{{"id", 1}, {"name", "a"}}, {{"id", 2}, {"name", "b"}}, {{"id", 1}, {"name", "c"}}})) ==
      "plant at index 2: id 1 appears more than once");
  auto many = json::array();
  for (std::size_t i = 0; i <= plants::max_plants; ++i)
    many.push_back({{"id", i}, {"name", "p"}});
  CHECK(refused(many) == "holds more than 10000 plants");
  many.erase(many.end() - 1);
  CHECK(plants::validate_plants(many).empty());
}

TEST_CASE("find locates a plant by id") {
  auto list = plants::sample_plants();
  CHECK(plants::find(list, 1) == std::optional<std::size_t>(0));
  CHECK(plants::find(list, 10) == std::optional<std::size_t>(9));
  CHECK_FALSE(plants::find(list, 11));
  CHECK_FALSE(plants::find(list, -1));
  CHECK_FALSE(plants::find(json::array(), 1));
}
