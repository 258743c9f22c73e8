#!/usr/bin/env bash
# `make run`: start puffd on the session bus, or on a private bus when there is none, and say how
# to try it. Stops puffd (and the private bus) on Ctrl-C.
set -euo pipefail
puffd="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"

if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
    # No session bus (SSH, container, CI): start a private one for puffd and the shell that tries it.
    exec dbus-run-session --config-file="$root/dbus/test-session.conf" -- "$0" "$@"
fi

cat <<EOF_HINT
puffd is starting on the session bus:
  DBUS_SESSION_BUS_ADDRESS=$DBUS_SESSION_BUS_ADDRESS

Try it from another shell (export the address above first if this bus is private):
  printf s3cret | secret-tool store --label='Example' service example.com user alice
  secret-tool lookup service example.com user alice
  secret-tool search --all service example.com
  secret-tool clear service example.com user alice
or from python:
  /usr/bin/python3 -c 'import keyring; keyring.set_password("svc", "alice", "pw"); print(keyring.get_password("svc", "alice"))'

Items are kept sealed in ${XDG_DATA_HOME:-$HOME/.local/share}/puff. A new vault needs its passcode
first: \`puffctl init\` (it is asked for here when this is a terminal). Lock, unlock and change it with
\`puffctl lock\`, \`puffctl unlock\`, \`puffctl passwd\` (puffctl is $(dirname "$puffd")/puffctl).
Ctrl-C stops puffd.
EOF_HINT
"$puffd" &
pid=$!
trap 'kill "$pid" 2>/dev/null' INT TERM
puffctl="$(dirname "$puffd")/puffctl"
catalog="${XDG_DATA_HOME:-$HOME/.local/share}/puff/catalog"
if [ ! -e "$catalog" ]; then
    if [ -t 0 ] && [ -x "$puffctl" ]; then
        # Wait for the bus name, then ask for the login passcode twice, like ssh-keygen.
        for _ in $(seq 100); do "$puffctl" status >/dev/null 2>&1 && break; sleep 0.1; done
        "$puffctl" init || echo "puffd keeps serving; run: $puffctl init"
    else
        echo "No passcode set yet: run  $puffctl init  (or: printf 'passcode\\n' | $puffctl init --stdin)"
    fi
fi
wait "$pid"
