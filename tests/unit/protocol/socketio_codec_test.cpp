#include "protocol/socketio_codec.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

using json = nlohmann::json;
using namespace mixerd::sio;

namespace {

// Decodes the Socket.IO part of a full Engine.IO message text such as `42["get_state"]`.
std::optional<sio_packet> decode_message(std::string_view text, std::string& error) {
  const auto eio = decode_eio(text);
  REQUIRE(eio);
  REQUIRE(eio->type == eio_type::message);
  return decode_sio(eio->data, error);
}

sio_packet must_decode(std::string_view text) {
  std::string error;
  auto p = decode_message(text, error);
  CAPTURE(text);
  CAPTURE(error);
  REQUIRE(p);
  CHECK(error.empty());
  return *p;
}

void check_rejected(std::string_view sio_text) {
  std::string error;
  CAPTURE(sio_text);
  CHECK_FALSE(decode_sio(sio_text, error));
  CHECK_FALSE(error.empty());
}

}  // namespace

// ---- Engine.IO --------------------------------------------------------------------------------

TEST_CASE("engine packets of the captures decode") {
  auto p = decode_eio("2probe");
  REQUIRE(p);
  CHECK(p->type == eio_type::ping);
  CHECK(p->data == "probe");
  p = decode_eio("3probe");
  REQUIRE(p);
  CHECK(p->type == eio_type::pong);
  CHECK(p->data == "probe");
  p = decode_eio("5");
  REQUIRE(p);
  CHECK(p->type == eio_type::upgrade);
  CHECK(p->data.empty());
  p = decode_eio("6");
  REQUIRE(p);
  CHECK(p->type == eio_type::noop);
  p = decode_eio("1");
  REQUIRE(p);
  CHECK(p->type == eio_type::close);
  p = decode_eio("3");
  REQUIRE(p);
  CHECK(p->type == eio_type::pong);
  p = decode_eio("42[\"get_state\"]");
  REQUIRE(p);
  CHECK(p->type == eio_type::message);
  CHECK(p->data == "2[\"get_state\"]");
}

TEST_CASE("bad engine packets are rejected") {
  CHECK_FALSE(decode_eio(""));
  CHECK_FALSE(decode_eio("7"));
  CHECK_FALSE(decode_eio("x"));
  CHECK_FALSE(decode_eio("\x1e"));
}

TEST_CASE("b and base64 is a binary message") {
  auto p = decode_eio("bAQID");  // what both clients write for Buffer.from([1, 2, 3])
  REQUIRE(p);
  CHECK(p->type == eio_type::message);
  CHECK(p->binary);
  CHECK(p->data == "\x01\x02\x03");
  CHECK(encode_eio(*p) == "bAQID");
  p = decode_eio("b");
  REQUIRE(p);
  CHECK(p->binary);
  CHECK(p->data.empty());
  p = decode_eio("4AQID");  // the same text without the b is a text message
  REQUIRE(p);
  CHECK_FALSE(p->binary);
  CHECK(encode_eio(*p) == "4AQID");
}

TEST_CASE("base64 of every length and byte round trips") {
  // Expected texts from Python's base64.b64encode.
  const std::vector<std::pair<std::string, std::string>> known = {
      {std::string(1, '\0'), "AA=="},
      {"\xff\xfe", "//4="},
      {"\xfb\xff\xbf", "+/+/"},
      {"hello", "aGVsbG8="},
      {std::string("\0\0\0\0", 4), "AAAAAA=="}};
  for (const auto& [bytes, text] : known) {
    CAPTURE(text);
    const auto p = decode_eio("b" + text);
    REQUIRE(p);
    CHECK(p->data == bytes);
    CHECK(encode_eio(eio_packet{eio_type::message, bytes, true}) == "b" + text);
  }
  std::string all;
  for (int i = 0; i < 256; ++i)
    all.push_back(static_cast<char>(i));
  for (std::size_t n = 0; n <= all.size(); n += 37) {
    const std::string bytes = all.substr(0, n);
    const auto text = encode_eio(eio_packet{eio_type::message, bytes, true});
    const auto back = decode_eio(text);
    REQUIRE(back);
    CHECK(back->data == bytes);
  }
}

