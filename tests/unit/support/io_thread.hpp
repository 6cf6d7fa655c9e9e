// An io_context running on its own thread, like the daemon's io thread. Declare it before the
// actors and listeners that use it, so that it outlives them.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <thread>
#include <utility>

namespace mixerd::test {

struct io_thread {
  boost::asio::io_context io;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard{io.get_executor()};
  std::thread thread{[this] { io.run(); }};

  io_thread() = default;
  io_thread(const io_thread&) = delete;
  io_thread& operator=(const io_thread&) = delete;
  // Operations still pending (a serial port's read, a child's reaping) are dropped; their
  // owners clean up when the io_context goes.
  ~io_thread() {
    guard.reset();
    io.stop();
    thread.join();
  }

  // Runs `f` on the io thread and waits for it; false when it did not finish within 5 s.
  bool run_here(std::function<void()> f) {
    auto done = std::make_shared<std::promise<void>>();
    auto finished = done->get_future();
    boost::asio::post(io, [f = std::move(f), done] {
      f();
      done->set_value();
    });
    return finished.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  }
};

}  // namespace mixerd::test
