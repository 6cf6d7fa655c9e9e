#include "actors/macros/keyboard_output.hpp"

#include <fcntl.h>
#include <linux/input-event-codes.h>
#include <linux/uinput.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#if MIXERD_WITH_HOTKEYS
// Last: Xlib defines macros such as None, True and Status.
#include <X11/XF86keysym.h>
#include <X11/Xlib.h>
#include <X11/extensions/XTest.h>
#include <X11/keysym.h>
// An X keysym of the key table.
#define MIXERD_KEYSYM(name) name
#else
// Built without the X server's keyboard (MIXERD_WITH_HOTKEYS off): uinput only, no keysyms.
#define MIXERD_KEYSYM(name) 0UL
#endif

namespace mixerd::keyboard {

namespace {

struct key_entry {
  std::string_view name;
  int evdev;
  unsigned long keysym;
};

// Every key a hotkey can name (hotkeys::key_names()) and the four modifiers, each with its
// Linux input code and its X keysym. The evdev codes follow the key's place on a US keyboard
// (KEY_A is not KEY_Q + 14), hence one explicit line per key.
constexpr std::array key_table{
    key_entry{"ctrl", KEY_LEFTCTRL, MIXERD_KEYSYM(XK_Control_L)},
    key_entry{"shift", KEY_LEFTSHIFT, MIXERD_KEYSYM(XK_Shift_L)},
    key_entry{"alt", KEY_LEFTALT, MIXERD_KEYSYM(XK_Alt_L)},
    key_entry{"super", KEY_LEFTMETA, MIXERD_KEYSYM(XK_Super_L)},
    key_entry{"a", KEY_A, MIXERD_KEYSYM(XK_a)},
    key_entry{"b", KEY_B, MIXERD_KEYSYM(XK_b)},
    key_entry{"c", KEY_C, MIXERD_KEYSYM(XK_c)},
    key_entry{"d", KEY_D, MIXERD_KEYSYM(XK_d)},
    key_entry{"e", KEY_E, MIXERD_KEYSYM(XK_e)},
    key_entry{"f", KEY_F, MIXERD_KEYSYM(XK_f)},
    key_entry{"g", KEY_G, MIXERD_KEYSYM(XK_g)},
    key_entry{"h", KEY_H, MIXERD_KEYSYM(XK_h)},
    key_entry{"i", KEY_I, MIXERD_KEYSYM(XK_i)},
    key_entry{"j", KEY_J, MIXERD_KEYSYM(XK_j)},
    key_entry{"k", KEY_K, MIXERD_KEYSYM(XK_k)},
    key_entry{"l", KEY_L, MIXERD_KEYSYM(XK_l)},
    key_entry{"m", KEY_M, MIXERD_KEYSYM(XK_m)},
    key_entry{"n", KEY_N, MIXERD_KEYSYM(XK_n)},
    key_entry{"o", KEY_O, MIXERD_KEYSYM(XK_o)},
    key_entry{"p", KEY_P, MIXERD_KEYSYM(XK_p)},
    key_entry{"q", KEY_Q, MIXERD_KEYSYM(XK_q)},
    key_entry{"r", KEY_R, MIXERD_KEYSYM(XK_r)},
    key_entry{"s", KEY_S, MIXERD_KEYSYM(XK_s)},
    key_entry{"t", KEY_T, MIXERD_KEYSYM(XK_t)},
    key_entry{"u", KEY_U, MIXERD_KEYSYM(XK_u)},
    key_entry{"v", KEY_V, MIXERD_KEYSYM(XK_v)},
    key_entry{"w", KEY_W, MIXERD_KEYSYM(XK_w)},
    key_entry{"x", KEY_X, MIXERD_KEYSYM(XK_x)},
    key_entry{"y", KEY_Y, MIXERD_KEYSYM(XK_y)},
    key_entry{"z", KEY_Z, MIXERD_KEYSYM(XK_z)},
    key_entry{"0", KEY_0, MIXERD_KEYSYM(XK_0)},
    key_entry{"1", KEY_1, MIXERD_KEYSYM(XK_1)},
    key_entry{"2", KEY_2, MIXERD_KEYSYM(XK_2)},
    key_entry{"3", KEY_3, MIXERD_KEYSYM(XK_3)},
    key_entry{"4", KEY_4, MIXERD_KEYSYM(XK_4)},
    key_entry{"5", KEY_5, MIXERD_KEYSYM(XK_5)},
    key_entry{"6", KEY_6, MIXERD_KEYSYM(XK_6)},
    key_entry{"7", KEY_7, MIXERD_KEYSYM(XK_7)},
    key_entry{"8", KEY_8, MIXERD_KEYSYM(XK_8)},
    key_entry{"9", KEY_9, MIXERD_KEYSYM(XK_9)},
    key_entry{"f1", KEY_F1, MIXERD_KEYSYM(XK_F1)},
    key_entry{"f2", KEY_F2, MIXERD_KEYSYM(XK_F2)},
    key_entry{"f3", KEY_F3, MIXERD_KEYSYM(XK_F3)},
    key_entry{"f4", KEY_F4, MIXERD_KEYSYM(XK_F4)},
    key_entry{"f5", KEY_F5, MIXERD_KEYSYM(XK_F5)},
    key_entry{"f6", KEY_F6, MIXERD_KEYSYM(XK_F6)},
    key_entry{"f7", KEY_F7, MIXERD_KEYSYM(XK_F7)},
    key_entry{"f8", KEY_F8, MIXERD_KEYSYM(XK_F8)},
    key_entry{"f9", KEY_F9, MIXERD_KEYSYM(XK_F9)},
    key_entry{"f10", KEY_F10, MIXERD_KEYSYM(XK_F10)},
    key_entry{"f11", KEY_F11, MIXERD_KEYSYM(XK_F11)},
    key_entry{"f12", KEY_F12, MIXERD_KEYSYM(XK_F12)},
    key_entry{"f13", KEY_F13, MIXERD_KEYSYM(XK_F13)},
    key_entry{"f14", KEY_F14, MIXERD_KEYSYM(XK_F14)},
    key_entry{"f15", KEY_F15, MIXERD_KEYSYM(XK_F15)},
    key_entry{"f16", KEY_F16, MIXERD_KEYSYM(XK_F16)},
    key_entry{"f17", KEY_F17, MIXERD_KEYSYM(XK_F17)},
    key_entry{"f18", KEY_F18, MIXERD_KEYSYM(XK_F18)},
    key_entry{"f19", KEY_F19, MIXERD_KEYSYM(XK_F19)},
    key_entry{"f20", KEY_F20, MIXERD_KEYSYM(XK_F20)},
    key_entry{"f21", KEY_F21, MIXERD_KEYSYM(XK_F21)},
    key_entry{"f22", KEY_F22, MIXERD_KEYSYM(XK_F22)},
    key_entry{"f23", KEY_F23, MIXERD_KEYSYM(XK_F23)},
    key_entry{"f24", KEY_F24, MIXERD_KEYSYM(XK_F24)},
    key_entry{"enter", KEY_ENTER, MIXERD_KEYSYM(XK_Return)},
    key_entry{"esc", KEY_ESC, MIXERD_KEYSYM(XK_Escape)},
    key_entry{"tab", KEY_TAB, MIXERD_KEYSYM(XK_Tab)},
    key_entry{"space", KEY_SPACE, MIXERD_KEYSYM(XK_space)},
    key_entry{"backspace", KEY_BACKSPACE, MIXERD_KEYSYM(XK_BackSpace)},
    key_entry{"delete", KEY_DELETE, MIXERD_KEYSYM(XK_Delete)},
    key_entry{"insert", KEY_INSERT, MIXERD_KEYSYM(XK_Insert)},
    key_entry{"home", KEY_HOME, MIXERD_KEYSYM(XK_Home)},
    key_entry{"end", KEY_END, MIXERD_KEYSYM(XK_End)},
    key_entry{"page_up", KEY_PAGEUP, MIXERD_KEYSYM(XK_Prior)},
    key_entry{"page_down", KEY_PAGEDOWN, MIXERD_KEYSYM(XK_Next)},
    key_entry{"up", KEY_UP, MIXERD_KEYSYM(XK_Up)},
    key_entry{"down", KEY_DOWN, MIXERD_KEYSYM(XK_Down)},
    key_entry{"left", KEY_LEFT, MIXERD_KEYSYM(XK_Left)},
    key_entry{"right", KEY_RIGHT, MIXERD_KEYSYM(XK_Right)},
    // The Print Screen key sends KEY_SYSRQ; KEY_PRINT is another key that X keymaps lack.
    key_entry{"print", KEY_SYSRQ, MIXERD_KEYSYM(XK_Print)},
    key_entry{"media_play_pause", KEY_PLAYPAUSE, MIXERD_KEYSYM(XF86XK_AudioPlay)},
    key_entry{"media_next", KEY_NEXTSONG, MIXERD_KEYSYM(XF86XK_AudioNext)},
    key_entry{"media_previous", KEY_PREVIOUSSONG, MIXERD_KEYSYM(XF86XK_AudioPrev)},
    key_entry{"media_stop", KEY_STOPCD, MIXERD_KEYSYM(XF86XK_AudioStop)},
    key_entry{"volume_up", KEY_VOLUMEUP, MIXERD_KEYSYM(XF86XK_AudioRaiseVolume)},
    key_entry{"volume_down", KEY_VOLUMEDOWN, MIXERD_KEYSYM(XF86XK_AudioLowerVolume)},
    key_entry{"volume_mute", KEY_MUTE, MIXERD_KEYSYM(XF86XK_AudioMute)},
};

constexpr std::string_view no_output = "no keyboard output";

// A keyboard that has just appeared is opened by udev and the desktop's input stack a moment
// later; keys sent before that are lost (the kernel's uinput documentation waits for the same
// reason). Paid once: the keyboard then stays.
constexpr auto uinput_settle = std::chrono::milliseconds(500);

// What one output did: `used` when it was there (then `error` is the press's result, "" for
// success); else `error` may say why it was not usable.
struct attempt {
  bool used = false;
  std::string error;
};

// The names to press, modifiers first, with their codes.
std::vector<key_entry> keys_of(const hotkeys::combo& combo) {
  std::vector<key_entry> keys;
  auto add = [&](std::string_view name) {
    auto it = std::find_if(key_table.begin(), key_table.end(),
                           [&](const key_entry& k) { return k.name == name; });
    // hotkeys::parse admits only names of the table; a combo built otherwise loses the key.
    if (it != key_table.end()) keys.push_back(*it);
  };
  for (const auto& m : combo.modifiers)
    add(m);
  add(combo.key);
  return keys;
}

std::string errno_text(std::string_view what) {
  return std::string(what) + ": " + std::strerror(errno);
}

// --- uinput ---------------------------------------------------------------------------------

// The process's one uinput keyboard, created on the first press through it.
class uinput_keyboard {
 public:
  ~uinput_keyboard() { destroy(); }

