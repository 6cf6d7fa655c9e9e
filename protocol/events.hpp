// Events fanned out by the hub: owning actor -> hub -> subscribers. The set of events is open:
// each capability declares its event types in its own protocol header, each type describing
// itself with three members:
//
//   static constexpr std::string_view wire_name = "slider_change";  // the Socket.IO event name
//   static constexpr bool for_clients = true;                        // Socket.IO clients see it
//   nlohmann::json to_json() const;                                  // its payload
//
// and optionally
//
//   std::string_view replaced_by() const;  // a smaller event that carries this change (below)
//
// A change that a large event describes whole (macros_change: the Macro page set) may also be
// published as a smaller event of what changed (macro_change: one slot). replaced_by() names
// that smaller event's wire name (a static string; empty: none): a Socket.IO client that said
// at connect that it reads it (docs/api.md section 3) is not sent the large one.
// and the capability lists them in its row (kinds_of<...>()), from which the daemon assembles
// what the Socket.IO broadcaster subscribes to. The broadcaster, the plugin bridge and MQTT
// handle every event through those members, with no per-event code. An event struct is named
// as its wire name.
#pragma once

#include <bitset>
#include <caf/type_id.hpp>
#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace mixerd {

// What the hub and the encoders know of one event type. One instance per type (kind_of<T>()).
struct event_kind {
  std::string_view wire_name;
  bool for_clients = false;
  std::size_t index = 0;  // its bit in an event_kind_set, given on first use
  nlohmann::json (*payload)(const void* event) = nullptr;
  std::string_view (*replaced_by)(const void* event) = nullptr;  // null: never replaced
};

// The most event types one daemon has; a further one stops the process at its first use.
inline constexpr std::size_t max_event_kinds = 64;

// The event kinds a subscriber receives (one bit per kind).
using event_kind_set = std::bitset<max_event_kinds>;

namespace detail {
std::size_t next_event_kind_index(std::string_view wire_name);
}  // namespace detail

template <class T, class = void>
struct is_event : std::false_type {};
template <class T>
struct is_event<T, std::void_t<decltype(T::wire_name), decltype(T::for_clients),
                               decltype(std::declval<const T&>().to_json())>> : std::true_type {};

template <class T, class = void>
struct has_replaced_by : std::false_type {};
template <class T>
struct has_replaced_by<T, std::void_t<decltype(std::declval<const T&>().replaced_by())>>
    : std::true_type {};

template <class T>
const event_kind& kind_of() {
  static_assert(is_event<T>::value, "an event type has wire_name, for_clients and to_json()");
  static const event_kind kind{
      T::wire_name, T::for_clients, detail::next_event_kind_index(T::wire_name),
      [](const void* e) { return static_cast<const T*>(e)->to_json(); },
      [] {
        std::string_view (*replaced)(const void*) = nullptr;
        if constexpr (has_replaced_by<T>::value)
          replaced = [](const void* e) {
            return std::string_view(static_cast<const T*>(e)->replaced_by());
          };
        return replaced;
      }()};
  return kind;
}

// One published event: its kind and its immutable value, shared by every subscriber that
// receives it (a copy costs a reference count, whatever the event holds).
class event {
 public:
  event() = default;  // an empty event, of no kind (CAF needs one)
  template <class T, class = std::enable_if_t<is_event<std::decay_t<T>>::value>>
  event(T&& value)  // NOLINT: every event type converts, e.g. publish(slider_change{2, 40})
      : kind_(&kind_of<std::decay_t<T>>()),
        value_(std::make_shared<const std::decay_t<T>>(std::forward<T>(value))) {}

  // The value when this event is a T, else null.
  template <class T>
  const T* get_if() const noexcept {
    return kind_ == &kind_of<T>() ? static_cast<const T*>(value_.get()) : nullptr;
  }
  template <class T>
  bool is() const noexcept {
    return kind_ == &kind_of<T>();
  }

  bool empty() const noexcept { return kind_ == nullptr; }
  // The members below need an event of some kind.
  const event_kind& kind() const noexcept { return *kind_; }
  std::string_view wire_name() const noexcept { return kind_->wire_name; }
  bool for_clients() const noexcept { return kind_->for_clients; }
  nlohmann::json payload() const { return kind_->payload(value_.get()); }
  // The wire name of the smaller event that carries this change too, or empty (see the top).
  std::string_view replaced_by() const {
    return kind_->replaced_by ? kind_->replaced_by(value_.get()) : std::string_view();
  }

 private:
  const event_kind* kind_ = nullptr;
  std::shared_ptr<const void> value_;
};

// The kinds of the event types Ts, e.g. kinds_of<slider_change, mute_change>().
template <class... Ts>
event_kind_set kinds_of() {
  event_kind_set set;
  (set.set(kind_of<Ts>().index), ...);
  return set;
}

// A list of event kinds, as a capability declares the events it publishes.
using event_kind_list = std::vector<const event_kind*>;
template <class... Ts>
event_kind_list list_of_kinds() {
  return {&kind_of<Ts>()...};
}

// The kinds of `declared` that Socket.IO clients see (for_clients): what the broadcaster
// subscribes to.
event_kind_set client_kinds(const event_kind_list& declared);

}  // namespace mixerd

// The first CAF type-ID block: what every capability's messages carry (docs/architecture.md,
// "Type IDs"). These values never leave the process: no serialization needed.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(nlohmann::json)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::event)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::event_kind_set)

CAF_BEGIN_TYPE_ID_BLOCK(mixerd_core, caf::first_custom_type_id)
CAF_ADD_TYPE_ID(mixerd_core, (nlohmann::json))
CAF_ADD_TYPE_ID(mixerd_core, (mixerd::event))
CAF_ADD_TYPE_ID(mixerd_core, (mixerd::event_kind_set))
CAF_END_TYPE_ID_BLOCK(mixerd_core)