TEST_CASE("base64 that is not canonical is refused") {
  for (const char* text : {"bAQI",                     // length not a multiple of 4
                           "bAQ=",                     // short group
                           "bAR==",                    // unused bits set (AQ== is the byte 0x01)
                           "bAQJ=",                    // a fifth character
                           "bAQ==AQID",                // padding before the end
                           "bA===", "b====", "bAQ-_",  // base64url is not what clients send
                           "bAQ I", "bAQID\n"}) {
    CAPTURE(text);
    CHECK_FALSE(decode_eio(text));
  }
}

TEST_CASE("engine packets encode") {
  CHECK(encode_eio(eio_type::ping) == "2");
  CHECK(encode_eio(eio_type::pong, "probe") == "3probe");
  CHECK(encode_eio(eio_type::noop) == "6");
  CHECK(encode_eio(eio_type::close) == "1");
  CHECK(encode_eio(eio_type::message, "2[\"x\"]") == "42[\"x\"]");
  for (const char* text : {"0{}", "1", "2", "3probe", "4hello", "5", "6"}) {
    CAPTURE(text);
    const auto p = decode_eio(text);
    REQUIRE(p);
    CHECK(encode_eio(p->type, p->data) == text);
  }
}

TEST_CASE("the open packet matches the capture") {
  CHECK(open_packet("bNsSwWUI4vHjs-atAAAA", true, 25000, 20000, 1000000) ==
        "0{\"sid\":\"bNsSwWUI4vHjs-atAAAA\",\"upgrades\":[\"websocket\"],\"pingInterval\":25000,"
        "\"pingTimeout\":20000,\"maxPayload\":1000000}");
  CHECK(open_packet("B_dRkRw5mIsYrzzmAAAB", false, 1000, 1000, 1000000) ==
        "0{\"sid\":\"B_dRkRw5mIsYrzzmAAAB\",\"upgrades\":[],\"pingInterval\":1000,"
        "\"pingTimeout\":1000,\"maxPayload\":1000000}");
  CHECK(open_packet("s", true, default_ping_interval_ms, default_ping_timeout_ms,
                    default_max_payload) ==
        "0{\"sid\":\"s\",\"upgrades\":[\"websocket\"],\"pingInterval\":25000,"
        "\"pingTimeout\":20000,\"maxPayload\":1000000}");
}

TEST_CASE("polling payloads split and join on the record separator") {
  const std::string body =
      "40{\"sid\":\"2xstpgZ5nX2HkivZAAAB\"}\x1e"
      "42[\"slider_change\",{\"index\":2,\"value\":0.75,\"name\":\"Music\"}]\x1e"
      "42[\"mute_change\",{\"index\":0,\"muted\":true}]\x1e"
      "42[\"hello\"]";
  const auto packets = decode_payload(body);
  REQUIRE(packets);
  REQUIRE(packets->size() == 4);
  for (const auto& p : *packets)
    CHECK(p.type == eio_type::message);
  CHECK((*packets)[0].data == "0{\"sid\":\"2xstpgZ5nX2HkivZAAAB\"}");
  CHECK((*packets)[3].data == "2[\"hello\"]");

  std::string joined;
  for (const auto& p : *packets)
    append_to_payload(joined, encode_eio(p.type, p.data));
  CHECK(joined == body);

  std::string single;
  append_to_payload(single, "6");
  CHECK(single == "6");
}

TEST_CASE("polling bodies sent by clients decode") {
  auto packets = decode_payload(
      "42[\"get_state\"]\x1e"
      "42[\"set_volume\",{\"index\":1}]");
  REQUIRE(packets);
  CHECK(packets->size() == 2);
  packets = decode_payload("40");
  REQUIRE(packets);
  CHECK(packets->size() == 1);
  packets = decode_payload("3");
  REQUIRE(packets);
  CHECK(packets->front().type == eio_type::pong);
  packets = decode_payload(
      "41\x1e"
      "1");
  REQUIRE(packets);
  CHECK(packets->back().type == eio_type::close);
}

TEST_CASE("bad polling bodies are rejected whole") {
  CHECK_FALSE(decode_payload(""));
  CHECK_FALSE(decode_payload("40\x1e"));
  CHECK_FALSE(
      decode_payload("\x1e"
                     "40"));
  CHECK_FALSE(
      decode_payload("40\x1e\x1e"
                     "3"));
  CHECK_FALSE(
      decode_payload("40\x1e"
                     "9"));
  CHECK_FALSE(
      decode_payload("40\x1e"
                     "bAQI"));
}

