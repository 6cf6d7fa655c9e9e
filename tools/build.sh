#!/usr/bin/env bash
# Configures (once) and builds one build type: tools/build.sh release|asan|minimal|fuzz [targets...]
# minimal: Release without any optional capability (MIXERD_MINIMAL; cmake/capabilities.cmake).
# fuzz: clang, libFuzzer + ASan + UBSan, and only the fuzz targets (tests/fuzz, tools/fuzz.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kind=${1:?usage: tools/build.sh release|asan|minimal|fuzz [targets...]}
shift
case "$kind" in
  release) flags=(-DCMAKE_BUILD_TYPE=Release -DMIXERD_SANITIZE=OFF) ;;
  asan) flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DMIXERD_SANITIZE=ON) ;;
  minimal) flags=(-DCMAKE_BUILD_TYPE=Release -DMIXERD_SANITIZE=OFF -DMIXERD_MINIMAL=ON) ;;
  fuzz) flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DMIXERD_FUZZ=ON) ;;
  *) echo "build: unknown build type '$kind' (release, asan, minimal or fuzz)" >&2; exit 2 ;;
esac
# Paths relative to the checkout in ccache's keys, so a fresh clone elsewhere (CI) reuses the
# cache of an earlier build; debug info then names files relative to the build folder.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
dir="$root/build/$kind"
if [[ ! -f "$dir/CMakeCache.txt" ]]; then
  if [[ $kind == fuzz ]]; then
    CC=clang CXX=clang++ cmake -S "$root" -B "$dir" "${flags[@]}" >/dev/null
  else
    cmake -S "$root" -B "$dir" "${flags[@]}" >/dev/null
  fi
fi
# The fuzz build holds only what the fuzz targets need.
if [[ $kind == fuzz && $# -eq 0 ]]; then set -- fuzzers; fi
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
