// Fuzz target: settings.json as the daemon loads it at start and on SIGHUP
// (actors/settings/settings_file: read, nlohmann parse, settings_schema::validate, locate_key
// for the message). The input is written to a file and loaded from there. Checked:
// - the verdict: blank is broken ("is empty"), otherwise ok exactly when the text is JSON and
//   validate finds no problem; a refusal names the file, a line within the text, and the key and
//   problem that validate reports;
// - an accepted bind_address is one IP address and nothing else;
// - a loaded file survives what the daemon does with it: copies (messages between actors), and
//   serialize -> write -> load gives the same settings back (a save never breaks the file).
#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "actors/support/settings_file.hpp"
#include "protocol/settings_schema.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace mixerd;

const std::string& scratch_file() {
  // Memory-backed when possible: on a disk-backed /tmp this target ran 15 times slower.
  static const std::string path = [] {
    const char* env = std::getenv("TMPDIR");
    std::string dir = env && *env ? env : ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    return dir + "/mixerd-fuzz-settings-" + std::to_string(::getpid()) + ".json";
  }();
  static const bool cleanup = std::atexit([] { std::remove(path.c_str()); }) == 0;
  (void)cleanup;
  return path;
}

void write_file(const std::string& path, std::string_view text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  FUZZ_CHECK(f != nullptr, path);
  FUZZ_CHECK(std::fwrite(text.data(), 1, text.size(), f) == text.size(), path);
  FUZZ_CHECK(std::fclose(f) == 0, path);
}

int line_count(std::string_view text) {
  return 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

// "<path>:<line>[:<column>]: ..." -> the line, or 0 when the message names none.
int reported_line(const std::string& error, const std::string& path) {
  if (error.compare(0, path.size() + 1, path + ":") != 0) return -1;
  std::size_t pos = path.size() + 1;
  int line = 0;
  while (pos < error.size() && error[pos] >= '0' && error[pos] <= '9')
    line = line * 10 + (error[pos++] - '0');
  return line;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  const std::string& path = scratch_file();
  write_file(path, text);
  const auto loaded = settings_file::load(path);
  const std::string context(text);

  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    FUZZ_CHECK(!loaded.ok() && loaded.error == path + ": is empty (it must hold a JSON object; " +
                                                   "restore it, or remove it for a first start)",
               context + " -> " + loaded.error);
    return 0;
  }
  const auto parsed = nlohmann::json::parse(text, nullptr, false);
  if (parsed.is_discarded()) {
    FUZZ_CHECK(!loaded.ok() && loaded.error.find(": not valid JSON: ") != std::string::npos,
               context + " -> " + loaded.error);
  } else if (const auto problem = settings_schema::validate(parsed)) {
    FUZZ_CHECK(!loaded.ok(), context);
    FUZZ_CHECK(
        loaded.error.find("key '" + problem->key + "' " + problem->message) != std::string::npos,
        context + " -> " + loaded.error);
  } else {
    FUZZ_CHECK(loaded.ok(), context + " -> " + loaded.error);
    FUZZ_CHECK(loaded.settings == parsed, context);
  }
  if (!loaded.ok()) {
    const int line = reported_line(loaded.error, path);
    FUZZ_CHECK(line >= 0 && line <= line_count(text), context + " -> " + loaded.error);
    return 0;
  }

  // The daemon binds to this text (through c_str()): it must be exactly one address.
  if (auto bind = loaded.settings.find("bind_address"); bind != loaded.settings.end()) {
    const auto& text = bind->get_ref<const std::string&>();
    unsigned char buffer[16];
    FUZZ_CHECK(
        text.find('\0') == std::string::npos && (inet_pton(AF_INET, text.c_str(), buffer) == 1 ||
                                                 inet_pton(AF_INET6, text.c_str(), buffer) == 1),
        context);
  }

  const nlohmann::json copy = loaded.settings;  // as in settings_reloaded and the actors
  const std::string saved = settings_file::serialize(copy);
  write_file(path, saved);
  const auto reloaded = settings_file::load(path);
  FUZZ_CHECK(reloaded.ok(), context + " -> " + saved + " -> " + reloaded.error);
  FUZZ_CHECK(reloaded.settings == loaded.settings, context + " -> " + saved);
  return 0;
}
