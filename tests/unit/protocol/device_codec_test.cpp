#include <doctest/doctest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "protocol/device_codec.hpp"
#include "protocol/limits.hpp"

using namespace mixerd::protocol;
using mixerd::limits::max_line_bytes;

namespace {

// Returns a copy so that it can be called on a temporary variant.
template <class T, class V>
T as(const V& value) {
  REQUIRE(std::holds_alternative<T>(value));
  return std::get<T>(value);
}

std::string repeat(const std::string& piece, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i)
    out += piece;
  return out;
}

struct collected {
  std::vector<std::pair<std::string, bool>> lines;
  line_splitter::sink sink() {
    return [this](std::string_view line, bool overlong) { lines.emplace_back(line, overlong); };
  }
};

bool is_unknown_device_line(std::string_view line) {
  const device_event event = parse_device_line(line);
  return std::holds_alternative<dev_unknown>(event) && std::get<dev_unknown>(event).line == line;
}

}  // namespace

TEST_CASE("every device line of protocol/README.md parses and encodes back to the same text") {
  // clang-format off
  const std::vector<std::string> lines = {
      "PONG", "ACK,READY", "ACK,VOL,0,Music,50", "STATE,CONNECTED", "VER,2.0.0", "FW_VER,2.0.0",
      "DEV_TYPE,Mixlar Mix", "SLIDER,0,0", "SLIDER,3,100", "MACRO,0,PRESS", "MACRO,8,RELEASE",
      "ENCODER,3", "ENCODER,-2", "ENCODER,1000", "ENCODER,-1000", "ENCODER,PRESS",
      "ENCODER,RELEASE", "MUTE,0,PRESS", "MUTE,3,PRESS", "MUTE,MASTER,PRESS", "PAGE,Mixer",
      "MPAGE,0", "MPAGE,3", "PAGE,A\\,B \\\\ C"
  };
  // clang-format on
  for (const std::string& line : lines) {
    CAPTURE(line);
    const device_event event = parse_device_line(line);
    CHECK_FALSE(std::holds_alternative<dev_unknown>(event));
    CHECK(encode_device_event(event) == line);
  }
}

TEST_CASE("device lines parse into the right values") {
  CHECK(std::holds_alternative<dev_pong>(parse_device_line("PONG")));
  CHECK(as<dev_ack>(parse_device_line("ACK,READY")).command == "READY");
  CHECK(as<dev_ack>(parse_device_line("ACK,VOL,0,Music,50")).command == "VOL,0,Music,50");
  CHECK(as<dev_ack>(parse_device_line("ACK,VOL,0,A\\,B,50")).command == "VOL,0,A\\,B,50");
  CHECK(std::holds_alternative<dev_state_connected>(parse_device_line("STATE,CONNECTED")));
  const auto& ver = as<dev_version>(parse_device_line("VER,2.0.0"));
  CHECK(ver.version == "2.0.0");
  CHECK_FALSE(ver.firmware);
  const auto& fw = as<dev_version>(parse_device_line("FW_VER,1.2.0"));
  CHECK(fw.version == "1.2.0");
  CHECK(fw.firmware);
  CHECK(as<dev_type>(parse_device_line("DEV_TYPE,Mixlar Mix")).name == "Mixlar Mix");
  const auto& slider = as<dev_slider>(parse_device_line("SLIDER,2,57"));
  CHECK(slider.index == 2);
  CHECK(slider.value == 57);
  const auto& press = as<dev_macro>(parse_device_line("MACRO,5,PRESS"));
  CHECK(press.index == 5);
  CHECK(press.pressed);
  CHECK_FALSE(as<dev_macro>(parse_device_line("MACRO,5,RELEASE")).pressed);
  CHECK(as<dev_encoder_turn>(parse_device_line("ENCODER,-2")).delta == -2);
  CHECK(as<dev_encoder_turn>(parse_device_line("ENCODER,+3")).delta == 3);
  CHECK(as<dev_encoder_turn>(parse_device_line("ENCODER,7")).delta == 7);
  CHECK(as<dev_encoder_button>(parse_device_line("ENCODER,PRESS")).pressed);
  CHECK_FALSE(as<dev_encoder_button>(parse_device_line("ENCODER,RELEASE")).pressed);
  CHECK(as<dev_mute_press>(parse_device_line("MUTE,1,PRESS")).index == 1);
  CHECK(as<dev_mute_press>(parse_device_line("MUTE,MASTER,PRESS")).index == master_index);
  CHECK(as<dev_page>(parse_device_line("PAGE,Home\\, sweet")).name == "Home, sweet");
  CHECK(as<dev_macro_page>(parse_device_line("MPAGE,2")).page == 2);
}

