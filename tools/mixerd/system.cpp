#include "tools/mixerd/system.hpp"

#include <caf/all.hpp>

#include "actors/support/log.hpp"
#include "actors/support/scheduler.hpp"
#include "protocol/hub.hpp"
#include "protocol/limits.hpp"
#include "protocol/settings.hpp"

namespace mixerd {

void configure_actor_system(caf::actor_system_config& cfg, const capability_list& rows) {
  for (const auto* row : rows)
    if (row->add_types) row->add_types(cfg);
  configure_scheduler(cfg);
}

std::vector<command> commands_of(const capability_list& rows) {
  std::vector<command> all;
  for (const auto* row : rows)
    if (row->commands)
      for (auto& c : row->commands())
        all.push_back(std::move(c));
  return all;
}

void install_declarations(const capability_list& rows) {
  std::vector<settings_schema::part> parts;
  std::vector<macros::kind_list> kinds;
  for (const auto* row : rows) {
    if (row->settings) parts.push_back(row->settings());
    if (row->macro_kinds) kinds.push_back(row->macro_kinds());
  }
  settings_schema::install_parts(parts);
  macros::install_kinds(kinds);
}

void spawn_actors(caf::actor_system& sys, const capability_list& rows, const actor_options& options,
                  running_system& out) {
  out.phases.assign(stop_phase_count, {});
  for (const auto& c : commands_of(rows))
    out.commands.add(c);
  for (const auto* row : rows) {
    if (!row->macro_interceptor.empty())
      out.macro_interceptors.emplace_back(row->macro_interceptor);
    if (row->toast_handlers)
      for (auto& h : row->toast_handlers())
        out.toast_handlers.push_back(std::move(h));
    // Before any actor runs: a front end may read the sensors while later rows still spawn.
    if (row->sensors) out.dir.add_sensors(row->sensors);
  }
  for (const auto* row : rows) {
    if (!row->spawn) continue;  // left out of the build: declarations only
    spawn_context ctx{
        sys,     options.io, options.serial,         options.paths,      options.settings,
        out.dir, out.runner, out.macro_interceptors, out.toast_handlers, options.http};
    auto actor = row->spawn(ctx);
    out.phases[static_cast<int>(row->stop)].push_back(actor);
    if (row->events) out.dir.declare(row->events());
    if (row->subscriptions)
      caf::anon_send(out.dir.get<hub_actor>(), caf::subscribe_atom_v, actor, row->subscriptions());
    if (row->contribute) out.dir.contribute(row->contribute);
    if (row->metrics) out.dir.add_metrics(row->metrics);
  }
}

void start_after_ready(const capability_list& rows, const running_system& running) {
  for (const auto* row : rows)
    if (row->after_ready) row->after_ready(running.dir);
}

namespace {

caf::behavior capability_watcher(caf::event_based_actor* self, std::vector<caf::actor> watched,
                                 const std::function<void(std::string)>& ended) {
  for (const auto& a : watched)
    self->monitor(a);
  self->set_down_handler([ended](caf::down_msg& down) { ended(caf::to_string(down.reason)); });
  return {[](caf::ok_atom) {}};
}

}  // namespace

caf::actor watch_capabilities(caf::actor_system& sys, const running_system& running,
                              std::function<void(std::string reason)> ended) {
  std::vector<caf::actor> watched;
  for (const auto& phase : running.phases)
    for (const auto& a : phase)
      if (a) watched.push_back(a);
  return sys.spawn(capability_watcher, std::move(watched), std::move(ended));
}

void shutdown_actors(caf::actor_system& sys, const running_system& running,
                     const std::vector<caf::actor>& extra) {
  caf::scoped_actor self{sys};
  auto stop = [&](const std::vector<caf::actor>& group) {
    for (const auto& a : group)
      if (a) self->send_exit(a, caf::exit_reason::user_shutdown);
    for (const auto& a : group)
      if (a) self->wait_for(a);
  };
  auto first = running.phases[static_cast<int>(stop_phase::producers)];
  first.insert(first.end(), extra.begin(), extra.end());
  stop(first);
  stop(running.phases[static_cast<int>(stop_phase::consumers)]);
  self->request(running.dir.get<settings_actor>(), limits::shutdown_flush_timeout,
                caf::flush_atom_v)
      .receive([](bool) {},
               [](caf::error& e) {
                 log::error("mixerd", "settings not saved at shutdown: ", caf::to_string(e));
               });
  stop(running.phases[static_cast<int>(stop_phase::infrastructure)]);
}

}  // namespace mixerd
