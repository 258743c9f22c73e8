#!/usr/bin/env bash
# The clean-install test of issue 17: Puff's two packages installed with apt on a fresh Debian 12
# (debootstrap --variant=minbase, no Swift toolchain), then used there as a plain user.
#
#   packaging/check-chroot.sh PUFF_DEB LIBPAM_PUFF_DEB
#
# Beyond check-activation.sh (the packages' tree laid over this machine's /usr): here apt must
# resolve the packages' Depends (${shlibs:Depends}) from the Debian mirror alone, and the
# maintainer scripts must run (libpam-puff's postinst calls pam-auth-update, whose profile must
# stay off: no pam_puff in /etc/pam.d/common-*). Then, as a user made with useradd, on a private
# `dbus-daemon --session` (the stock session.conf: the standard service folders), `puffctl init
# --stdin` makes the bus start /usr/libexec/puff/puffd from the package's activation file; `secret-tool
# store`/`lookup` and `puffctl status` work; `ldd` of puffd and puffctl finds every library.
#
# The base system is made once with debootstrap (suite bookworm, mirror taken from this machine's
# apt sources) into .build/chroot/<suite>-minbase and reused; each run lays a scratch overlay over
# it, so the base is never changed and the fresh packages are always installed. Everything runs in
# a private mount and pid namespace (unshare): the overlay, /proc, /dev and /tmp of the chroot
# vanish with it, and every process (the bus is sent SIGKILL first) dies with it.
#
# PUFF_CHROOT_MIRROR overrides the mirror, PUFF_CHROOT_CACHE the folder of the base system
# (default .build/chroot). Needs root and debootstrap; without them, or when debootstrap or the mirror fails (no network),
# it says `check-chroot: SKIP: <why>` and exits 0, even in CI (check-activation is the mandatory
# activation test). Once the base system exists, any failure of the install or the checks fails.
set -euo pipefail

# Hang guards, not speed targets (Sources/PuffTesting/HangGuard.swift): a wait for something that
# must happen gives up after HANG_GUARD seconds, polled in HANG_GUARD_POLLS steps of 0.05 s; a
# busy machine must never reach it.
HANG_GUARD=120
HANG_GUARD_POLLS=$((HANG_GUARD * 20))

say() { echo "check-chroot: $*"; }
fail() {
    echo "check-chroot: FAIL: $*" >&2
    exit 1
}
inside=""
if [ "${1:-}" = --inside ]; then inside=1; fi
skip() { # exits 77 inside the namespace, which the outside turns into exit 0
    say "SKIP: $*"
    if [ -n "$inside" ]; then exit 77; fi
    exit 0
}

suite=bookworm
includes=dbus-daemon,dbus-bin,dbus-session-bus-common,libsecret-tools
user=tester
passcode=chroot-passcode
secret=chroot-secret-value

# shellcheck source=packaging/host-mirror.sh
source "$(dirname "$0")/host-mirror.sh"

if [ -z "$inside" ]; then
    puff_deb="${1:?usage: packaging/check-chroot.sh PUFF_DEB LIBPAM_PUFF_DEB}"
    pam_deb="${2:?usage: packaging/check-chroot.sh PUFF_DEB LIBPAM_PUFF_DEB}"
    for deb in "$puff_deb" "$pam_deb"; do [ -f "$deb" ] || fail "no package $deb (make deb first)"; done
    [ "$(id -u)" = 0 ] || skip "not root (debootstrap and chroot need root)"
    for tool in debootstrap unshare chroot mount; do
        command -v "$tool" >/dev/null || skip "no $tool (apt-get install debootstrap)"
    done
    start=$SECONDS
    cache="${PUFF_CHROOT_CACHE:-.build/chroot}"
    mkdir -p "$cache"
    cache="$(cd "$cache" && pwd)"
    base="$cache/$suite-minbase"
    mkdir -p "$cache"
    # The base is keyed by suite and the packages it includes; a half-made one is never used.
    if [ -f "$base.ok" ] && [ "$(cat "$base.ok")" = "$suite $includes" ] && [ -d "$base/usr" ]; then
        say "reusing the base system $base ($(cat "$base.ok"))"
    else
        mirror="${PUFF_CHROOT_MIRROR:-$(host_mirror "$suite" | sed -n 1p)}"
        [ -n "$mirror" ] || skip "no Debian mirror for $suite in /etc/apt/sources.list*"
        rm -rf "$base" "$base.ok" "$base.tmp"
        say "debootstrap --variant=minbase --include=$includes $suite from $mirror"
        # In a private mount namespace, so whatever debootstrap mounts in the target goes with it.
        if ! timeout 300 unshare --mount --propagation private \
            debootstrap --variant=minbase --include="$includes" "$suite" "$base.tmp" "$mirror" \
            >"$cache/debootstrap.log" 2>&1; then
            tail -n 5 "$cache/debootstrap.log" | sed 's/^/  /'
            rm -rf "$base.tmp"
            skip "debootstrap of $suite from $mirror failed (network or mirror down?), log in $cache/debootstrap.log"
        fi
        mv "$base.tmp" "$base"
        echo "$suite $includes" >"$base.ok"
        say "base system made in $((SECONDS - start)) s ($(du -sh "$base" | cut -f1))"
    fi
    run="$(mktemp -d "$cache/run.XXXXXX")"
    trap 'rm -rf "$run"' EXIT
    cp "$puff_deb" "$pam_deb" "$run/"
    status=0
    unshare --mount --pid --fork --kill-child --mount-proc --propagation private \
        env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin BASE="$base" RUN="$run" \
        PUFF_DEB="$(basename "$puff_deb")" PAM_DEB="$(basename "$pam_deb")" \
        bash "$0" --inside || status=$?
    [ "$status" = 77 ] && exit 0
    [ "$status" = 0 ] || exit "$status"
    say "passed in $((SECONDS - start)) s"
    exit 0
