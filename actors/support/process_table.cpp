#include "actors/support/process_table.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <charconv>
#include <memory>
#include <string>

namespace mixerd {

namespace {

template <typename Number>
bool read_number(std::string_view& text, Number& out) {
  while (!text.empty() && text.front() == ' ')
    text.remove_prefix(1);
  const auto* begin = text.data();
  const auto* end = begin + text.size();
  auto [next, ec] = std::from_chars(begin, end, out);
  if (ec != std::errc() || (next != end && *next != ' ')) return false;
  text.remove_prefix(static_cast<std::size_t>(next - begin));
  return true;
}

bool skip_field(std::string_view& text) {
  while (!text.empty() && text.front() == ' ')
    text.remove_prefix(1);
  const auto space = text.find(' ');
  if (space == 0 || text.empty()) return false;
  text.remove_prefix(space == std::string_view::npos ? text.size() : space);
  return true;
}

}  // namespace

std::optional<process_entry> parse_proc_stat(std::string_view text) {
  // pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime
  // stime cutime cstime priority nice num_threads itrealvalue starttime ... (proc(5))
  process_entry e;
  const auto open = text.find(" (");
  const auto close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    return std::nullopt;
  auto head = text.substr(0, open);
  if (!read_number(head, e.pid) || !head.empty() || e.pid <= 0) return std::nullopt;
  auto rest = text.substr(close + 1);
  if (rest.size() < 3 || rest[0] != ' ') return std::nullopt;
  e.state = rest[1];
  if (rest[2] != ' ') return std::nullopt;
  rest.remove_prefix(2);
  if (!read_number(rest, e.ppid) || !read_number(rest, e.pgid) || !read_number(rest, e.sid))
    return std::nullopt;
  // tty_nr ... itrealvalue: 15 fields up to starttime.
  for (int i = 0; i < 15; ++i)
    if (!skip_field(rest)) return std::nullopt;
  if (!read_number(rest, e.start_time)) return std::nullopt;
  return e;
}

std::optional<process_entry> read_process(pid_t pid) {
  const auto path = "/proc/" + std::to_string(pid) + "/stat";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  // The command name is at most 64 bytes; the fields up to starttime fit well within this.
  std::array<char, 1024> buffer{};
  const auto n = ::read(fd, buffer.data(), buffer.size());
  ::close(fd);
  if (n <= 0) return std::nullopt;
  return parse_proc_stat(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
}

std::vector<process_entry> read_process_table() {
  std::vector<process_entry> table;
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir("/proc"), ::closedir);
  if (!dir) return table;
  while (const dirent* entry = ::readdir(dir.get())) {
    pid_t pid = 0;
    std::string_view name = entry->d_name;
    if (name.empty() || name.front() < '0' || name.front() > '9') continue;
    if (!read_number(name, pid) || !name.empty()) continue;
    if (auto e = read_process(pid)) table.push_back(*e);
  }
  return table;
}

}  // namespace mixerd
