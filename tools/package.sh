#!/usr/bin/env bash
# Builds the Debian package for this machine's architecture (amd64 here, arm64 or armhf on a
# Raspberry Pi): the release build of mixerd and mixer-sim (tools/build.sh), then CPack in that
# build folder (cmake/packaging.cmake). The last line printed is the path of the .deb.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# Only what the package holds: the unit tests and benchmarks are not needed for it.
"$root/tools/build.sh" release mixerd mixer-sim >&2
dir="$root/build/release"
# Apart: the build above re-runs CMake when a CMakeLists changed, which may add this target.
cmake --build "$dir" --target mixerd_package_docs >&2
rm -rf "$dir/package"
# cpack installs into its own staging folder; its output goes to stderr so the last line on
# stdout is the path alone.
(cd "$dir" && cpack -G DEB) >&2
shopt -s nullglob
debs=("$dir"/package/mixerd_*.deb)
if ((${#debs[@]} != 1)); then
  echo "package: expected one .deb in $dir/package, found ${#debs[@]}" >&2
  exit 1
fi
echo "${debs[0]}"
