#!/usr/bin/env bash
# Installs what is missing, builds mixerd and starts it with the simulated device.
# Data lives in .mixerd-data/ inside the checkout. Extra arguments go to mixerd.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install-deps.sh"
"$root/tools/build.sh" release mixerd mixer-sim
data="$root/.mixerd-data"
mixerd="$root/build/release/tools/mixerd"
key=$("$mixerd" api-key --data-dir "$data")
cat <<INFO

mixerd with a simulated device (data folder: $data)
  notification API key: $key
  listeners: see the 'listening on' lines below (defaults: controller :5000,
  notification API :8889, plant store :8080). Stop with Ctrl-C.

INFO
exec "$mixerd" --simulate --data-dir "$data" "$@"
