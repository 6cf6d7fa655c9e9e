// Environment variables set for one test. Set them before the threads that read them start (an
// actor system, a libpulse client) and let them go after those threads ended: the holder is
// declared before the fixture whose actors read it.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace mixerd::test {

class scoped_env {
 public:
  scoped_env(std::string name, const std::string& value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    ::setenv(name_.c_str(), value.c_str(), 1);
  }
  ~scoped_env() {
    if (old_)
      ::setenv(name_.c_str(), old_->c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// An environment variable removed for one test and put back afterwards.
class scoped_unset_env {
 public:
  explicit scoped_unset_env(std::string name) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    ::unsetenv(name_.c_str());
  }
  ~scoped_unset_env() {
    if (old_) ::setenv(name_.c_str(), old_->c_str(), 1);
  }
  scoped_unset_env(const scoped_unset_env&) = delete;
  scoped_unset_env& operator=(const scoped_unset_env&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace mixerd::test
