#!/usr/bin/env bash
# The activation test of issue 17: an installed tree of Puff's packages, put at its real paths,
# makes a private dbus-daemon start puffd on the first `secret-tool` call, with no manual start.
#
#   packaging/check-activation.sh ROOT
#
# ROOT is the root of an installed tree: `dpkg-deb -x` of the packages, or `make install
# PREFIX=/usr DESTDIR=ROOT` (`make check-activation` makes it, see the Makefile). It must hold
# /usr/libexec/puff/puffd, /usr/bin/puffctl and one activation file for org.freedesktop.secrets
# under /usr/share/dbus-1/services.
#
# Checks, in order:
#   1. the tree: one activation file names org.freedesktop.secrets, with an absolute Exec= of a
#      file the tree holds; no file of the tree is a file of gnome-keyring's package (`dpkg -L
#      gnome-keyring` when it is installed, else the paths of Debian 12's gnome-keyring that matter);
#   2. in a private mount and pid namespace, where a read-only overlay puts the tree over the
#      host's /usr (nothing is written to the host), on a private bus whose only service folder is
#      the tree's: `secret-tool store` starts puffd (the bus logs who asked; puffd's environment has
#      the bus's DBUS_STARTER_ADDRESS; /proc/PID/exe is the tree's file), which refuses the store
#      on a new vault; `puffctl init --stdin`, then store and lookup work, and `puffctl status`
#      names the vault in the test's scratch HOME; after puffd is killed, `secret-tool lookup`
#      starts it again on the same vault;
#   3. precedence, on a bus reading <standard_session_servicedirs/>: a decoy provider's file in a
#      system folder ($XDG_DATA_DIRS) is what the bus starts until the user-level file
#      (~/.local/share/dbus-1/services/org.freedesktop.secrets.service, a link to the installed
#      file) exists; then it starts puffd, and the installed `puffctl doctor` says so;
#   4. two files claiming the name in one folder: dbus-daemon starts the one it reads first
#      (readdir order, bus/activation.c) and ignores the other; checked on two folders whose files
#      were created in opposite orders.
#
# Needs root (CI runs as root) or unprivileged user namespaces, plus dbus-daemon, secret-tool,
# unshare and overlayfs; without them it says SKIP and exits 0, unless PUFF_REQUIRE_ACTIVATION
# (default: set when CI is) makes that a failure. Every process it starts runs in its own pid
# namespace and is killed with it (and the buses with SIGKILL before).
set -euo pipefail

# Hang guards, not speed targets (Sources/PuffTesting/HangGuard.swift): a wait for something that
# must happen gives up after HANG_GUARD seconds, polled in HANG_GUARD_POLLS steps of 0.05 s; a
# busy machine must never reach it.
HANG_GUARD=120
HANG_GUARD_POLLS=$((HANG_GUARD * 20))

name=org.freedesktop.secrets
say() { echo "check-activation: $*"; }
fail() {
    echo "check-activation: FAIL: $*" >&2
    exit 1
}
require="${PUFF_REQUIRE_ACTIVATION-${CI:+1}}"
inside=""
if [ "${1:-}" = --inside ]; then inside=1; fi
skip() { # exits 77 inside the namespace, which the outside turns into exit 0
    if [ -n "$require" ]; then fail "cannot run here ($*), and PUFF_REQUIRE_ACTIVATION or CI is set"; fi
    say "SKIP: $*"
    if [ -n "$inside" ]; then exit 77; fi
    exit 0
}