  attempt press(const std::vector<key_entry>& keys, const std::string& path) {
    std::lock_guard lock(mutex_);
    if (::access(path.c_str(), W_OK) != 0) return {};
    if (fd_ >= 0 && path_ != path) destroy();
    if (fd_ < 0) {
      int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (fd < 0) return {};
      if (auto error = create(fd); !error.empty()) {
        ::close(fd);
        return {false, "the uinput keyboard could not be created (" + error + ")"};
      }
      fd_ = fd;
      path_ = path;
      std::this_thread::sleep_for(uinput_settle);
    }
    std::string error;
    for (const auto& k : keys)
      if (error.empty() && !emit(k.evdev, 1)) error = errno_text("uinput write");
    // Released even after a failed press, so that no modifier stays down.
    for (auto k = keys.rbegin(); k != keys.rend(); ++k)
      if (!emit(k->evdev, 0) && error.empty()) error = errno_text("uinput write");
    // A keyboard that failed is made anew by the next press.
    if (!error.empty()) destroy();
    return {true, error};
  }

 private:
  static std::string create(int fd) {
    if (::ioctl(fd, UI_SET_EVBIT, EV_KEY) != 0) return errno_text("UI_SET_EVBIT");
    for (const auto& k : key_table)
      if (::ioctl(fd, UI_SET_KEYBIT, k.evdev) != 0) return errno_text("UI_SET_KEYBIT");
    uinput_setup setup{};
    setup.id.bustype = BUS_VIRTUAL;
    std::strncpy(setup.name, "mixerd macro keyboard", UINPUT_MAX_NAME_SIZE - 1);
    if (::ioctl(fd, UI_DEV_SETUP, &setup) != 0) return errno_text("UI_DEV_SETUP");
    if (::ioctl(fd, UI_DEV_CREATE) != 0) return errno_text("UI_DEV_CREATE");
    return {};
  }

