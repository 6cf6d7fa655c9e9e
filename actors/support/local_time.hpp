// The wall clock as the data folder's files show it (profiles, the configuration's history).
#pragma once

#include <ctime>
#include <string>

namespace mixerd {

// Now as local time, ISO 8601 without zone, to the second: "2026-11-24T12:20:29".
std::string local_timestamp();
// `when` (Unix seconds) in the same form.
std::string local_timestamp(std::time_t when);

}  // namespace mixerd