TEST_CASE("device events encode as the firmware prints them") {
  CHECK(encode_device_event(dev_pong{}) == "PONG");
  CHECK(encode_device_event(dev_ack{"READY"}) == "ACK,READY");
  CHECK(encode_device_event(dev_state_connected{}) == "STATE,CONNECTED");
  CHECK(encode_device_event(dev_version{"2.0.0", false}) == "VER,2.0.0");
  CHECK(encode_device_event(dev_version{"2.0.0", true}) == "FW_VER,2.0.0");
  CHECK(encode_device_event(dev_type{"Mixlar Mix"}) == "DEV_TYPE,Mixlar Mix");
  CHECK(encode_device_event(dev_slider{3, 42}) == "SLIDER,3,42");
  CHECK(encode_device_event(dev_macro{4, true}) == "MACRO,4,PRESS");
  CHECK(encode_device_event(dev_macro{4, false}) == "MACRO,4,RELEASE");
  CHECK(encode_device_event(dev_encoder_turn{-2}) == "ENCODER,-2");
  CHECK(encode_device_event(dev_encoder_turn{3}) == "ENCODER,3");
  CHECK(encode_device_event(dev_encoder_button{true}) == "ENCODER,PRESS");
  CHECK(encode_device_event(dev_encoder_button{false}) == "ENCODER,RELEASE");
  CHECK(encode_device_event(dev_mute_press{2}) == "MUTE,2,PRESS");
  CHECK(encode_device_event(dev_mute_press{master_index}) == "MUTE,MASTER,PRESS");
  CHECK(encode_device_event(dev_page{"a,b"}) == "PAGE,a\\,b");
  CHECK(encode_device_event(dev_macro_page{1}) == "MPAGE,1");
  CHECK(encode_device_event(dev_unknown{"ADC: OK"}) == "ADC: OK");
}

TEST_CASE("unknown and malformed device lines give dev_unknown with the whole line") {
  // clang-format off
  const std::vector<std::string> lines = {
      "", "ADC: OK", "Touch: not found", "Mixlar Mix ready", "REBOOTING", "pong", "PONG,",
      " PONG", "ACK", "STATE,QA,HW_DETECT", "STATE,CONNECTED,1", "QA,PASS,2024-01-01", "VER",
      "VER,1,2", "SLIDER,4,50", "SLIDER,-1,50", "SLIDER,0,101", "SLIDER,0,-1", "SLIDER,0, 50",
      "SLIDER,0,50 ", "SLIDER,0,50x", "SLIDER,0,0x10", "SLIDER,0,+5", "SLIDER,0,", "SLIDER,0",
      "SLIDER,0,50,1", "SLIDER,0,99999999999999999999", "MACRO,9,PRESS", "MACRO,0,press",
      "MACRO,0,HOLD", "MACRO,0", "ENCODER,0", "ENCODER,+0", "ENCODER,-0", "ENCODER,1001",
      "ENCODER,-1001", "ENCODER,2147483648", "ENCODER,-", "ENCODER,+", "ENCODER,+-1",
      "ENCODER,1.5", "ENCODER,", "ENCODER", "MUTE,4,PRESS", "MUTE,0,RELEASE", "MUTE,master,PRESS",
      "MUTE,MASTER", "MPAGE,4", "MPAGE,-1", "MPAGE,", "PAGE", std::string("PONG\0", 5),
      std::string("\0PONG", 5), std::string("SLIDER,0,5\0", 11), "\xFF\xFE\xFD"
  };
  // clang-format on
  for (const std::string& line : lines) {
    CAPTURE(line);
    CHECK(is_unknown_device_line(line));
  }
}

