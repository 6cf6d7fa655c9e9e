#include "actors/macros/macro_holds.hpp"

#include <caf/all.hpp>
#include <utility>
#include <vector>

#include "actors/support/log.hpp"
#include "protocol/macro_kinds.hpp"

namespace mixerd::macro_holds {

namespace {

constexpr std::string_view component = "macros";
using slot_key = std::pair<int, int>;

std::string label_of(const macro_hold& h, int page, int index) {
  return "macro '" + h.fields.value("name", "") + "' (page " + std::to_string(page) + ", slot " +
         std::to_string(index) + ")";
}

// An API press arms (or re-arms) the lease: only the latest press's lapse counts.
void arm_lease(self_ptr self, slot_key at, macro_hold& h) {
  if (h.from_device) return;
  h.lease = ++self->state.last_lease;
  self->delayed_send(self, macros::api_hold_lease, macro_hold_lapsed{at.first, at.second, h.lease});
}

// Sends the kind's release command. Not a run: no budget, no interceptor and no
// macro_executed (the press had those); a failure is logged.
void send_release(self_ptr self, slot_key at, const macro_hold& h, std::string_view why) {
  const auto label = label_of(h, at.first, at.second);
  const auto* kind = macros::find_kind(h.fields.value("type", ""));
  if (kind == nullptr || !kind->held()) return;
  auto request = kind->release(h.fields);
  request.args["holder"] = holder_of(at.first, at.second);
  const auto* commands = self->state.wiring.commands;
  const auto* known = commands ? commands->table().find(request.name) : nullptr;
  if (known == nullptr) {
    log::warn(component, label, " release failed: ", request.name,
              " is not available in this build");
    return;
  }
  command_origin origin;
  origin.from = command_origin::front_end::macro;
  origin.grants = {commands::permission::control, commands::permission::local};
  origin.who = label + " release";
  origin.depth = 1;
  log::info(component, label, " released (", why, ")");
  commands->run(self, std::move(origin), *known, request.args,
                [label, unavailable = std::string(known->unavailable)](command_result r) {
                  if (!r.ok())
                    log::warn(component, label,
                              " release failed: ", r.internal ? unavailable : r.error);
                });
}

// Ends the hold at `it`: at once, or when its press's run ends.
void end(self_ptr self, std::map<slot_key, macro_hold>::iterator it, std::string_view why) {
  auto& h = it->second;
  if (h.run != 0) {
    h.release_due = true;
    return;
  }
  auto at = it->first;
  auto hold = std::move(h);
  self->state.holds.erase(it);
  send_release(self, at, hold, why);
}

}  // namespace

std::string holder_of(int page, int index) {
  return std::to_string(page) + ":" + std::to_string(index);
}

bool renew(self_ptr self, int page, int index, bool from_device) {
  auto it = self->state.holds.find({page, index});
  if (it == self->state.holds.end()) return false;
  auto& h = it->second;
  // A release already on its way stays on its way: this press begins the next hold after it.
  if (h.release_due) return false;
  h.from_device = h.from_device || from_device;
  arm_lease(self, it->first, h);
  return true;
}

void begin(self_ptr self, int page, int index, std::uint64_t run, const nlohmann::json& fields,
           bool from_device) {
  macro_hold h;
  h.fields = fields;
  h.from_device = from_device;
  h.run = run;
  auto [it, fresh] = self->state.holds.insert_or_assign({page, index}, std::move(h));
  (void)fresh;
  arm_lease(self, it->first, it->second);
}

bool release(self_ptr self, int page, int index) {
  auto it = self->state.holds.find({page, index});
  if (it == self->state.holds.end() || it->second.release_due) return false;
  end(self, it, "button up");
  return true;
}

bool release_device_button(self_ptr self, int index) {
  for (auto it = self->state.holds.begin(); it != self->state.holds.end(); ++it)
    if (it->first.second == index && it->second.from_device && !it->second.release_due) {
      end(self, it, "button up");
      return true;
    }
  return false;
}

void run_ended(self_ptr self, std::uint64_t run) {
  auto& holds = self->state.holds;
  for (auto it = holds.begin(); it != holds.end(); ++it) {
    if (it->second.run != run) continue;
    it->second.run = 0;
    if (it->second.release_due) end(self, it, "button up");
    return;
  }
}

void release_device(self_ptr self) {
  auto& holds = self->state.holds;
  std::vector<slot_key> held;
  for (const auto& [at, h] : holds)
    if (h.from_device && !h.release_due) held.push_back(at);
  for (const auto& at : held)
    end(self, holds.find(at), "the device link was lost");
}

void on_lapsed(self_ptr self, const macro_hold_lapsed& lapsed) {
  auto it = self->state.holds.find({lapsed.page, lapsed.index});
  if (it == self->state.holds.end() || it->second.from_device || it->second.release_due ||
      it->second.lease != lapsed.lease)
    return;
  log::warn(component, label_of(it->second, lapsed.page, lapsed.index),
            ": no press renewed the hold within ",
            std::chrono::duration_cast<std::chrono::seconds>(macros::api_hold_lease).count(),
            " s; its client is gone");
  end(self, it, "its lease ran out");
}

}  // namespace mixerd::macro_holds
