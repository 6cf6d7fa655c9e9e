#!/usr/bin/env bash
# The fault and load tests of tests/faults against the real mixerd: 1,000 Socket.IO
# clients while the sliders move, pty hang-ups and replugs, kill -9 during writes (settings,
# plants, profiles), malformed HTTP and garbage device lines, Engine.IO handshake floods, login
# floods, the open-files limit, Transfer-Encoding, Host names and control bytes in free text,
# what a plugin leaves running and plugin files linked out of their folder, empty or partial
# settings.json on SIGHUP (secrets kept), Home Assistant birth floods on MQTT, http macros against
# endless answers, silent servers and targets on this machine, macro loops, a stalled Socket.IO
# client during macro edits, profile floods. Installs what is missing, builds the Release binary
# and runs the full scale (about 15-20 min on 2 cores); CI runs the short scale after the
# integration tests. Loopback and a pty only; every test stops by itself.
#
#   tools/run-faults.sh [pytest args...]        e.g. -k replug
#   MIXERD_FAULT_SCALE=short tools/run-faults.sh
#   MIXERD_BIN=build/asan/tools/mixerd tools/run-faults.sh   (no build; an existing binary)
#   MIXERD_FAULT_SEED=N                          repeats the random choices of a run
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install-deps.sh" --with-tests
if [[ -z "${MIXERD_BIN:-}" ]]; then
  "$root/tools/build.sh" release
  export MIXERD_BIN="$root/build/release/tools/mixerd"
fi
if [[ ! -d "$root/tests/integration/node/node_modules/socket.io-client" ]]; then
  echo "== npm ci (tests/integration/node)"
  (cd "$root/tests/integration/node" && npm ci --no-audit --no-fund --loglevel=error)
fi
export MIXERD_FAULT_SCALE=${MIXERD_FAULT_SCALE:-full}
echo "== fault tests: scale $MIXERD_FAULT_SCALE, binary $MIXERD_BIN"
started=$(date +%s)
status=0
# -s: each test prints its measured figures ("[figures] ..." lines).
/usr/bin/python3 -m pytest -q -s -p no:cacheprovider "$root/tests/faults" "$@" || status=$?
echo "fault tests: $( ((status == 0)) && echo passed || echo FAILED) in $(($(date +%s) - started)) s"
exit $status
