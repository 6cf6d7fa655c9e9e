#!/usr/bin/env bash
# Installs the Debian packages mixerd needs to build and test, skipping those already present.
# Works on Debian 12 and Raspberry Pi OS (bookworm); uses sudo when not root.
# Run by tools/run-simulated.sh, tools/run-tests.sh (--with-tests) and tools/bench/run.sh
# (--with-bench).
set -euo pipefail

build_packages=(build-essential cmake pkg-config ccache
  libcaf-dev libboost-dev libssl-dev libcpp-httplib-dev nlohmann-json3-dev libserialport-dev
  libpulse-dev doctest-dev)
# Hotkey macros press keys through XTest on the X server of $DISPLAY when uinput is not writable.
build_packages+=(libx11-dev libxtst-dev)
# The music capability follows MPRIS players on the session D-Bus through sd-bus.
build_packages+=(libsystemd-dev)
# MQTT (libmosquitto) for Home Assistant discovery; mDNS through the Avahi daemon's client
# library. The .deb is made by CPack, whose dpkg-shlibdeps (dpkg-dev) finds its dependencies.
build_packages+=(libmosquitto-dev libavahi-client-dev dpkg-dev)
# The integration tests drive the Socket.IO server with Debian's python-socketio (requests for
# polling, websocket-client for websocket) and with socket.io-client from npm (node). The audio
# tests run each on a real PulseAudio daemon and on a real PipeWire (pipewire, the session manager
# wireplumber and pipewire-pulse on a private session bus: dbus-daemon, below) and check them with
# pactl (pulseaudio-utils); pw-play (pipewire-bin) plays PipeWire's own streams. Both install
# side by side and the tests start them privately. Debian's packages enable the user services of
# both for logins; on a desktop that is to keep PulseAudio, `systemctl --user mask
# pipewire-pulse.socket pipewire-pulse.service` leaves it in charge.
# python3-jsonschema checks the settings' schema (draft 2020-12) and files against it.
test_packages=(python3 python3-pytest python3-socketio python3-websocket python3-requests
  python3-jsonschema nodejs npm openssl
  pulseaudio pulseaudio-utils pipewire pipewire-pulse wireplumber pipewire-bin)
# The fuzz targets are built with clang's libFuzzer (its runtime is in libclang-rt-14-dev) and
# replayed on their corpora in every test run.
test_packages+=(clang libclang-rt-14-dev)
# The fault tests read socket queues with ss (iproute2) and flood handshakes with wrk.
test_packages+=(iproute2 wrk)
# The hotkey test runs a headless X server (Xvfb) and records the keys it receives with
# python3-xlib's RECORD client.
test_packages+=(xvfb python3-xlib)
# The integrations' tests: real OBS Studio (with its built-in obs-websocket) under Xvfb, real mpv
# with mpv-mpris on a private D-Bus playing a tone made by sox, playerctl to drive it, and
# python3-websockets for the Home Assistant fake and for checking OBS through its own API;
# python3-dbus and python3-gi for a player that is slow to start (tests/integration).
test_packages+=(obs-studio xauth libgl1-mesa-dri mpv mpv-mpris dbus-daemon sox playerctl
  python3-websockets python3-dbus python3-gi)
# The web controller's tests drive Debian's Chromium headless through npm's playwright-core.
test_packages+=(chromium fonts-dejavu-core)
# Pi and home: a real mosquitto broker with its clients, a private Avahi daemon with avahi-browse,
# lintian for the .deb, and prometheus_client's parser for GET /metrics.
test_packages+=(mosquitto mosquitto-clients avahi-daemon avahi-utils lintian fakeroot
  python3-prometheus-client)
# The benchmark driver (tools/bench/run.sh) adds wrk for HTTP throughput; its clients and its Node
# peer (tools/bench/node_peer, socket.io from npm) run on the test packages' nodejs and npm.
bench_packages=(wrk)
# The audio benchmark (tools/bench/run.sh --audio) runs a private PipeWire beside PulseAudio.
bench_packages+=(pipewire pipewire-pulse wireplumber)

wanted=("${build_packages[@]}")
for option in "$@"; do
  case "$option" in
    --with-tests) wanted+=("${test_packages[@]}") ;;
    --with-bench) wanted+=("${test_packages[@]}" "${bench_packages[@]}") ;;
    *) echo "install-deps: unknown option '$option' (--with-tests, --with-bench)" >&2; exit 2 ;;
  esac
done

missing=()
for pkg in "${wanted[@]}"; do
  # A nodejs from another source (e.g. NodeSource) ships its own npm and conflicts with Debian's.
  if [[ "$pkg" == npm ]] && command -v npm >/dev/null; then continue; fi
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#wanted[@]} packages present"
  exit 0
fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
echo "install-deps: installing ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
