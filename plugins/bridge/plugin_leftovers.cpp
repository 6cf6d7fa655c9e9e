#include "plugins/bridge/plugin_leftovers.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "actors/support/child_processes.hpp"
#include "actors/support/log.hpp"

namespace mixerd {

namespace {

// An environment beyond this is not searched further (a mark past it is not seen).
constexpr std::size_t max_environment_bytes = 1024 * 1024;

bool reads_mark(pid_t pid, const std::string& mark) {
  const auto path = "/proc/" + std::to_string(pid) + "/environ";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::string text;
  std::array<char, 16 * 1024> buffer{};
  while (text.size() < max_environment_bytes) {
    const auto n = ::read(fd, buffer.data(), buffer.size());
    if (n <= 0) break;
    text.append(buffer.data(), static_cast<std::size_t>(n));
  }
  ::close(fd);
  return environment_holds(text, mark);
}

std::string pid_list(const std::vector<process_entry>& entries) {
  std::string out;
  for (const auto& e : entries)
    out += (out.empty() ? "" : ", ") + std::to_string(e.pid);
  return out;
}

}  // namespace

std::vector<process_entry> plugin_descendants(const std::vector<process_entry>& table,
                                              const descendant_rules& rules) {
  std::unordered_map<pid_t, std::vector<std::size_t>> by_parent;
  std::unordered_map<pid_t, std::vector<std::size_t>> by_session;
  bool host_runs = false;
  bool host_pid_reused = false;
  for (std::size_t i = 0; i < table.size(); ++i) {
    const auto& e = table[i];
    by_parent[e.ppid].push_back(i);
    by_session[e.sid].push_back(i);
    if (e.pid == rules.host.pid)
      (e.start_time == rules.host.start_time ? host_runs : host_pid_reused) = true;
  }
  std::vector<char> member(table.size(), 0);
  std::deque<std::size_t> queue;
  auto admit = [&](std::size_t i) {
    const auto& e = table[i];
    if (member[i] || e.pid <= 1 || e.pid == rules.daemon || e.pid == rules.host.pid) return;
    if (rules.own_child && rules.own_child(e.pid)) return;
    member[i] = 1;
    queue.push_back(i);
  };
  auto admit_all = [&](const auto& index, pid_t key) {
    if (auto it = index.find(key); it != index.end())
      for (auto i : it->second)
        admit(i);
  };
  if (rules.host.pid > 1) {
    if (host_runs) admit_all(by_parent, rules.host.pid);
    // A reused pid is a session id again only once the plugin's session has no member left.
    if (!host_pid_reused) admit_all(by_session, rules.host.pid);
  }
  for (std::size_t i = 0; i < table.size(); ++i) {
    const auto& e = table[i];
    if (std::find(rules.known.begin(), rules.known.end(), process_id{e.pid, e.start_time}) !=
        rules.known.end())
      admit(i);
  }
  if (auto orphans = by_parent.find(rules.daemon); orphans != by_parent.end() && rules.carries_mark)
    for (auto i : orphans->second)
      if (!member[i] && !(rules.own_child && rules.own_child(table[i].pid)) &&
          rules.carries_mark(table[i].pid))
        admit(i);
  std::unordered_set<pid_t> sessions_taken;
  while (!queue.empty()) {
    const auto& e = table[queue.front()];
    queue.pop_front();
    admit_all(by_parent, e.pid);
    if (e.sid > 1 && e.sid != rules.daemon_session && sessions_taken.insert(e.sid).second)
      admit_all(by_session, e.sid);
  }
  std::vector<process_entry> out;
  for (std::size_t i = 0; i < table.size(); ++i)
    if (member[i]) out.push_back(table[i]);
  return out;
}

std::string plugin_mark(std::string_view id) {
  return "MIXERD_PLUGIN_ID=" + std::string(id);
}

bool environment_holds(std::string_view environment, std::string_view entry) {
  while (!environment.empty()) {
    const auto end = environment.find('\0');
    if (environment.substr(0, end) == entry) return true;
    if (end == std::string_view::npos) break;
    environment.remove_prefix(end + 1);
  }
  return false;
}

void plugin_leftovers::set_host(pid_t pid) {
  host_ = {pid, 0};
  if (auto e = read_process(pid)) host_.start_time = e->start_time;
}

std::vector<process_entry> plugin_leftovers::look() {
  std::vector<process_entry> running;
  if (host_.pid <= 0) return running;
  descendant_rules rules;
  rules.host = host_;
  rules.daemon = ::getpid();
  rules.daemon_session = ::getsid(0);
  rules.known = known_;
  rules.own_child = is_registered_child;
  rules.carries_mark = [this](pid_t pid) { return reads_mark(pid, mark_); };
  known_.clear();
  for (auto& e : plugin_descendants(read_process_table(), rules)) {
    if (e.ended()) continue;
    known_.push_back({e.pid, e.start_time});
    running.push_back(e);
  }
  return running;
}

bool plugin_leftovers::end_step(std::chrono::steady_clock::time_point now) {
  const auto running = look();
  if (running.empty()) return true;
  if (!ending_) {
    ending_ = true;
    ending_since_ = now;
    log::info(log_component_, "ending ", running.size(), " process(es) it left running (",
              pid_list(running), ")");
  }
  if (!killing_ && now - ending_since_ >= leftover_grace) {
    killing_ = true;
    log::warn(log_component_, running.size(), " process(es) it left running did not end within ",
              std::chrono::duration_cast<std::chrono::seconds>(leftover_grace).count(),
              " s of SIGTERM: SIGKILL (", pid_list(running), ")");
  }
  if (killing_ && now - ending_since_ >= leftover_grace + leftover_give_up) {
    log::error(log_component_, running.size(), " process(es) it left running did not end (",
               pid_list(running), ")");
    return true;
  }
  for (const auto& e : running) {
    const process_id id{e.pid, e.start_time};
    if (killing_) {
      ::kill(e.pid, SIGKILL);
    } else if (std::find(terminated_.begin(), terminated_.end(), id) == terminated_.end()) {
      ::kill(e.pid, SIGTERM);
      ::kill(e.pid, SIGCONT);  // a stopped process acts on SIGTERM only once continued
      terminated_.push_back(id);
    }
  }
  return false;
}

void plugin_leftovers::kill_now() {
  const auto running = look();
  for (const auto& e : running)
    ::kill(e.pid, SIGKILL);
  if (!running.empty())
    log::warn(log_component_, "killed ", running.size(), " process(es) it left running (",
              pid_list(running), ")");
}

}  // namespace mixerd