TEST_CASE("random binary garbage never crashes and gives unknown lines") {
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> length(1, 600);
  std::string stream;
  for (int i = 0; i < 300; ++i) {
    std::string line(static_cast<std::size_t>(length(rng)), '\0');
    for (char& c : line)
      c = static_cast<char>(byte(rng));
    CHECK(is_unknown_device_line(line));
    CHECK(std::holds_alternative<cmd_unknown>(parse_host_line(line)));
    const encoded_line encoded = encode_host_command(cmd_unknown{line});
    CHECK(encoded.text.size() <= max_line_bytes);
    CHECK(encoded.text.find_first_of("\r\n") == std::string::npos);
    stream += line;
  }
  line_splitter splitter;
  collected out;
  for (std::size_t pos = 0; pos < stream.size(); pos += 97) {
    splitter.feed(std::string_view(stream).substr(pos, 97), out.sink());
  }
  CHECK_FALSE(out.lines.empty());
  for (const auto& [line, overlong] : out.lines) {
    CHECK(line.size() <= max_line_bytes);
    CHECK_FALSE(line.empty());
    CHECK(line.find_first_of("\r\n") == std::string::npos);
    CHECK(is_unknown_device_line(line));
  }
}

TEST_CASE("every host command of protocol/README.md encodes to its line") {
  CHECK(encode_host_command(cmd_ready{}).text == "READY");
  CHECK(encode_host_command(cmd_ping{}).text == "PING");
  CHECK(encode_host_command(cmd_ver{}).text == "VER");
  CHECK(encode_host_command(cmd_dev_type{}).text == "DEV_TYPE");
  CHECK(encode_host_command(cmd_vol{0, "Music", 50}).text == "VOL,0,Music,50");
  CHECK(encode_host_command(cmd_macro{2, "Play", ""}).text == "MACRO,2,Play,");
  CHECK(encode_host_command(cmd_macro{8, "Mic", "mic"}).text == "MACRO,8,Mic,mic");
  CHECK(encode_host_command(cmd_brightness{80}).text == "BRIGHTNESS,80");
  CHECK(encode_host_command(cmd_reboot{}).text == "REBOOT");
  CHECK(encode_host_command(cmd_mute{1, true}).text == "MUTE,1,1");
  CHECK(encode_host_command(cmd_mute{3, false}).text == "MUTE,3,0");
  CHECK(encode_host_command(cmd_mute{master_index, true}).text == "MUTE,MASTER,1");
  CHECK(encode_host_command(cmd_master{64}).text == "MASTER,64");
  CHECK(encode_host_command(cmd_macro_page{3}).text == "MPAGE,3");
  CHECK(encode_host_command(cmd_toast{3000, "bell", "#FF0000", "Hi", "there"}).text ==
        "TOAST,3000,bell,#FF0000,Hi,there");
  CHECK(encode_host_command(cmd_unknown{"MODE,MIDI"}).text == "MODE,MIDI");
  CHECK_FALSE(encode_host_command(cmd_vol{0, "Music", 50}).shortened);
}

TEST_CASE("every host line parses and encodes back to the same text") {
  // clang-format off
  const std::vector<std::string> lines = {
      "READY", "PING", "VER", "DEV_TYPE", "REBOOT", "VOL,0,Music,50", "VOL,3,,0",
      "VOL,1,a\\,b\\\\c,100", "MACRO,0,Play,", "MACRO,8,x\\,y,ic\\\\on", "BRIGHTNESS,0",
      "BRIGHTNESS,100", "MUTE,0,1", "MUTE,3,0", "MUTE,MASTER,1", "MUTE,MASTER,0", "MASTER,0",
      "MASTER,100", "MPAGE,0", "MPAGE,3", "TOAST,3000,bell,FF0000,Hello,World", "TOAST,1000,,,,",
      "TOAST,30000,i,c,m\\,1,s\\\\2"
  };
  // clang-format on
  for (const std::string& line : lines) {
    CAPTURE(line);
    const host_command command = parse_host_line(line);
    CHECK_FALSE(std::holds_alternative<cmd_unknown>(command));
    const encoded_line encoded = encode_host_command(command);
    CHECK(encoded.text == line);
    CHECK_FALSE(encoded.shortened);
  }
}