fi

# From here on: inside the namespace (pid 1 is the unshare child that runs this script).
: "${BASE:?}" "${RUN:?}" "${PUFF_DEB:?}" "${PAM_DEB:?}"
root="$RUN/root"
mkdir -p "$root" "$RUN/upper" "$RUN/work"
mount -t overlay overlay -o "lowerdir=$BASE,upperdir=$RUN/upper,workdir=$RUN/work" "$root" ||
    fail "cannot lay a scratch overlay over $BASE"
mount -t proc proc "$root/proc"
mount -t tmpfs -o mode=0755,nosuid tmpfs "$root/dev"
for node in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
    IFS=: read -r dev major minor <<<"$node"
    mknod -m 666 "$root/dev/$dev" c "$major" "$minor"
done
ln -s /proc/self/fd "$root/dev/fd"
ln -s /proc/self/fd/0 "$root/dev/stdin"
ln -s /proc/self/fd/1 "$root/dev/stdout"
ln -s /proc/self/fd/2 "$root/dev/stderr"
mkdir -m 1777 "$root/dev/shm"
mount -t tmpfs -o mode=1777,nosuid tmpfs "$root/tmp"
cat /etc/resolv.conf >"$root/etc/resolv.conf" 2>/dev/null || true
cp "$RUN/$PUFF_DEB" "$RUN/$PAM_DEB" "$root/tmp/"
chmod 644 "$root/tmp/$PUFF_DEB" "$root/tmp/$PAM_DEB"

bus_pid=""
finish() {
    if [ -n "$bus_pid" ]; then
        kill -9 "$bus_pid" 2>/dev/null || true
        wait "$bus_pid" 2>/dev/null || true
    fi
    pkill -9 -x puffd 2>/dev/null || true # this pid namespace's puffd only
    for _ in $(seq "$HANG_GUARD_POLLS"); do pgrep -x puffd >/dev/null || break; sleep 0.05; done
}
trap finish EXIT

in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }

# 1. apt install of the fresh packages on the clean system.
if in_root sh -c 'command -v swift' >/dev/null; then fail "the base system has a Swift toolchain"; fi
if ! in_root apt-get -o Acquire::Retries=2 update >"$RUN/apt-update.log" 2>&1; then
    tail -n 5 "$RUN/apt-update.log" | sed 's/^/  /'
    skip "apt-get update in the chroot failed (network or mirror down?)"
fi
say "apt-get install -y /tmp/$PUFF_DEB /tmp/$PAM_DEB (on Debian $(cat "$root/etc/debian_version") minbase)"
if ! in_root apt-get install -y --no-install-recommends "/tmp/$PUFF_DEB" "/tmp/$PAM_DEB" >"$RUN/apt-install.log" 2>&1; then
    sed 's/^/  /' "$RUN/apt-install.log" | tail -n 25
    if grep -Eq '^(E: Failed to fetch|W: Failed to fetch|Err:.*(Temporary failure|Could not (resolve|connect)|Connection))' "$RUN/apt-install.log" &&
        ! grep -q 'unmet dependencies' "$RUN/apt-install.log"; then
        skip "apt-get could not download the packages' dependencies (network or mirror down?)"
    fi
    fail "apt-get install of the packages failed on a clean Debian $suite"
fi
for package in puff libpam-puff; do
    # shellcheck disable=SC2016 # dpkg-query's format, not the shell's
    state="$(in_root dpkg-query -W -f='${Status} ${Version}' "$package" 2>&1)" || fail "dpkg knows no $package: $state"
    case "$state" in "install ok installed "*) ;; *) fail "$package is '$state', not installed and configured" ;; esac
done
pulled="$(grep -o '^Setting up [^ ]*' "$RUN/apt-install.log" | cut -d' ' -f3 | cut -d: -f1 | grep -vx 'puff\|libpam-puff' | tr '\n' ' ')"
fetched="$(sed -n 's|^Need to get \([0-9.,]* [kMG]*B\).*|\1|p' "$RUN/apt-install.log" | head -n 1)"
say "  both installed and configured (postinst ran); apt fetched ${fetched:-nothing} and pulled in: ${pulled:-nothing}"
[ -f "$root/usr/share/pam-configs/puff" ] || fail "no /usr/share/pam-configs/puff"
grep -qx puff "$root/var/lib/pam/seen" 2>/dev/null || fail "pam-auth-update did not record the puff profile in /var/lib/pam/seen"
if grep -l pam_puff "$root"/etc/pam.d/common-* >/dev/null 2>&1; then
    fail "pam_puff is enabled by default: $(grep -l pam_puff "$root"/etc/pam.d/common-* | tr '\n' ' ')"
