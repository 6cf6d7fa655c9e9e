#include "tools/mixerd/daemon.hpp"

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/all.hpp>
#include <filesystem>
#include <iostream>
#include <memory>
#include <variant>
#include <vector>

#include "actors/support/http_client.hpp"
#include "actors/support/log.hpp"
#include "actors/support/settings_file.hpp"
#include "gateways/controller/controller_listener.hpp"
#include "gateways/http/connection_budget.hpp"
#include "gateways/http/io_actor.hpp"
#include "gateways/http/json_body.hpp"
#include "gateways/http/router.hpp"
#include "gateways/plants/plants_listener.hpp"
#include "gateways/socketio/service.hpp"
#include "gateways/toast/toast_listener.hpp"
#include "protocol/host_names.hpp"
#include "protocol/http_targets.hpp"
#include "protocol/macros.hpp"
#include "protocol/mdns.hpp"
#include "protocol/network.hpp"
#include "protocol/settings_schema.hpp"
#include "protocol/types.hpp"
#include "tools/mixer-sim/simulated_device.hpp"
#include "tools/mixerd/capability_table.hpp"
#include "tools/mixerd/open_files.hpp"
#include "tools/mixerd/service_manager.hpp"
#include "tools/mixerd/system.hpp"

namespace mixerd {

namespace {

constexpr std::string_view component = "mixerd";

// Command line beats settings.json, which beats the default.
int pick_port(const std::optional<int>& flag, const nlohmann::json& s, const char* key, int def) {
  if (flag) return *flag;
  if (auto it = s.find(key); it != s.end() && it->is_number_integer()) return it->get<int>();
  return def;
}

std::string pick_string(const std::optional<std::string>& flag, const nlohmann::json& s,
                        const char* key, const char* def) {
  if (flag) return *flag;
  if (auto it = s.find(key); it != s.end() && it->is_string()) return it->get<std::string>();
  return def;
}

std::string url_host(const std::string& bind) {
  if (bind == "0.0.0.0" || bind == "::") return "localhost";
  return bind.find(':') != std::string::npos ? "[" + bind + "]" : bind;
}

// Loads settings.json under the writers' lock and adds the generated secrets on first start.
// Returns the exit code on failure.
std::variant<nlohmann::json, int> load_settings(const settings_file::paths& paths) {
  auto result = settings_file::update(paths, settings_file::ensure_secrets);
  if (result.exit_code != 0) {
    std::cerr << "mixerd: " << result.error << "\n";
    return result.exit_code;
  }
  if (result.changed)
    log::info(component, "generated the notification API key and plant store token in ",
              paths.settings);
  // A guarded key the file sets to null has its default (protocol/README.md, "Settings file").
  settings_schema::take_cleared(result.settings);
  return std::move(result.settings);
}

// DATA_DIR/certs/*.crt and *.key present at start => HTTPS (docs/api.md, "HTTPS").
struct tls_files {
  std::string certificate;
  std::string key;
  bool enabled() const { return !certificate.empty(); }
};

// Finds the pair; an error text when the folder holds only half of one, or a broken one.
std::variant<tls_files, std::string> find_tls_files(const std::string& data_dir) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(data_dir) / "certs";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return tls_files{};
  std::vector<std::string> crts, keys;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    auto ext = entry.path().extension().string();
    if (ext == ".crt") crts.push_back(entry.path().string());
    if (ext == ".key") keys.push_back(entry.path().string());
  }
  std::sort(crts.begin(), crts.end());
  std::sort(keys.begin(), keys.end());
  if (crts.empty() && keys.empty()) return tls_files{};
  if (crts.empty() || keys.empty())
    return dir.string() + ": holds a " + (crts.empty() ? ".key" : ".crt") + " file but no " +
           (crts.empty() ? ".crt" : ".key") + " file; HTTPS needs both";
  if (auto problem = http::check_tls_pair(crts.front(), keys.front()); !problem.empty())
    return problem;
  return tls_files{crts.front(), keys.front()};
}

