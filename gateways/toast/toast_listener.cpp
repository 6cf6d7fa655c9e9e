#include "gateways/toast/toast_listener.hpp"

#include "gateways/http/json_body.hpp"
#include "protocol/toast.hpp"
#include "protocol/validation.hpp"

namespace mixerd::toast_api {

namespace {

std::string api_key_of(const http::exchange& x) {
  if (auto header = x.req.header("X-API-Key"); !header.empty()) return std::string(header);
  return x.query("api_key").value_or("");
}

// The toast actor counts the request (429 past the limit), then checks the key. 404 and 405
// answers count too: they follow the admission.
void admission_gate(const std::shared_ptr<http::exchange>& held, const http::route* found,
                    std::function<void(http::exchange&)> next) {
  auto& x = *held;
  toast_admit admit{x.req.client_address, api_key_of(x), found && found->needs_credentials};
  const bool key_given = !admit.api_key.empty();
  x.ask(
      x.dir.get<toast_actor>(),
      [held, next = std::move(next), key_given](const toast_admission& a) {
        using v = toast_admission::verdict;
        auto& x = *held;
        if (a.what == v::rate_limited) {
          auto res = x.error(429, "Too many requests");
          res.headers.emplace_back("Retry-After", std::to_string(a.retry_after));
          return x.respond(std::move(res));
        }
        if (a.what == v::unauthorized)
          return x.respond(
              x.error(401, key_given ? "Invalid API key"
                                     : "Missing API key: send it in the X-API-Key header or the "
                                       "api_key query parameter"));
        next(x);
      },
      std::move(admit));
}

}  // namespace

http::listener_policy listener_policy(listener_facts facts) {
  http::listener_policy p;
  p.kind = http::listener_kind::toast;
  p.name = "notification";
  p.errors = http::toast_error;
  // The gate admitted the key: what this listener runs needs it.
  p.grants = {commands::permission::toast_api_key};
  p.not_found = "No such endpoint: ";
  p.tls = facts.tls;
  p.gate = admission_gate;
  p.facts = std::make_shared<listener_facts>(std::move(facts));
  return p;
}

const listener_facts& facts_of(const http::exchange& x) {
  return *std::static_pointer_cast<const listener_facts>(x.policy.facts);
}

std::optional<nlohmann::json> body_object(http::exchange& x) {
  std::string error;
  auto body = validation::json_object(x.req.body, error);
  if (!body) x.respond(x.error(400, error));
  return body;
}

}  // namespace mixerd::toast_api