TEST_CASE("host lines parse into the right values") {
  const auto& vol = as<cmd_vol>(parse_host_line("VOL,2,Game\\, chat,75"));
  CHECK(vol.index == 2);
  CHECK(vol.label == "Game, chat");
  CHECK(vol.volume == 75);
  const auto& macro = as<cmd_macro>(parse_host_line("MACRO,4,Back\\\\slash,play"));
  CHECK(macro.index == 4);
  CHECK(macro.name == "Back\\slash");
  CHECK(macro.icon == "play");
  CHECK(as<cmd_brightness>(parse_host_line("BRIGHTNESS,33")).value == 33);
  const auto& mute = as<cmd_mute>(parse_host_line("MUTE,MASTER,1"));
  CHECK(mute.index == master_index);
  CHECK(mute.muted);
  CHECK(as<cmd_master>(parse_host_line("MASTER,12")).volume == 12);
  CHECK(as<cmd_macro_page>(parse_host_line("MPAGE,1")).page == 1);
  const auto& toast = as<cmd_toast>(parse_host_line("TOAST,5000,bell,0F0,a\\,b,c\\\\d"));
  CHECK(toast.duration_ms == 5000);
  CHECK(toast.icon == "bell");
  CHECK(toast.color == "0F0");
  CHECK(toast.message == "a,b");
  CHECK(toast.subtitle == "c\\d");
}

TEST_CASE("malformed or out of range host lines give cmd_unknown") {
  // clang-format off
  const std::vector<std::string> lines = {
      "", "ready", "PING,", "VOL,4,x,50", "VOL,0,x,101", "VOL,0,x", "VOL,0,a,b,50", "MACRO,9,x,",
      "MACRO,0,x", "BRIGHTNESS,101", "BRIGHTNESS,-1", "MUTE,4,1", "MUTE,0,2", "MUTE,MASTER,",
      "MASTER,101", "MPAGE,4", "TOAST,999,i,c,m,s", "TOAST,3000,i,c,m", "MODE,MIDI",
      "MIDI,CC,0,1"
  };
  // clang-format on
  for (const std::string& line : lines) {
    CAPTURE(line);
    CHECK(as<cmd_unknown>(parse_host_line(line)).line == line);
  }
}

TEST_CASE("host command numbers are clamped to their ranges") {
  CHECK(encode_host_command(cmd_vol{0, "a", 150}).text == "VOL,0,a,100");
  CHECK(encode_host_command(cmd_vol{0, "a", -5}).text == "VOL,0,a,0");
  CHECK(encode_host_command(cmd_brightness{200}).text == "BRIGHTNESS,100");
  CHECK(encode_host_command(cmd_brightness{-1}).text == "BRIGHTNESS,0");
  CHECK(encode_host_command(cmd_master{101}).text == "MASTER,100");
  CHECK(encode_host_command(cmd_macro_page{9}).text == "MPAGE,3");
  CHECK(encode_host_command(cmd_toast{50, "", "", "m", ""}).text == "TOAST,1000,,,m,");
  CHECK(encode_host_command(cmd_toast{99999, "", "", "m", ""}).text == "TOAST,30000,,,m,");
}

TEST_CASE("escape_field and split_fields handle commas backslashes and newlines") {
  CHECK(escape_field("plain") == "plain");
  CHECK(escape_field("a,b") == "a\\,b");
  CHECK(escape_field("a\\b") == "a\\\\b");
  CHECK(escape_field("\\,") == "\\\\\\,");
  CHECK(escape_field("line1\nline2\r") == "line1 line2 ");
  CHECK(escape_field(std::string("nul\0esc\x1b[31m\ttab\x7f", 17)) == "nul esc [31m tab ");
  CHECK(split_fields("a,b,,c") == std::vector<std::string>{"a", "b", "", "c"});
  CHECK(split_fields("a\\,b,c") == std::vector<std::string>{"a,b", "c"});
  CHECK(split_fields("a\\\\,b") == std::vector<std::string>{"a\\", "b"});
  CHECK(split_fields("x,") == std::vector<std::string>{"x", ""});
  CHECK(split_fields("") == std::vector<std::string>{""});
  CHECK(split_fields("end\\") == std::vector<std::string>{"end\\"});
  CHECK(split_fields("C:\\Music") == std::vector<std::string>{"C:\\Music"});
  for (const std::string text : {"", ",", "\\", "\\\\,,", "a,\\b\\", "é,🎵\\"}) {
    CAPTURE(text);
    CHECK(split_fields(escape_field(text)) == std::vector<std::string>{text});
  }
}

