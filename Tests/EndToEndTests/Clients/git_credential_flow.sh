#!/bin/bash
# git_credential_flow.sh - drive org.freedesktop.secrets with git's
# git-credential-libsecret helper (libsecret, schema org.gnome.keyring.NetworkPassword).
#
#   bash git_credential_flow.sh [BUILD_DIR] [--lenient]
#
# Builds git-credential-libsecret from Debian's git contrib source
# (/usr/share/doc/git/contrib/credential/libsecret/) into BUILD_DIR (default:
# a temporary directory) with
#   gcc $(pkg-config --cflags --libs glib-2.0 libsecret-1)
# skipping the build when the binary is newer than the source. Then speaks
# the git credential protocol on stdin:
#   store (protocol=https host=example.com username=alice password=...)
#   get   -> prints username=alice and the stored password (compared, never printed)
#   store again with a new password -> get returns the new one
#   erase -> get prints no password line (and exits 0, as the helper does)
# plus a second host that erase must leave alone.
# Output: `ok <case>` / `FAIL <case>: <reason>`, then `N passed, M failed`;
# exit 1 if anything failed. Each helper call runs under `timeout $HANG_GUARD`,
# and none starts after $DRIVER_HANG_GUARD seconds (hang guards, not speed targets).
# "exited 124" in a reason means the call timed out (or was not started).
# --lenient (or PUFF_CLIENT_LENIENT=1) is accepted; no case differs for GK.
set -u

# Hang guards, not speed targets (the values of harness.py): one call may take HANG_GUARD
# seconds, and no call starts after DRIVER_HANG_GUARD. A busy machine must never reach them.
HANG_GUARD=120
DRIVER_HANG_GUARD=540

SRC_DIR=/usr/share/doc/git/contrib/credential/libsecret
SRC="$SRC_DIR/git-credential-libsecret.c"
BUILD_DIR=""
for arg in "$@"; do
    case "$arg" in --lenient) ;; *) BUILD_DIR=$arg ;; esac
done
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
[ -n "$BUILD_DIR" ] || BUILD_DIR="$TMP/build"
HELPER="$BUILD_DIR/git-credential-libsecret"

PASSED=0
FAILED=0
REASON=""
RUN="$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
HOST="puff-e2e-$RUN.example.com"
OTHER="other-$RUN.example.com"
PW1="hunter2 ✓ $RUN"
PW2="correct horse battery staple $RUN"

run_case() {
    local name=$1; shift
    REASON=""
    if "$@"; then
        echo "ok $name"; PASSED=$((PASSED + 1))
    else
        echo "FAIL $name: ${REASON:-failed}"; FAILED=$((FAILED + 1))
    fi
}

fail() { REASON="$*"; return 1; }

helper() {  # helper OP HOST [PASSWORD] -> stdout in $TMP/out, status in HELPER_RC
    local op=$1 host=$2 pw=${3-}
    {
        printf 'protocol=https\nhost=%s\nusername=alice\n' "$host"
        [ -z "$pw" ] || printf 'password=%s\n' "$pw"
        printf '\n'
    } | { if (( SECONDS > DRIVER_HANG_GUARD )); then exit 124; fi; timeout "$HANG_GUARD" "$HELPER" "$op"; } >"$TMP/out" 2>"$TMP/err"
    HELPER_RC=$?
}

# does the last `get` output contain exactly this password line?
got_password() { grep -qxF "password=$1" "$TMP/out"; }

case_build() {
    mkdir -p "$BUILD_DIR" || fail "cannot create $BUILD_DIR" || return 1
    if [ -x "$HELPER" ] && [ "$HELPER" -nt "$SRC" ]; then
        return 0
    fi
    # shellcheck disable=SC2046  # pkg-config output must word-split
    gcc -O2 -Wall -o "$HELPER" "$SRC" $(pkg-config --cflags --libs glib-2.0 libsecret-1) \
        >"$TMP/build.log" 2>&1 || fail "gcc failed: $(tail -n 3 "$TMP/build.log" | tr '\n' ' ')" || return 1
    [ -x "$HELPER" ] || fail "no binary after build"
}

case_store_get() {
    helper store "$HOST" "$PW1"
    [ "$HELPER_RC" -eq 0 ] || fail "store exited $HELPER_RC" || return 1
    helper store "$OTHER" "other-pw-$RUN"
    [ "$HELPER_RC" -eq 0 ] || fail "store (second host) exited $HELPER_RC" || return 1
    helper get "$HOST"
    [ "$HELPER_RC" -eq 0 ] || fail "get exited $HELPER_RC" || return 1
    grep -qxF 'username=alice' "$TMP/out" || fail "get did not print username=alice" || return 1
    got_password "$PW1" || fail "get did not return the stored password ($(grep -c '^password=' "$TMP/out") password lines)"
}

case_store_replaces() {
    helper store "$HOST" "$PW2"
    [ "$HELPER_RC" -eq 0 ] || fail "store exited $HELPER_RC" || return 1
    helper get "$HOST"
    got_password "$PW2" || fail "get did not return the new password" || return 1
    (( SECONDS <= DRIVER_HANG_GUARD )) || fail "driver hang guard reached" || return 1
    local n; n=$(timeout "$HANG_GUARD" secret-tool search --all server "$HOST" user alice 2>&1 | grep -c '^\[/')
    [ "$n" -eq 1 ] || fail "expected 1 stored item for the host, found $n"
}

case_erase() {
    helper erase "$HOST"
    [ "$HELPER_RC" -eq 0 ] || fail "erase exited $HELPER_RC" || return 1
    helper get "$HOST"
    [ "$HELPER_RC" -eq 0 ] || fail "get after erase exited $HELPER_RC" || return 1
    ! grep -q '^password=' "$TMP/out" || fail "get after erase still printed a password" || return 1
    helper get "$OTHER"
    got_password "other-pw-$RUN" || fail "erase also removed another host's credential" || return 1
    helper erase "$OTHER"
}

run_case "build git-credential-libsecret" case_build
if [ -x "$HELPER" ]; then
    run_case "store + get returns the stored password" case_store_get
    run_case "store again replaces the password (one item)" case_store_replaces
    run_case "erase, then get prints no password" case_erase
fi

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
