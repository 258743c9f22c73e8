#!/bin/bash
# Capture real client traffic with puffd as seeds for the decode fuzzer.
#
#   fuzz/capture-seeds.sh [PUFFD] [OUTDIR]
#
# PUFFD defaults to .build/debug/puffd (build it with `swift build` first), OUTDIR to
# fuzz/corpus/decode; KEEP_WORK=1 keeps the capture and the logs. Starts a private dbus-daemon
# (dbus/test-session.conf), puffd on it, and `dbus-monitor --pcap`, then runs secret-tool,
# python3-secretstorage (DH and plain sessions), python3-keyring (module and CLI), a few dbus-send
# calls and, when present, the end-to-end bad-input driver. Every message on the bus lands in the
# capture; pcap_to_corpus.py writes the new, distinct ones of at most 16 KiB to OUTDIR. The
# clients store only dummy secrets ("s3cret").
set -euo pipefail
cd "$(dirname "$0")/.."
PUFFD=${1:-.build/debug/puffd}
OUT=${2:-fuzz/corpus/decode}
[ -x "$PUFFD" ] || { echo "no puffd at $PUFFD (run swift build)" >&2; exit 1; }
WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do kill "${PIDS[i]}" 2>/dev/null || true; done
    wait 2>/dev/null || true
    if [ -n "${KEEP_WORK:-}" ]; then echo "capture and logs kept in $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

dbus-daemon --config-file=dbus/test-session.conf --nofork --print-address=1 >"$WORK/address" &
PIDS+=($!)
for _ in $(seq 50); do [ -s "$WORK/address" ] && break; sleep 0.1; done
ADDR=$(head -n1 "$WORK/address")
[ -n "$ADDR" ] || { echo "dbus-daemon did not start" >&2; exit 1; }
export DBUS_SESSION_BUS_ADDRESS=$ADDR
echo "bus: $ADDR"

# The monitor first, so puffd's own start-up (Hello, RequestName) is captured too.
dbus-monitor --address "$ADDR" --pcap >"$WORK/capture.pcap" 2>"$WORK/monitor.err" &
PIDS+=($!)
sleep 0.5
"$PUFFD" --address "$ADDR" --log-level error >"$WORK/puffd.log" 2>&1 &
PIDS+=($!)
owned() {
    dbus-send --bus="$ADDR" --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q true
}
for _ in $(seq 100); do owned && break; sleep 0.1; done
owned || { echo "puffd did not take org.freedesktop.secrets" >&2; cat "$WORK/puffd.log" >&2; exit 1; }

ds() { timeout 10 dbus-send --bus="$ADDR" --print-reply --dest=org.freedesktop.secrets "$@" >/dev/null 2>&1 || true; }
echo "dbus-send"
ds /org/freedesktop/secrets org.freedesktop.DBus.Introspectable.Introspect
ds /org/freedesktop/secrets org.freedesktop.DBus.Properties.GetAll string:org.freedesktop.Secret.Service
ds /org/freedesktop/secrets org.freedesktop.DBus.Peer.Ping
ds /org/freedesktop/secrets org.freedesktop.Secret.Service.ReadAlias string:default
ds /org/freedesktop/secrets/aliases/default org.freedesktop.DBus.Properties.Get \
    string:org.freedesktop.Secret.Collection string:Label
echo "secret-tool"
fuzz/capture/secret_tool_seeds.sh
echo "secretstorage (DH, plain)"
timeout 60 /usr/bin/python3 fuzz/capture/secretstorage_seeds.py || true
echo "keyring"
timeout 60 fuzz/capture/keyring_seeds.sh >/dev/null || true
if [ -f Tests/EndToEndTests/Clients/bad_input.py ]; then
    echo "bad_input.py"
    timeout 90 /usr/bin/python3 Tests/EndToEndTests/Clients/bad_input.py >"$WORK/bad_input.log" 2>&1 || true
fi
echo "secret-tool lock"
fuzz/capture/secret_tool_seeds.sh --lock
sleep 0.5
kill -INT "${PIDS[1]}" 2>/dev/null || true  # dbus-monitor flushes on SIGINT
sleep 0.5
echo "capture: $(stat -c %s "$WORK/capture.pcap") bytes"
/usr/bin/python3 fuzz/capture/pcap_to_corpus.py "$WORK/capture.pcap" "$OUT"