TEST_CASE("no control byte reaches a host line, whatever the command's text holds") {
  const std::string dirty("a\0b\x1b[31m\x01\x7f\r\n\tz", 14);
  for (const auto& command :
       std::vector<host_command>{cmd_vol{0, dirty, 5}, cmd_macro{0, dirty, dirty},
                                 cmd_toast{2000, dirty, dirty, dirty, dirty}, cmd_unknown{dirty}}) {
    const auto line = encode_host_command(command).text;
    CAPTURE(line);
    CHECK(std::none_of(line.begin(), line.end(),
                       [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; }));
  }
}

TEST_CASE("free text with commas and backslashes round-trips through every command") {
  const std::string text = "a,b\\c,\\,d\\";
  CHECK(as<cmd_vol>(parse_host_line(encode_host_command(cmd_vol{1, text, 9}).text)).label == text);
  const auto macro =
      as<cmd_macro>(parse_host_line(encode_host_command(cmd_macro{3, text, text}).text));
  CHECK(macro.name == text);
  CHECK(macro.icon == text);
  const auto toast = as<cmd_toast>(
      parse_host_line(encode_host_command(cmd_toast{2000, text, text, text, text}).text));
  CHECK(toast.icon == text);
  CHECK(toast.color == text);
  CHECK(toast.message == text);
  CHECK(toast.subtitle == text);
  CHECK(as<dev_page>(parse_device_line(encode_device_event(dev_page{text}))).name == text);
  CHECK(as<dev_type>(parse_device_line(encode_device_event(dev_type{text}))).name == text);
  CHECK(as<dev_version>(parse_device_line(encode_device_event(dev_version{text, true}))).version ==
        text);
}

TEST_CASE("utf8_prefix never splits a multi-byte character") {
  CHECK(utf8_prefix("abc", 10) == "abc");
  CHECK(utf8_prefix("abc", 2) == "ab");
  CHECK(utf8_prefix("é", 1).empty());
  CHECK(utf8_prefix("aé", 2) == "a");
  CHECK(utf8_prefix("aé", 3) == "aé");
  CHECK(utf8_prefix("🎵🎵", 7) == "🎵");
  CHECK(utf8_prefix("🎵", 3).empty());
  CHECK(utf8_prefix("x€y", 3) == "x");
  CHECK(utf8_prefix("abc", 0).empty());
  // Stray continuation bytes are not part of a character and may be cut anywhere.
  CHECK(utf8_prefix("a\x80\x80\x80\x80\x80", 3) == "a\x80\x80");
}

TEST_CASE("TOAST shortening cuts the subtitle first at UTF-8 boundaries") {
  const cmd_toast toast{3000, "bell", "FF0000", repeat("é", 20), repeat("🎵", 60)};
  const encoded_line encoded = encode_host_command(toast);
  CHECK(encoded.shortened);
  CHECK(encoded.text.size() <= max_line_bytes);
  CHECK(encoded.text.size() + 4 > max_line_bytes);  // no further 🎵 would have fitted
  const auto& back = as<cmd_toast>(parse_host_line(encoded.text));
  CHECK(back.message == toast.message);
  CHECK(back.subtitle.size() % 4 == 0);
  CHECK(back.subtitle == repeat("🎵", back.subtitle.size() / 4));
  CHECK(back.icon == "bell");
  CHECK(back.color == "FF0000");
  CHECK(back.duration_ms == 3000);
}

