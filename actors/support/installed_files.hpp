// Where the files installed with mixerd are: `<prefix>/share/mixerd`, found from the running
// binary (`<prefix>/bin/mixerd`). A build tree has the same shape: `build/<type>/tools/mixerd`
// finds `build/<type>/share/mixerd`, which the build fills.
#pragma once

#include <filesystem>

namespace mixerd {

// `<dir of the binary>/../share/mixerd`; empty when /proc/self/exe cannot be read.
std::filesystem::path installed_share_dir();

}  // namespace mixerd
