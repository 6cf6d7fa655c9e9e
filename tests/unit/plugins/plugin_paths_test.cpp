#include "plugins/bridge/plugin_paths.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "tests/unit/support/files.hpp"

using mixerd::bridge::file_outside_folder;
using mixerd::bridge::lies_below;
namespace fs = std::filesystem;

TEST_CASE("below a folder means part by part, strictly") {
  CHECK(lies_below("/data/plugins/a", "/data/plugins/a/main.py"));
  CHECK(lies_below("/data/plugins/a/", "/data/plugins/a/sub/main.py"));
  CHECK_FALSE(lies_below("/data/plugins/a", "/data/plugins/a"));
  CHECK_FALSE(lies_below("/data/plugins/a", "/data/plugins/ab/main.py"));
  CHECK_FALSE(lies_below("/data/plugins/a", "/data/plugins/main.py"));
  CHECK_FALSE(lies_below("/data/plugins/a", "/data/plugins/a/../b/main.py"));
  CHECK_FALSE(lies_below("/data/plugins/a", "/etc/passwd"));
  CHECK_FALSE(lies_below("data/plugins/a", "data/plugins/a/main.py"));
}

TEST_CASE("a plugin's file may be a link within its folder, not one out of it") {
  mixerd::test::temp_dir dir;
  const fs::path root = dir.path();
  fs::create_directories(root / "plugin" / "sub");
  fs::create_directories(root / "elsewhere");
  std::ofstream(root / "plugin" / "real.py") << "x";
  std::ofstream(root / "plugin" / "sub" / "deep.py") << "x";
  std::ofstream(root / "elsewhere" / "evil.py") << "x";
  fs::create_symlink("real.py", root / "plugin" / "inside.py");
  fs::create_symlink("sub/deep.py", root / "plugin" / "down.py");
  fs::create_symlink(root / "elsewhere" / "evil.py", root / "plugin" / "absolute.py");
  fs::create_symlink("../elsewhere/evil.py", root / "plugin" / "relative.py");
  fs::create_symlink("../plugin/real.py", root / "plugin" / "roundabout.py");
  fs::create_symlink("missing.py", root / "plugin" / "dangling.py");

  const auto plugin = root / "plugin";
  CHECK(file_outside_folder(plugin, "real.py", "e").empty());
  CHECK(file_outside_folder(plugin, "inside.py", "e").empty());
  CHECK(file_outside_folder(plugin, "down.py", "e").empty());
  CHECK(file_outside_folder(plugin, "roundabout.py", "e").empty());
  CHECK(file_outside_folder(plugin, "absolute.py", "the entry point absolute.py") ==
        "the entry point absolute.py leads outside the plugin's folder (a symbolic link)");
  CHECK(file_outside_folder(plugin, "relative.py", "e").find("leads outside") != std::string::npos);
  CHECK(file_outside_folder(plugin, "dangling.py", "e").find("cannot be resolved") !=
        std::string::npos);

  // The folder itself may be a link (a plugin under development): its own files still count.
  fs::create_symlink(plugin, root / "linked");
  CHECK(file_outside_folder(root / "linked", "inside.py", "e").empty());
  CHECK_FALSE(file_outside_folder(root / "linked", "relative.py", "e").empty());
}
