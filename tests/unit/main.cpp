// Every unit-test binary: doctest's main, after what the daemon does at start-up and every test
// relies on: the settings keys and the macro kinds of every capability installed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "tests/unit/support/declarations.hpp"

namespace {

// CTest runs each test case by name (--test-case=<name>). A name the filter cannot carry (a ';'
// splits it into two CMake list items) would match nothing and pass without running: a run
// that ran no test case fails instead.
unsigned ran = 0;
bool run_ended = false;

struct ran_counter : doctest::IReporter {
  explicit ran_counter(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& stats) override {
    ran = stats.numTestCasesPassingFilters;
    run_ended = true;
  }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

}  // namespace

DOCTEST_REGISTER_LISTENER("ran_counter", 1, ran_counter);

int main(int argc, char** argv) {
  mixerd::test::install_every_declaration();
  const int status = doctest::Context(argc, argv).run();
  if (status == 0 && run_ended && ran == 0) {
    std::fprintf(stderr, "no test case matched the filter: nothing ran\n");
    return 1;
  }
  return status;
}
