// Throughput of the device line codec: splitting a byte stream into lines, parsing device lines
// and encoding host commands. Run: build/release/tools/bench/codec_bench
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "protocol/device_codec.hpp"

namespace {

using namespace mixerd::protocol;
using clock_type = std::chrono::steady_clock;

template <class F>
void measure(const char* what, long iterations, F&& body) {
  auto start = clock_type::now();
  long sink = 0;
  for (long i = 0; i < iterations; ++i)
    sink += body(i);
  std::chrono::duration<double> took = clock_type::now() - start;
  std::printf("%-34s %8.1f ns/op  %10.0f ops/s  (check %ld)\n", what,
              took.count() * 1e9 / iterations, iterations / took.count(), sink);
}

}  // namespace

int main() {
  const std::vector<std::string> lines = {
      "SLIDER,0,57", "ENCODER,-2", "MUTE,MASTER,PRESS", "ACK,VOL,0,Music\\, Films,50",
      "PONG",        "ADC: OK"};
  std::string stream;
  for (int i = 0; i < 1000; ++i)
    stream += lines[i % lines.size()] + (i % 2 ? "\r\n" : "\n");

  const long n = 2'000'000;
  measure("parse_device_line", n, [&](long i) {
    return static_cast<long>(parse_device_line(lines[i % lines.size()]).index());
  });
  line_splitter splitter;
  measure("line_splitter (1000-line chunk)", 2000, [&](long) {
    long count = 0;
    splitter.feed(stream, [&](std::string_view, bool) { ++count; });
    return count;
  });
  const host_command cmds[] = {cmd_vol{1, "Music, Films", 57}, cmd_master{54}, cmd_mute{-1, true},
                               cmd_toast{3000, "bell", "00ff00", "Build done", "all green"}};
  measure("encode_host_command", n,
          [&](long i) { return static_cast<long>(encode_host_command(cmds[i % 4]).text.size()); });
  return 0;
}
