#!/usr/bin/env bash
# Installs what is missing, runs the plugin SDK's unit tests (pytest), builds the Release and the
# ASan+UBSan builds, and runs every test in both: unit tests (CTest), integration tests (pytest
# against the real mixerd, a real pty and loopback HTTP) and the short fault tests; the web
# controller's browser tests (headless Chromium) and the .deb's tests against the release build;
# the minimal build's unit tests and tests/minimal; then replays every fuzz corpus (clang,
# ASan+UBSan).
# Ends with one summary line; exits non-zero if anything failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install-deps.sh" --with-tests || exit 1
# socket.io-client for the integration tests, exactly as locked in package-lock.json.
echo "== npm ci (tests/integration/node)"
(cd "$root/tests/integration/node" && npm ci --no-audit --no-fund --loglevel=error) || exit 1
results="$root/build/test-results"
rm -rf "$results" && mkdir -p "$results"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
# The plugin SDK (plugins/python) on its own: no build needed, the runner is driven through pipes.
echo "== plugin SDK unit tests"
/usr/bin/python3 -m pytest -q -p no:cacheprovider --junitxml="$results/sdk-unit.xml" \
  "$root/tests/unit/plugins/python" || status=1
for kind in release asan; do
  echo "== $kind: build"
  if ! "$root/tools/build.sh" "$kind"; then
    echo "FAILED: $kind build" >&2
    echo "build-$kind" >"$results/$kind-build-failed"
    status=1
    continue
  fi
  echo "== $kind: unit tests"
  (cd "$root/build/$kind" && ctest --output-on-failure -j2 --timeout 300 --output-junit "$results/$kind-unit.xml") || status=1
  echo "== $kind: integration tests"
  MIXERD_BIN="$root/build/$kind/tools/mixerd" /usr/bin/python3 -m pytest -q -p no:cacheprovider \
    --junitxml="$results/$kind-integration.xml" "$root/tests/integration" || status=1
  # The short scale of tools/run-faults.sh: load, hang-ups, kill -9, malformed input. -s: each
  # test prints its measured figures ("[figures] ..." lines) into the CI log.
  echo "== $kind: fault tests (short scale)"
  MIXERD_BIN="$root/build/$kind/tools/mixerd" MIXERD_FAULT_SCALE=short /usr/bin/python3 -m pytest \
    -q -s -p no:cacheprovider --junitxml="$results/$kind-faults.xml" "$root/tests/faults" || status=1
  # The web controller in headless Chromium, once, against the release build: the page's locked
  # socket.io-client (the committed copy is checked against it) and the browser driver.
  if [ "$kind" = release ]; then
    echo "== release: web controller tests (Chromium)"
    if (cd "$root/web" && npm ci --no-audit --no-fund --loglevel=error) &&
      (cd "$root/tests/web/driver" && npm ci --no-audit --no-fund --loglevel=error); then
      MIXERD_BIN="$root/build/release/tools/mixerd" /usr/bin/python3 -m pytest -q -s -p no:cacheprovider \
        --junitxml="$results/release-web.xml" "$root/tests/web" || status=1
    else
      echo "FAILED: npm ci for the web tests" >&2
      echo web-npm >"$results/release-web-build-failed"  # counted by tools/test-summary.py
      status=1
    fi
    # The .deb (tools/package.sh, CPack over this release build): contents, unit, lintian, and
    # its mixerd run from a throwaway root.
    echo "== release: package tests (.deb)"
    /usr/bin/python3 -m pytest -q -s -p no:cacheprovider --junitxml="$results/release-package.xml" \
      "$root/tests/package" || status=1
  fi
done
# The minimal build (every MIXERD_WITH_<CAP> off), once: its unit tests and, against its binary,
# what it serves and how it answers for what it left out.
echo "== minimal: build"
if "$root/tools/build.sh" minimal; then
  echo "== minimal: unit tests"
  (cd "$root/build/minimal" && ctest --output-on-failure -j2 --timeout 300 --output-junit "$results/minimal-unit.xml") || status=1
  echo "== minimal: tests of the build"
  MIXERD_BIN="$root/build/minimal/tools/mixerd" /usr/bin/python3 -m pytest -q -p no:cacheprovider \
    --junitxml="$results/minimal-build.xml" "$root/tests/minimal" || status=1
else
  echo "FAILED: minimal build" >&2
  echo build-minimal >"$results/minimal-build-failed"
  status=1
fi
# Every fuzz target once over its corpus, built with clang under ASan+UBSan.
echo "== fuzz: build and replay the corpora"
if ! "$root/tools/fuzz.sh" replay 2>&1 | tee "$results/fuzz-replay.txt"; then
  status=1
  grep -q "fuzz replay: .* FAILED (" "$results/fuzz-replay.txt" || echo fuzz >"$results/fuzz-build-failed"
fi
/usr/bin/python3 "$root/tools/test-summary.py" "$results" || status=1
exit $status