TEST_CASE("a polling body carries a binary packet and its attachment") {
  // socket.io-client 4 over polling: socket.emit("get_state", Buffer.from([1, 2, 3]), ack)
  const std::string body =
      "451-0[\"get_state\",{\"_placeholder\":true,\"num\":0}]\x1e"
      "bAQID";
  const auto packets = decode_payload(body);
  REQUIRE(packets);
  REQUIRE(packets->size() == 2);
  CHECK_FALSE((*packets)[0].binary);
  CHECK((*packets)[0].data == "51-0[\"get_state\",{\"_placeholder\":true,\"num\":0}]");
  CHECK((*packets)[1].binary);
  CHECK((*packets)[1].data == "\x01\x02\x03");
  std::string joined;
  for (const auto& p : *packets)
    append_to_payload(joined, encode_eio(p));
  CHECK(joined == body);
}

TEST_CASE("engine error bodies match the reference server") {
  CHECK(eio_error_body(err_unknown_sid) == "{\"code\":1,\"message\":\"Session ID unknown\"}");
  CHECK(eio_error_body(err_unsupported_protocol_version) ==
        "{\"code\":5,\"message\":\"Unsupported protocol version\"}");
  CHECK(eio_error_body(0) == "{\"code\":0,\"message\":\"Transport unknown\"}");
  CHECK(eio_error_body(2) == "{\"code\":2,\"message\":\"Bad handshake method\"}");
  CHECK(eio_error_body(3) == "{\"code\":3,\"message\":\"Bad request\"}");
  CHECK(eio_error_body(4) == "{\"code\":4,\"message\":\"Forbidden\"}");
  CHECK(eio_error_body(42) == "{\"code\":3,\"message\":\"Bad request\"}");
  CHECK(eio_error_body(-1) == "{\"code\":3,\"message\":\"Bad request\"}");
}

// ---- Socket.IO --------------------------------------------------------------------------------

TEST_CASE("namespace connect with and without auth") {
  auto p = must_decode("40");
  CHECK(p.type == sio_type::connect);
  CHECK(p.nsp == "/");
  CHECK_FALSE(p.has_data);
  CHECK_FALSE(p.ack_id);

  p = must_decode("40{}");
  CHECK(p.type == sio_type::connect);
  CHECK(p.has_data);
  CHECK(p.data == json::object());

  p = must_decode("40{\"token\":\"x\"}");
  CHECK(p.data.at("token") == "x");

  p = must_decode("40/admin,{\"token\":\"x\"}");
  CHECK(p.nsp == "/admin");
  CHECK(p.data.at("token") == "x");
}

TEST_CASE("namespace disconnect") {
  auto p = must_decode("41");
  CHECK(p.type == sio_type::disconnect);
  CHECK(p.nsp == "/");
  CHECK_FALSE(p.has_data);
  p = must_decode("41/admin,");
  CHECK(p.nsp == "/admin");
  p = must_decode("41/admin");
  CHECK(p.nsp == "/admin");
}

TEST_CASE("events of the captures decode") {
  auto p = must_decode("42[\"get_state\"]");
  CHECK(p.type == sio_type::event);
  CHECK_FALSE(p.ack_id);
  CHECK(p.data == json::array({"get_state"}));

  p = must_decode("42[\"set_volume\",{\"index\":1,\"value\":0.3}]");
  CHECK(p.data.size() == 2);
  CHECK(p.data[0] == "set_volume");
  CHECK(p.data[1].at("index") == 1);
  CHECK(p.data[1].at("value") == 0.3);

  p = must_decode("420[\"get_state\"]");  // Node ack ids start at 0
  REQUIRE(p.ack_id);
  CHECK(*p.ack_id == 0);
  CHECK(p.data == json::array({"get_state"}));

  p = must_decode("421[\"get_state\"]");  // Python ack ids start at 1
  REQUIRE(p.ack_id);
  CHECK(*p.ack_id == 1);

  p = must_decode("42/admin,1[\"x\"]");
  CHECK(p.nsp == "/admin");
  REQUIRE(p.ack_id);
  CHECK(*p.ack_id == 1);
  CHECK(p.data == json::array({"x"}));

  p = must_decode("4218446744073709551615[\"max\"]");
  REQUIRE(p.ack_id);
  CHECK(*p.ack_id == UINT64_MAX);
}

