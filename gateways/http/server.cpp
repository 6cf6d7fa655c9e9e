// The listener side of the HTTP server core: binding, accepting, the registry of live sessions,
// and stop(). Threading model: one thread runs the io_context, so listener state and sessions are
// only touched from that thread; the cross-thread entry points are a responder and a websocket
// handle (both post onto the io thread) and listener::stop() (dispatches). The sessions
// themselves live in http_session.hpp / websocket_session.hpp, instantiated per stream type in
// session_plain.cpp and session_tls.cpp.
#include "gateways/http/server.hpp"

#include <chrono>
#include <unordered_map>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/steady_timer.hpp>

#include "gateways/http/detail.hpp"
#include "protocol/uri.hpp"

namespace mixerd::http {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using detail::config;
using detail::session_base;

std::string_view request::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (uri::iequals(key, name)) return value;
  }
  return {};
}

namespace detail {

response config::error(int status, std::string_view message) const {
  if (options.errors) {
    try {
      return options.errors(status, message);
    } catch (...) {
      // Fall through: the client must get some answer even if the writer is broken.
    }
  }
  response r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::string(message);
  return r;
}

}  // namespace detail

namespace {

constexpr std::chrono::milliseconds kAcceptRetryDelay{100};
// Refused connections and connections closed to make room are reported at most this often.
constexpr std::chrono::seconds kBudgetReportInterval{10};

// A dual-stack "::" listener sees IPv4 clients as ::ffff:a.b.c.d; report them as IPv4 so the
// rate limiter and logs use one spelling per client.
std::string client_ip(const tcp::endpoint& endpoint) {
  const auto address = endpoint.address();
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return net::ip::make_address_v4(net::ip::v4_mapped, address.to_v6()).to_string();
  }
  return address.to_string();
}

// Callers compare against std::errc, which only works with the std categories.
std::error_code to_std(const boost::system::error_code& ec) {
  if (ec.category() == boost::system::system_category()) {
    return {ec.value(), std::system_category()};
  }
  if (ec.category() == boost::system::generic_category()) {
    return {ec.value(), std::generic_category()};
  }
  return ec;
}

// Owned by the pending async operations, not by the listener object, so the listener can be
// destroyed while completions are still queued.
struct listener_state final : detail::session_registry,
                              std::enable_shared_from_this<listener_state> {
  listener_state(net::io_context& io, std::shared_ptr<const config> c)
      : acceptor(io), retry_timer(io), cfg(std::move(c)) {}

  void accept() {
    acceptor.async_accept(
        [self = shared_from_this()](boost::system::error_code ec, tcp::socket socket) {
          self->on_accept(ec, std::move(socket));
        });
  }

  void on_accept(boost::system::error_code ec, tcp::socket socket) {
    if (stopped) return;
    if (ec) {
      if (ec == net::error::operation_aborted) return;
      const bool out_of_fds = ec == net::error::no_descriptors ||
                              ec == boost::system::errc::too_many_files_open_in_system;
      if (out_of_fds) return wait_for_newcomer(ec);
      retry_later();
      return;
    }
    boost::system::error_code option_ec;
    // Small JSON replies would otherwise wait for the client's delayed ACK (~40 ms).
    socket.set_option(tcp::no_delay(true), option_ec);
    const auto remote = socket.remote_endpoint(option_ec);
    if (!option_ec) start_session(std::move(socket), client_ip(remote));
    accept();
  }

  // EMFILE and friends repeat at once; retrying immediately would spin the io thread.
  void retry_later() {
    retry_timer.expires_after(kAcceptRetryDelay);
    retry_timer.async_wait([self = shared_from_this()](boost::system::error_code wait_ec) {
      if (!wait_ec && !self->stopped) self->accept();
    });
  }

  // accept() fails for want of a descriptor even when no connection waits. Once one waits in
  // the backlog, the oldest idle connection gives it its descriptor; with none idle, accept is
  // retried after a pause until a descriptor is free.
  void wait_for_newcomer(const boost::system::error_code& ec) {
    note(ec.message() + " on accept: waiting for a free descriptor");
    acceptor.async_wait(tcp::acceptor::wait_read,
                        [self = shared_from_this()](boost::system::error_code wait_ec) {
                          if (wait_ec || self->stopped) return;
                          const auto& budget = self->cfg->options.connections;
                          if (budget && budget->close_oldest_idle()) {
                            self->note("out of descriptors: closed the oldest idle connection");
                            return self->accept();
                          }
                          self->retry_later();
                        });
  }

  void start_session(tcp::socket socket, std::string address) {
    connection_ticket ticket;
    if (const auto& budget = cfg->options.connections) {
      auto admission = budget->admit(address);
      using outcome = connection_budget::outcome;
      if (admission.what == outcome::refused) {
        // Closed unanswered: an answer would hold the descriptor for as long as it takes.
        boost::system::error_code close_ec;
        socket.close(close_ec);
        note("connection from " + address + " refused: " + std::to_string(budget->open()) +
             " connections open (" + std::to_string(budget->open_from(address)) +
             " from that address), none idle; caps " + std::to_string(budget->caps().total) +
             " in all, " + std::to_string(budget->caps().per_address) + " per address");
        return;
      }
      if (admission.what == outcome::admitted_after_closing_idle)
        note("at the connection cap: closed an idle connection to admit " + address);
      ticket = std::move(admission.ticket);
    }
    if (cfg->tls) {
      detail::start_tls_session(std::move(socket), std::move(address), cfg, shared_from_this(),
                                std::move(ticket));
    } else {
      detail::start_plain_session(std::move(socket), std::move(address), cfg, shared_from_this(),
                                  std::move(ticket));
    }
  }

  // Reports through options.warn, at most once per kBudgetReportInterval: an attack makes these
  // by the thousand. The report says how many were left out since the last one.
  void note(const std::string& what) {
    if (!cfg->options.warn) return;
    const auto now = std::chrono::steady_clock::now();
    if (reported_once && now - last_report < kBudgetReportInterval) {
      ++unreported;
      return;
    }
    std::string text = cfg->options.name + ": " + what;
    if (unreported > 0)
      text += " (and " + std::to_string(unreported) + " more since the last report)";
    reported_once = true;
    last_report = now;
    unreported = 0;
    try {
      cfg->options.warn(text);
    } catch (...) {
      // A report must not take the io thread down.
    }
  }

  bool adopt(std::shared_ptr<session_base> s) override {
    if (stopped) return false;
    auto* key = s.get();
    sessions.emplace(key, std::move(s));
    return true;
  }

  void forget(session_base* s) override { sessions.erase(s); }

  void stop() {
    if (stopped) return;
    stopped = true;
    boost::system::error_code ec;
    acceptor.close(ec);
    retry_timer.cancel();
    // Moved out first: closing must not race with sessions erasing themselves.
    auto live = std::move(sessions);
    sessions.clear();
    for (auto& entry : live)
      entry.second->close();
  }

  tcp::acceptor acceptor;
  net::steady_timer retry_timer;
  std::shared_ptr<const config> cfg;
  // Strong references: a session waiting for its responder has no pending operation to keep it
  // alive. Responders and websocket handles only hold weak references, so the registry decides
  // the lifetime.
  std::unordered_map<session_base*, std::shared_ptr<session_base>> sessions;
  std::chrono::steady_clock::time_point last_report{};
  std::size_t unreported = 0;
  bool reported_once = false;
  bool stopped = false;
};

