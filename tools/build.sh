#!/usr/bin/env bash
# Configures (once) and builds one build type: tools/build.sh release|asan [targets...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kind=${1:?usage: tools/build.sh release|asan [targets...]}
shift
case "$kind" in
  release) flags=(-DCMAKE_BUILD_TYPE=Release -DMIXERD_SANITIZE=OFF) ;;
  asan) flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DMIXERD_SANITIZE=ON) ;;
  *) echo "build: unknown build type '$kind' (release or asan)" >&2; exit 2 ;;
esac
# Paths relative to the checkout in ccache's keys, so a fresh clone elsewhere (CI) reuses the
# cache of an earlier build; debug info then names files relative to the build folder.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
dir="$root/build/$kind"
if [[ ! -f "$dir/CMakeCache.txt" ]]; then
  cmake -S "$root" -B "$dir" "${flags[@]}" >/dev/null
fi
jobs=$(nproc 2>/dev/null || echo 2)
started=$(date +%s)
if (($# > 0)); then
  targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  cmake --build "$dir" -j"$jobs" "${targets[@]}"
else
  cmake --build "$dir" -j"$jobs"
fi
echo "build: $kind done in $(($(date +%s) - started)) s"