TEST_CASE("acks from clients decode") {
  auto p = must_decode("430[{\"sliders\":[0.1,0.2]}]");
  CHECK(p.type == sio_type::ack);
  REQUIRE(p.ack_id);
  CHECK(*p.ack_id == 0);
  CHECK(p.data[0].at("sliders").size() == 2);
  p = must_decode("4312[]");
  REQUIRE(p.ack_id);
  CHECK(*p.ack_id == 12);
  CHECK(p.data == json::array());
}

TEST_CASE("server messages match the captures") {
  CHECK(event_message("slider_change", json{{"index", 2}, {"value", 0.75}, {"name", "Music"}}) ==
        "42[\"slider_change\",{\"index\":2,\"name\":\"Music\",\"value\":0.75}]");
  CHECK(ack_message(0, json::array({json{{"sliders", {0.1, 0.2}}}})) ==
        "430[{\"sliders\":[0.1,0.2]}]");
  CHECK(ack_message(1, json::array()) == "431[]");
  CHECK(ack_message(7, json{{"ok", true}}) == "437[{\"ok\":true}]");
  CHECK(connect_ok_message("OOpGZeDB_qqq9HrSAAAA") == "40{\"sid\":\"OOpGZeDB_qqq9HrSAAAA\"}");
  CHECK(connect_error_message("unauthorized") == "44{\"message\":\"unauthorized\"}");
}

TEST_CASE("invalid UTF-8 in outgoing text is replaced instead of throwing") {
  std::string msg;
  CHECK_NOTHROW(msg = event_message("bad\xff", json("x\xfey")));
  CHECK(msg == "42[\"bad\xef\xbf\xbd\",\"x\xef\xbf\xbdy\"]");
  CHECK_NOTHROW(connect_error_message("\xc3"));
  CHECK_NOTHROW(open_packet("\xff", true, 1, 1, 1));
}

TEST_CASE("encode_sio round trips") {
  for (const char* text :
       {"0", "0{}", "0{\"token\":\"x\"}", "0/admin,{\"token\":\"x\"}", "1", "1/admin,",
        "2[\"get_state\"]", "2[\"set_volume\",{\"index\":1,\"value\":0.3}]", "20[\"get_state\"]",
        "21[\"get_state\"]", "2/admin,1[\"x\"]", "30[{\"sliders\":[0.1,0.2]}]", "35[]",
        "4{\"message\":\"no\"}", "4\"text\"", "2[\"\xc3\xa9t\xc3\xa9\",\"\xe2\x82\xac\"]",
        "51-[\"x\",{\"_placeholder\":true,\"num\":0}]", "61-0[{\"_placeholder\":true,\"num\":0}]",
        "510-/admin,7[\"x\"]"}) {
    CAPTURE(text);
    std::string error;
    const auto p = decode_sio(text, error);
    REQUIRE(p);
    CHECK(encode_sio(*p) == text);
  }
  sio_packet empty_nsp{sio_type::disconnect, "", std::nullopt, json(), false};
  CHECK(encode_sio(empty_nsp) == "1");
}

TEST_CASE("malformed socket packets are rejected with an error text") {
  check_rejected("");      // `4` with nothing after it
  check_rejected("2");     // EVENT without data
  check_rejected("2[]");   // empty array
  check_rejected("2[1]");  // name is not a string
  check_rejected("2[null]");
  check_rejected("2{\"a\":1}");  // not an array
  check_rejected("2\"get_state\"");
  check_rejected("2[\"connect\"]");  // reserved name
  check_rejected("2[\"disconnect\",1]");
  check_rejected("2/admin");  // namespace then nothing
  check_rejected("2/admin,");
  check_rejected("2[\"x\"");    // truncated JSON
  check_rejected("2[\"x\"]]");  // trailing garbage
  check_rejected("2[\"x\"] x");
  check_rejected("2[\"x\xff\"]");  // invalid UTF-8 inside JSON
  check_rejected("0[]");           // CONNECT data not an object
  check_rejected("0\"token\"");
  check_rejected("0null");
  check_rejected("1{}");   // DISCONNECT with data
  check_rejected("3[]");   // ACK without id
  check_rejected("31");    // ACK without data
  check_rejected("31{}");  // ACK data not an array
  check_rejected("4[]");   // CONNECT_ERROR data
  check_rejected("7");
  check_rejected("9[\"x\"]");
  check_rejected("x");
  check_rejected("/admin,[\"x\"]");
  check_rejected("218446744073709551616[\"x\"]");  // UINT64_MAX + 1
  check_rejected("299999999999999999999999999999[\"x\"]");
  check_rejected("2" + std::string(100, '9') + "[\"x\"]");
  check_rejected("\xff\xfe\x00garbage");
  check_rejected("2[\"x\",{\"a\":tru}]");
}

