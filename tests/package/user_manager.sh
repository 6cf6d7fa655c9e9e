#!/bin/bash
# Runs inside `unshare -m -n --propagation private` (tests/package/test_user_unit.py): a real
# systemd user manager with the .deb's files laid over /usr and /lib, so the packaged unit starts
# the packaged mixerd exactly as `systemctl --user enable --now mixerd` does on a Pi. A machine not
# booted with systemd (a container) lacks /run/systemd/system and a name=systemd cgroup
# hierarchy: both are made up inside the namespace. Prints what the test checks, one
# "key=value" per line; the manager and everything it started end with the namespace.
set -euo pipefail
root=${1:?unpacked .deb root}
home=${2:?home folder}
ip link set lo up
mount -t tmpfs tmpfs /run/systemd
mkdir -p /run/systemd/system
mount -t tmpfs tmpfs /sys/fs/cgroup
mkdir -p /sys/fs/cgroup/systemd /sys/fs/cgroup/unified
mount -t cgroup -o none,name=systemd cgroup /sys/fs/cgroup/systemd
mount -t cgroup2 none /sys/fs/cgroup/unified
mount -t overlay overlay -o "lowerdir=$root/usr:/usr" /usr
mount -t overlay overlay -o "lowerdir=$root/lib:/lib" /lib
export HOME=$home
export XDG_RUNTIME_DIR=/run/user/$(id -u)
mkdir -p "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
mount -t tmpfs tmpfs "$XDG_RUNTIME_DIR"
dbus-daemon --session --address="unix:path=$XDG_RUNTIME_DIR/bus" --fork --nopidfile
export DBUS_SESSION_BUS_ADDRESS="unix:path=$XDG_RUNTIME_DIR/bus"
/lib/systemd/systemd --user >"$home/systemd-user.log" 2>&1 &
manager=$!
trap 'kill $manager 2>/dev/null; wait $manager 2>/dev/null || true' EXIT
for _ in $(seq 200); do
  systemctl --user is-system-running >/dev/null 2>&1 && break
  sleep 0.05
done
show() { systemctl --user show mixerd -p ActiveState -p SubState -p StatusText -p Type -p WatchdogUSec -p Result -p ExecMainPID; }
# Type=notify: `enable --now` returns once mixerd sent READY=1 (or the start failed).
systemctl --user enable --now mixerd 2>&1 | sed 's/^/enable: /'
echo "phase=started"
show
curl -s -o /dev/null -w 'page_status=%{http_code}\n' http://127.0.0.1:5000/
systemctl --user stop mixerd
echo "phase=stopped"
show
ls "$home/.config/mixerd" | sed 's/^/data: /'
