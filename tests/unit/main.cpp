// Every unit-test binary: doctest's main, after what the daemon does at start-up and every test
// relies on: the settings keys and the macro kinds of every capability installed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "tests/unit/support/declarations.hpp"

int main(int argc, char** argv) {
  mixerd::test::install_every_declaration();
  return doctest::Context(argc, argv).run();
}
