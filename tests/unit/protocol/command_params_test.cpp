#include "protocol/command_params.hpp"

#include <doctest/doctest.h>

using nlohmann::json;
namespace c = mixerd::commands;

namespace {

std::vector<c::param> slider_params() {
  auto label = c::optional(c::text("label", 8, "A label"));
  label.device_text = true;
  auto page = c::optional(c::integer("page", 0, 3, "A page"));
  page.null_is_absent = true;
  return {c::integer("index", 1, 4, "The slider"), c::choice("mode", {"a", "b"}, "A mode"), label,
          page, c::optional(c::flag("on", "A switch"))};
}

// The sentence of the first problem of `input`, or "" when it is read.
std::string problem_of(const json& input) {
  c::problem why;
  auto args = c::read_args(slider_params(), input, why);
  return args ? std::string() : why.text;
}

}  // namespace

TEST_CASE("arguments are read in the parameters' order, with the API's sentences") {
  CHECK(problem_of({{"mode", "a"}}) == "Missing field: index");
  CHECK(problem_of({{"index", 5}, {"mode", "x"}}) == "index must be an integer from 1 to 4");
  CHECK(problem_of({{"index", 2.0}, {"mode", "a"}}) == "index must be an integer from 1 to 4");
  CHECK(problem_of({{"index", 2}, {"mode", "x"}}) == "mode must be one of a, b");
  CHECK(problem_of({{"index", 2}, {"mode", 1}}) == "mode must be a string");
  CHECK(problem_of({{"index", 2}, {"mode", "a"}, {"label", "123456789"}}) ==
        "label must be at most 8 bytes");
  CHECK(problem_of({{"index", 2}, {"mode", "a"}, {"label", "a\x01"}}) ==
        "label must not contain control characters");
  CHECK(problem_of({{"index", 2}, {"mode", "a"}, {"page", 4}}) ==
        "page must be an integer from 0 to 3");
  CHECK(problem_of({{"index", 2}, {"mode", "a"}, {"on", "yes"}}) == "on must be true or false");
  CHECK(problem_of(json::array()) == "Request body must be a JSON object");
}

TEST_CASE("read arguments leave out absent optional ones and clean free text") {
  c::problem why;
  auto args = c::read_args(
      slider_params(),
      {{"index", 3}, {"mode", "b"}, {"label", "a\tb"}, {"page", nullptr}, {"other", "ignored"}},
      why);
  REQUIRE(args);
  CHECK(*args == json{{"index", 3}, {"mode", "b"}, {"label", "a b"}});
}

TEST_CASE("a parameter is listed with its type, range and values") {
  CHECK(c::to_json(c::integer("value", 0, 100, "The value")) == json{{"name", "value"},
                                                                     {"type", "integer"},
                                                                     {"required", true},
                                                                     {"description", "The value"},
                                                                     {"min", 0},
                                                                     {"max", 100}});
  CHECK(c::to_json(c::optional(c::choice("action", {"next", "stop"}, "What"))) ==
        json{{"name", "action"},
             {"type", "string"},
             {"required", false},
             {"description", "What"},
             {"values", {"next", "stop"}}});
  CHECK(c::to_json(c::text("name", 64, "A name"))["max_bytes"] == 64);
}