fi
say "  pam-auth-update saw the puff profile and left it off (no pam_puff in /etc/pam.d/common-*)"
# The PAM module's folder is the architecture's (/usr/lib/<multiarch>/security): ask dpkg.
pam_module="$(in_root dpkg -L libpam-puff | grep '/security/pam_puff\.so$' || true)"
[ -n "$pam_module" ] || fail "libpam-puff installed no pam_puff.so"
for binary in /usr/libexec/puff/puffd /usr/bin/puffctl "$pam_module"; do
    [ -e "$root$binary" ] || fail "$binary is not installed"
    libs="$(in_root ldd "$binary" 2>&1)" || fail "ldd $binary failed: $libs"
    if grep -q 'not found' <<<"$libs"; then fail "ldd $binary: $(grep 'not found' <<<"$libs" | tr -s ' \t\n' ' ')"; fi
done
say "  ldd of puffd, puffctl and pam_puff.so: no library not found"

# 2. As a plain user, on a private session bus with the stock configuration.
in_root useradd --create-home --shell /bin/sh "$user"
uid="$(in_root id -u "$user")"
runtime="/tmp/run-$uid"
mkdir -m 700 "$root$runtime"
chroot "$root" chown "$user:$user" "$runtime"
socket="$runtime/bus"
user_env=(env -i PATH=/usr/bin:/bin LANG=C.UTF-8 HOME="/home/$user" USER="$user" LOGNAME="$user"
    XDG_RUNTIME_DIR="$runtime" DBUS_SESSION_BUS_ADDRESS="unix:path=$socket")
as_user() { timeout "$HANG_GUARD" chroot --userspec="$user:$user" "$root" "${user_env[@]}" "$@"; }
[ -f "$root/usr/share/dbus-1/services/io.puff.Secrets.service" ] ||
    fail "the package installed no /usr/share/dbus-1/services/io.puff.Secrets.service"
chroot --userspec="$user:$user" "$root" "${user_env[@]}" dbus-daemon --session --address="unix:path=$socket" --nofork --nopidfile --nosyslog 2>"$RUN/bus.log" &
bus_pid=$!
for _ in $(seq "$HANG_GUARD_POLLS"); do
    [ -S "$root$socket" ] && break
    sleep 0.05
done
[ -S "$root$socket" ] || fail "dbus-daemon --session did not start: $(cat "$RUN/bus.log")"
pgrep -x puffd >/dev/null && fail "a puffd runs before any client called"
say "as $user (uid $uid): dbus-daemon --session (the stock session.conf) at unix:path=$socket"

printf '%s' "$passcode" | as_user puffctl init --stdin >"$RUN/init.log" 2>&1 ||
    fail "puffctl init --stdin failed: $(cat "$RUN/init.log")"
pid=""
for _ in $(seq "$HANG_GUARD_POLLS"); do
    pid="$(pgrep -x puffd || true)"
    [ -n "$pid" ] && break
    sleep 0.05
done
{ [ -n "$pid" ] && [ "$(wc -l <<<"$pid")" = 1 ]; } || fail "not one puffd after puffctl init: '$pid'"
[ "$(stat -L -c %i "/proc/$pid/exe")" = "$(stat -c %i "$root/usr/libexec/puff/puffd")" ] ||
    fail "the running puffd is not the package's /usr/libexec/puff/puffd"
[ "$(stat -c %u "/proc/$pid")" = "$uid" ] || fail "puffd does not run as $user"
tr '\0' '\n' <"/proc/$pid/environ" | grep -qx "DBUS_STARTER_ADDRESS=unix:path=$socket,guid=.*" ||
    fail "puffd (pid $pid) has no DBUS_STARTER_ADDRESS of the bus: the bus did not start it"
# puffctl talks to the control interface's own name, so the bus starts puffd for io.puff.Control.
grep -q "Activating service name='io.puff.Control' requested by .*comm=\"puffctl" "$RUN/bus.log" ||
    fail "the bus log names no activation of io.puff.Control by puffctl: $(cat "$RUN/bus.log")"
say "  puffctl init --stdin: the bus started the package's puffd (pid $pid) from io.puff.Control.service"

printf '%s' "$secret" | as_user secret-tool store --label=x service chroot-e2e ||
    fail "secret-tool store failed"
[ "$(as_user secret-tool lookup service chroot-e2e)" = "$secret" ] ||
    fail "secret-tool lookup did not return the stored secret"
say "  secret-tool store, then lookup: the secret comes back"
status="$(as_user puffctl status 2>&1)" || fail "puffctl status failed: $status"
grep -q "file store in /home/$user/.local/share/puff" <<<"$status" || fail "puffctl status names another vault: $status"
[ -s "$root/home/$user/.local/share/puff/catalog" ] || fail "no vault in /home/$user/.local/share/puff"
say "  puffctl status: $(head -n 1 <<<"$status")"