TEST_CASE("binary packet headers carry their attachment count") {
  // socket.io-client 4: socket.emit("get_state", Buffer.from([1, 2, 3]), ack)
  auto p = must_decode("451-0[\"get_state\",{\"_placeholder\":true,\"num\":0}]");
  CHECK(p.type == sio_type::binary_event);
  CHECK(p.attachments == 1);
  REQUIRE(p.ack_id);
  CHECK(*p.ack_id == 0);
  CHECK(p.data[1] == json{{"_placeholder", true}, {"num", 0}});  // placed by packet_decoder

  p = must_decode("461-7[{\"_placeholder\":true,\"num\":0}]");
  CHECK(p.type == sio_type::binary_ack);
  CHECK(p.attachments == 1);
  CHECK(*p.ack_id == 7);

  p = must_decode("4510-/admin,3[\"x\"]");  // at most 10, as socket.io-parser 4.2.7
  CHECK(p.attachments == 10);
  CHECK(p.nsp == "/admin");
  CHECK(*p.ack_id == 3);
  CHECK(must_decode("4501-[\"x\"]").attachments == 1);
  CHECK(must_decode("42[\"x\"]").attachments == 0);
}

TEST_CASE("bad binary packet headers are rejected") {
  check_rejected("5-[\"x\"]");    // no count
  check_rejected("50-[\"x\"]");   // socket.io-parser wants at least one
  check_rejected("511-[\"x\"]");  // more than 10
  check_rejected("599999999999999999999999-[\"x\"]");
  check_rejected("51[\"x\"]");  // no dash
  check_rejected("51");
  check_rejected("5x-[\"x\"]");
  check_rejected("5 1-[\"x\"]");
  check_rejected("51-[]");                // the data rules of EVENT
  check_rejected("51-[\"disconnect\"]");  // reserved name
  check_rejected("51-{\"a\":1}");
  check_rejected("61-[]");    // the rules of ACK: an id
  check_rejected("61-1{}");   // and an array
  check_rejected("61-1[\"");  // truncated JSON
}

namespace {

// Feeds Engine.IO messages (text, or binary when `binary` is set) to a decoder; returns the
// packets it completed, and the first error.
struct fed {
  std::vector<sio_packet> packets;
  std::string error;
};

fed feed(packet_decoder& d, const std::vector<std::pair<std::string, bool>>& messages) {
  fed out;
  for (const auto& [data, binary] : messages) {
    std::string error;
    auto p = d.add(data, binary, error);
    if (p) out.packets.push_back(std::move(*p));
    if (!error.empty() && out.error.empty()) out.error = error;
  }
  return out;
}

json bytes(std::initializer_list<std::uint8_t> b) {
  return json::binary(json::binary_t::container_type(b));
}

}  // namespace

