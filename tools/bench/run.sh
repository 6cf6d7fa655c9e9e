#!/usr/bin/env bash
# The benchmarks in one command: installs what is missing (wrk, node and npm included), builds the
# Release mixerd, the floor server and the codec benchmark, and the minimal build's mixerd,
# installs socket.io-client (the clients) and socket.io (the Node peer) with npm ci from their lock
# files, then runs the driver, which prints a table and writes build/bench/results.json.
#
#   tools/bench/run.sh [--quick] [--mixerd PATH] [--minimal PATH]
#   tools/bench/run.sh --audio [--quick] [--mixerd PATH] [--servers pulseaudio,pipewire]
#                      [--audio-support PATH]
#
# --quick: 2 s phases instead of 10 s (a smoke check, not figures to quote).
# --mixerd PATH: measure that binary instead of this tree's Release build (which is then not built).
# --minimal PATH: the same for the minimal build (tools/build.sh minimal).
# --audio: the audio benchmark instead (tools/bench/audio_bench.py, about 1.5 min): slider to
#   sound and new stream to level on a private PulseAudio and a private PipeWire, beside the
#   libpulse floor (tools/bench/pulse_bench.c); build/bench/audio.json and a table.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

audio=0
rest=()
for arg in "$@"; do
  if [[ "$arg" == --audio ]]; then audio=1; else rest+=("$arg"); fi
done
if ((audio)); then
  "$root/tools/install-deps.sh" --with-bench
  targets=(pulse_bench)
  [[ " ${rest[*]-} " == *" --mixerd"* ]] || targets+=(mixerd)
  "$root/tools/build.sh" release "${targets[@]}"
  exec /usr/bin/python3 "$root/tools/bench/audio_bench.py" "${rest[@]}"
fi

"$root/tools/install-deps.sh" --with-bench
targets=(floor_server codec_bench)
own_mixerd=1
own_minimal=1
for arg in "$@"; do
  [[ "$arg" == --mixerd || "$arg" == --mixerd=* ]] && own_mixerd=0
  [[ "$arg" == --minimal || "$arg" == --minimal=* ]] && own_minimal=0
done
((own_mixerd)) && targets+=(mixerd)
"$root/tools/build.sh" release "${targets[@]}"
# Like the Release mixerd, built every time: a stale binary would be measured without a word.
((own_minimal)) && "$root/tools/build.sh" minimal mixerd
if [[ ! -d "$root/tests/integration/node/node_modules" ]]; then
  echo "== npm ci (tests/integration/node)"
  (cd "$root/tests/integration/node" && npm ci --no-audit --no-fund --loglevel=error)
fi
# Again whenever the lock file changed since the last install.
peer="$root/tools/bench/node_peer"
if ! cmp -s "$peer/package-lock.json" "$peer/node_modules/.installed-lock.json"; then
  echo "== npm ci (tools/bench/node_peer)"
  (cd "$peer" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$peer/package-lock.json" "$peer/node_modules/.installed-lock.json"
fi
exec /usr/bin/python3 "$root/tools/bench/run.py" "$@"
