#!/usr/bin/env bash
# The real-system test of issue 24: Puff's two packages on a Debian 12 booted under
# systemd-nspawn (systemd as PID 1, logind, a user manager per login, the user's D-Bus), with the
# PAM profile enabled and a user logged in through /bin/login on a pseudo-terminal.
#
#   packaging/check-system.sh PUFF_DEB LIBPAM_PUFF_DEB
#
# The checks run inside, as root, from packaging/check-system-inside.py (puff-check.service, bound
# in read-only with the packages): apt-get install, pam-auth-update --enable puff, then as the user
# alice: puffd runs only as puffd.service under her systemd manager (started through
# puff-login.socket); login is unlocked by the login password and secret-tool store/lookup work
# with no prompt; the sandbox the unit promises, measured in /proc of the running puffd; a process
# of hers cannot read puffd's memory; loginctl lock-session locks; login has one login slot, and
# with a passcode slot added beside it passwd rewrites the login slot alone (the passcode slot still
# opens, byte for byte the same; no re-key) and the next login opens it; `sudo -i -u bob` hands bob nothing; logout stops puffd. It prints the boot
# time, the time from the password to the shell (pam_puff waits for puffd's answer), the lock time
# and the exposure the running manager computes.
#
# The base system is made once with debootstrap (bookworm minbase with systemd, kept in
# .build/system and reused; PUFF_SYSTEM_CACHE moves it, PUFF_CHROOT_MIRROR names the mirror);
# each boot lays a tmpfs overlay over it (--volatile=overlay), so the base never changes. Without root, systemd-nspawn or the mirror,
# or when the container does not boot, it says `check-system: SKIP: <why>` and exits 0, unless
# PUFF_REQUIRE_SYSTEM=1 or CI is set (.ci/run): then it fails. Any failed check fails.
# PUFF_SYSTEM_AFTER_INSTALL: shell commands run as root in the container after the packages are
# installed, to break something on purpose and see which checks fail (packaging/README.md).
# PUFF_MAX_EXPOSURE: the highest exposure score allowed (default 6.3, as check.sh).
set -euo pipefail

say() { echo "check-system: $*"; }
fail() {
    echo "check-system: FAIL: $*" >&2
    exit 1
}
required="${PUFF_REQUIRE_SYSTEM:-${CI:+1}}"
skip() {
    if [ -n "$required" ]; then fail "cannot run (PUFF_REQUIRE_SYSTEM or CI is set): $*"; fi
    say "SKIP: $*"
    exit 0
}

suite=bookworm
includes=systemd,systemd-sysv,dbus,dbus-user-session,libpam-systemd,login,passwd,sudo,procps,libsecret-tools,python3,libsodium23,libssl3
here="$(cd "$(dirname "$0")" && pwd)"

puff_deb="${1:?usage: packaging/check-system.sh PUFF_DEB LIBPAM_PUFF_DEB}"
pam_deb="${2:?usage: packaging/check-system.sh PUFF_DEB LIBPAM_PUFF_DEB}"
for deb in "$puff_deb" "$pam_deb"; do [ -f "$deb" ] || fail "no package $deb (make deb first)"; done
[ "$(id -u)" = 0 ] || skip "not root (debootstrap and systemd-nspawn need root)"
command -v debootstrap >/dev/null || skip "no debootstrap (apt-get install debootstrap)"
command -v systemd-nspawn >/dev/null || skip "no systemd-nspawn (apt-get install systemd-container)"
start=$SECONDS

# shellcheck source=packaging/host-mirror.sh
source "$(dirname "$0")/host-mirror.sh"

cache="${PUFF_SYSTEM_CACHE:-.build/system}"
mkdir -p "$cache"
cache="$(cd "$cache" && pwd)"
base="$cache/$suite-systemd"
# Keyed by suite and included packages; a half-made base is never used.
if [ -f "$base.ok" ] && [ "$(cat "$base.ok")" = "$suite $includes" ] && [ -d "$base/usr" ]; then
    say "reusing the base system $base"
