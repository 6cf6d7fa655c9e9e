// DATA_DIR/profiles/ on disk: one file per profile, named by profiles::file_name_of, each
// written atomically (settings_file::write_atomically). Only the profile actor (and, before it
// runs, the start-up that lists the folder) uses these; the daemon is the folder's only writer
// while it runs (the pid file keeps a second daemon off the data folder).
#pragma once

#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "protocol/profiles.hpp"

namespace mixerd::profile_folder {

// Creates the folder (mode 0700: profiles may hold command macros) when it is missing.
std::error_code ensure(const std::string& folder);

// Removes what a write cut short by a kill leaves behind: ".<file>.json.XXXXXX" files. Only
// while no write of the folder's one writer is under way.
void remove_leftover_temporaries(const std::string& folder);

// Every profile file of the folder, sorted by name. A file that cannot be read or parsed is
// listed with `error` (and logged, naming the file and the problem); it is never written. Files
// whose names are not those of a profile (see profiles::name_of_file) are logged and skipped.
std::vector<profile_summary> list(const std::string& folder);

struct read_result {
  std::optional<profiles::profile_file> file;
  bool missing = false;  // no such file
  std::string error;     // when no file and not missing: what is wrong with it
};
// Reads and parses the profile `name` (whose file must also name it).
read_result read(const std::string& folder, const std::string& name);

// Writes a profile atomically (the temporary file is fsynced, renamed over the old one, the
// folder fsynced).
std::error_code write(const std::string& folder, const profiles::profile_file& file);
// The same with the file's text already made (profiles::serialize(file)).
std::error_code write(const std::string& folder, const std::string& name, const std::string& text);
// Removes a profile's file (a missing one is no error) and makes the removal durable.
std::error_code remove(const std::string& folder, const std::string& name);

// The path of a profile's file, for log lines.
std::string path_of(const std::string& folder, const std::string& name);

}  // namespace mixerd::profile_folder
