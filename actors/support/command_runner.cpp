#include "actors/support/command_runner.hpp"

#include <algorithm>
#include <caf/all.hpp>
#include <stdexcept>

#include "actors/support/log.hpp"

namespace mixerd {

namespace {
constexpr std::string_view component = "commands";
}  // namespace

command_result command_result::success(nlohmann::json body, int status) {
  command_result r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

command_result command_result::failure(int status, std::string error) {
  command_result r;
  r.status = status;
  r.error = std::move(error);
  return r;
}

bool command_origin::may(commands::permission p) const {
  return std::find(grants.begin(), grants.end(), p) != grants.end();
}

// ---- The table -------------------------------------------------------------------------------

command_table::command_table(const std::vector<command>& all) {
  for (const auto& c : all)
    add(c);
}

void command_table::add(const command& c) {
  if (!by_name_.emplace(std::string(c.name), c).second)
    throw std::logic_error("two commands are named " + std::string(c.name));
}

const command* command_table::find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &it->second;
}

nlohmann::json command_table::to_json() const {
  auto list = nlohmann::json::array();
  for (const auto& [name, c] : by_name_) {
    auto params = nlohmann::json::array();
    for (const auto& p : c.params)
      params.push_back(commands::to_json(p));
    list.push_back({{"name", name},
                    {"description", c.description},
                    {"permission", commands::to_string(c.needs)},
                    {"params", std::move(params)}});
  }
  return {{"commands", std::move(list)}};
}

// ---- The runner ------------------------------------------------------------------------------

void command_runner::run(caf::scheduled_actor* self, command_origin origin, std::string_view name,
                         const nlohmann::json& input,
                         std::function<void(command_result)> done) const {
  const command* c = table_.find(name);
  if (c == nullptr)
    return done(command_result::failure(404, "Unknown command: " + std::string(name)));
  run(self, std::move(origin), *c, input, std::move(done));
}

void command_runner::run(caf::scheduled_actor* self, command_origin origin, const command& c,
                         const nlohmann::json& input,
                         std::function<void(command_result)> done) const {
  if (!origin.may(c.needs))
    return done(command_result::failure(
        403, std::string(c.name) + " needs the " + std::string(commands::to_string(c.needs)) +
                 " permission, which " + (origin.who.empty() ? "this caller" : origin.who) +
                 " does not have"));
  commands::problem why;
  auto args = commands::read_args(c.params, input, why);
  if (!args) return done(command_result::failure(why.status, std::move(why.text)));
  auto call = std::make_shared<command_call>(self, c, dir_, std::move(*args), std::move(origin),
                                             std::move(done));
  call->guarded([&] { c.run(call); });
}

// ---- One call --------------------------------------------------------------------------------

command_call::command_call(caf::scheduled_actor* self, const command& c, const directory& dir,
                           nlohmann::json args, command_origin origin,
                           std::function<void(command_result)> done)
    : self_(self),
      command_(c),
      dir_(dir),
      args_(std::move(args)),
      origin_(std::move(origin)),
      done_(std::move(done)) {}

bool command_call::has(std::string_view name) const {
  return args_.contains(name);
}

long long command_call::integer(std::string_view name) const {
  return args_.at(std::string(name)).get<long long>();
}

std::string command_call::text(std::string_view name) const {
  return args_.at(std::string(name)).get<std::string>();
}

bool command_call::flag(std::string_view name) const {
  return args_.at(std::string(name)).get<bool>();
}

void command_call::done(command_result result) {
  if (!done_) return;
  auto done = std::move(done_);
  done_ = nullptr;
  done(std::move(result));
}

void command_call::ask_untyped(const caf::strong_actor_ptr& owner, caf::message request,
                               std::chrono::milliseconds timeout, caf::behavior handler) {
  // What requester::request does for a typed sender, for any scheduled actor: the reply is
  // matched against `handler` on the caller's actor.
  auto id = self_->new_request_id(caf::message_priority::normal);
  owner->enqueue(caf::make_mailbox_element(self_->ctrl(), id, {}, std::move(request)),
                 self_->context());
  self_->request_response_timeout(caf::duration{timeout}, id);
  self_->add_multiplexed_response_handler(id.response_id(), std::move(handler));
}

void command_call::guarded(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    log::error(component, origin_.who, ": ", command_.name, " failed: ", e.what());
    command_result r = command_result::failure(500, "Internal error");
    r.internal = true;
    done(std::move(r));
  }
}

void command_call::failed(const caf::error& e) {
  if (e == caf::sec::request_receiver_down) {
    // The owner stopped (the daemon is stopping) or never ran.
    command_result r = command_result::failure(503, "The daemon is stopping");
    r.internal = true;
    return done(std::move(r));
  }
  if (e == caf::sec::request_timeout && !command_.late.empty())
    return done(command_result::failure(504, std::string(command_.late)));
  log::error(component, origin_.who, ": ", command_.name, ": ",
             e == caf::sec::request_timeout ? "no answer in time from its owner"
                                            : "unexpected reply from its owner",
             " (", caf::to_string(e), ")");
  command_result r = command_result::failure(500, "Internal error");
  r.internal = true;
  done(std::move(r));
}

}  // namespace mixerd