TEST_CASE("packet_decoder puts the attachments in place of their placeholders") {
  packet_decoder d;
  std::string error;
  CHECK_FALSE(d.add("51-0[\"get_state\",{\"_placeholder\":true,\"num\":0}]", false, error));
  CHECK(error.empty());
  CHECK(d.waiting());
  auto p = d.add("\x01\x02\x03", true, error);
  REQUIRE(p);
  CHECK(error.empty());
  CHECK_FALSE(d.waiting());
  CHECK(p->type == sio_type::event);  // as socket.io-parser hands it on
  CHECK(p->attachments == 0);
  REQUIRE(p->ack_id);
  CHECK(*p->ack_id == 0);
  CHECK(p->data == json::array({"get_state", bytes({1, 2, 3})}));
  CHECK(p->data[1].is_binary());

  // Nested placeholders, named out of order; an empty attachment is an empty value.
  auto r = feed(d, {{"52-[\"x\",{\"a\":[{\"_placeholder\":true,\"num\":1}],"
                     "\"b\":{\"_placeholder\":true,\"num\":0}},\"t\"]",
                     false},
                    {"", true},
                    {"\xff", true},
                    {"2[\"plain\"]", false}});
  CHECK(r.error.empty());
  REQUIRE(r.packets.size() == 2);
  CHECK(r.packets[0].data ==
        json::array({"x", json{{"a", json::array({bytes({0xff})})}, {"b", bytes({})}}, "t"}));
  CHECK(r.packets[1].data == json::array({"plain"}));

  // A binary ack; `_placeholder` that is not true is ordinary data.
  r = feed(d, {{"61-4[{\"_placeholder\":true,\"num\":0},{\"_placeholder\":1,\"num\":0}]", false},
               {"z", true}});
  CHECK(r.error.empty());
  REQUIRE(r.packets.size() == 1);
  CHECK(r.packets[0].type == sio_type::ack);
  CHECK(*r.packets[0].ack_id == 4);
  CHECK(r.packets[0].data == json::array({bytes({'z'}), json{{"_placeholder", 1}, {"num", 0}}}));
}

TEST_CASE("packet_decoder refuses what socket.io-parser refuses") {
  const std::vector<std::vector<std::pair<std::string, bool>>> broken = {
      {{"\x01", true}},  // binary data without a packet
      {{"51-[\"x\",{\"_placeholder\":true,\"num\":0}]", false},
       {"2[\"y\"]", false}},  // text while attachments are due
      {{"51-[\"x\",{\"_placeholder\":true,\"num\":1}]", false}, {"a", true}},  // no attachment 1
      {{"51-[\"x\",{\"_placeholder\":true,\"num\":-1}]", false}, {"a", true}},
      {{"51-[\"x\",{\"_placeholder\":true,\"num\":0.5}]", false}, {"a", true}},
      {{"51-[\"x\",{\"_placeholder\":true,\"num\":\"0\"}]", false}, {"a", true}},
      {{"51-[\"x\",{\"_placeholder\":true}]", false}, {"a", true}},
      {{"511-[\"x\"]", false}},
      {{"2[]", false}},
  };
  for (const auto& messages : broken) {
    CAPTURE(messages.front().first);
    packet_decoder d;
    const auto r = feed(d, messages);
    CHECK(r.packets.empty());
    CHECK_FALSE(r.error.empty());
    CHECK_FALSE(d.waiting());
    // It starts over: the next packet is read as the first one.
    std::string error;
    CHECK(d.add("2[\"again\"]", false, error));
  }
}

TEST_CASE("a binary packet counts its text and attachments against max_payload") {
  const std::string text = "51-[\"x\",{\"_placeholder\":true,\"num\":0}]";  // 38 bytes
  REQUIRE(text.size() == 38);
  packet_decoder d(100);
  auto r = feed(d, {{text, false}, {std::string(62, 'a'), true}});
  CHECK(r.error.empty());
  CHECK(r.packets.size() == 1);
  r = feed(d, {{text, false}, {std::string(63, 'a'), true}});
  CHECK(r.error == "binary packet over maxPayload");
  CHECK(r.packets.empty());
  // Attachments that are sent count even when nothing names them...
  r = feed(d, {{"52-[\"x\",{\"_placeholder\":true,\"num\":0}]", false},
               {std::string(10, 'a'), true},
               {std::string(60, 'b'), true}});
  CHECK(r.error == "binary packet over maxPayload");
  // ...and one named twice counts twice: it is copied to both places.
  r = feed(
      d, {{"51-[\"x\",{\"_placeholder\":true,\"num\":0},{\"_placeholder\":true,\"num\":0}]", false},
          {std::string(30, 'a'), true}});
  CHECK(r.error == "binary packet over maxPayload");
  r = feed(d, {{"51-[\"" + std::string(100, 'x') + "\"]", false}});
  CHECK(r.error == "binary packet over maxPayload");
  // Plain packets are the transport's to bound.
  r = feed(d, {{"2[\"" + std::string(100, 'x') + "\"]", false}});
  CHECK(r.error.empty());
  CHECK(r.packets.size() == 1);
}

