#include "actors/macros/keyboard_output.hpp"

#include <X11/XF86keysym.h>
#include <X11/keysym.h>
#include <doctest/doctest.h>
#include <linux/input-event-codes.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>

#include "tests/unit/support/env.hpp"
#include "tests/unit/support/files.hpp"

using namespace std::chrono_literals;
namespace keyboard = mixerd::keyboard;

namespace {

mixerd::hotkeys::combo combo_of(const std::string& text) {
  std::string error;
  auto combo = mixerd::hotkeys::parse(text, error);
  REQUIRE_MESSAGE(combo.has_value(), error);
  return *combo;
}

constexpr const char* no_uinput = "/nonexistent/uinput";

// A Unix socket where an X server of display :N would listen, which takes connections into its
// backlog and never answers them: an X server that hangs.
class silent_x_server {
 public:
  silent_x_server() {
    std::filesystem::create_directories(dir);
    ::chmod(dir, 01777);
    for (int n = 4000 + ::getpid() % 1000; fd_ < 0; ++n) {
      auto path = std::string(dir) + "/X" + std::to_string(n);
      if (std::filesystem::exists(path)) continue;
      int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      REQUIRE(fd >= 0);
      sockaddr_un address{};
      address.sun_family = AF_UNIX;
      std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
      if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
          ::listen(fd, 8) != 0) {
        ::close(fd);
        continue;
      }
      fd_ = fd;
      path_ = path;
      display_ = ":" + std::to_string(n);
    }
  }
  // Closing the socket resets the waiting connection, which ends the press still waiting on it.
  ~silent_x_server() {
    ::close(fd_);
    ::unlink(path_.c_str());
  }
  silent_x_server(const silent_x_server&) = delete;
  silent_x_server& operator=(const silent_x_server&) = delete;

  const std::string& display() const { return display_; }

 private:
  static constexpr const char* dir = "/tmp/.X11-unix";
  int fd_ = -1;
  std::string path_;
  std::string display_;
};

}  // namespace

TEST_CASE("keyboard: without a display and without a writable uinput a press fails as no output") {
  {
    mixerd::test::scoped_env uinput("MIXERD_UINPUT", no_uinput);
    mixerd::test::scoped_unset_env no_display("DISPLAY");
    CHECK(keyboard::press(combo_of("ctrl+shift+m")) == "no keyboard output");
  }
  CHECK(keyboard::press_via(combo_of("ctrl+shift+m"), no_uinput, nullptr) == "no keyboard output");
  CHECK(keyboard::press_via(combo_of("media_play_pause"), no_uinput, "") == "no keyboard output");
}

TEST_CASE("keyboard: a display nobody serves fails at once as no output") {
  // No socket /tmp/.X11-unix/X59999: the connection is refused, nothing waits.
  auto started = std::chrono::steady_clock::now();
  CHECK(keyboard::press_via(combo_of("alt+f4"), no_uinput, ":59999") == "no keyboard output");
  CHECK(std::chrono::steady_clock::now() - started < 2s);
}

TEST_CASE("keyboard: an X server that never answers costs a press its time limit, not forever") {
  silent_x_server server;
  auto started = std::chrono::steady_clock::now();
  auto error = keyboard::press_via(combo_of("ctrl+m"), no_uinput, server.display().c_str());
  auto took = std::chrono::steady_clock::now() - started;
  CHECK(error == "the X server of DISPLAY=" + server.display() + " does not answer within 5 s");
  CHECK(took >= keyboard::x_answer_limit - 100ms);
  CHECK(took < keyboard::x_answer_limit + 2s);
}

TEST_CASE(
    "keyboard: a writable uinput path that is no uinput device says the keyboard could not be "
    "made") {
  mixerd::test::temp_dir dir;
  mixerd::test::write_file(dir.file("uinput"), "");
  auto error = keyboard::press_via(combo_of("ctrl+m"), dir.file("uinput"), nullptr);
  CHECK(error.rfind("the uinput keyboard could not be created (UI_SET_EVBIT: ", 0) == 0);
}

TEST_CASE("keyboard: every key name and modifier has an evdev code and an X keysym, none shared") {
  std::set<int> evdev_codes;
  std::set<unsigned long> keysyms;
  auto names = mixerd::hotkeys::key_names();
  for (const char* modifier : {"ctrl", "shift", "alt", "super"})
    names.emplace_back(modifier);
  for (const auto& name : names) {
    CAPTURE(name);
    auto codes = keyboard::codes_of(name);
    REQUIRE(codes.has_value());
    CHECK(codes->evdev > 0);
    CHECK(codes->evdev <= KEY_MAX);
    CHECK(codes->keysym != 0);
    CHECK(evdev_codes.insert(codes->evdev).second);
    CHECK(keysyms.insert(codes->keysym).second);
  }
  CHECK_FALSE(keyboard::codes_of("hyper").has_value());
  CHECK_FALSE(keyboard::codes_of("M").has_value());
}

TEST_CASE("keyboard: keys get the codes of their place on the keyboard") {
  auto check = [](const char* name, int evdev, unsigned long keysym) {
    CAPTURE(name);
    auto codes = keyboard::codes_of(name);
    REQUIRE(codes.has_value());
    CHECK(codes->evdev == evdev);
    CHECK(codes->keysym == keysym);
  };
  check("ctrl", KEY_LEFTCTRL, XK_Control_L);
  check("super", KEY_LEFTMETA, XK_Super_L);
  check("m", KEY_M, XK_m);
  check("0", KEY_0, XK_0);
  check("f11", KEY_F11, XK_F11);
  check("f24", KEY_F24, XK_F24);
  check("page_down", KEY_PAGEDOWN, XK_Next);
  check("print", KEY_SYSRQ, XK_Print);
  check("media_play_pause", KEY_PLAYPAUSE, XF86XK_AudioPlay);
  check("media_previous", KEY_PREVIOUSSONG, XF86XK_AudioPrev);
  check("volume_mute", KEY_MUTE, XF86XK_AudioMute);
}
