// Every unit-test binary: doctest's main, after the daemon's start-up step that every test
// relies on as the daemon does: every kind of macro installed (as tools/mixerd/main.cpp does from
// the capability table; here from the capabilities' protocol sources, which every test links).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "protocol/macro_kinds.hpp"
#include "protocol/mixer.hpp"
#include "protocol/music.hpp"
#include "protocol/plugins.hpp"
#include "protocol/profiles.hpp"
#include "protocol/smarthome.hpp"
#include "protocol/stream.hpp"

int main(int argc, char** argv) {
  using namespace mixerd;
  macros::install_kinds({mixer_macro_kinds(), profiles_macro_kinds(), smarthome_macro_kinds(),
                         stream_macro_kinds(), music_macro_kinds(), plugins_macro_kinds()});
  return doctest::Context(argc, argv).run();
}
