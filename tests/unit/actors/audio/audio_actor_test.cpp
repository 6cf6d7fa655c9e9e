#include "actors/audio/audio_actor.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <caf/all.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/unit/support/actors.hpp"
#include "tests/unit/support/env.hpp"
#include "tests/unit/support/files.hpp"
#include "tests/unit/support/wait.hpp"

extern char** environ;

using json = nlohmann::json;
using mixerd::assignment;
using mixerd::assignment_type;
using mixerd::audio_impl;
using mixerd::audio_master_level;
using mixerd::audio_sessions;
using mixerd::audio_slider_level;
using mixerd::audio_slider_target;
using mixerd::audio_status;
using mixerd::audio_view;
using mixerd::event;
using mixerd::master_observed;
using mixerd::mixer_snapshot;
using mixerd::test::as;
using mixerd::test::eventually;
using mixerd::test::playing;
using mixerd::test::receive_within;

namespace {

// The audio actor with scoped actors playing the hub and the mixer (its watcher). The server it
// connects to is PULSE_SERVER, set before the actor (and its libpulse thread) starts and restored
// after the actor system is gone.
struct audio_fixture {
  mixerd::test::scoped_env server;
  mixerd::test::actor_fixture actors;
  caf::scoped_actor hub{actors.sys};
  caf::scoped_actor mixer{actors.sys};
  caf::scoped_actor settings{actors.sys};  // receives the actor's watch request, nothing more
  std::shared_ptr<mixerd::published<audio_view>> view =
      std::make_shared<mixerd::published<audio_view>>(audio_view{});
  audio_impl audio;

  explicit audio_fixture(const std::string& pulse_server, mixer_snapshot initial = {})
      : server("PULSE_SERVER", pulse_server) {
    audio = actors.spawn(mixerd::audio_behavior, playing<mixerd::hub_actor>(hub),
                         playing<mixerd::settings_actor>(settings), initial, mixerd::audio_policy{},
                         view);
    mixer->send(audio, mixerd::watch_atom_v, caf::actor{mixer});
  }

  audio_sessions sessions() {
    return mixerd::test::ask<audio_sessions>(mixer, audio, caf::get_atom_v,
                                             mixerd::sessions_atom_v);
  }

  std::shared_ptr<const audio_view> latest() {
    auto v = view->load();
    REQUIRE(v != nullptr);
    return v;
  }
};

}  // namespace

TEST_CASE("without an audio server the audio actor answers, publishes disconnected, keeps going") {
  audio_fixture f("unix:/nonexistent/mixerd-unit/pulse/native");
  f.mixer->monitor(f.audio);
  CHECK(f.sessions().empty());
  auto v = f.latest();
  CHECK_FALSE(v->connected);
  CHECK(v->server.empty());
  CHECK(v->sessions.empty());

  // The desired state is kept for a server that may come; out-of-range indices are ignored.
  f.mixer->send(f.audio, audio_slider_target{0, assignment{assignment_type::app, {"vlc"}}, true});
  f.mixer->send(f.audio, audio_slider_target{
                             1, assignment{assignment_type::system_default_input, {}}, false});
  f.mixer->send(f.audio, audio_slider_level{0, 30, true});
  f.mixer->send(f.audio, audio_slider_level{3, 100, false});
  f.mixer->send(f.audio, audio_master_level{40, true, 1});
  f.mixer->send(f.audio, audio_slider_target{4, assignment{}, true});
  f.mixer->send(f.audio, audio_slider_target{-1, assignment{}, true});
  f.mixer->send(f.audio, audio_slider_level{7, 10, false});
  f.mixer->send(f.audio, audio_slider_level{-2, 10, false});
  CHECK(f.sessions().empty());
  CHECK_FALSE(f.latest()->connected);

  // Still alive, and it announced no server: nothing came to the hub or the watcher.
  f.mixer->receive(
      [](const caf::down_msg& d) { FAIL("audio actor down: ", caf::to_string(d.reason)); },
      [](const master_observed&) { FAIL("master_observed without a server"); },
      caf::after(std::chrono::milliseconds(0)) >> [] {});
  f.hub->receive([](caf::publish_atom, const event& e) { FAIL("published ", e.wire_name()); },
                 caf::after(std::chrono::milliseconds(0)) >> [] {});
}