class listener_impl final : public listener {
 public:
  listener_impl(const std::shared_ptr<listener_state>& state, std::uint16_t port)
      : state_(state), port_(port) {}
  ~listener_impl() override { stop(); }

  std::uint16_t port() const override { return port_; }

  void stop() override {
    // Weak: once the io_context has been destroyed the state is gone and there is nothing to do.
    auto state = state_.lock();
    if (!state) return;
    net::dispatch(state->acceptor.get_executor(), [state] { state->stop(); });
  }

 private:
  std::weak_ptr<listener_state> state_;
  std::uint16_t port_;
};

}  // namespace

std::unique_ptr<listener> start_listener(net::io_context& io, listener_options options,
                                         handler on_request, std::error_code& ec,
                                         std::string* error_text) {
  ec.clear();
  if (error_text) error_text->clear();
  const auto fail = [&](std::error_code code, std::string text) -> std::unique_ptr<listener> {
    ec = code;
    if (error_text) *error_text = std::move(text);
    return nullptr;
  };

  boost::system::error_code bec;
  const auto address = net::ip::make_address(options.bind_address, bec);
  if (bec) {
    return fail(std::make_error_code(std::errc::invalid_argument),
                "invalid bind address '" + options.bind_address + "'");
  }
  const tcp::endpoint endpoint(address, options.port);
  // Loaded before binding, so that a broken certificate never leaves the port briefly open.
  std::shared_ptr<net::ssl::context> tls;
  if (!options.tls_certificate_file.empty() || !options.tls_private_key_file.empty()) {
    std::string problem;
    tls = detail::make_tls_context(options.tls_certificate_file, options.tls_private_key_file,
                                   problem);
    if (!tls) return fail(std::make_error_code(std::errc::invalid_argument), problem);
  }
  auto cfg = std::make_shared<const config>(
      config{std::move(options), std::move(on_request), std::move(tls)});
  auto state = std::make_shared<listener_state>(io, cfg);
  auto& acceptor = state->acceptor;

  acceptor.open(endpoint.protocol(), bec);
  if (!bec) acceptor.set_option(net::socket_base::reuse_address(true), bec);
  if (!bec && address.is_v6() && address.to_v6().is_unspecified()) {
    // "::" means every address, IPv4 included, whatever the system's bindv6only default.
    acceptor.set_option(net::ip::v6_only(false), bec);
  }
  if (!bec) acceptor.bind(endpoint, bec);
  if (!bec) acceptor.listen(net::socket_base::max_listen_connections, bec);
  std::uint16_t port = 0;
  if (!bec) port = acceptor.local_endpoint(bec).port();
  if (bec) return fail(to_std(bec), bec.message());
  state->accept();
  return std::make_unique<listener_impl>(state, port);
}

}  // namespace mixerd::http
