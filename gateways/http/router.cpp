#include "gateways/http/router.hpp"

#include <algorithm>
#include <array>
#include <caf/all.hpp>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "actors/support/log.hpp"
#include "gateways/http/json_body.hpp"
#include "gateways/http/request_checks.hpp"
#include "protocol/metrics.hpp"
#include "protocol/uri.hpp"
#include "protocol/validation.hpp"

namespace mixerd::http {

namespace {

std::array<std::vector<route>, 3>& registry() {
  static std::array<std::vector<route>, 3> routes;
  return routes;
}

struct parameter {
  bool is_rest = false;
  bool is_integer = false;
  std::string_view name;
  long long lo = 0;
  long long hi = 0;
};

// "{index:1-4}", "{id}", "{path*}"; nullopt for a literal segment.
std::optional<parameter> parse_parameter(std::string_view segment) {
  if (segment.size() < 2 || segment.front() != '{' || segment.back() != '}') return std::nullopt;
  parameter p;
  auto inner = segment.substr(1, segment.size() - 2);
  if (!inner.empty() && inner.back() == '*') {
    p.is_rest = true;
    p.name = inner.substr(0, inner.size() - 1);
    return p;
  }
  auto colon = inner.find(':');
  p.name = inner.substr(0, colon);
  if (colon == std::string_view::npos) return p;
  auto range = inner.substr(colon + 1);
  auto dash = range.find('-', 1);
  p.is_integer = true;
  std::from_chars(range.data(), range.data() + dash, p.lo);
  std::from_chars(range.data() + dash + 1, range.data() + range.size(), p.hi);
  return p;
}

// Integer parameters of a matched route; false (and a 400 answered) when one is bad.
bool read_integers(exchange& x, const route& r) {
  std::string_view pattern = r.pattern;
  std::size_t position = 0;
  x.numbers.assign(x.segments.size(), 0);
  while (!pattern.empty()) {
    pattern.remove_prefix(1);  // the '/'
    auto want = pattern.substr(0, pattern.find('/'));
    pattern.remove_prefix(want.size());
    auto p = parse_parameter(want);
    if (!p) continue;
    if (p->is_integer) {
      std::string error;
      std::string name(p->name);
      auto value =
          validation::index_segment(x.segments[position], name.c_str(), static_cast<int>(p->lo),
                                    static_cast<int>(p->hi), error);
      if (!value) {
        x.respond(x.error(400, error));
        return false;
      }
      x.numbers[position] = *value;
    }
    ++position;
  }
  return true;
}

void run(exchange& x, const route* found, const std::string& allowed) {
  if (!found) {
    if (allowed.empty()) return x.respond(x.error(404, x.policy.not_found + x.req.path));
    auto res = x.error(405, "Method " + x.req.method + " is not allowed on " + x.req.path);
    res.headers.emplace_back("Allow", allowed);
    return x.respond(std::move(res));
  }
  if (!read_integers(x, *found)) return;
  x.matched = found;
  try {
    found->handler(x);
  } catch (const std::exception& e) {
    x.failed_by_exception()(e);
  }
}

}  // namespace

response exchange::error(int status, std::string_view message) const {
  return policy.errors(status, message);
}

std::optional<std::string> exchange::query(std::string_view name) const {
  return uri::query_parameter(req.query, name);
}

std::function<void(caf::error&)> exchange::failed(std::string_view what) const {
  return [respond = respond, errors = policy.errors, listener = policy.name,
          target = req.method + " " + req.path, what = std::string(what)](caf::error& e) {
    if (e == caf::sec::request_receiver_down) return respond(errors(503, "The daemon is stopping"));
    log::error(
        listener, target, ": ",
        e == caf::sec::request_timeout ? "no answer in time from " : "unexpected reply from ", what,
        " (", caf::to_string(e), ")");
    respond(errors(500, "Internal error"));
  };
}

namespace {

constexpr std::size_t max_static_file_bytes = 4 * 1024 * 1024;

std::string_view content_type_of(std::string_view name) {
  static const std::pair<std::string_view, std::string_view> types[] = {
      {".html", "text/html; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".json", "application/json"},
      {".webmanifest", "application/manifest+json"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
      {".txt", "text/plain; charset=utf-8"},
  };
  for (const auto& [ext, type] : types)
    if (name.size() >= ext.size() && name.substr(name.size() - ext.size()) == ext) return type;
  return "application/octet-stream";
}

bool escapes_folder(std::string_view path) {
  if (path.find('\0') != std::string_view::npos || path.find('\\') != std::string_view::npos)
    return true;
  while (!path.empty()) {
    auto part = path.substr(0, path.find('/'));
    if (part == "..") return true;
    path.remove_prefix(std::min(path.size(), part.size() + 1));
  }
  return false;
}

// A regular file's validator: its size and modification time, like common static servers (a
// rebuilt file changes its time, so the browser's copy is revalidated, never stale).
struct stored_file_facts {
  std::string etag;
};

std::optional<stored_file_facts> stored_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || size > max_static_file_bytes) return std::nullopt;
  const auto time = std::filesystem::last_write_time(path, ec);
  if (ec) return std::nullopt;
  char text[64];
  const auto n =
      std::snprintf(text, sizeof text, "\"%llx-%llx\"", static_cast<unsigned long long>(size),
                    static_cast<unsigned long long>(time.time_since_epoch().count()));
  return stored_file_facts{std::string(text, static_cast<std::size_t>(n))};
}

// The page's files come only from this origin; nothing may frame it or read it as another type.
std::vector<std::pair<std::string, std::string>> static_file_headers(const stored_file_facts& f,
                                                                     bool gzip) {
  std::vector<std::pair<std::string, std::string>> h{
      {"ETag", f.etag},
      {"Cache-Control", "no-cache"},
      {"Vary", "Accept-Encoding"},
      {"X-Content-Type-Options", "nosniff"},
      {"Referrer-Policy", "same-origin"},
      {"Content-Security-Policy",
       "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
       "frame-ancestors 'none'; form-action 'self'"},
  };
  if (gzip) h.emplace_back("Content-Encoding", "gzip");
  return h;
}

}  // namespace

void serve_files(exchange& x) {
  std::string name = x.segments.empty() ? std::string() : x.segments.back();
  if (escapes_folder(name)) return x.respond(x.error(404, x.policy.not_found + x.req.path));
  if (name.empty() || name.back() == '/') name += "index.html";
  const std::string file = x.policy.static_root + "/" + std::string(x.matched->folder) + "/" + name;
  // The build stores a gzip copy next to each text file where it pays (web/CMakeLists.txt).
  const bool gzip = accepts_gzip(x.req.header("Accept-Encoding")) && stored_file(file + ".gz");
  auto stored = stored_file(gzip ? file + ".gz" : file);
  if (!stored) return x.respond(x.error(404, x.policy.not_found + x.req.path));
  // The two forms are different bytes, so they have different tags.
  if (gzip) stored->etag.insert(stored->etag.size() - 1, "-gzip");
  response res;
  res.content_type = std::string(content_type_of(name));
  res.headers = static_file_headers(*stored, gzip);
  if (etag_matches(x.req.header("If-None-Match"), stored->etag)) {
    res.status = 304;
    return x.respond(std::move(res));
  }
  std::ifstream in(gzip ? file + ".gz" : file, std::ios::binary);
  if (!in) return x.respond(x.error(404, x.policy.not_found + x.req.path));
  res.body.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  x.respond(std::move(res));
}

std::function<void(const std::exception&)> exchange::failed_by_exception() const {
  return [respond = respond, errors = policy.errors, listener = policy.name,
          target = req.method + " " + req.target](const std::exception& e) {
    log::error(listener, "request ", target, " failed: ", e.what());
    respond(errors(500, "Internal error"));
  };
}

// ---- Command routes -----------------------------------------------------------------------------

namespace {
response answer_of(const error_writer& errors, const command_result& result) {
  response res;
  if (!result.ok()) {
    res = errors(result.status, result.error);
  } else if (result.status == 204) {
    res.status = 204;
    res.content_type.clear();
  } else {
    res = json_response(result.status, result.body);
  }
  res.headers.insert(res.headers.end(), result.headers.begin(), result.headers.end());
  return res;
}
}  // namespace

response exchange::answer(const command_result& result) const {
  return answer_of(policy.errors, result);
}

void exchange::run(std::string_view command, const nlohmann::json& input, std::string credential,
                   std::function<void(command_result)> done) {
  command_origin origin;
  origin.from = command_origin::front_end::rest;
  origin.grants = policy.grants;
  if (trusted) origin.grants.push_back(commands::permission::trusted);
  origin.who = policy.name + " " + req.method + " " + req.path;
  // A request an http macro made carries the run's depth (protocol/README.md, "Macros").
  origin.depth = commands::depth_from_header(req.header(commands::depth_header));
  origin.credential = std::move(credential);
  commands.run(actor.scheduled(), std::move(origin), command, input, std::move(done));
}

void exchange::run(std::string_view command, const nlohmann::json& input, std::string credential) {
  // The policy outlives every request of its listener.
  run(command, input, std::move(credential),
      [respond = respond, errors = &policy.errors](command_result result) {
        respond(answer_of(*errors, result));
      });
}

route command_route(std::string_view method, std::string_view pattern, std::string_view command,
                    body_use body, std::string_view body_param) {
  route r{method, pattern, true, run_command_route};
  r.command = command;
  r.body = body;
  r.body_param = body_param;
  return r;
}

void run_command_route(exchange& x) {
  const route& r = *x.matched;
  // A build without the command's capability (MIXERD_WITH_<CAP> off) keeps the route: it answers
  // as the capability does when its service is absent, rather than a 404 that reads as a typo.
  if (x.commands.table().find(r.command) == nullptr)
    return x.respond(x.error(503, std::string(r.command) + " is not available in this build"));
  // The pattern's parameters, by name, in order (integers already checked by the router).
  std::vector<std::pair<std::string_view, nlohmann::json>> path;
  std::string_view pattern = r.pattern;
  std::size_t position = 0;
  while (!pattern.empty()) {
    pattern.remove_prefix(1);  // the '/'
    auto segment = pattern.substr(0, pattern.find('/'));
    pattern.remove_prefix(segment.size());
    auto p = parse_parameter(segment);
    if (!p) continue;
    if (p->is_integer) {
      path.emplace_back(p->name, x.numbers[position]);
    } else {
      if (r.path_check)
        if (auto problem = r.path_check(x.segments[position]); !problem.empty())
          return x.respond(x.error(400, problem));
      path.emplace_back(p->name, x.segments[position]);
    }
    ++position;
  }
  nlohmann::json input = nlohmann::json::object();
  if (r.body != body_use::none) {
    std::string error;
    auto body = validation::json_object(x.req.body, error, r.body == body_use::object_or_empty);
    if (!body) return x.respond(x.error(400, error));
    if (r.body_param.empty())
      input = std::move(*body);
    else
      input[std::string(r.body_param)] = std::move(*body);
  }
  for (auto& [name, value] : path)
    input[std::string(name)] = std::move(value);
  x.run(r.command, input);
}

std::function<void(std::uint32_t, int)> count_answers(listener_kind kind) {
  return [listener = static_cast<std::size_t>(kind)](std::uint32_t route, int status) {
    metrics::requests().count(listener, route, status);
  };
}

route_registration::route_registration(listener_kind kind, std::vector<route> routes) {
  auto& list = registry()[static_cast<std::size_t>(kind)];
  list.insert(list.end(), routes.begin(), routes.end());
}

const std::vector<route>& routes_of(listener_kind kind) {
  return registry()[static_cast<std::size_t>(kind)];
}

std::size_t route_body_limit(listener_kind kind, std::string_view method, std::string_view target) {
  const auto path = target.substr(0, target.find('?'));
  std::vector<std::string> segments;
  for (const auto& r : routes_of(kind))
    if (r.method == method && match_pattern(r.pattern, path, segments)) return r.max_body;
  return 0;
}

std::size_t largest_route_body(listener_kind kind) {
  std::size_t largest = 0;
  for (const auto& r : routes_of(kind))
    largest = std::max(largest, r.max_body);
  return largest;
}

// Paths match exactly, segment by segment: "/plants//1" and "/api/sliders/" name nothing. A
// parameter may stand for an empty segment (its handler or its range check answers that).
bool match_pattern(std::string_view pattern, std::string_view path,
                   std::vector<std::string>& segments, bool decode) {
  segments.clear();
  auto text = [decode](std::string_view raw) {
    return decode ? uri::percent_decode(raw) : std::string(raw);
  };
  while (!pattern.empty()) {
    if (pattern.front() != '/' || path.empty() || path.front() != '/') return false;
    pattern.remove_prefix(1);
    path.remove_prefix(1);
    auto want = pattern.substr(0, pattern.find('/'));
    pattern.remove_prefix(want.size());
    auto p = parse_parameter(want);
    if (p && p->is_rest) {
      segments.emplace_back(text(path));
      return true;
    }
    auto part = path.substr(0, path.find('/'));
    path.remove_prefix(part.size());
    if (p) {
      segments.emplace_back(text(part));
    } else if (part.find('%') == std::string_view::npos ? want != part : want != text(part)) {
      // (Decoding only a segment that has an escape keeps the common request free of copies.)
      return false;
    }
  }
  return path.empty();
}

handler make_router(const command_runner& commands, io_actor& actor,
                    const listener_policy& policy) {
  const auto& routes = routes_of(policy.kind);
  return [&commands, &actor, &policy, &routes](request&& req, responder respond) {
    if (policy.decorate) respond = policy.decorate(req, std::move(respond));
    auto held = std::make_shared<exchange>(exchange{
        std::move(req), std::move(respond), commands.dir(), commands, actor, policy, {}, {}, {}});
    auto& x = *held;
    const route* found = nullptr;
    std::string allowed;
    std::vector<std::string> segments;
    // The path as sent, each segment decoded on its own: an encoded '/' (%2F) stays inside its
    // segment, so a profile named "a/b" is the one {name} of /api/profiles/a%2Fb.
    const auto sent_path = std::string_view(x.req.target).substr(0, x.req.target.find('?'));
    for (const auto& r : routes) {
      if (!match_pattern(r.pattern, sent_path, segments, true)) continue;
      if (r.method == x.req.method || (r.method == "GET" && x.req.method == "HEAD")) {
        found = &r;
        x.segments = std::move(segments);
        break;
      }
      if (allowed.find(r.method) == std::string::npos)
        allowed += (allowed.empty() ? "" : ", ") + std::string(r.method);
    }
    // Counted when answered, under the route's pattern (GET /metrics names them): the answer's
    // slot does it (listener_options::answered), without wrapping the responder.
    if (x.req.route_tag)
      x.req.route_tag->store(
          static_cast<std::uint32_t>(found ? static_cast<std::size_t>(found - routes.data())
                                           : metrics::request_counts::unmatched),
          std::memory_order_relaxed);
    if (!policy.gate) return run(x, found, allowed);
    policy.gate(held, found, [found, allowed](exchange& next) { run(next, found, allowed); });
  };
}

}  // namespace mixerd::http