TEST_CASE("TOAST shortening empties the subtitle then cuts the message") {
  const cmd_toast toast{3000, "bell", "FF0000", "a" + repeat("é", 150), "subtitle"};
  const encoded_line encoded = encode_host_command(toast);
  CHECK(encoded.shortened);
  CHECK(encoded.text.size() <= max_line_bytes);
  CHECK(encoded.text.size() + 2 > max_line_bytes);
  const auto& back = as<cmd_toast>(parse_host_line(encoded.text));
  CHECK(back.subtitle.empty());
  CHECK(back.message == "a" + repeat("é", (back.message.size() - 1) / 2));
}

TEST_CASE("TOAST shortening never leaves a dangling escape backslash") {
  const cmd_toast toast{3000, "bell", "FF0000", repeat(",", 200), repeat("\\", 10)};
  const encoded_line encoded = encode_host_command(toast);
  CHECK(encoded.shortened);
  CHECK(encoded.text.size() <= max_line_bytes);
  const auto& back = as<cmd_toast>(parse_host_line(encoded.text));
  CHECK(back.subtitle.empty());
  CHECK(back.message == repeat(",", back.message.size()));
  CHECK(encoded.text.size() + 2 > max_line_bytes);
}

TEST_CASE("TOAST of exactly 255 bytes is kept and one more byte is cut") {
  // "TOAST,3000,bell,FF0000," plus the comma before the subtitle is 24 bytes.
  const cmd_toast fits{3000, "bell", "FF0000", repeat("m", 231 - 6), "sub€"};
  const encoded_line kept = encode_host_command(fits);
  CHECK(kept.text.size() == max_line_bytes);
  CHECK_FALSE(kept.shortened);
  cmd_toast over = fits;
  over.message += "m";
  const encoded_line cut = encode_host_command(over);
  CHECK(cut.shortened);
  CHECK(cut.text.size() == max_line_bytes - 2);  // the whole 3-byte € goes
  CHECK(as<cmd_toast>(parse_host_line(cut.text)).subtitle == "sub");
}

TEST_CASE("TOAST with oversized icon still fits the line") {
  const cmd_toast toast{3000, repeat("i", 300), repeat("c", 300), "m", "s"};
  const encoded_line encoded = encode_host_command(toast);
  CHECK(encoded.shortened);
  CHECK(encoded.text.size() <= max_line_bytes);
  CHECK(std::holds_alternative<cmd_toast>(parse_host_line(encoded.text)));
}

TEST_CASE("VOL label and MACRO name are shortened to fit the line") {
  const encoded_line ascii = encode_host_command(cmd_vol{0, repeat("x", 300), 50});
  CHECK(ascii.shortened);
  CHECK(ascii.text.size() == max_line_bytes);
  CHECK(as<cmd_vol>(parse_host_line(ascii.text)).volume == 50);

  const encoded_line wide = encode_host_command(cmd_vol{1, repeat("🎵", 100), 7});
  CHECK(wide.shortened);
  CHECK(wide.text.size() <= max_line_bytes);
  CHECK(wide.text.size() + 4 > max_line_bytes);
  const auto& vol = as<cmd_vol>(parse_host_line(wide.text));
  CHECK(vol.label == repeat("🎵", vol.label.size() / 4));
  CHECK(vol.volume == 7);

  const encoded_line commas = encode_host_command(cmd_vol{2, repeat(",", 200), 1});
  CHECK(commas.text.size() <= max_line_bytes);
  CHECK(as<cmd_vol>(parse_host_line(commas.text)).label == repeat(",", 123));

  const encoded_line macro = encode_host_command(cmd_macro{0, repeat("é", 200), "play"});
  CHECK(macro.shortened);
  CHECK(macro.text.size() <= max_line_bytes);
  const auto& back = as<cmd_macro>(parse_host_line(macro.text));
  CHECK(back.icon == "play");
  CHECK(back.name == repeat("é", back.name.size() / 2));
}

TEST_CASE("unknown host commands lose newlines and are cut to the limit") {
  const encoded_line encoded = encode_host_command(cmd_unknown{"MODE\r\nPC"});
  CHECK(encoded.text == "MODE  PC");
  CHECK_FALSE(encoded.shortened);
  const encoded_line cut = encode_host_command(cmd_unknown{"x" + repeat("é", 200)});
  CHECK(cut.shortened);
  CHECK(cut.text.size() == max_line_bytes);
}

