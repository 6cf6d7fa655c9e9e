#include "actors/mqtt/mqtt_client.hpp"

#include <mosquitto.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <caf/all.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "actors/support/back_off.hpp"
#include "protocol/atoms.hpp"

namespace mixerd {

namespace {

using namespace std::chrono_literals;

// The broker hears from us at least this often (PINGREQ) and a CONNECT that gets no CONNACK is
// given up after 1.5 times this.
constexpr int keepalive_seconds = 20;
// One pass of the connection thread waits at most this long for the socket (a publication wakes
// it at once): the thread notices a stop within it.
constexpr int loop_timeout_ms = 500;
// stop(): the last message's PUBACK, then the DISCONNECT and the thread's end.
constexpr auto last_message_wait = 1000ms;
constexpr auto thread_end_wait = 1000ms;
// QoS 1 messages in flight at once (libmosquitto queues the rest, within max_unacked).
constexpr int max_inflight = 32;
// The system CA store for mqtts://, where OpenSSL's own clients look: $SSL_CERT_DIR, else
// Debian's hashed folder (update-ca-certificates).
const char* ca_path() {
  const char* dir = std::getenv("SSL_CERT_DIR");
  return dir != nullptr && *dir != '\0' ? dir : "/etc/ssl/certs";
}

std::once_flag library_ready;

}  // namespace

struct mqtt_client::shared {
  mqtt_client_options options;
  mosquitto* mosq = nullptr;
  std::atomic<std::size_t> unacked{0};
  std::atomic<std::size_t> inbound{0};
  std::atomic<std::uint64_t> dropped{0};
  std::atomic<bool> accepted_since_failure{false};
  std::mutex mutex;
  std::condition_variable changed;
  bool stopping = false;
  bool finished = false;

  ~shared() {
    if (mosq != nullptr) mosquitto_destroy(mosq);
  }

  void report_closed(int rc) {
    std::string reason = rc == MOSQ_ERR_ERRNO ? std::string(std::strerror(errno))
                                              : std::string(mosquitto_strerror(rc));
    caf::anon_send(options.owner, closed_atom_v, options.gen, std::move(reason),
                   static_cast<std::int32_t>(rc));
  }

  bool stop_requested() {
    std::lock_guard<std::mutex> lock(mutex);
    return stopping;
  }