// How long a request with an unknown Host waits for the network capability to look again (it
// may run the overlay's command, at most 2 s).
constexpr std::chrono::seconds host_relearn_timeout{5};

// The Host check of every listener: the names the network capability publishes, one more look
// (a fresh overlay probe) before a Host is refused, and the contract's 421 body on all three.
http::host_check host_check_of(const directory& dir, http::io_actor& io_actor) {
  http::host_check check;
  check.names_this_machine = [&dir](std::string_view host) {
    static const machine_names fallback = host_names::make_machine_names("", "", {});
    auto names = dir.view<machine_names>();
    return host_names::served(names ? *names : fallback, host);
  };
  check.relearn = [&dir, &io_actor](std::function<void()> done) {
    auto network = dir.get<network_actor>();
    if (!network) return done();
    io_actor.request(network, host_relearn_timeout, caf::get_atom_v)
        .then([done](const network_snapshot&) { done(); }, [done](caf::error&) { done(); });
  };
  check.misdirected = http::json_response(421, {{"error", "Misdirected request"}});
  return check;
}

// Raises the open-files limit and sizes the connection caps of all listeners from it.
std::shared_ptr<http::connection_budget> connection_budget_for_open_files() {
  const auto files = raise_open_files_limit();
  if (!files.error.empty())
    log::warn(component, "open files limit left as it is: ", files.error);
  else if (files.soft != files.before)
    log::info(component, "open files limit raised from ", files.before, " to ", files.soft,
              " (hard limit ", files.hard, ")");
  const auto caps = http::caps_for_fd_limit(files.soft);
  log::info(component, "open files limit ", files.soft, ": at most ", caps.total,
            " connections in all, ", caps.per_address, " per client address");
  return std::make_shared<http::connection_budget>(caps);
}

struct planned_listener {
  const char* name;
  int port;
  bool tls;
  http::handler handler;
  // Set for the listener that carries Socket.IO (websocket upgrades under /socket.io/).
  const socketio::service* socketio = nullptr;
};

}  // namespace

