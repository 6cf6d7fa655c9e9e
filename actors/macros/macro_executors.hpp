// What each kind of macro does. Every executor starts its work and returns at once: the outcome
// comes back to the macro actor as macro_step_done, so the cooperative actor never waits on a
// program, a network peer or a keyboard. The macro capability's own kinds run here, their
// blocking work off the actor threads (a program on the io thread through the program runner,
// an http request and a key press on a detached helper actor); every other kind is the command
// of the capability it acts on (protocol/macro_kinds.hpp), run through the command runner.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "actors/macros/macros_actor.hpp"

namespace mixerd::macro_executors {

using self_ptr = macros_impl::stateful_pointer<macros_state>;

// Starts one step of run `run`: `fields` is a validated macro of any kind but none, sequence
// and delay. The http step also arms its own time limit (a late answer is dropped).
void start(self_ptr self, std::uint64_t run, std::size_t step, const nlohmann::json& fields);

// "macro 'Name' (page P, slot S)", as logs and command origins name a run; "macro" once it ended.
std::string run_label(self_ptr self, std::uint64_t run);

// How run `run` asks a command (its kind's, or an interceptor): a local front end named by its
// run_label, one level deeper than the run.
command_origin run_origin(self_ptr self, std::uint64_t run);

}  // namespace mixerd::macro_executors
