// Routes of the web controller (docs/web.md): the page, its login form and their assets, served
// from the files installed with mixerd (`<prefix>/share/mixerd/web`). The page needs a session when
// login is on (the gate sends a browser without one to /login); the login form and the assets
// hold no state and need none.
#include "gateways/controller/controller_listener.hpp"

namespace mixerd::controller {

namespace {

const http::route_registration routes{
    http::listener_kind::controller,
    {
        {"GET", "/", true, http::serve_files, "."},
        {"GET", "/login", false, http::serve_files, "login"},
        {"GET", "/assets/{path*}", false, http::serve_files, "assets"},
    }};

}  // namespace

}  // namespace mixerd::controller
