// One connection to an MQTT broker through libmosquitto, driven by a thread of its own (it runs
// mosquitto_loop_forever and reconnects with back-off), so that a broker that is absent, slow or
// hostile, and a host name that takes long to resolve, never hold up an actor. Everything the
// broker says reaches the owning actor as messages (its callbacks never block):
//   (opened_atom, gen, rc)                     CONNACK (rc 0: accepted; subscribed already)
//   (closed_atom, gen, reason, rc)             the connection ended or could not be made
//   (line_atom, gen, topic, payload, retained) a message on a subscribed topic
// Bounds: at most max_unacked of our publications wait for the broker's PUBACK (publish refuses
// more), and at most max_inbound received messages wait in the owner's mailbox (more are
// dropped before they reach it, and counted).
#pragma once

#include <caf/actor.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace mixerd {

struct mqtt_client_options {
  std::string host;
  int port = 1883;
  bool tls = false;  // verified against the system CA store
  std::string username;
  std::string password;
  std::string client_id;
  std::string will_topic;  // "offline", retained, when the connection ends uncleanly
  std::vector<std::string> subscriptions;
  caf::actor owner;
  std::uint64_t gen = 0;
};

class mqtt_client {
 public:
  static constexpr std::size_t max_unacked = 512;
  static constexpr std::size_t max_inbound = 256;
  static constexpr std::size_t max_payload_bytes = 64 * 1024;

  // Starts the connection thread. Null (and `error`) when libmosquitto refuses the options.
  static std::unique_ptr<mqtt_client> start(mqtt_client_options options, std::string& error);
  // stop() with its default bounds.
  ~mqtt_client();
  mqtt_client(const mqtt_client&) = delete;
  mqtt_client& operator=(const mqtt_client&) = delete;

  // Queues a QoS 1 message. False when the queue is full or libmosquitto refuses it.
  bool publish(const std::string& topic, const std::string& payload, bool retain);
  // Our publications the broker has not acknowledged yet.
  std::size_t unacked() const;
  // The owner handled one (line_atom, ...) message.
  void consumed();
  // Received messages dropped because the owner had max_inbound waiting (since the last call).
  std::uint64_t take_dropped();

  // Publishes `last` (retained; empty topic: none) and waits up to a bound until the broker
  // acknowledged everything published (so also `last`), then
  // disconnects and ends the thread. Bounded: a broker that does not answer gets its socket shut;
  // a thread still stuck (a name that takes long to resolve) is left to end by itself.
  void stop(const std::string& last_topic = {}, const std::string& last_payload = {});

  struct shared;  // what the thread, the callbacks and this handle share

 private:
  explicit mqtt_client(std::shared_ptr<shared> s) : s_(std::move(s)) {}
  std::shared_ptr<shared> s_;
  std::thread thread_;
};

}  // namespace mixerd