int run_daemon(const cli::options& opts) {
  // The actor system outlives the io_context: handlers still queued there hold actor handles.
  caf::actor_system_config cfg;
  configure_actor_system(cfg, capability_table());
  caf::actor_system sys{cfg};
  boost::asio::io_context io;
  // Signals are caught from before the pid file exists (set-password sends SIGHUP to that pid)
  // and delivered once the io_context runs.
  boost::asio::signal_set stop_signals(io, SIGINT, SIGTERM);
  boost::asio::signal_set reload_signal(io, SIGHUP);

  settings_file::paths paths{opts.data_dir, opts.config.value_or(opts.data_dir + "/settings.json")};
  if (auto ec = settings_file::ensure_data_dir(paths.data_dir)) {
    std::cerr << "mixerd: cannot create data folder " << paths.data_dir << ": " << ec.message()
              << "\n";
    return 1;
  }
  settings_file::pid_file pid(paths.pid());
  if (!pid.held()) {
    std::cerr << "mixerd: another mixerd"
              << (pid.other_pid() ? " (pid " + std::to_string(*pid.other_pid()) + ")" : "")
              << " is running on " << paths.data_dir << "\n";
    return 1;
  }
  auto loaded = load_settings(paths);
  if (auto* code = std::get_if<int>(&loaded)) return *code;
  const auto& settings = std::get<nlohmann::json>(loaded);

  auto level = pick_string(opts.log_level, settings, "log_level", "info");
  log::set_level(*log::level_from_string(level));
  log::info(component, "mixerd ", app_version, " starting; data folder ", paths.data_dir);
  // One budget for the three listeners: together they must leave descriptors for the rest.
  const auto connections = connection_budget_for_open_files();

  std::unique_ptr<sim::simulated_device> simulated;
  std::string serial = pick_string(opts.serial, settings, "serial_port", "auto");
  if (opts.simulate) {
    sim::device_options sim_opts;
    sim_opts.trace = [](std::string_view dir, std::string_view line) {
      log::trace("simulator", dir, " ", line);
    };
    try {
      simulated = sim::start_simulated_device(io, sim_opts);
    } catch (const std::exception& e) {
      log::error(component, "cannot start the simulated device: ", e.what());
      return 1;
    }
    serial = simulated->port_path();
    log::info(component, "simulated device on ", serial);
  }

  auto found_tls = find_tls_files(paths.data_dir);
  if (auto* problem = std::get_if<std::string>(&found_tls)) {
    std::cerr << "mixerd: " << *problem << "\n";
    return 2;
  }
  const auto tls = std::get<tls_files>(found_tls);
  if (tls.enabled())
    log::info(component, "HTTPS on the controller and notification ports with ", tls.certificate);

  running_system actors;
  // Outgoing HTTP (http macros): one client for the daemon, bounded in requests at once.
  http_client outgoing(io, macros::max_http_in_flight);
  // The listeners' ports, published once they are bound: http macros may never call them.
  auto own_listeners = actors.dir.slot(http_targets::own_listeners{});
  spawn_actors(sys, capability_table(), {&io, serial, paths, settings, &outgoing}, actors);
  // Route handlers run on the io thread and ask actors through this one.
  http::io_actor io_actor(sys, io);
  // systemd's notify protocol (nothing without NOTIFY_SOCKET); its watchdog probes every
  // capability's actor. Declared after io_actor, which carries its probes: destroyed before it.
  std::vector<caf::actor> probed;
  for (const auto& phase : actors.phases)
    probed.insert(probed.end(), phase.begin(), phase.end());
  service_manager service(io, io_actor, std::move(probed));
  test_wedge wedge(io, sys);
  // Declared after `io`: destroyed before it, and its answers are posted there.
  socketio::service socket_io(sys, io, actors.dir,
                              socketio::options_from_settings(settings, tls.enabled()));

  const std::string bind = pick_string(opts.bind, settings, "bind_address", "0.0.0.0");
  auto toast_port = std::make_shared<std::uint16_t>(0);
  const auto controller_policy = controller::listener_policy(tls.enabled());
  if (std::error_code ec;
      std::filesystem::is_regular_file(controller_policy.static_root + "/index.html", ec))
    log::info(component, "web controller from ", controller_policy.static_root);
  else
    log::warn(component, "no web controller at ", controller_policy.static_root,
              ": GET / on the controller port answers 404");
  const auto notification_policy = toast_api::listener_policy({bind, tls.enabled(), toast_port});
  const auto plants_policy = plants_api::listener_policy();
  const planned_listener plan[] = {
      {"controller",
       pick_port(opts.controller_port, settings, "controller_port",
                 settings_schema::default_controller_port),
       tls.enabled(),
       socket_io.route(http::make_router(actors.runner, io_actor, controller_policy)), &socket_io},
      {"notification API",
       pick_port(opts.toast_port, settings, "toast_port", settings_schema::default_toast_port),
       tls.enabled(), http::make_router(actors.runner, io_actor, notification_policy)},
      {"plant store",
       pick_port(opts.plants_port, settings, "plants_port", settings_schema::default_plants_port),
       false, http::make_router(actors.runner, io_actor, plants_policy)},
  };
  const http::error_writer errors[] = {controller_policy.errors, notification_policy.errors,
                                       plants_policy.errors};
  const http::listener_kind kinds[] = {controller_policy.kind, notification_policy.kind,
                                       plants_policy.kind};
  const auto hosts = host_check_of(actors.dir, io_actor);
  std::vector<std::unique_ptr<http::listener>> listeners;
  std::string listening;  // systemd's STATUS= line
  int exit_code = 0;
  for (std::size_t i = 0; i < std::size(plan); ++i) {
    const auto& p = plan[i];
    std::error_code ec;
    std::string why;
    http::listener_options lo{p.name, bind, static_cast<std::uint16_t>(p.port),
                              limits::http_body_max, errors[i]};
    lo.warn = [](std::string_view message) { log::warn("http", message); };
    lo.answered = http::count_answers(kinds[i]);
    lo.body_limit_for = [kind = kinds[i]](std::string_view method, std::string_view target) {
      return http::route_body_limit(kind, method, target);
    };
    lo.largest_body_limit = http::largest_route_body(kinds[i]);
    lo.connections = connections;
    lo.hosts = hosts;
    if (p.socketio) {
      lo.upgrade = p.socketio->upgrade(errors[i]);
      lo.upgrade_headers = socketio::service::upgrade_headers();
      // The same bound as a polling session's queue: one rule for slow clients on both.
      lo.max_queued_frames = socketio::service_options{}.max_queued_packets;
      lo.max_queued_bytes = limits::client_queue_max_bytes;
      // The engine's announced maxPayload bounds a websocket message as it bounds a POST
      // (the reference gives its websockets maxHttpBufferSize too); over it: 1009.
      lo.max_message_bytes = limits::http_body_max;
    }
    if (p.tls) {
      lo.tls_certificate_file = tls.certificate;
      lo.tls_private_key_file = tls.key;
    }
    auto l = http::start_listener(io, std::move(lo), p.handler, ec, &why);
    if (!l) {
      log::error(component, "cannot listen on ", bind, ":", p.port, " for the ", p.name, ": ",
                 why.empty() ? ec.message() : why);
      exit_code = 1;
      break;
    }
    log::info("http", p.name, " listening on ", bind, ":", l->port(), " (",
              p.tls ? "https" : "http", "://", url_host(bind), ":", l->port(), "/)");
    listening += std::string(listening.empty() ? "" : ", ") + p.name + " on " + bind + ":" +
                 std::to_string(l->port());
    listeners.push_back(std::move(l));
  }
  if (listeners.size() > 1) *toast_port = listeners[1]->port();
  http_targets::own_listeners bound;
  for (const auto& l : listeners)
    bound.ports.push_back(l->port());
  own_listeners->store(std::move(bound));
  if (!listeners.empty())
    caf::anon_send(actors.dir.get<mdns_actor>(),
                   mdns_listening{listeners[0]->port(), tls.enabled()});

  std::function<void()> wait_reload = [&] {
    reload_signal.async_wait([&](const boost::system::error_code& ec, int) {
      if (ec) return;
      log::info(component, "SIGHUP: re-reading settings");
      caf::anon_send(actors.dir.get<settings_actor>(), reload_atom_v);
      wait_reload();
    });
  };
  // A capability's actor that ends while the daemon runs (a handler threw) would leave its routes
  // answering 503 for good: the daemon stops with status 70 instead, and its service manager
  // starts it again whole (protocol/README.md, "Outgoing HTTP").
  bool stopping = false;
  auto watcher =
      watch_capabilities(sys, actors, [&io, &stopping, &exit_code, &service](std::string reason) {
        boost::asio::post(io, [&io, &stopping, &exit_code, &service, reason] {
          if (stopping) return;
          stopping = true;
          log::error(component, "a capability's actor ended (", reason,
                     "); mixerd stops with status 70 so that it is started again");
          exit_code = 70;
          service.stopping();
          io.stop();
        });
      });
  if (exit_code == 0) {
    wait_reload();
    stop_signals.async_wait([&](const boost::system::error_code& ec, int signo) {
      if (ec) return;
      log::info(component, "signal ", signo, ": stopping");
      service.stopping();
      io.stop();
    });
    log::info(component, "ready");
    boost::asio::post(io, [&] { service.ready("listening: " + listening); });
    start_after_ready(capability_table(), actors);
    io.run();
  }
  stopping = true;
  caf::anon_send_exit(watcher, caf::exit_reason::user_shutdown);
  wedge.release();
  for (auto& l : listeners)
    l->stop();
  reload_signal.cancel();
  stop_signals.cancel();
  simulated.reset();
  // Sessions end while the actors they ask are still there; then its own actors stop.
  socket_io.stop();
  io_actor.stop();
  shutdown_actors(sys, actors, {});
  // Let closed sockets and ports finish their cancelled operations before anything is freed.
  io.restart();
  io.poll();
  log::info(component, "stopped");
  return exit_code;
}

}  // namespace mixerd