// ---- With a real server ---------------------------------------------------------------------

namespace {

std::string pulseaudio_binary() {
  for (const char* candidate : {"/usr/bin/pulseaudio", "/usr/local/bin/pulseaudio"})
    if (::access(candidate, X_OK) == 0) return candidate;
  return {};
}

// A child process with extra environment variables; killed (SIGKILL) and reaped at scope end.
class child_process {
 public:
  child_process(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env) {
    std::vector<std::string> env_text(extra_env);
    for (char** e = environ; *e != nullptr; ++e)
      env_text.emplace_back(*e);
    std::vector<char*> envp;
    for (auto& e : env_text)
      envp.push_back(e.data());
    envp.push_back(nullptr);
    std::vector<std::string> args(argv);
    std::vector<char*> argp;
    for (auto& a : args)
      argp.push_back(a.data());
    argp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    const int rc = ::posix_spawnp(&pid_, argp[0], &actions, nullptr, argp.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    REQUIRE_MESSAGE(rc == 0, "cannot start ", argv[0]);
  }
  ~child_process() { stop(); }
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  bool running() const { return pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == 0; }

 private:
  pid_t pid_ = -1;
};

// A private PulseAudio daemon like tests/integration/audio_support.py starts: its own runtime
// folder, a null sink "testsink" (the default output), a null source "testmic", an anonymous
// native socket. Nothing reaches the machine's own audio.
class pulse_server {
 public:
  explicit pulse_server(const std::string& binary)
      : address_("unix:" + runtime_.path() + "/pulse/native"),
        env_{"XDG_RUNTIME_DIR=" + runtime_.path(), "HOME=" + runtime_.path(),
             "PULSE_SERVER=" + address_},
        daemon_(
            {binary, "--daemonize=no", "--system=false", "--exit-idle-time=-1", "-n",
             "--log-target=stderr", "--log-level=error", "-L",
             "module-null-sink sink_name=testsink", "-L", "module-null-source source_name=testmic",
             "-L", "module-native-protocol-unix auth-anonymous=1"},
            env_) {
    REQUIRE_MESSAGE(eventually([&] { return pactl_ok("info"); }, std::chrono::seconds(10)),
                    "pulseaudio did not start");
    REQUIRE(pactl_ok("set-default-sink testsink"));
    REQUIRE(pactl_ok("set-default-source testmic"));
  }

  const std::string& address() const { return address_; }
  void kill() { daemon_.stop(); }  // SIGKILL, as a crashing server

  // pactl's output (stdout), nullopt when it failed.
  std::optional<std::string> pactl(const std::string& args) const {
    std::string command = "env";
    for (const auto& e : env_)
      command += " '" + e + "'";
    command += " pactl " + args + " 2>/dev/null";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) return std::nullopt;
    std::string out;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;)
      out.append(buf, n);
    return ::pclose(pipe) == 0 ? std::optional<std::string>(out) : std::nullopt;
  }
  bool pactl_ok(const std::string& args) const { return pactl(args).has_value(); }

  // `pactl -f json list <what>`, e.g. "sink-inputs".
  json list(const std::string& what) const {
    auto text = pactl("-f json list " + what);
    REQUIRE(text.has_value());
    return json::parse(*text);
  }

  // Every channel's volume of the object named `name` (sinks) or with this index (sink-inputs),
  // in percent, rounded; empty when it is not there.
  std::vector<int> percents(const json& object) const {
    std::vector<int> out;
    for (const auto& [channel, v] : object["volume"].items())
      out.push_back(static_cast<int>((v["value"].get<long long>() * 100 + 32768) / 65536));
    return out;
  }
  std::optional<int> sink_volume(const std::string& name) const {
    for (const auto& sink : list("sinks"))
      if (sink["name"] == name) {
        auto all = percents(sink);
        if (!all.empty() && std::all_of(all.begin(), all.end(), [&](int p) { return p == all[0]; }))
          return all[0];
      }
    return std::nullopt;
  }