  // Waits `delay` unless a stop comes first; true when it did.
  bool wait_or_stop(std::chrono::milliseconds delay) {
    std::unique_lock<std::mutex> lock(mutex);
    return changed.wait_for(lock, delay, [this] { return stopping; });
  }
};

namespace {

using shared_ptr_t = std::shared_ptr<mqtt_client::shared>;

mqtt_client::shared& of(void* obj) {
  return *static_cast<mqtt_client::shared*>(obj);
}

void on_connect(mosquitto* mosq, void* obj, int rc) {
  auto& s = of(obj);
  if (rc == 0) {
    s.accepted_since_failure = true;
    // Messages of the last connection that libmosquitto sends again are acknowledged again.
    s.unacked = 0;
    for (const auto& filter : s.options.subscriptions)
      mosquitto_subscribe(mosq, nullptr, filter.c_str(), 1);
  }
  caf::anon_send(s.options.owner, opened_atom_v, s.options.gen, static_cast<std::int32_t>(rc));
}

void on_disconnect(mosquitto*, void* obj, int rc) {
  of(obj).report_closed(rc == 0 ? MOSQ_ERR_SUCCESS : MOSQ_ERR_CONN_LOST);
}

void on_message(mosquitto*, void* obj, const mosquitto_message* m) {
  auto& s = of(obj);
  if (m == nullptr || m->topic == nullptr || m->payloadlen < 0 ||
      static_cast<std::size_t>(m->payloadlen) > mqtt_client::max_payload_bytes ||
      s.inbound.load() >= mqtt_client::max_inbound) {
    ++s.dropped;
    return;
  }
  ++s.inbound;
  std::string payload(static_cast<const char*>(m->payload),
                      static_cast<std::size_t>(m->payloadlen));
  caf::anon_send(s.options.owner, line_atom_v, s.options.gen, std::string(m->topic),
                 std::move(payload), m->retain);
}

void on_publish(mosquitto*, void* obj, int) {
  auto& s = of(obj);
  auto n = s.unacked.load();
  while (n > 0 && !s.unacked.compare_exchange_weak(n, n - 1)) {
  }
  // stop() waits for the last acknowledgement.
  std::lock_guard<std::mutex> lock(s.mutex);
  s.changed.notify_all();
}

// The connection thread: connects, runs libmosquitto's loop, and after a failure waits (1 s
// doubling to 30 s, back to 1 s once a broker accepted us) and connects again.
void run(shared_ptr_t s) {
  back_off retry{std::chrono::seconds(1), std::chrono::seconds(30)};
  int rc =
      mosquitto_connect_async(s->mosq, s->options.host.c_str(), s->options.port, keepalive_seconds);
  bool up = rc == MOSQ_ERR_SUCCESS;
  if (!up) s->report_closed(rc);
  while (!s->stop_requested()) {
    if (up) {
      rc = mosquitto_loop(s->mosq, loop_timeout_ms, 1);
      if (rc == MOSQ_ERR_SUCCESS) continue;
      up = false;
      s->report_closed(rc);
    }
    if (s->accepted_since_failure.exchange(false)) retry.reset();
    if (s->wait_or_stop(retry.next())) break;
    // Resolves the name on this thread (it may take a while) and starts a non-blocking connect.
    rc = mosquitto_reconnect_async(s->mosq);
    up = rc == MOSQ_ERR_SUCCESS;
    if (!up) s->report_closed(rc);
  }
  // Sends what stop() queued (the DISCONNECT) until the broker's socket is closed.
  const auto deadline = std::chrono::steady_clock::now() + thread_end_wait;
  while (up && std::chrono::steady_clock::now() < deadline &&
         mosquitto_loop(s->mosq, 100, 1) == MOSQ_ERR_SUCCESS) {
  }
  std::lock_guard<std::mutex> lock(s->mutex);
  s->finished = true;
  s->changed.notify_all();
}

}  // namespace

std::unique_ptr<mqtt_client> mqtt_client::start(mqtt_client_options options, std::string& error) {
  std::call_once(library_ready, [] { mosquitto_lib_init(); });
  auto s = std::make_shared<shared>();
  s->options = std::move(options);
  const auto& o = s->options;
  s->mosq = mosquitto_new(o.client_id.c_str(), true, s.get());
  if (s->mosq == nullptr) {
    error = "libmosquitto could not make a client";
    return nullptr;
  }
  auto check = [&](int rc, const char* what) {
    if (rc != MOSQ_ERR_SUCCESS && error.empty())
      error = std::string(what) + ": " + mosquitto_strerror(rc);
  };
  mosquitto_threaded_set(s->mosq, true);
  check(mosquitto_int_option(s->mosq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311),
        "protocol version");
  check(mosquitto_max_inflight_messages_set(s->mosq, max_inflight), "in-flight messages");
  check(mosquitto_will_set(s->mosq, o.will_topic.c_str(), 7, "offline", 1, true), "last will");
  if (!o.username.empty())
    check(mosquitto_username_pw_set(s->mosq, o.username.c_str(),
                                    o.password.empty() ? nullptr : o.password.c_str()),
          "user name");
  if (o.tls) {
    check(mosquitto_tls_set(s->mosq, nullptr, ca_path(), nullptr, nullptr, nullptr), "TLS");
    check(mosquitto_tls_opts_set(s->mosq, 1, nullptr, nullptr), "TLS options");
    check(mosquitto_tls_insecure_set(s->mosq, false), "TLS host name check");
  }
  mosquitto_connect_callback_set(s->mosq, on_connect);
  mosquitto_disconnect_callback_set(s->mosq, on_disconnect);
  mosquitto_message_callback_set(s->mosq, on_message);
  mosquitto_publish_callback_set(s->mosq, on_publish);
  if (!error.empty()) return nullptr;
  std::unique_ptr<mqtt_client> client{new mqtt_client(s)};
  client->thread_ = std::thread(run, s);
  return client;
}

mqtt_client::~mqtt_client() {
  stop();
}

bool mqtt_client::publish(const std::string& topic, const std::string& payload, bool retain) {
  if (s_->unacked.load() >= max_unacked) return false;
  int mid = 0;
  const int rc = mosquitto_publish(s_->mosq, &mid, topic.c_str(), static_cast<int>(payload.size()),
                                   payload.data(), 1, retain);
  if (rc != MOSQ_ERR_SUCCESS) return false;
  ++s_->unacked;
  return true;
}

std::size_t mqtt_client::unacked() const {
  return s_->unacked.load();
}

void mqtt_client::consumed() {
  auto n = s_->inbound.load();
  while (n > 0 && !s_->inbound.compare_exchange_weak(n, n - 1)) {
  }
}

std::uint64_t mqtt_client::take_dropped() {
  return s_->dropped.exchange(0);
}

void mqtt_client::stop(const std::string& last_topic, const std::string& last_payload) {
  if (!thread_.joinable()) return;
  if (!last_topic.empty() && publish(last_topic, last_payload, true)) {
    std::unique_lock<std::mutex> lock(s_->mutex);
    s_->changed.wait_for(lock, last_message_wait, [this] { return s_->unacked.load() == 0; });
  }
  mosquitto_disconnect(s_->mosq);
  std::unique_lock<std::mutex> lock(s_->mutex);
  s_->stopping = true;
  s_->changed.notify_all();
  if (!s_->changed.wait_for(lock, thread_end_wait, [this] { return s_->finished; })) {
    // A broker that reads nothing: its socket is shut, which ends the thread's loop.
    const int fd = mosquitto_socket(s_->mosq);
    if (fd >= 0) ::shutdown(fd, SHUT_RDWR);
    if (!s_->changed.wait_for(lock, thread_end_wait, [this] { return s_->finished; })) {
      // Still resolving a name: the thread ends by itself and frees the client (it holds s_).
      lock.unlock();
      thread_.detach();
      return;
    }
  }
  lock.unlock();
  thread_.join();
}

}  // namespace mixerd