  // One key event followed by its report, so that each change is seen on its own.
  bool emit(int code, int value) {
    auto write_one = [&](int type, int c, int v) {
      input_event event{};
      event.type = static_cast<__u16>(type);
      event.code = static_cast<__u16>(c);
      event.value = v;
      return ::write(fd_, &event, sizeof event) == static_cast<ssize_t>(sizeof event);
    };
    return write_one(EV_KEY, code, value) && write_one(EV_SYN, SYN_REPORT, 0);
  }

  void destroy() {
    if (fd_ < 0) return;
    ::ioctl(fd_, UI_DEV_DESTROY);
    ::close(fd_);
    fd_ = -1;
  }

  std::mutex mutex_;
  int fd_ = -1;
  std::string path_;
};

uinput_keyboard& the_uinput_keyboard() {
  static uinput_keyboard keyboard;
  return keyboard;
}

#if MIXERD_WITH_HOTKEYS
// --- X server (XTest) -----------------------------------------------------------------------

// Xlib's error handlers are process-wide and its default ones end the process; the X work runs
// on one thread at a time (x_gate), which makes these plain flags safe.
int x_protocol_error = 0;
bool x_connection_lost = false;

int on_x_error(Display*, XErrorEvent* event) {
  x_protocol_error = event->error_code;
  return 0;
}

int on_x_io_error(Display*) {
  return 0;
}

// Called instead of exit() when the connection breaks; Xlib then treats the display as dead.
void on_x_io_exit(Display*, void*) {
  x_connection_lost = true;
}

attempt x_press_now(const std::vector<key_entry>& keys, const std::string& display_name) {
  static std::once_flag io_handler_set;
  std::call_once(io_handler_set, [] { XSetIOErrorHandler(on_x_io_error); });
  Display* display = XOpenDisplay(display_name.c_str());
  if (display == nullptr) return {};
  x_connection_lost = false;
  XSetIOErrorExitHandler(display, on_x_io_exit, nullptr);
  int event_base = 0, error_base = 0, major = 0, minor = 0;
  if (!XTestQueryExtension(display, &event_base, &error_base, &major, &minor)) {
    XCloseDisplay(display);
    return {};
  }
  std::vector<KeyCode> codes;
  for (const auto& k : keys) {
    KeyCode code = XKeysymToKeycode(display, k.keysym);
    if (code == 0) {
      XCloseDisplay(display);
      return {true, "the X server has no key for " + std::string(k.name)};
    }
    codes.push_back(code);
  }
  x_protocol_error = 0;
  auto previous = XSetErrorHandler(on_x_error);
  for (auto code : codes)
    XTestFakeKeyEvent(display, code, True, CurrentTime);
  for (auto code = codes.rbegin(); code != codes.rend(); ++code)
    XTestFakeKeyEvent(display, *code, False, CurrentTime);
  XSync(display, False);
  XSetErrorHandler(previous);
  XCloseDisplay(display);
  if (x_connection_lost) return {true, "the X server of DISPLAY=" + display_name + " went away"};
  if (x_protocol_error != 0)
    return {true, "the X server of DISPLAY=" + display_name + " refused the keys (X error " +
                      std::to_string(x_protocol_error) + ")"};
  return {true, ""};
}

// One X press at a time, each on a thread of its own so that a server that accepts the
// connection and then never answers costs the caller x_answer_limit, not forever. A press
// still stuck holds the gate: later ones fail at their limit instead of piling up threads.
struct x_gate {
  std::mutex mutex;
  std::condition_variable changed;
  bool busy = false;
};

x_gate& the_x_gate() {
  // Never destroyed: a stuck press's thread may outlive the process's static objects.
  static auto* gate = new x_gate;
  return *gate;
}

attempt x_press(const std::vector<key_entry>& keys, const std::string& display_name) {
  struct outcome {
    bool done = false;
    attempt result;
  };
  auto deadline = std::chrono::steady_clock::now() + x_answer_limit;
  auto not_answering =
      attempt{true, "the X server of DISPLAY=" + display_name + " does not answer within " +
                        std::to_string(x_answer_limit.count()) + " s"};
  auto& gate = the_x_gate();
  std::unique_lock lock(gate.mutex);
  if (!gate.changed.wait_until(lock, deadline, [&] { return !gate.busy; })) return not_answering;
  auto shared = std::make_shared<outcome>();
  gate.busy = true;
  try {
    std::thread([shared, keys, display_name] {
      auto result = x_press_now(keys, display_name);
      auto& g = the_x_gate();
      std::lock_guard done_lock(g.mutex);
      shared->result = std::move(result);
      shared->done = true;
      g.busy = false;
      g.changed.notify_all();
    }).detach();
  } catch (const std::system_error& e) {
    gate.busy = false;
    return {true, std::string("no thread for the X server: ") + e.what()};
  }
  if (!gate.changed.wait_until(lock, deadline, [&] { return shared->done; })) return not_answering;
  return shared->result;
}
#endif  // MIXERD_WITH_HOTKEYS

}  // namespace

std::optional<key_codes> codes_of(std::string_view name) {
  for (const auto& k : key_table)
    if (k.name == name) return key_codes{k.evdev, k.keysym};
  return std::nullopt;
}

std::string press_via(const hotkeys::combo& combo, const std::string& uinput_path,
                      const char* display) {
  auto keys = keys_of(combo);
  auto through_uinput = the_uinput_keyboard().press(keys, uinput_path);
  if (through_uinput.used) return through_uinput.error;
#if MIXERD_WITH_HOTKEYS
  if (display != nullptr && *display != '\0') {
    auto through_x = x_press(keys, display);
    if (through_x.used) return through_x.error;
  }
#else
  (void)display;
#endif
  // uinput was writable but its keyboard could not be made: that says more than "none".
  return through_uinput.error.empty() ? std::string(no_output) : through_uinput.error;
}

std::string press(const hotkeys::combo& combo) {
  const char* uinput = std::getenv("MIXERD_UINPUT");
  return press_via(combo, uinput != nullptr && *uinput != '\0' ? uinput : "/dev/uinput",
                   std::getenv("DISPLAY"));
}

}  // namespace mixerd::keyboard
