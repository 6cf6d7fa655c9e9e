// The connection caps on their own: who is admitted, which idle connection makes room, who is
// refused. The sessions are stand-ins that only record being closed.
#include "gateways/http/connection_budget.hpp"

#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "gateways/http/detail.hpp"

namespace mh = mixerd::http;

namespace {

struct fake_session final : mh::detail::session_base {
  mh::connection_ticket ticket;
  bool closed = false;
  // As the real sessions do: closing releases the connection's place.
  void close() override {
    closed = true;
    ticket.release();
  }
};

struct budget_fixture {
  std::shared_ptr<mh::connection_budget> budget =
      std::make_shared<mh::connection_budget>(mh::connection_caps{4, 2});

  // Admits a connection from `address`; null when refused.
  std::shared_ptr<fake_session> connect(const std::string& address, bool idle = true) {
    auto admission = budget->admit(address);
    if (admission.what == mh::connection_budget::outcome::refused) return nullptr;
    auto session = std::make_shared<fake_session>();
    session->ticket = std::move(admission.ticket);
    if (idle) session->ticket.idle(session);
    return session;
  }
};

}  // namespace

TEST_CASE("caps follow the open-files limit, keeping descriptors in reserve") {
  CHECK(mh::caps_for_fd_limit(1024).total == 1024 - mh::kFdReserve);
  CHECK(mh::caps_for_fd_limit(1024).per_address == (1024 - mh::kFdReserve) / 4);
  CHECK(mh::caps_for_fd_limit(256).total == 128);
  CHECK(mh::caps_for_fd_limit(65536).total == mh::kMaxConnections);
  CHECK(mh::caps_for_fd_limit(65536).per_address == mh::kMaxConnections / 4);
  // A tiny limit still leaves half of it for the rest.
  CHECK(mh::caps_for_fd_limit(64).total == 32);
  CHECK(mh::caps_for_fd_limit(~std::uint64_t{0}).total == mh::kMaxConnections);
}

TEST_CASE_FIXTURE(budget_fixture,
                  "at the per-address cap the oldest idle one of that address goes") {
  auto a1 = connect("10.0.0.1");
  auto a2 = connect("10.0.0.1");
  auto b1 = connect("10.0.0.2");
  REQUIRE((a1 && a2 && b1));
  CHECK(budget->open_from("10.0.0.1") == 2);
  auto a3 = connect("10.0.0.1");
  REQUIRE(a3);
  CHECK(a1->closed);
  CHECK_FALSE(a2->closed);
  CHECK_FALSE(b1->closed);
  CHECK(budget->open_from("10.0.0.1") == 2);
  CHECK(budget->open() == 3);
}

TEST_CASE_FIXTURE(budget_fixture, "a busy connection is never closed: the newcomer is refused") {
  auto a1 = connect("10.0.0.1", false);
  auto a2 = connect("10.0.0.1", false);
  REQUIRE((a1 && a2));
  CHECK_FALSE(connect("10.0.0.1"));
  CHECK_FALSE(a1->closed);
  CHECK_FALSE(a2->closed);
  // Another address is still welcome.
  CHECK(connect("10.0.0.2"));
  // Idle again (the next keep-alive request is awaited): now it can make room.
  a2->ticket.idle(a2);
  CHECK(connect("10.0.0.1"));
  CHECK(a2->closed);
}

TEST_CASE_FIXTURE(budget_fixture,
                  "at the total cap the oldest idle connection of any address goes") {
  auto a = connect("10.0.0.1");
  auto b = connect("10.0.0.2", false);
  auto c = connect("10.0.0.3");
  auto d = connect("10.0.0.4");
  REQUIRE((a && b && c && d));
  CHECK(budget->open() == 4);
  auto e = connect("10.0.0.5");
  REQUIRE(e);
  CHECK(a->closed);
  CHECK_FALSE(c->closed);
  // `b` is busy; c, d and e idle: c goes next.
  auto f = connect("10.0.0.6");
  REQUIRE(f);
  CHECK(c->closed);
  CHECK(budget->open() == 4);
}

TEST_CASE_FIXTURE(budget_fixture, "a released ticket frees its place without closing anyone") {
  auto a1 = connect("10.0.0.1");
  auto a2 = connect("10.0.0.1");
  a1->ticket.release();
  CHECK(budget->open_from("10.0.0.1") == 1);
  auto a3 = connect("10.0.0.1");
  REQUIRE(a3);
  CHECK_FALSE(a2->closed);
  a2.reset();  // a session that ends takes its place with it
  CHECK(budget->open_from("10.0.0.1") == 1);
  a3.reset();
  CHECK(budget->open() == 0);
  CHECK_FALSE(budget->close_oldest_idle());
}

TEST_CASE_FIXTURE(budget_fixture, "IPv6 clients count per /64") {
  auto first = connect("2001:db8:1:2::10", false);
  auto second = connect("2001:db8:1:2:aaaa::20", false);
  REQUIRE((first && second));
  CHECK(budget->open_from("2001:db8:1:2::99") == 2);
  CHECK_FALSE(connect("2001:db8:1:2::30"));
  CHECK(connect("2001:db8:1:3::10"));
}

TEST_CASE_FIXTURE(budget_fixture,
                  "close_oldest_idle makes room when accept runs out of descriptors") {
  auto busy = connect("10.0.0.1", false);
  CHECK_FALSE(budget->close_oldest_idle());
  auto idle = connect("10.0.0.2");
  CHECK(budget->close_oldest_idle());
  CHECK(idle->closed);
  CHECK_FALSE(busy->closed);
  CHECK(budget->open() == 1);
}