else
    mirror="${PUFF_CHROOT_MIRROR:-$(host_mirror "$suite" | sed -n 1p)}"
    [ -n "$mirror" ] || skip "no Debian mirror for $suite in /etc/apt/sources.list*"
    rm -rf "$base" "$base.ok" "$base.tmp"
    say "debootstrap --variant=minbase --include=$includes $suite from $mirror"
    if ! timeout 600 unshare --mount --propagation private \
        debootstrap --variant=minbase --include="$includes" "$suite" "$base.tmp" "$mirror" \
        >"$cache/debootstrap.log" 2>&1; then
        tail -n 5 "$cache/debootstrap.log" | sed 's/^/  /'
        rm -rf "$base.tmp"
        skip "debootstrap of $suite from $mirror failed (network or mirror down?), log in $cache/debootstrap.log"
    fi
    # No apt lists are needed: the packages' dependencies are all in the base. A machine id is
    # made at each boot.
    rm -f "$base.tmp/etc/machine-id" "$base.tmp/var/lib/dbus/machine-id"
    mv "$base.tmp" "$base"
    echo "$suite $includes" >"$base.ok"
    say "base system made in $((SECONDS - start)) s ($(du -sh "$base" | cut -f1))"
fi

run="$(mktemp -d "$cache/run.XXXXXX")"
nspawn_pid=""
finish() {
    if [ -n "$nspawn_pid" ] && kill -0 "$nspawn_pid" 2>/dev/null; then
        kill -TERM "$nspawn_pid" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$nspawn_pid" 2>/dev/null || true
    fi
    rm -rf "$run"
}
trap finish EXIT
mkdir -p "$run/debs" "$run/check" "$run/out"
cp "$puff_deb" "$pam_deb" "$run/debs/"
cp "$here/check-system-inside.py" "$run/check/inside.py"
cp "$here/vault_header.py" "$run/check/vault_header.py"
cat >"$run/check/puff-check.service" <<'EOF'
[Unit]
Description=Puff check-system (packaging/check-system-inside.py)
After=systemd-user-sessions.service
[Service]
Type=simple
ExecStart=/usr/bin/python3 /mnt/check/inside.py
StandardOutput=append:/mnt/out/report
StandardError=append:/mnt/out/report
EOF
echo "${PUFF_MAX_EXPOSURE:-6.3}" >"$run/check/max-exposure"
printf '%s\n' "${PUFF_SYSTEM_AFTER_INSTALL:-}" | sed '/^$/d' >"$run/check/after-install.sh"
chmod -R a+rX "$run/debs" "$run/check"
: >"$run/out/report"
date +%s.%N >"$run/out/t0"

# --volatile=overlay: the base under a tmpfs overlay that goes with the container (--ephemeral
# copies the whole tree first where the file system has no snapshots: minutes on a busy machine).
# The check's unit is bound in and pulled in by multi-user.target (a drop-in: a .wants entry must
# be a link); it powers the container off when done.
printf '[Unit]\nWants=puff-check.service\n' >"$run/check/wants.conf"
say "booting $base under systemd-nspawn --volatile=overlay -b"
# A machine name of its own: two runs at once (two clones) would otherwise share the
# /run/systemd/nspawn/propagate folder named after the base.
systemd-nspawn -D "$base" --machine="puff-check-$$" --volatile=overlay -b --register=no --keep-unit --quiet \
    --console=pipe --bind-ro="$run/debs:/mnt/debs" --bind-ro="$run/check:/mnt/check" --bind="$run/out:/mnt/out" \
    --bind-ro="$run/check/puff-check.service:/etc/systemd/system/puff-check.service" \
    --bind-ro="$run/check/wants.conf:/etc/systemd/system/multi-user.target.d/puff-check.conf" \
    </dev/null >"$run/console.log" 2>&1 &
nspawn_pid=$!
tail -n +1 -f --pid="$nspawn_pid" "$run/out/report" &
tail_pid=$!
# A generous, named limit for the whole run in the container (about 30 s on an idle machine).
limit="${PUFF_SYSTEM_LIMIT:-600}"
waited=0
while kill -0 "$nspawn_pid" 2>/dev/null && [ "$waited" -lt "$((limit * 10))" ]; do
    sleep 0.1
    waited=$((waited + 1))
done
finish_status=""
if kill -0 "$nspawn_pid" 2>/dev/null; then
    say "the container is still running after $limit s (PUFF_SYSTEM_LIMIT): stopping it"
    finish_status=timeout
    kill -TERM "$nspawn_pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$nspawn_pid" 2>/dev/null || true
fi
wait "$nspawn_pid" 2>/dev/null || true
nspawn_pid=""
wait "$tail_pid" 2>/dev/null || true
if [ ! -f "$run/out/started" ]; then
    sed 's/^/  /' "$run/console.log" | tail -n 20
    skip "the container did not boot as far as the check's unit (systemd-nspawn output above)"
fi
result="$(cat "$run/out/result" 2>/dev/null || echo "no result (${finish_status:-the checks did not finish})")"
if [ "$result" != pass ]; then
    sed 's/^/  console: /' "$run/console.log" | tail -n 30
    fail "$result"
fi
say "passed in $((SECONDS - start)) s"