# The activation files of folder $1 that name the Secret Service, one path a line.
claimants() {
    local file
    for file in "$1"/*.service; do
        [ -f "$file" ] || continue
        if sed -n '/^\[D-BUS Service\]/,/^\[/p' "$file" | grep -Eq "^[[:space:]]*Name[[:space:]]*=[[:space:]]*$name[[:space:]]*$"; then
            echo "$file"
        fi
    done
}

# Exec= of activation file $1.
exec_of() { sed -n '/^\[D-BUS Service\]/,/^\[/s/^[[:space:]]*Exec[[:space:]]*=[[:space:]]*//p' "$1" | head -n 1; }

if [ -z "$inside" ]; then
    root="${1:?usage: packaging/check-activation.sh ROOT (the root of an installed tree)}"
    [ -d "$root/usr" ] || fail "$root has no usr/: not an installed tree"
    root="$(cd "$root" && pwd)"

    # 1. The tree.
    mapfile -t files < <(claimants "$root/usr/share/dbus-1/services")
    [ "${#files[@]}" = 1 ] || fail "the tree has ${#files[@]} activation files naming $name under /usr/share/dbus-1/services (${files[*]:-none}); it needs one"
    activation="${files[0]}"
    exec_line="$(exec_of "$activation")"
    puffd="${exec_line%% *}"
    case "$puffd" in /*) ;; *) fail "$activation: Exec=$exec_line is not an absolute path" ;; esac
    [ -x "$root$puffd" ] || fail "$activation starts $puffd, which the tree does not hold"
    [ -x "$root/usr/bin/puffctl" ] || fail "the tree has no /usr/bin/puffctl"
    say "the tree's activation file is ${activation#"$root"} (Exec=$exec_line)"

    # Beside gnome-keyring: no file of the tree may be one of its package's files (directories
    # are shared freely). Without gnome-keyring installed, the paths of Debian 12's package that
    # a Secret Service provider could want.
    if gk="$(dpkg-query -L gnome-keyring 2>/dev/null)" && [ -n "$gk" ]; then
        gk_source="dpkg -L gnome-keyring"
    else
        gk_source="the paths of Debian 12's gnome-keyring 42.1 (it is not installed here)"
        gk="$(printf '%s\n' /usr/share/dbus-1/services/org.freedesktop.secrets.service \
            /usr/share/dbus-1/services/org.freedesktop.impl.portal.Secret.service \
            /usr/share/dbus-1/services/org.gnome.keyring.service \
            /usr/lib/systemd/user/gnome-keyring-daemon.service /usr/lib/systemd/user/gnome-keyring-daemon.socket \
            /etc/xdg/autostart/gnome-keyring-secrets.desktop)"
    fi
    shared="$(cd "$root" && find . ! -type d | sed 's|^\.||' | sort | comm -12 - <(sort -u <<<"$gk"))"
    [ -z "$shared" ] || fail "files gnome-keyring's package also ships (a dpkg conflict): $(echo "$shared" | tr '\n' ' ')"
    say "no file of the tree is one of gnome-keyring's ($gk_source)"

    for tool in dbus-daemon secret-tool unshare mount python3; do
        command -v "$tool" >/dev/null || skip "no $tool"
    done
    namespace=(unshare --mount --pid --fork --kill-child --mount-proc --propagation private)
    if [ "$(id -u)" != 0 ]; then
        namespace=(unshare --user --map-root-user --mount --pid --fork --kill-child --mount-proc --propagation private)
    fi
    "${namespace[@]}" true 2>/dev/null || skip "cannot make a mount and pid namespace (not root, no user namespaces?)"
    start=$SECONDS
    status=0
    "${namespace[@]}" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin REAL_HOME="${HOME:-/root}" \
        PUFF_REQUIRE_ACTIVATION="$require" ROOT="$root" ACTIVATION="${activation#"$root"}" PUFFD="$puffd" \
        bash "$0" --inside || status=$?
    [ "$status" = 77 ] && exit 0
    [ "$status" = 0 ] || exit "$status"
    say "passed in $((SECONDS - start)) s (the namespace part)"
    exit 0
fi

# From here on: inside the namespace (pid 1 is the unshare child that runs this script).
: "${ROOT:?}" "${ACTIVATION:?}" "${PUFFD:?}" "${REAL_HOME:?}"
# Real folders first (usr, etc), then those that are links here (/lib -> usr/lib with usrmerge),
# over what the link points at, already overlaid.
for pass in folder link; do
    for top in "$ROOT"/*; do
        [ -d "$top" ] || continue
        base="/$(basename "$top")"
        [ -d "$base" ] || fail "the tree has $base, which this machine has not: cannot overlay it"
        kind=folder
        if [ -L "$base" ]; then kind=link; fi
        [ "$kind" = "$pass" ] || continue
        target="$(readlink -f "$base")"
        mount -t overlay overlay -o "lowerdir=$top:$target" "$target" ||
            skip "cannot mount an overlay of the tree on $target"
    done
done
cmp -s "$PUFFD" "$ROOT$PUFFD" || fail "after the overlay, $PUFFD is not the tree's"

work="$(mktemp -d /tmp/puff-activation.XXXXXX)"
buses=()
finish() {
    local pid
    for pid in "${buses[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    pkill -9 -x puffd 2>/dev/null || true # this pid namespace's puffd only
    for _ in $(seq "$HANG_GUARD_POLLS"); do pgrep -x puffd >/dev/null || break; sleep 0.05; done # it may still be writing
    umount "$work/tmpfs" 2>/dev/null || true
    rm -rf "$work"
}
trap finish EXIT

real_vault="$REAL_HOME/.local/share/puff"
real_before="$(stat -c '%Y %i' "$real_vault" 2>/dev/null || echo absent)"

home="$work/home"
mkdir -p "$home" "$work/run"
chmod 700 "$work/run"
export HOME="$home" XDG_DATA_HOME="$home/.local/share" XDG_CONFIG_HOME="$home/.config" \
    XDG_CACHE_HOME="$home/.cache" XDG_RUNTIME_DIR="$work/run" XDG_DATA_DIRS=/usr/share LANG=C.UTF-8
unset DISPLAY WAYLAND_DISPLAY

# Starts a bus with config $1 (made from dbus/test-session.conf's policy), logging to $2; sets
# DBUS_SESSION_BUS_ADDRESS and bus_pid.
# The socket is there from bind(), a moment before listen(): a client connecting in between is
# refused, so the bus counts as started once it answers a call. Each bus gets a new socket path (a
# killed bus leaves its socket file behind, which a reused name would mistake for a live bus).
bus_count=0
start_bus() {
    bus_count=$((bus_count + 1))
    local socket="$work/bus-$bus_count" config="$work/bus-$bus_count.conf" log="$2" i
    sed "s|@LISTEN@|unix:path=$socket|" "$1" >"$config"
    dbus-daemon --config-file="$config" --nofork --nopidfile --nosyslog 2>"$log" &
    bus_pid=$!
    buses+=("$bus_pid")
    local answered=no
    for i in $(seq "$HANG_GUARD_POLLS"); do
        if [ -S "$socket" ] && dbus-send --bus="unix:path=$socket" --print-reply --dest=org.freedesktop.DBus \
            /org/freedesktop/DBus org.freedesktop.DBus.GetId >/dev/null 2>&1; then
            answered=yes
            break
        fi
        sleep 0.05
    done
    [ "$answered" = yes ] || fail "dbus-daemon did not start: $(cat "$log")"
    export DBUS_SESSION_BUS_ADDRESS="unix:path=$socket"
}
stop_bus() {
    kill -9 "$bus_pid"
    wait "$bus_pid" 2>/dev/null || true
    jobs -p | xargs -r kill -9 2>/dev/null || true # clients left waiting on a decoy
    wait 2>/dev/null || true
    pkill -9 -x puffd 2>/dev/null || true
    for _ in $(seq "$HANG_GUARD_POLLS"); do pgrep -x puffd >/dev/null || return 0; sleep 0.05; done
    fail "puffd outlived SIGKILL"
}
bus_config() { # SERVICE-DIRECTORY-XML
    cat <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>@LISTEN@</listen>
  <auth>EXTERNAL</auth>
  $1
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
EOF
}
# Waits until file $1 exists (a decoy was started): the bus waits for the decoy to take the name
# until its activation timeout, so the client's call is left running; stop_bus ends it.
started_by() {
    for _ in $(seq "$HANG_GUARD_POLLS"); do
        [ -s "$1" ] && return 0
        sleep 0.05
    done
    return 1
}
# The one puffd of this namespace, once it is up (waits for the bus to hand over the name).
puffd_pid() {
    local pid
    for _ in $(seq "$HANG_GUARD_POLLS"); do
        pid="$(pgrep -x puffd || true)"
        if [ -n "$pid" ] && [ "$(wc -l <<<"$pid")" = 1 ]; then
            echo "$pid"
            return 0
        fi
        sleep 0.05
    done
    fail "no single puffd running: '${pid:-}'"
}
# Checks that the running puffd is the tree's file and was started by the bus for client $1.
check_started_by_bus() {
    local client="$1" log="$2" pid exe
    pid="$(puffd_pid)"
    exe="$(readlink "/proc/$pid/exe")"
    [ "$exe" = "$PUFFD" ] || fail "puffd runs $exe, not $PUFFD"
    [ "$(stat -L -c %i "/proc/$pid/exe")" = "$(stat -c %i "$ROOT$PUFFD")" ] ||
        fail "the running $PUFFD is not the tree's file (another inode)"
    tr '\0' '\n' <"/proc/$pid/environ" | grep -qx "DBUS_STARTER_ADDRESS=$DBUS_SESSION_BUS_ADDRESS,guid=.*" ||
        fail "puffd (pid $pid) has no DBUS_STARTER_ADDRESS of this bus: the bus did not start it"
    tr '\0' '\n' <"/proc/$pid/environ" | grep -qx "HOME=$HOME" || fail "puffd's HOME is not the scratch HOME"
    grep -q "Activating service name='$name' requested by .*comm=\"$client" "$log" ||
        fail "the bus log names no activation of $name by $client: $(cat "$log")"
    say "  puffd (pid $pid, $exe, the tree's file) was started by the bus for $client"
}

# 2. Activation by secret-tool, on a bus whose service folder is the tree's.
say "activation: a bus whose only service folder is the tree's /usr/share/dbus-1/services"
bus_config "<servicedir>$ROOT/usr/share/dbus-1/services</servicedir>" >"$work/tree.conf"
start_bus "$work/tree.conf" "$work/tree.log"
pgrep -x puffd >/dev/null && fail "a puffd runs before any client called"
if printf 'first-secret' | timeout "$HANG_GUARD" secret-tool store --label='Puff activation' test puff-activation 2>"$work/err"; then
    fail "secret-tool store succeeded on a vault with no passcode"
fi
check_started_by_bus "secret-tool store" "$work/tree.log"
grep -q "No passcode set yet" "$work/tree.log" || fail "puffd did not say the new vault needs a passcode"
say "  on the new vault the store is refused ($(tr -d '\n' <"$work/err")): puffd says to run puffctl init"
printf 'activation-passcode' | timeout "$HANG_GUARD" /usr/bin/puffctl init --stdin >/dev/null
printf 'the-secret' | timeout "$HANG_GUARD" secret-tool store --label='Puff activation' test puff-activation
[ "$(timeout "$HANG_GUARD" secret-tool lookup test puff-activation)" = the-secret ] || fail "secret-tool lookup did not return the stored secret"
status="$(timeout "$HANG_GUARD" /usr/bin/puffctl status)"
grep -q "file store in $XDG_DATA_HOME/puff" <<<"$status" || fail "puffctl status names another vault: $status"
[ -s "$XDG_DATA_HOME/puff/catalog" ] || fail "no vault under the scratch XDG_DATA_HOME"
say "  after puffctl init: store and lookup work; puffctl status: $(head -n 1 <<<"$status")"

pkill -9 -x puffd
for _ in $(seq "$HANG_GUARD_POLLS"); do pgrep -x puffd >/dev/null || break; sleep 0.05; done
timeout "$HANG_GUARD" secret-tool lookup test puff-activation >/dev/null 2>&1 || true # locked: no prompter, no secret
check_started_by_bus "secret-tool lookup" "$work/tree.log"
printf 'activation-passcode' | timeout "$HANG_GUARD" /usr/bin/puffctl unlock --stdin >/dev/null
[ "$(timeout "$HANG_GUARD" secret-tool lookup test puff-activation)" = the-secret ] ||
    fail "after a restart by activation and an unlock, the secret is gone"
say "  killed, then restarted by secret-tool lookup on the same vault (unlocked: the secret is there)"
stop_bus

# 3. Precedence: the user-level file before every system folder.
say "precedence: <standard_session_servicedirs/>, a decoy provider in \$XDG_DATA_DIRS"
decoy_dir="$work/system/dbus-1/services"
mkdir -p "$decoy_dir"
printf '#!/bin/sh\necho decoy >>"%s"\n' "$work/decoy-started" >"$work/decoy"
chmod +x "$work/decoy"
printf '[D-BUS Service]\nName=%s\nExec=%s\n' "$name" "$work/decoy" >"$decoy_dir/$name.service"
export XDG_DATA_DIRS="$work/system:/usr/share"
bus_config "<standard_session_servicedirs/>" >"$work/standard.conf"
start_bus "$work/standard.conf" "$work/standard.log"
secret-tool lookup test puff-activation >/dev/null 2>&1 &
started_by "$work/decoy-started" || fail "without a user-level file the bus did not start the decoy in \$XDG_DATA_DIRS"
pgrep -x puffd >/dev/null && fail "without a user-level file the bus started puffd"
doctor="$(/usr/bin/puffctl doctor 2>&1 || true)"
grep -q "the bus starts an unknown provider, not puffd" <<<"$doctor" || fail "puffctl doctor did not see the decoy first: $doctor"
stop_bus
user_file="$XDG_DATA_HOME/dbus-1/services/$name.service"
mkdir -p "$(dirname "$user_file")"
ln -s "$ACTIVATION" "$user_file" # README's one-liner
rm -f "$work/decoy-started"
start_bus "$work/standard.conf" "$work/standard.log"
doctor="$(/usr/bin/puffctl doctor 2>&1 || true)"
grep -q "the bus starts puffd on first use ($user_file)" <<<"$doctor" || fail "puffctl doctor does not say the user file wins: $doctor"
timeout "$HANG_GUARD" secret-tool lookup test puff-activation >/dev/null 2>&1 || true
check_started_by_bus "secret-tool lookup" "$work/standard.log"
[ ! -e "$work/decoy-started" ] || fail "the bus started the decoy although the user-level file exists"
say "  the decoy until ~/.local/share/dbus-1/services/$name.service exists, then puffd; doctor agrees"
stop_bus

# With gnome-keyring installed, /usr/share/dbus-1/services (the tree over the host's) holds its
# file and Puff's: doctor must call that a tie, whichever it lists first.
if [ -f /usr/share/dbus-1/services/$name.service ]; then
    doctor="$(XDG_DATA_HOME="$work/empty" XDG_DATA_DIRS=/usr/share DBUS_SESSION_BUS_ADDRESS="unix:path=$work/no-bus" /usr/bin/puffctl doctor 2>&1 || true)"
    grep -q "starts the one it reads first from the folder" <<<"$doctor" ||
        fail "with gnome-keyring's file beside Puff's, puffctl doctor does not call it a tie: $doctor"
    say "  gnome-keyring's file and Puff's in /usr/share/dbus-1/services: doctor says the bus takes the one it reads first"
fi

# 4. Two files in one folder claiming the name, on the scratch filesystem and on a tmpfs.
say "two files in one folder claiming $name"
mkdir -p "$work/tmpfs"
mount -t tmpfs tmpfs "$work/tmpfs"
for filesystem in "$work" "$work/tmpfs"; do
    for order in "a b" "b a"; do
        dir="$filesystem/tie-${order// /}"
        mkdir -p "$dir"
        for letter in $order; do
            printf '#!/bin/sh\necho %s >"%s"\n' "$letter" "$dir/started" >"$dir/$letter.sh"
            chmod +x "$dir/$letter.sh"
            printf '[D-BUS Service]\nName=%s\nExec=%s\n' "$name" "$dir/$letter.sh" >"$dir/$letter.service"
        done
        first="$(python3 -c 'import os, sys; print([n for n in os.listdir(sys.argv[1]) if n.endswith(".service")][0])' "$dir")"
        bus_config "<servicedir>$dir</servicedir>" >"$work/tie.conf"
        start_bus "$work/tie.conf" "$work/tie.log"
        dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
            org.freedesktop.DBus.StartServiceByName "string:$name" uint32:0 >/dev/null 2>"$work/tie.err" &
        started_by "$dir/started" ||
            fail "the bus started neither file of $dir (dbus-send: $(cat "$work/tie.err"); bus: $(cat "$work/tie.log"))"
        started="$(cat "$dir/started")"
        [ "$started.service" = "$first" ] ||
            fail "created $order: the bus started $started, but $first comes first in the folder listing"
        say "  $(stat -f -c %T "$dir"), created in the order $order: $first is listed first, and the bus started it"
        stop_bus
    done
done
umount "$work/tmpfs"

real_after="$(stat -c '%Y %i' "$real_vault" 2>/dev/null || echo absent)"
[ "$real_before" = "$real_after" ] || fail "the real $real_vault changed"