TEST_CASE("line_splitter accepts LF CRLF and CR terminators") {
  line_splitter splitter;
  collected out;
  splitter.feed("PONG\nACK,READY\r\nSLIDER,0,5\rMPAGE,1\n", out.sink());
  REQUIRE(out.lines.size() == 4);
  CHECK(out.lines[0].first == "PONG");
  CHECK(out.lines[1].first == "ACK,READY");
  CHECK(out.lines[2].first == "SLIDER,0,5");
  CHECK(out.lines[3].first == "MPAGE,1");
  for (const auto& line : out.lines)
    CHECK_FALSE(line.second);
}

TEST_CASE("line_splitter joins lines and CRLF split across feeds") {
  line_splitter splitter;
  collected out;
  splitter.feed("PO", out.sink());
  splitter.feed("NG\r", out.sink());
  splitter.feed("\nSLI", out.sink());
  splitter.feed("DER,1,2\r", out.sink());
  splitter.feed("\n", out.sink());
  splitter.feed("ENCODER,-2", out.sink());
  CHECK(out.lines.size() == 2);
  splitter.feed("\n", out.sink());
  REQUIRE(out.lines.size() == 3);
  CHECK(out.lines[0].first == "PONG");
  CHECK(out.lines[1].first == "SLIDER,1,2");
  CHECK(out.lines[2].first == "ENCODER,-2");

  collected bytewise;
  line_splitter other;
  for (const char c : std::string("A\r\nB\rC\n\r\nD\n"))
    other.feed(std::string(1, c), bytewise.sink());
  REQUIRE(bytewise.lines.size() == 4);
  CHECK(bytewise.lines[3].first == "D");
}

TEST_CASE("line_splitter skips empty lines") {
  line_splitter splitter;
  collected out;
  splitter.feed("\n\n\r\r\n\r\nPONG\n\n\r", out.sink());
  REQUIRE(out.lines.size() == 1);
  CHECK(out.lines[0].first == "PONG");
}

TEST_CASE("line_splitter accepts a line of exactly 255 bytes") {
  const std::string line = repeat("a", max_line_bytes);
  line_splitter splitter;
  collected out;
  splitter.feed(line + "\n", out.sink());
  splitter.feed(line.substr(0, 100), out.sink());
  splitter.feed(line.substr(100), out.sink());
  splitter.feed("\r\n", out.sink());
  REQUIRE(out.lines.size() == 2);
  for (const auto& [text, overlong] : out.lines) {
    CHECK(text == line);
    CHECK_FALSE(overlong);
  }
}

TEST_CASE("line_splitter reports over-long lines once and recovers") {
  for (const std::size_t size : {std::size_t{256}, std::size_t{1000}}) {
    CAPTURE(size);
    std::string line;
    for (std::size_t i = 0; i < size; ++i)
      line += static_cast<char>('a' + i % 26);
    for (const std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{4096}}) {
      CAPTURE(chunk);
      const std::string stream = line + "\r\nSLIDER,2,40\n";
      line_splitter splitter;
      collected out;
      for (std::size_t pos = 0; pos < stream.size(); pos += chunk) {
        splitter.feed(std::string_view(stream).substr(pos, chunk), out.sink());
      }
      REQUIRE(out.lines.size() == 2);
      CHECK(out.lines[0].first == line.substr(0, max_line_bytes));
      CHECK(out.lines[0].second);
      CHECK(out.lines[1].first == "SLIDER,2,40");
      CHECK_FALSE(out.lines[1].second);
      CHECK(as<dev_slider>(parse_device_line(out.lines[1].first)).value == 40);
    }
  }
}

TEST_CASE("line_splitter reset drops a partial line") {
  line_splitter splitter;
  collected out;
  splitter.feed("garb", out.sink());
  splitter.reset();
  splitter.feed("PONG\n", out.sink());
  splitter.feed(repeat("x", 300), out.sink());
  splitter.reset();
  splitter.feed("PONG\n", out.sink());
  REQUIRE(out.lines.size() == 3);
  CHECK(out.lines[0].first == "PONG");
  CHECK(out.lines[1].second);
  CHECK(out.lines[2].first == "PONG");
}
