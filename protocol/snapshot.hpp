// Reads without round trips: an owning actor publishes an immutable snapshot of what its GET
// endpoints show each time it changes; the io thread answers from the latest one. Readers hold
// the snapshot they loaded for as long as they need it; the writer never mutates a published
// one. No I/O, no locks held by callers (libstdc++'s atomic shared_ptr access).
#pragma once

#include <memory>
#include <mutex>
#include <string>

namespace mixerd {

template <class T>
class published {
 public:
  published() = default;
  explicit published(T initial) : current_(std::make_shared<const T>(std::move(initial))) {}
  published(const published&) = delete;
  published& operator=(const published&) = delete;

  // The latest snapshot; null before the owner published one.
  std::shared_ptr<const T> load() const { return std::atomic_load(&current_); }
  void store(std::shared_ptr<const T> next) { std::atomic_store(&current_, std::move(next)); }
  void store(T next) { store(std::make_shared<const T>(std::move(next))); }

 private:
  std::shared_ptr<const T> current_;
};

// Text encoded on the first read of a snapshot and kept with it: a snapshot nobody reads costs
// no encoding, one read a thousand times costs one.
// Movable (so that a snapshot can be built and then published), never copied.
class encoded_once {
 public:
  template <class Make>
  const std::string& get(Make make) const {
    std::call_once(cache_->once, [&] { cache_->text = make(); });
    return cache_->text;
  }

 private:
  struct cache {
    std::once_flag once;
    std::string text;
  };
  std::unique_ptr<cache> cache_ = std::make_unique<cache>();
};

}  // namespace mixerd
