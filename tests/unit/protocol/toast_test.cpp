#include "protocol/toast.hpp"

#include <doctest/doctest.h>

#include <string>

#include "protocol/device_codec.hpp"
#include "tests/unit/support/toast_handlers.hpp"

using json = nlohmann::json;
using mixerd::toast_content;
namespace toast = mixerd::toast;
namespace protocol = mixerd::protocol;

namespace {

// The error of a refused body; fails the test when the body is accepted.
std::string refusal(const json& body) {
  std::string error;
  auto t = toast::parse_toast_request(body, error);
  CHECK_FALSE(t.has_value());
  return error;
}

toast_content accepted(const json& body) {
  std::string error;
  auto t = toast::parse_toast_request(body, error);
  REQUIRE_MESSAGE(t.has_value(), error);
  return *t;
}

}  // namespace

TEST_CASE("a toast gets the documented defaults") {
  auto t = accepted({{"message", "Build done"}});
  CHECK(t.message == "Build done");
  CHECK(t.icon == "bell");
  CHECK(t.subtitle.empty());
  CHECK(t.duration_ms == 3000);
  CHECK(t.color.empty());
}

TEST_CASE("a typical body is taken as given") {
  auto t = accepted({{"message", "Build Complete!"},
                     {"icon", "checkmark"},
                     {"subtitle", "webpack compiled successfully"},
                     {"duration_ms", 5000},
                     {"color", "00FF00"}});
  CHECK(t.icon == "checkmark");
  CHECK(t.subtitle == "webpack compiled successfully");
  CHECK(t.duration_ms == 5000);
  CHECK(t.color == "00FF00");
}

TEST_CASE("message is required, a string and not empty") {
  CHECK(refusal(json::object()) == "message field is required");
  CHECK(refusal({{"message", nullptr}}) == "message field is required");
  CHECK(refusal({{"message", 5}}) == "message must be a string");
  CHECK(refusal({{"message", ""}}) == "message must not be empty");
}

TEST_CASE("line breaks and tabs in toast text become spaces, other control bytes are refused") {
  auto t = accepted({{"message", "two\r\nlines"}, {"subtitle", "a\tb"}});
  CHECK(t.message == "two  lines");
  CHECK(t.subtitle == "a b");
  CHECK(refusal({{"message", std::string("nul\0", 4)}}) ==
        "message must not contain control characters");
  CHECK(refusal({{"message", "ok"}, {"subtitle", "\x1b[31mred"}}) ==
        "subtitle must not contain control characters");
  CHECK(refusal({{"message", "del\x7f"}}) == "message must not contain control characters");
}

TEST_CASE("text limits count characters, not bytes") {
  const std::string thirty_e_acute = [] {
    std::string s;
    for (int i = 0; i < 30; ++i)
      s += "\xC3\xA9";  // é: 2 bytes, 1 character
    return s;
  }();
  CHECK(accepted({{"message", thirty_e_acute}}).message == thirty_e_acute);
  CHECK(refusal({{"message", thirty_e_acute + "x"}}) ==
        "message must be at most 30 characters (got 31)");
  CHECK(accepted({{"message", "m"}, {"subtitle", std::string(40, 's')}}).subtitle.size() == 40);
  CHECK(refusal({{"message", "m"}, {"subtitle", std::string(41, 's')}}) ==
        "subtitle must be at most 40 characters (got 41)");
  // Four-byte characters (emoji) count once each.
  std::string emoji;
  for (int i = 0; i < 30; ++i)
    emoji += "\xF0\x9F\x8E\xB5";
  CHECK(accepted({{"message", emoji}}).message.size() == 120);
  CHECK(toast::utf8_length("a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x8E\xB5") == 4);
}

TEST_CASE("icon must be one of the sixteen names") {
  CHECK(toast::icon_names().size() == 16);
  for (auto name : toast::icon_names())
    CHECK(accepted({{"message", "m"}, {"icon", name}}).icon == name);
  auto error = refusal({{"message", "m"}, {"icon", "rocket"}});
  CHECK(error.rfind("icon must be one of bell, checkmark, warning", 0) == 0);
  CHECK(error.find("(got 'rocket')") != std::string::npos);
  CHECK(refusal({{"message", "m"}, {"icon", 3}}) == "icon must be a string");
  CHECK(accepted({{"message", "m"}, {"icon", nullptr}}).icon == "bell");
}

TEST_CASE("duration_ms is an integer from 1000 to 30000") {
  const std::string range = "duration_ms must be an integer from 1000 to 30000";
  CHECK(accepted({{"message", "m"}, {"duration_ms", 1000}}).duration_ms == 1000);
  CHECK(accepted({{"message", "m"}, {"duration_ms", 30000}}).duration_ms == 30000);
  CHECK(refusal({{"message", "m"}, {"duration_ms", 999}}) == range);
  CHECK(refusal({{"message", "m"}, {"duration_ms", 30001}}) == range);
  CHECK(refusal({{"message", "m"}, {"duration_ms", 5000.0}}) == range);
  CHECK(refusal({{"message", "m"}, {"duration_ms", "5000"}}) == range);
  CHECK(refusal({{"message", "m"}, {"duration_ms", true}}) == range);
}

TEST_CASE("color takes 3 or 6 hex digits with or without #") {
  CHECK(accepted({{"message", "m"}, {"color", "#0f0"}}).color == "00FF00");
  CHECK(accepted({{"message", "m"}, {"color", "0F0"}}).color == "00FF00");
  CHECK(accepted({{"message", "m"}, {"color", "#a1B2c3"}}).color == "A1B2C3");
  const std::string bad = "color must be 3 or 6 hex digits, with or without a leading #";
  for (const char* c : {"", "#", "12", "1234", "#12345", "1234567", "GGGGGG", "##0F0", "0F0 "})
    CHECK_MESSAGE(refusal({{"message", "m"}, {"color", c}}) == bad, c);
  CHECK(refusal({{"message", "m"}, {"color", 0xFF00}}) == bad);
}

TEST_CASE("a toast becomes an escaped TOAST line") {
  auto t = accepted({{"message", "Build, done"},
                     {"subtitle", "C:\\out"},
                     {"icon", "warning"},
                     {"duration_ms", 4000},
                     {"color", "#f00"}});
  CHECK(protocol::encode_host_command(toast::to_device_command(t)).text ==
        "TOAST,4000,warning,FF0000,Build\\, done,C:\\\\out");
}

TEST_CASE("the handlers: six, each with a # colour, all but plugins loaded") {
  auto handlers = mixerd::test::every_toast_handler();
  REQUIRE(handlers.size() == 6);
  const char* ids[] = {"api", "system", "stream", "smarthome", "music", "plugins"};
  for (std::size_t i = 0; i < handlers.size(); ++i) {
    CHECK(handlers[i].id == ids[i]);
    CHECK(handlers[i].enabled);
    CHECK(handlers[i].loaded == (handlers[i].id != "plugins"));
    CHECK(toast::normalize_color(handlers[i].color).has_value());
    CHECK(handlers[i].color.front() == '#');
  }
  CHECK(toast::handler_to_json(handlers[0]) == json{{"id", "api"},
                                                    {"name", "API Receiver"},
                                                    {"enabled", true},
                                                    {"loaded", true},
                                                    {"color", "#3B82F6"}});
}
