// The wall clock as the data folder's files show it (profiles, the configuration's history).
#pragma once

#include <string>

namespace mixerd {

// Now as local time, ISO 8601 without zone, to the second: "2026-11-24T12:20:29".
std::string local_timestamp();

}  // namespace mixerd
