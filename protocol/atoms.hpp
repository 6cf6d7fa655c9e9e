// mixerd's own atoms (CAF 0.17: atom constants, at most 10 characters). CAF's own (get_atom,
// put_atom, publish_atom, ...) are used where they fit.
#pragma once

#include <caf/atom.hpp>
#include <caf/type_id.hpp>

CAF_ADD_ATOM(mixerd, mixerd, reload_atom, "reload")
CAF_ADD_ATOM(mixerd, mixerd, status_atom, "status")
CAF_ADD_ATOM(mixerd, mixerd, line_atom, "line")
CAF_ADD_ATOM(mixerd, mixerd, closed_atom, "closed")
CAF_ADD_ATOM(mixerd, mixerd, opened_atom, "opened")
CAF_ADD_ATOM(mixerd, mixerd, watch_atom, "watch")
CAF_ADD_ATOM(mixerd, mixerd, retry_atom, "retry")
CAF_ADD_ATOM(mixerd, mixerd, keepalive_atom, "keepalive")
CAF_ADD_ATOM(mixerd, mixerd, sessions_atom, "sessions")
CAF_ADD_ATOM(mixerd, mixerd, recheck_atom, "recheck")
CAF_ADD_ATOM(mixerd, mixerd, handlers_atom, "handlers")
CAF_ADD_ATOM(mixerd, mixerd, regenerate_atom, "regenerate")
CAF_ADD_ATOM(mixerd, mixerd, history_atom, "history")
CAF_ADD_ATOM(mixerd, mixerd, overlay_atom, "overlay")
CAF_ADD_ATOM(mixerd, mixerd, sweep_atom, "sweep")
// The listeners answer: what is slow to start (connections, processes) may start now.
CAF_ADD_ATOM(mixerd, mixerd, ready_atom, "ready")
// stream
CAF_ADD_ATOM(mixerd, mixerd, deadline_atom, "deadline")
