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

Items live in memory in this version: they are gone when puffd stops. Ctrl-C stops puffd.
EOF_HINT
exec "$puffd"