TEST_CASE("deep nesting is refused before parsing") {
  const std::string deep = "2[\"x\"," + std::string(100000, '[') + std::string(100000, ']') + "]";
  check_rejected(deep);
  std::string ok = "2[\"x\"," + std::string(60, '[') + std::string(60, ']') + "]";
  std::string error;
  CHECK(decode_sio(ok, error));
  // Brackets inside strings do not count.
  ok = "2[\"x\",\"" + std::string(1000, '[') + "\\\"\"]";
  CHECK(decode_sio(ok, error));
}

TEST_CASE("the error text is cleared on success") {
  std::string error = "stale";
  CHECK_FALSE(decode_sio("2[]", error));
  CHECK(error == "EVENT data must be a non-empty array");
  CHECK(decode_sio("0", error));
  CHECK(error.empty());
}

TEST_CASE("mutated packets never throw") {
  const std::vector<std::string> seeds = {"40",
                                          "40{}",
                                          "40{\"token\":\"x\"}",
                                          "41",
                                          "42[\"get_state\"]",
                                          "420[\"get_state\"]",
                                          "42/admin,1[\"x\"]",
                                          "430[{\"sliders\":[0.1,0.2]}]",
                                          "42[\"set_volume\",{\"index\":1,\"value\":0.3}]",
                                          "2probe",
                                          "3probe",
                                          "5",
                                          "6",
                                          "40{\"sid\":\"2xstpgZ5nX2HkivZAAAB\"}\x1e"
                                          "42[\"hello\"]",
                                          "451-0[\"get_state\",{\"_placeholder\":true,\"num\":0}]",
                                          "461-3[{\"_placeholder\":true,\"num\":0}]\x1e"
                                          "bAQID"};
  const std::string alphabet = "0123456789[]{}\",:/-\\\x1e\xff\xc3 abtnul.eE+";
  std::mt19937 rng(20240601);  // fixed seed: failures must reproduce
  auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n)(rng); };
  std::size_t accepted = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string s = seeds[pick(seeds.size() - 1)];
    const std::size_t edits = 1 + pick(3);
    for (std::size_t e = 0; e < edits; ++e) {
      const std::size_t at = s.empty() ? 0 : pick(s.size() - 1);
      const char c = alphabet[pick(alphabet.size() - 1)];
      switch (pick(2)) {
        case 0:
          if (!s.empty()) s[at] = c;
          break;
        case 1:
          s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), c);
          break;
        default:
          if (!s.empty()) s.erase(at, 1);
          break;
      }
    }
    CAPTURE(s);
    std::string error;
    CHECK_NOTHROW(decode_payload(s));
    CHECK_NOTHROW(decode_sio(s, error));
    packet_decoder d;
    CHECK_NOTHROW(d.add(s, false, error));
    CHECK_NOTHROW(d.add(s, true, error));
    if (const auto eio = decode_eio(s)) {
      std::optional<sio_packet> p;
      CHECK_NOTHROW(p = decode_sio(eio->data, error));
      if (p) {
        ++accepted;
        // Anything accepted must re-encode and decode to the same packet.
        std::string again_error;
        const auto again = decode_sio(encode_sio(*p), again_error);
        REQUIRE(again);
        CHECK(again->type == p->type);
        CHECK(again->nsp == p->nsp);
        CHECK(again->ack_id == p->ack_id);
        CHECK(again->has_data == p->has_data);
        CHECK(again->data == p->data);
        CHECK(again->attachments == p->attachments);
      } else {
        CHECK_FALSE(error.empty());
      }
    }
  }
  CHECK(accepted > 0);
}

TEST_CASE("handshake query keeps EIO transport and sid and ignores the rest") {
  auto q = mixerd::sio::parse_handshake_query("EIO=4&transport=polling&t=330o7ajx&sid=abc_-1");
  CHECK(q.eio == "4");
  CHECK(q.transport == "polling");
  CHECK(q.has_sid);
  CHECK(q.sid == "abc_-1");
  auto first = mixerd::sio::parse_handshake_query("transport=websocket&EIO=4");
  CHECK(first.transport == "websocket");
  CHECK_FALSE(first.has_sid);
  CHECK(mixerd::sio::parse_handshake_query("").eio.empty());
}