  // A playback stream of /dev/zero with this application name (pacat).
  std::unique_ptr<child_process> play(const std::string& app_name) const {
    return std::make_unique<child_process>(
        std::vector<std::string>{"pacat", "--playback", "--raw", "--format=s16le", "--rate=44100",
                                 "--channels=2", "--client-name=" + app_name,
                                 "--property=application.name=" + app_name, "/dev/zero"},
        env_);
  }

 private:
  mixerd::test::temp_dir runtime_;
  std::string address_;
  std::vector<std::string> env_;
  child_process daemon_;
};

}  // namespace

TEST_CASE("with a real audio server the audio actor connects, lists streams and applies levels") {
  const auto binary = pulseaudio_binary();
  if (binary.empty()) {
    // Loud, not silent: the integration tests need it too (tests/integration/audio_support.py).
    FAIL_CHECK(
        "pulseaudio is not installed: the real-server part of the audio actor test cannot "
        "run");
    return;
  }
  pulse_server pulse(binary);
  mixer_snapshot initial;
  initial.master_volume = 40;
  audio_fixture f(pulse.address(), initial);

  // The connect is announced on the hub and published in the view.
  auto change = as<audio_status>(mixerd::test::next_published(f.hub));
  CHECK(change.connected);
  CHECK(change.server.find("pulseaudio") != std::string::npos);
  auto v = f.latest();
  CHECK(v->connected);
  CHECK(v->server == change.server);
  // After a connect the desired master wins: the default sink takes it.
  CHECK(eventually([&] { return pulse.sink_volume("testsink") == 40; }));

  // A stream of an app: listed (once per app) in the view and in the answer; an app slider
  // gives it the slider's level.
  f.mixer->send(f.audio, audio_slider_level{2, 30, false});
  f.mixer->send(f.audio,
                audio_slider_target{2, assignment{assignment_type::app, {"MixerdUnitApp"}}, true});
  auto stream = pulse.play("MixerdUnitApp");
  REQUIRE(eventually([&] { return !f.latest()->sessions.empty(); }, std::chrono::seconds(10)));
  auto listed = f.sessions();
  REQUIRE(listed.size() == 1);
  CHECK(listed[0].name == "pacat");  // the binary names a session; the app name is displayed
  CHECK(listed[0].display_name == "MixerdUnitApp");
  CHECK(f.latest()->sessions[0].name == "pacat");
  CHECK(eventually([&] {
    auto inputs = pulse.list("sink-inputs");
    if (inputs.size() != 1) return false;
    auto all = pulse.percents(inputs[0]);
    return !all.empty() && std::all_of(all.begin(), all.end(), [](int p) { return p == 30; });
  }));
  stream->stop();
  CHECK(eventually([&] { return f.latest()->sessions.empty(); }, std::chrono::seconds(10)));
  CHECK(f.sessions().empty());

  // The mixer's master change number 7 is applied...
  f.mixer->send(f.audio, audio_master_level{45, false, 7});
  CHECK(eventually([&] { return pulse.sink_volume("testsink") == 45; }));
  // ... and an outside change of the default sink after it is reported to the watcher (the
  // mixer) with that number, so the mixer knows it is not older than its own change. A change
  // made while the actor still waits for the server's acknowledgement of its own may be taken
  // for the report of its own: the test changes the volume until one is reported.
  std::optional<master_observed> seen;
  for (int volume = 25; volume > 15 && !seen; --volume) {
    REQUIRE(pulse.pactl_ok("set-sink-volume testsink " + std::to_string(volume) + "%"));
    f.mixer->receive([&](const master_observed& m) { seen = m; },
                     caf::after(std::chrono::seconds(1)) >> [] {});
    if (seen) CHECK(seen->volume == volume);
  }
  REQUIRE_MESSAGE(seen.has_value(), "no outside change of the default sink was reported");
  CHECK_FALSE(seen->muted);
  CHECK(seen->seq == 7);

  // The server going away is announced and published.
  pulse.kill();
  change = as<audio_status>(mixerd::test::next_published(f.hub));
  CHECK_FALSE(change.connected);
  CHECK_FALSE(f.latest()->connected);
  CHECK(f.sessions().empty());
}
