// Routes of the settings API (docs/api/settings.md): the schema of settings.json, the settings
// with their secrets masked, changes as JSON merge patches, the history and the rollback, the
// export and the import. The settings actor checks and applies a change (the profiles actor
// replaces the profiles of an import); this file checks an import's file and masks what goes out.
#include "actors/support/local_time.hpp"
#include "gateways/controller/controller_listener.hpp"
#include "gateways/http/json_body.hpp"
#include "protocol/auth.hpp"
#include "protocol/config_file.hpp"
#include "protocol/limits.hpp"
#include "protocol/plugins.hpp"
#include "protocol/profiles.hpp"
#include "protocol/settings.hpp"
#include "protocol/settings_api.hpp"
#include "protocol/settings_schema.hpp"
#include "protocol/types.hpp"
#include "protocol/validation.hpp"

namespace mixerd::controller {

namespace {

// The parts are installed before the listeners start: one document for the process.
const nlohmann::json& schema() {
  static const nlohmann::json doc = settings_schema::document();
  return doc;
}

void get_schema(http::exchange& x) {
  reply(x, schema());
}

void get_settings(http::exchange& x) {
  x.ask(
      x.dir.get<settings_actor>(),
      [respond = x.respond](const nlohmann::json& settings) {
        respond(http::json_response(200, settings_api::redact(settings, schema())));
      },
      caf::get_atom_v);
}

// The web page says so in a header: the history tells its changes from other clients'.
// The answer to a change: its outcome, the secrets masked.
auto change_answer(http::responder respond, http::error_writer errors) {
  return [respond = std::move(respond),
          errors = std::move(errors)](const settings_change_result& out) {
    if (out.status != 200) return respond(errors(out.status, out.error));
    respond(http::json_response(
        200, {{"success", true}, {"settings", settings_api::redact(out.settings, schema())}}));
  };
}

// Asks the settings actor for a change and answers with its outcome.
template <class Change>
void ask_change(http::exchange& x, Change change) {
  x.ask(x.dir.get<settings_actor>(), change_answer(x.respond, x.policy.errors), std::move(change));
}

// The plugins' own settings are checked against their manifests, which only the running bridge
// knows (its published view): "plugins.<id>.settings.<key> must be ...", or "".
std::string plugin_settings_problem(const http::exchange& x, const nlohmann::json& settings) {
  auto plugins = settings.find("plugins");
  auto view = x.dir.view<plugins_view>();
  if (plugins == settings.end() || !view) return {};
  return plugins::settings_problem(*plugins, view->settings_schemas);
}

void patch_settings(http::exchange& x) {
  auto body = body_object(x);
  if (!body) return;
  if (auto problem = plugin_settings_problem(x, *body); !problem.empty())
    return x.respond(x.error(400, problem));
  ask_change(x, settings_change{std::move(*body), change_source(x), x.trusted});
}

void get_history(http::exchange& x) {
  x.ask(
      x.dir.get<settings_actor>(),
      [respond = x.respond](const nlohmann::json& history) {
        respond(http::json_response(200, history));
      },
      settings_history_request{});
}

// The export's answer: a file to save, named by the day.
http::response export_file(nlohmann::json settings, nlohmann::json profiles, bool secrets) {
  const auto now = local_timestamp();
  auto res = http::json_response(200, {{"mixerd_config", 1},
                                       {"app_version", app_version},
                                       {"exported", now},
                                       {"secrets", secrets},
                                       {"settings", std::move(settings)},
                                       {"profiles", std::move(profiles)}});
  res.headers.emplace_back("Content-Disposition",
                           "attachment; filename=\"mixerd-config-" + now.substr(0, 10) + ".json\"");
  // A file with secrets is nobody's to keep but the one who asked.
  res.headers.emplace_back("Cache-Control", "no-store");
  return res;
}

// The settings (with or without their secrets) and, where the profiles capability runs, every
// profile.
void send_export(http::exchange& x, bool secrets) {
  x.ask(
      x.dir.get<settings_actor>(),
      [respond = x.respond, failed = x.failed("the profiles actor"), &actor = x.actor,
       profiles = x.dir.get<profiles_actor>(), secrets](const nlohmann::json& all) {
        auto settings = secrets ? all : settings_api::without_secrets(all, schema());
        if (!profiles)
          return respond(export_file(std::move(settings), nlohmann::json::array(), secrets));
        actor.request(profiles, limits::actor_request_timeout, profiles_export{})
            .then(
                [respond, settings, secrets](const profile_outcome& out) mutable {
                  respond(export_file(std::move(settings), out.body, secrets));
                },
                failed);
      },
      caf::get_atom_v);
}

void get_export(http::exchange& x) {
  send_export(x, false);
}

// The export with the secrets: asked for with the login's password, by a caller who may change
// them (the password is checked and throttled as a login is).
void post_export(http::exchange& x) {
  auto body = body_object(x);
  if (!body) return;
  for (const auto& [key, value] : body->items())
    if (key != "password")
      return x.respond(x.error(400, key + " is not a field of an export (known: password)"));
  std::string error;
  auto password = validation::string_field(*body, "password", 1024, error);
  if (!password) return x.respond(x.error(400, error));
  if (!x.trusted)
    return x.respond(x.error(403,
                             "Exporting the secrets needs login, or a client on this machine "
                             "while login is off"));
  auto view = x.dir.view<auth_view>();
  auto auth = x.dir.get<auth_actor>();
  if (!view || !auth || !view->password_set)
    return x.respond(x.error(403,
                             "Exporting the secrets needs the login password, and none is set "
                             "(POST /api/auth/password sets one)"));
  login_attempt check{{}, std::move(*password), false, x.req.client_address, true};
  x.ask_within(
      limits::login_request_timeout, auth,
      [held = std::make_shared<http::exchange>(x)](const login_outcome& out) {
        using r = login_outcome::result;
        if (out.what == r::ok) return send_export(*held, true);
        if (out.what == r::invalid) return held->respond(held->error(403, "password is wrong"));
        auto res = held->error(out.what == r::throttled ? 429 : 503,
                               (out.what == r::throttled ? "Too many failed password checks"
                                                         : "Too many password checks at once") +
                                   std::string("; try again in ") +
                                   std::to_string(out.retry_after) + " s");
        res.headers.emplace_back("Retry-After", std::to_string(out.retry_after));
        held->respond(std::move(res));
      },
      std::move(check));
}

// The settings part of an import, once the profiles (if any) are in place.
void import_settings(http::io_actor& actor, const settings_actor& settings, http::responder respond,
                     http::error_writer errors, std::function<void(caf::error&)> failed,
                     settings_replace change) {
  actor.request(settings, limits::actor_request_timeout, std::move(change))
      .then(change_answer(std::move(respond), std::move(errors)), std::move(failed));
}

// The whole file is checked first (400 naming the first bad key, nothing changed); then the
// profiles replace the folder's and the settings replace the file's.
void post_import(http::exchange& x) {
  auto body = body_object(x);
  if (!body) return;
  auto read = config_file::read(*body);
  if (const auto* bad = std::get_if<settings_schema::problem>(&read))
    return x.respond(x.error(400, bad->key + " " + bad->message));
  if (auto problem = plugin_settings_problem(x, std::get<config_file::contents>(read).settings);
      !problem.empty())
    return x.respond(x.error(400, "settings." + problem));
  if (!x.trusted)
    return x.respond(x.error(403,
                             "Importing a configuration needs login, or a client on this machine "
                             "while login is off"));
  auto file = std::move(std::get<config_file::contents>(read));
  settings_replace change{std::move(file.settings), change_source(x), x.trusted};
  auto settings = x.dir.get<settings_actor>();
  auto profiles = x.dir.get<profiles_actor>();
  if (!file.has_profiles || !profiles)
    return import_settings(x.actor, settings, x.respond, x.policy.errors,
                           x.failed("the settings actor"), std::move(change));
  x.ask(
      profiles,
      [&actor = x.actor, settings, respond = x.respond, errors = x.policy.errors,
       failed = x.failed("the settings actor"),
       change = std::move(change)](const profile_outcome& out) mutable {
        if (out.what != profile_outcome::result::ok)
          return respond(errors(profiles::status_of(out.what), out.error));
        import_settings(actor, settings, respond, errors, failed, std::move(change));
      },
      profiles_replace{std::move(file.profiles)});
}

http::route import_route() {
  http::route r{"POST", "/api/config/import", true, post_import};
  r.max_body = limits::config_import_max_bytes;
  return r;
}

void post_rollback(http::exchange& x) {
  auto body = body_object(x);
  if (!body) return;
  auto id = body->find("id");
  if (id == body->end()) return x.respond(x.error(400, "Missing field: id"));
  if (!id->is_string() || id->get_ref<const std::string&>().empty() ||
      id->get_ref<const std::string&>().size() > 20)
    return x.respond(x.error(400, "id must be the id of a history entry (a string)"));
  ask_change(x, settings_rollback{id->get<std::string>(), x.trusted});
}

const http::route_registration routes{http::listener_kind::controller,
                                      {
                                          {"GET", "/api/settings/schema", true, get_schema},
                                          {"GET", "/api/settings", true, get_settings},
                                          {"PATCH", "/api/settings", true, patch_settings},
                                          {"GET", "/api/config/history", true, get_history},
                                          {"POST", "/api/config/rollback", true, post_rollback},
                                          {"GET", "/api/config/export", true, get_export},
                                          {"POST", "/api/config/export", true, post_export},
                                          import_route(),
                                      }};

}  // namespace

}  // namespace mixerd::controller
