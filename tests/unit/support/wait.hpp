// Bounded waits for effects that happen on another thread and send no message to wait on.
#pragma once

#include <chrono>
#include <thread>

namespace mixerd::test {

// Polls `done` every 2 ms for up to `limit`; true as soon as it holds, false when it never did.
template <class Pred>
bool eventually(Pred done, std::chrono::milliseconds limit = std::chrono::seconds(5)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

}  // namespace mixerd::test
