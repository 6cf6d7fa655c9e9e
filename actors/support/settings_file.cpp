#include "actors/support/settings_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "actors/support/secure_random.hpp"
#include "protocol/settings_schema.hpp"

namespace mixerd::settings_file {

namespace {

std::error_code last_error() {
  return {errno, std::generic_category()};
}

// 1-based line and column of a byte offset, for parse errors.
std::pair<int, int> line_and_column(const std::string& text, std::size_t offset) {
  int line = 1;
  int column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

bool write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    auto n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

load_result load(const std::string& path) {
  load_result result;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return result;
    result.error = path + ": cannot be read: " + last_error().message();
    return result;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    result.error = path + ": is empty (it must hold a JSON object; restore it, or remove it for " +
                   "a first start)";
    return result;
  }
  try {
    result.settings = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    auto [line, column] = line_and_column(text, e.byte > 0 ? e.byte - 1 : 0);
    result.error = path + ":" + std::to_string(line) + ":" + std::to_string(column) +
                   ": not valid JSON: " + e.what();
    return result;
  } catch (const nlohmann::json::exception& e) {
    // A number too large for a double (1e400) is an out_of_range, without a position.
    result.error = path + ": not valid JSON: " + e.what();
    return result;
  }
  if (auto bad = settings_schema::validate(result.settings)) {
    int line = settings_schema::locate_key(text, bad->key);
    result.error = path + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": key '" +
                   bad->key + "' " + bad->message;
  }
  return result;
}

std::string serialize(const nlohmann::json& settings) {
  return settings.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

read_status read_bounded(const std::string& path, std::size_t limit, std::string& text,
                         std::string& error, bool follow_links) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (follow_links ? 0 : O_NOFOLLOW));
  if (fd < 0) {
    if (errno == ENOENT) return read_status::missing;
    error = std::string("cannot be read: ") + std::strerror(errno);
    return read_status::failed;
  }
  text.assign(limit, '\0');
  std::size_t done = 0;
  while (done < limit) {
    auto n = ::read(fd, text.data() + done, limit - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = std::string("cannot be read: ") + std::strerror(errno);
      ::close(fd);
      return read_status::failed;
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  text.resize(done);
  return read_status::ok;
}

std::error_code write_atomically(const std::string& path, const std::string& contents) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string temp = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
  int fd = ::mkstemp(temp.data());
  if (fd < 0) return last_error();
  std::error_code ec;
  if (::fchmod(fd, 0600) != 0 || !write_all(fd, contents) || ::fsync(fd) != 0) ec = last_error();
  if (::close(fd) != 0 && !ec) ec = last_error();
  if (!ec && ::rename(temp.c_str(), path.c_str()) != 0) ec = last_error();
  if (ec) {
    ::unlink(temp.c_str());
    return ec;
  }
  // The rename is durable only once the folder entry is on disk.
  int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return {};
}

void remove_leftover_temporaries(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const std::string prefix = "." + target.filename().string() + ".";
  std::error_code ec;
  for (fs::directory_iterator it(target.parent_path(), ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() == prefix.size() + 6 && name.compare(0, prefix.size(), prefix) == 0) {
      std::error_code ignored;
      fs::remove(it->path(), ignored);
    }
  }
}

update_result update(const paths& where, const std::function<bool(nlohmann::json&)>& change) {
  update_result result;
  write_lock lock(where.lock());
  if (!lock.held()) {
    result.exit_code = 1;
    result.error = "cannot lock " + where.lock() + ": " + lock.error().message();
    return result;
  }
  auto loaded = load(where.settings);
  if (!loaded.ok()) {
    result.exit_code = 2;
    result.error = loaded.error + "\n(the file was left untouched; fix it and try again)";
    return result;
  }
  result.settings = std::move(loaded.settings);
  result.changed = change(result.settings);
  if (result.changed) {
    if (auto ec = write_atomically(where.settings, serialize(result.settings))) {
      result.exit_code = 1;
      result.error = "cannot write " + where.settings + ": " + ec.message();
    }
  }
  return result;
}

write_lock::write_lock(const std::string& lock_path) {
  fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0) {
    error_ = last_error();
    return;
  }
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    error_ = last_error();
    ::close(fd_);
    fd_ = -1;
    return;
  }
}

write_lock::~write_lock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

std::string random_secret() {
  return random_hex(32);
}

bool ensure_secrets(nlohmann::json& settings) {
  bool changed = false;
  for (const char* key : {"toast_api_key", "plant_store_token"}) {
    if (auto it = settings.find(key); it == settings.end() || it->is_null()) {
      settings[key] = random_secret();
      changed = true;
    }
  }
  return changed;
}

std::error_code ensure_data_dir(const std::string& dir) {
  std::error_code ec;
  // Settings hold secrets: a folder we create is private to the user.
  if (std::filesystem::create_directories(dir, ec) && ::chmod(dir.c_str(), 0700) != 0)
    return last_error();
  if (ec) return ec;
  if (!std::filesystem::is_directory(dir, ec))
    return std::make_error_code(std::errc::not_a_directory);
  return {};
}

pid_file::pid_file(std::string path) : path_(std::move(path)) {
  int fd = -1;
  for (int attempt = 0; attempt < 10 && fd < 0; ++attempt) {
    fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      char buf[32] = {};
      auto n = ::pread(fd, buf, sizeof buf - 1, 0);
      if (n > 0) other_pid_ = std::strtol(buf, nullptr, 10);
      ::close(fd);
      return;
    }
    // A daemon that is just stopping unlinks the file it held: the lock we got may be on
    // that orphan. Only a lock on the file still at the path counts.
    struct stat held {};
    struct stat at_path {};
    if (::fstat(fd, &held) != 0 || ::stat(path_.c_str(), &at_path) != 0 ||
        held.st_ino != at_path.st_ino || held.st_dev != at_path.st_dev) {
      ::close(fd);
      fd = -1;
    }
  }
  if (fd < 0) return;
  std::string text = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, text.data(), text.size(), 0) < 0) {
    ::close(fd);
    return;
  }
  fd_ = fd;
}

pid_file::~pid_file() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());
  ::close(fd_);
}

std::optional<long> running_daemon(const std::string& pid_path) {
  int fd = ::open(pid_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<long> pid;
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0) {  // locked: a daemon holds it
    char buf[32] = {};
    auto n = ::pread(fd, buf, sizeof buf - 1, 0);
    if (n > 0) pid = std::strtol(buf, nullptr, 10);
  }
  ::close(fd);
  return pid;
}

}  // namespace mixerd::settings_file
