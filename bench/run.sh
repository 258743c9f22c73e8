#!/usr/bin/env bash
# Benchmark of Secret Service providers: builds bench/puff-bench.c and puffd, starts puffd (and,
# with --compare, gnome-keyring-daemon) each on its own private dbus-daemon, measures start-up,
# then runs the C client, which fills each provider and measures the workloads. With the file
# vault (the default) puffd keeps its vault in a temporary folder, gets its passcode from
# `puffctl init --stdin`, and is then restarted on the filled vault --restarts times to measure
# start-up, the locked vault, the unlock and the unlocked vault. Then (file vault) `puffctl backup`
# and `verify` of the filled vault; 8 clients writing at once on it (`puff-bench --writers`); and
# `puffctl import` of a gnome-keyring file into a new vault while another client calls GetSecret.
# Then the openbao store (issue 29): a `bao server -dev` from the project's venv (`make venv`),
# two puffd with `[store.openbao]`, each with its own HOME, bus and token, sharing a fleet
# collection (`puff-bench --fleet`). See docs/benchmarks.md.
# Everything started here is stopped on exit, also on error or Ctrl-C.
#
#   bench/run.sh [--max N] [--compare] [--gk-max N] [--smoke] [--debug|--release]
#                [--vault file|memory] [--kdf moderate|interactive] [--restarts N] [--doc FILE]
#                [--puffd PATH] [--puffctl PATH] [--out DIR] [--png FILE] [--fill-budget-s S]
#                [--calls N] [--min-phase-ms MS] [--lookup-runs N] [--seed N]
#                [--import-items N] [--migration-rounds N] [--writers W] [--writers-items N]
#                [--openbao-items N] [--openbao-writes N] [--only-openbao]
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
invocation="bench/run.sh $*"

max=100000
compare=0
smoke=0
gk_max=3000
config=""
puffd=""
puffctl=""
out=""
png=""
client_opts=()
puff_starts=5
gk_starts=3
vault=file
kdf=""
restarts=""
doc=""
import_items=""
migration_rounds=""
writers=8
writers_items=""
openbao_items=""
openbao_writes=""
only_openbao=0

usage() {
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
}
while [ $# -gt 0 ]; do
    case "$1" in
        --max) max="$2"; shift ;;
        --compare) compare=1 ;;
        --gk-max) gk_max="$2"; shift ;;
        --smoke) smoke=1 ;;
        --debug) config=debug ;;
        --release) config=release ;;
        --puffd) puffd="$2"; shift ;;
        --puffctl) puffctl="$2"; shift ;;
        --out) out="$2"; shift ;;
        --png) png="$2"; shift ;;
        --vault) vault="$2"; shift ;;
        --kdf) kdf="$2"; shift ;;
        --restarts) restarts="$2"; shift ;;
        --doc) doc="$2"; shift ;;
        --import-items) import_items="$2"; shift ;;
        --migration-rounds) migration_rounds="$2"; shift ;;
        --writers) writers="$2"; shift ;;
        --writers-items) writers_items="$2"; shift ;;
        --openbao-items) openbao_items="$2"; shift ;;
        --openbao-writes) openbao_writes="$2"; shift ;;
        --only-openbao) only_openbao=1 ;;
        --calls | --min-phase-ms | --lookup-runs | --seed | --fill-budget-s) client_opts+=("$1" "$2"); shift ;;
        -h | --help) usage ;;
        *) echo "run.sh: unknown option $1" >&2; usage ;;
    esac
    shift
done
if [ "$smoke" = 1 ]; then
    max=200
    compare=0
    puff_starts=1
    config="${config:-debug}"   # the build `make test` already made
    kdf="${kdf:-interactive}"   # a smoke run checks that unlocking works, not how long Argon2id takes
    restarts="${restarts:-1}"
    import_items="${import_items:-200}"
    migration_rounds="${migration_rounds:-1}"
    writers_items="${writers_items:-400}"
    openbao_items="${openbao_items:-20}"
    openbao_writes="${openbao_writes:-3}"
fi
openbao_items="${openbao_items:-1000}"
openbao_writes="${openbao_writes:-20}"
[[ "$openbao_items" =~ ^[0-9]+$ ]] || { echo "run.sh: --openbao-items must be a number (0: no openbao section)" >&2; exit 2; }
[[ "$openbao_writes" =~ ^[0-9]+$ ]] && [ "$openbao_writes" -ge 1 ] || { echo "run.sh: --openbao-writes must be a number >= 1" >&2; exit 2; }
[ "$only_openbao" = 0 ] || [ "$openbao_items" -gt 0 ] || { echo "run.sh: --only-openbao needs --openbao-items above 0" >&2; exit 2; }
writers_items="${writers_items:-10000}"
[[ "$writers" =~ ^[0-9]+$ ]] && [ "$writers" -ge 1 ] && [ "$writers" -le 64 ] || { echo "run.sh: --writers must be 1 to 64" >&2; exit 2; }
[[ "$writers_items" =~ ^[0-9]+$ ]] && { [ "$writers_items" = 0 ] || [ "$writers_items" -ge "$writers" ]; } || { echo "run.sh: --writers-items must be 0 or at least --writers" >&2; exit 2; }
import_items="${import_items:-10000}"
migration_rounds="${migration_rounds:-3}"
[[ "$import_items" =~ ^[0-9]+$ ]] || { echo "run.sh: --import-items must be a number" >&2; exit 2; }
[[ "$migration_rounds" =~ ^[0-9]+$ ]] && [ "$migration_rounds" -ge 1 ] || { echo "run.sh: --migration-rounds must be a number >= 1" >&2; exit 2; }
kdf="${kdf:-moderate}"   # puffd's default
restarts="${restarts:-5}"
case "$vault" in file | memory) ;; *) echo "run.sh: --vault is file or memory" >&2; exit 2 ;; esac
case "$kdf" in moderate | interactive) ;; *) echo "run.sh: --kdf is moderate or interactive" >&2; exit 2 ;; esac
[[ "$restarts" =~ ^[0-9]+$ ]] || { echo "run.sh: --restarts must be a number" >&2; exit 2; }
[ -z "$doc" ] || [ -f "$doc" ] || { echo "run.sh: --doc $doc: no such file" >&2; exit 2; }
out="${out:-$root/.build/bench/$([ "$smoke" = 1 ] && echo smoke || echo results)}"
config="${config:-release}"
[[ "$max" =~ ^[0-9]+$ ]] && [ "$max" -ge 10 ] || { echo "run.sh: --max must be a number >= 10" >&2; exit 2; }
[[ "$gk_max" =~ ^[0-9]+$ ]] && [ "$gk_max" -ge 10 ] || { echo "run.sh: --gk-max must be a number >= 10" >&2; exit 2; }
mkdir -p "$out"
png="${png:-$out/benchmarks.png}"

log() { printf '[run.sh] %s\n' "$*" >&2; }

# --- processes: every one is started with setsid (its own process group) and stopped by group ---
tmp=""
pgroups=()   # process groups to stop: SIGTERM, then SIGKILL
buses=()     # bus daemons: SIGKILL (a masked SIGTERM would leave them running)

is_running() {  # a zombie counts as stopped
    local state
    state=$(awk '{ sub(/.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null) || return 1
    [ -n "$state" ] && [ "$state" != Z ]
}

stop_group() {
    local pid="$1" i
    kill -TERM -- "-$pid" 2>/dev/null || true
    for i in $(seq 200); do   # up to 10 s for a clean exit (puffd writes its index snapshots then)
        is_running "$pid" || break
        sleep 0.05
    done
    kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

client_pid=""
cleanup() {
    local pid
    if [ -n "$client_pid" ]; then kill "$client_pid" 2>/dev/null || true; wait "$client_pid" 2>/dev/null || true; fi
    for pid in "${pgroups[@]}"; do stop_group "$pid"; done
    for pid in "${buses[@]}"; do
        kill -KILL -- "-$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    pgroups=()
    buses=()
    [ -n "$tmp" ] && rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

forget_group() {  # drop a stopped group from the cleanup list
    local keep=() pid
    for pid in "${pgroups[@]}"; do [ "$pid" != "$1" ] && keep+=("$pid"); done
    pgroups=("${keep[@]}")
}

# start_bus NAME: starts a private dbus-daemon from dbus/test-session.conf (no service
# directories: nothing gets activated behind our back); sets bus_addr and bus_pid.
start_bus() {
    local fifo="$tmp/$1.address"
    mkfifo "$fifo"
    setsid dbus-daemon --config-file="$root/dbus/test-session.conf" --nofork --print-address=1 \
        >"$fifo" 2>"$tmp/$1.log" </dev/null &
    bus_pid=$!
    buses+=("$bus_pid")
    # The daemon prints its address once it listens; EOF (empty) means it failed.
    bus_addr=""
    read -r bus_addr <"$fifo" || true
    [ -n "$bus_addr" ] || { echo "run.sh: dbus-daemon did not start: $(cat "$tmp/$1.log")" >&2; exit 1; }
}

now_us() { local t="$EPOCHREALTIME"; echo "${t/[.,]/}"; }

# Checks made here rather than by the client; added to the client's counts for the total.
sh_passed=0
sh_failed=0
check() {  # check STATUS MESSAGE: STATUS 0 passes
    if [ "$1" = 0 ]; then sh_passed=$((sh_passed + 1)); else sh_failed=$((sh_failed + 1)); echo "FAIL: $2" >&2; fi
}

# migration.tsv: one line per number of the import, backup and verify cases:
# case, round, key, value; every round also records the 1-minute load average at its start.
record() { printf '%s\t%s\t%s\t%s\n' "$@" >>"$out/migration.tsv"; }
load1() { cut -d' ' -f1 /proc/loadavg; }

# timed VAR COMMAND...: runs COMMAND, sets VAR to its wall time in ms and rc to its status.
timed() {
    local var="$1" t0 t1
    shift
    t0=$(now_us)
    rc=0
    "$@" || rc=$?
    t1=$(now_us)
    printf -v "$var" '%s' "$(awk -v d=$((t1 - t0)) 'BEGIN { printf "%.1f", d / 1000 }')"
}

# wait_owned ADDRESS PID SINCE_US: waits (NameOwnerChanged, no fixed sleep) until the name is
# owned; prints the milliseconds since SINCE_US.
wait_owned() {
    "$client" --wait-name "$1" --pid "$2" --since-us "$3" --timeout-s 60
}

start_puffd() {  # sets puff_pid, puff_t0 (just before the fork, µs) and puff_ms
    local store_opts=(--ephemeral)
    [ "$vault" = file ] && store_opts=(--data-dir "$vault_dir" --kdf "$kdf")
    puff_t0=$(now_us)
    setsid "$puffd" --address "$puff_addr" --log-level warning "${store_opts[@]}" >>"$out/puffd.log" 2>&1 </dev/null &
    puff_pid=$!
    pgroups+=("$puff_pid")
    puff_ms=$(wait_owned "$puff_addr" "$puff_pid" "$puff_t0") || { echo "run.sh: puffd did not start; see $out/puffd.log" >&2; exit 1; }
    # puffctl talks to io.puff.Control, which puffd may own a moment after the Secret Service name.
    if [ "$vault" = file ]; then
        "$client" --wait-name "$puff_addr" --bus-name io.puff.Control --pid "$puff_pid" --timeout-s 60 >/dev/null ||
            { echo "run.sh: puffd did not own io.puff.Control; see $out/puffd.log" >&2; exit 1; }
    fi
}

stop_puffd() {
    stop_group "$puff_pid"
    forget_group "$puff_pid"
}

# puffctl with the throwaway passcode on its stdin; the passcode never reaches an argument, the
# environment or a log. Output goes to puffctl.log, except what the caller captures.
puffctl_with_passcode() {
    printf '%s\n' "$passcode" | "$puffctl" "$@" --stdin --address "$puff_addr" 2>>"$out/puffctl.log"
}

gk_password="benchpw"   # a throwaway keyring password for a throwaway HOME
start_gk() {  # start_gk HOME; sets gk_pid and gk_ms
    local home="$1" t0
    mkdir -p "$home/.local/share" "$home/.config" "$home/.cache" "$home/run"
    chmod 700 "$home/run"
    t0=$(now_us)
    printf '%s' "$gk_password" | env -u DISPLAY -u WAYLAND_DISPLAY -u GNOME_KEYRING_CONTROL \
        HOME="$home" XDG_DATA_HOME="$home/.local/share" XDG_CONFIG_HOME="$home/.config" \
        XDG_CACHE_HOME="$home/.cache" XDG_RUNTIME_DIR="$home/run" DBUS_SESSION_BUS_ADDRESS="$gk_addr" \
        setsid gnome-keyring-daemon --foreground --components=secrets --unlock >>"$out/gnome-keyring.log" 2>&1 &
    gk_pid=$!
    pgroups+=("$gk_pid")
    gk_ms=$(wait_owned "$gk_addr" "$gk_pid" "$t0") || { echo "run.sh: gnome-keyring-daemon did not start; see $out/gnome-keyring.log" >&2; exit 1; }
}

# --- build ---
client="$root/.build/bench/puff-bench"
mkdir -p "$(dirname "$client")"
if [ ! -x "$client" ] || [ "$root/bench/puff-bench.c" -nt "$client" ]; then
    log "building $client"
    gcc -O2 -Wall -Wextra -std=c11 -pthread -o "$client" "$root/bench/puff-bench.c" $(pkg-config --cflags --libs dbus-1) -lm
fi
puffd_source="$config build of commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$root" diff --quiet HEAD -- Sources Package.swift 2>/dev/null || echo ' + uncommitted changes')"
if [ -n "$puffd" ]; then
    puffd_source="given with --puffd"
else
    swift_flags=()
    [ "$config" = release ] && swift_flags=(-c release)
    log "building puffd (swift build ${swift_flags[*]:-(debug)})"
    "${SWIFT:-swift}" build "${swift_flags[@]}" >&2
    puffd="$("${SWIFT:-swift}" build "${swift_flags[@]}" --show-bin-path)/puffd"
fi
[ -x "$puffd" ] || { echo "run.sh: no puffd at $puffd" >&2; exit 1; }
puffctl="${puffctl:-$(dirname "$puffd")/puffctl}"
keyring_tool="$(dirname "$puffd")/PuffBenchKeyring"   # writes the import's source with Puff's own writer
if [ "$vault" = file ] && [ "$import_items" -gt 0 ] && [ ! -x "$keyring_tool" ]; then
    log "no $keyring_tool beside puffd: the import case is skipped"
    import_items=0
fi
[ "$vault" = memory ] || [ -x "$puffctl" ] || { echo "run.sh: the file vault needs puffctl (--puffctl PATH; looked at $puffctl)" >&2; exit 1; }
if [ "$openbao_items" -gt 0 ] && [ ! -x "$root/.build/venv/bin/bao" ]; then
    [ "$only_openbao" = 0 ] || { echo "run.sh: --only-openbao needs $root/.build/venv/bin/bao (make venv)" >&2; exit 1; }
    log "no $root/.build/venv/bin/bao (make venv): the openbao section is skipped"
    openbao_items=0
fi
if [ "$compare" = 1 ]; then
    command -v gnome-keyring-daemon >/dev/null || { echo "run.sh: --compare needs gnome-keyring-daemon (apt-get install gnome-keyring)" >&2; exit 1; }
fi

tmp="$(mktemp -d "${TMPDIR:-/tmp}/puff-bench.XXXXXX")"
: >"$out/puffd.log"
: >"$out/gnome-keyring.log"
: >"$out/puffctl.log"
: >"$out/reopen.log"
: >"$out/reopen.md"
: >"$out/migration.tsv"
: >"$out/writers.md"
: >"$out/openbao.log"
: >"$out/openbao-puffd-a.log"
: >"$out/openbao-puffd-b.log"
rm -f "$out/targets.md" "$out/migration.md" "$out/openbao.md" "$out/openbao.tsv" "$out/bao.log"
[ "$only_openbao" = 0 ] || : >"$out/results.md"
vault_dir="$tmp/puff-vault"
# A throwaway passcode for a throwaway vault, and the run's id (the `run` attribute of its items).
passcode="$(head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')"
run_id="$(head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n')"

# --- machine ---
{
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "cpu: $(nproc) x $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1) ($(awk -F': ' '/^cpu MHz/ { printf "%.0f MHz", $2; exit }' /proc/cpuinfo))"
    echo "memory: $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
    echo "kernel: $(uname -r); temporary files on: $(findmnt -n -o FSTYPE --target "$tmp" 2>/dev/null || stat -f -c %T "$tmp")"
    echo "puffd: $puffd ($puffd_source)"
    if [ "$only_openbao" = 1 ]; then
        echo "vault: only the openbao section (--only-openbao), Argon2id $kdf"
    elif [ "$vault" = file ]; then
        echo "vault: file store in a temporary folder (on $(findmnt -n -o FSTYPE --target "$tmp" 2>/dev/null || stat -f -c %T "$tmp")), Argon2id $kdf; $restarts restarts on the filled vault"
    else
        echo "vault: memory (puffd --ephemeral)"
    fi
    if [ "$compare" = 1 ]; then
        echo "gnome-keyring: $(dpkg-query -W -f='${Version}' gnome-keyring 2>/dev/null || echo '?'), fill capped at $gk_max items"
    fi
    if [ "$openbao_items" -gt 0 ]; then
        echo "openbao: $("$root/.build/venv/bin/bao" version | head -1), bao server -dev on 127.0.0.1; $openbao_items items, $openbao_writes writes seen on another puffd"
    fi
    echo "dbus-daemon: $(dbus-daemon --version | head -1); $("${SWIFT:-swift}" --version 2>/dev/null | head -1 || true)"
    echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/machine.txt"
cat "$out/machine.txt"

# write_doc_block NAME FILE...: replaces what is between the `make bench: NAME` markers of --doc
# with a line naming the run and the files' contents.
write_doc_block() {
    local name="$1" begin end
    shift
    begin="<!-- make bench: $name, begin -->"
    end="<!-- make bench: $name, end -->"
    if ! grep -qF "$begin" "$doc" || ! grep -qF "$end" "$doc"; then
        log "$doc has no '$begin' ... '$end' block; left as it is"
        return
    fi
    {
        echo "Written by \`$invocation\` on $(date -u '+%Y-%m-%d %H:%M UTC'), puffd $(sed -n 's/^puffd: .*(\(.*\))$/\1/p' "$out/machine.txt");"
        echo "load average $(sed -n 's/^load average at start: //p' "$out/machine.txt") at the start of the run (2 cores)."
        cat "$@"
    } >"$tmp/doc-block.md"
    python3 - "$doc" "$begin" "$end" "$tmp/doc-block.md" <<'PY'
import sys
path, begin, end, block = sys.argv[1:5]
text = open(path, encoding="utf-8").read()
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
body = open(block, encoding="utf-8").read().strip("\n")
open(path, "w", encoding="utf-8").write(f"{head}{begin}\n{body}\n{end}{tail}")
PY
    log "wrote the $name into $doc"
}
# --- the openbao store (issue 29): two puffd sharing a fleet collection in `bao server -dev` ---
# Each puffd is a machine of its own: a HOME, a bus, a vault and an OpenBao token (with
# docs/fleet.md's policy) of its own, and `[store.openbao]` with poll_interval = 1. The collection
# is created on a (after `puffctl init`) and attached on b with its passcode; `puff-bench --fleet`
# measures. The dev server's root token is random; it reaches the server in its environment (as
# PuffTesting's BaoServer passes it) and openbao.py on its standard input, and is blotted out of
# the copy of the server's log kept in $out (with the unseal key).
bao="$root/.build/venv/bin/bao"
bao_token=""

save_bao_log() {
    [ -f "$tmp/bao.log" ] || return 0
    sed -e "s/$bao_token/<root token>/g" -e 's/^Unseal Key: .*/Unseal Key: <unseal key>/' "$tmp/bao.log" >"$out/bao.log"
}

# start_fleet_puffd NAME: puffd of the machine in $tmp/fleet-NAME on a bus of its own; sets
# fleet_addr and fleet_pid.
start_fleet_puffd() {
    local name="$1" home="$tmp/fleet-$1" t0
    start_bus "fleet-$name"
    fleet_addr="$bus_addr"
    cat >"$home/puffd.toml" <<EOF
[vault]
data_dir = "$home/vault"
kdf = "$kdf"
[store.openbao]
address = "$bao_addr"
token_file = "$home/openbao-token"
poll_interval = 1
EOF
    t0=$(now_us)
    env -u DBUS_SESSION_BUS_ADDRESS HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" \
        XDG_CACHE_HOME="$home/.cache" XDG_RUNTIME_DIR="$home/run" \
        setsid "$puffd" --config "$home/puffd.toml" --address "$fleet_addr" --vault file --prompter none \
        --log-level warning >>"$out/openbao-puffd-$name.log" 2>&1 </dev/null &
    fleet_pid=$!
    pgroups+=("$fleet_pid")
    wait_owned "$fleet_addr" "$fleet_pid" "$t0" >/dev/null &&
        "$client" --wait-name "$fleet_addr" --bus-name io.puff.Control --pid "$fleet_pid" --timeout-s 60 >/dev/null ||
        { echo "run.sh: puffd $name did not start; see $out/openbao-puffd-$name.log" >&2; exit 1; }
}

# fleet_puffctl ADDRESS ARGS...: puffctl with the throwaway passcode on its stdin (as puffctl_with_passcode).
fleet_puffctl() {
    local address="$1"
    shift
    printf '%s\n' "$passcode" | "$puffctl" "$@" --stdin --address "$address" 2>>"$out/puffctl.log"
}

openbao_run() {
    local bao_port bao_pid a_addr a_pid b_addr b_pid id attached round_status=0 counts fleet_opts=() i
    for ((i = 0; i < ${#client_opts[@]}; i++)); do   # the read-phase options apply here too
        case "${client_opts[i]}" in
            --calls | --min-phase-ms | --seed) fleet_opts+=("${client_opts[i]}" "${client_opts[i + 1]}"); i=$((i + 1)) ;;
        esac
    done
    [ "$smoke" = 1 ] && fleet_opts+=(--smoke)
    bao_token="puff-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"   # not "s.…", which OpenBao keeps for its own
    mkdir -m 700 "$tmp/bao-home" "$tmp/fleet-a" "$tmp/fleet-b" "$tmp/fleet-a/run" "$tmp/fleet-b/run"
    for i in 1 2 3; do   # another process may take the free ports first: then again on others
        bao_port=$(python3 "$root/bench/openbao.py" free-port)
        bao_addr="http://127.0.0.1:$bao_port"
        env -i HOME="$tmp/bao-home" PATH=/usr/bin:/bin BAO_DEV_ROOT_TOKEN_ID="$bao_token" BAO_DISABLE_MLOCK=true \
            setsid "$bao" server -dev -dev-no-store-token -dev-listen-address="127.0.0.1:$bao_port" \
            >"$tmp/bao.log" 2>&1 </dev/null &
        bao_pid=$!
        pgroups+=("$bao_pid")
        python3 "$root/bench/openbao.py" wait "$bao_addr" 60 "$bao_pid" && break
        stop_group "$bao_pid"
        forget_group "$bao_pid"
        save_bao_log
        [ "$i" -lt 3 ] || { echo "run.sh: bao server -dev did not start; see $out/bao.log" >&2; exit 1; }
    done
    printf '%s\n' "$bao_token" | python3 "$root/bench/openbao.py" tokens "$bao_addr" "$tmp" fleet-a fleet-b ||
        { save_bao_log; echo "run.sh: the tokens of the two machines could not be made; see $out/bao.log" >&2; exit 1; }
    log "bao server -dev (OpenBao $("$bao" version | sed -n 's/^OpenBao v\([^ ]*\).*/\1/p')) pid $bao_pid on $bao_addr"

    start_fleet_puffd a
    a_addr="$fleet_addr"
    a_pid="$fleet_pid"
    start_fleet_puffd b
    b_addr="$fleet_addr"
    b_pid="$fleet_pid"
    fleet_puffctl "$a_addr" init >>"$out/puffctl.log" || { echo "run.sh: puffctl init on a failed; see $out/puffctl.log" >&2; exit 1; }
    id=$(fleet_puffctl "$a_addr" collection create bench --store openbao) ||
        { echo "run.sh: puffctl collection create bench --store openbao failed; see $out/puffctl.log" >&2; exit 1; }
    attached=$(fleet_puffctl "$b_addr" collection attach bench --store openbao) ||
        { echo "run.sh: puffctl collection attach bench --store openbao failed; see $out/puffctl.log" >&2; exit 1; }
    check "$([ -n "$id" ] && [ "$attached" = "$id" ] && echo 0 || echo 1)" \
        "the collection attached on b has the id it was created with on a ($attached, $id)"
    log "fleet collection bench ($id): created on puffd a (pid $a_pid, $a_addr), attached on b (pid $b_pid, $b_addr)"

    log "openbao store: $openbao_items items into the fleet collection on a, then $openbao_writes writes seen on b"
    "$client" --fleet "${fleet_opts[@]}" --run-id "$run_id" --collection-path "/org/freedesktop/secrets/collection/$id" \
        --items "$openbao_items" --converge "$openbao_writes" --tsv-append "$out/openbao.tsv" \
        "a=$a_addr" "b=$b_addr" >"$out/openbao.md" 2>"$tmp/openbao.log" || round_status=$?
    cat "$tmp/openbao.log" >>"$out/openbao.log"
    counts=$(sed -n 's/^\[puff-bench\] checks: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$tmp/openbao.log")
    [ -n "$counts" ] || counts="0 1"   # the client died before counting
    passed=$((passed + ${counts%% *}))
    failed=$((failed + ${counts##* }))
    [ "$round_status" = 0 ] || { status=1; grep -v '^\[puff-bench\]' "$tmp/openbao.log" | tail -5 >&2 || true; }
    tee -a "$out/results.md" <"$out/openbao.md"
    for i in "$a_pid" "$b_pid" "$bao_pid"; do
        stop_group "$i"
        forget_group "$i"
    done
    save_bao_log
}

# finish: the openbao block of --doc, the totals, and the exit status.
finish() {
    if [ -n "$doc" ] && [ "$smoke" = 0 ] && [ -s "$out/openbao.md" ]; then
        write_doc_block "openbao store" "$out/openbao.md"
    fi
    echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/machine.txt"
    log "results: $out/results.md, $out/results.tsv$([ -s "$out/openbao.tsv" ] && echo ", $out/openbao.tsv"), $out/machine.txt"
    passed=$((passed + sh_passed))
    failed=$((failed + sh_failed))
    echo "total: $passed passed, $failed failed"
    [ "$failed" = 0 ] || status=1
    exit "$status"
}

status=0
passed=0
failed=0
if [ "$only_openbao" = 1 ]; then
    openbao_run
    finish
fi

# --- providers ---
start_bus puff
puff_addr="$bus_addr"
startup=()
for i in $(seq "$puff_starts"); do
    start_puffd
    startup+=("$puff_ms")
    if [ "$i" -lt "$puff_starts" ]; then   # throwaway starts, for the start-up time only
        stop_group "$puff_pid"
        forget_group "$puff_pid"
    fi
done
providers=("puff=$puff_addr")
startup_opts=(--startup-ms "puff=$(IFS=,; echo "${startup[*]}")")
log "puffd pid $puff_pid on $puff_addr (start-up ms, $vault vault$([ "$vault" = file ] && echo ", new"): ${startup[*]})"
if [ "$vault" = file ]; then
    puffctl_with_passcode init >>"$out/puffctl.log" || { echo "run.sh: puffctl init failed; see $out/puffctl.log" >&2; exit 1; }
    journals=("$vault_dir"/*.journal)
    [ "${#journals[@]}" = 1 ] && [ -f "${journals[0]}" ] || { echo "run.sh: expected one journal in $vault_dir after init" >&2; exit 1; }
    client_opts+=(--watch-file "puff=${journals[0]}")
    log "vault initialized in $vault_dir (login journal $(basename "${journals[0]}"))"
fi

if [ "$compare" = 1 ]; then
    start_bus gk
    gk_addr="$bus_addr"
    startup=()
    for i in $(seq "$gk_starts"); do
        gk_home="$tmp/gk-home-$i"
        start_gk "$gk_home"
        startup+=("$gk_ms")
        if [ "$i" -lt "$gk_starts" ]; then
            stop_group "$gk_pid"
            forget_group "$gk_pid"
        fi
    done
    keyring_file="$gk_home/.local/share/keyrings/login.keyring"
    providers+=("gnome-keyring=$gk_addr")
    startup_opts+=(--startup-ms "gnome-keyring=$(IFS=,; echo "${startup[*]}")")
    client_opts+=(--cap "gnome-keyring=$gk_max" --watch-file "gnome-keyring=$keyring_file")
    log "gnome-keyring-daemon pid $gk_pid on $gk_addr, HOME=$gk_home (start-up ms: ${startup[*]})"
fi

# --- run ---
smoke_opt=()
[ "$smoke" = 1 ] && smoke_opt=(--smoke)
# In the background and waited for, so a SIGTERM to this script is handled at once. Its tables
# come at the end; they are shown once it exits (a `tee` in a process substitution could still be
# writing the file when the counts are read from it: under load the fill's were lost).
"$client" "${smoke_opt[@]}" --max "$max" --run-id "$run_id" --tsv "$out/results.tsv" "${startup_opts[@]}" \
    "${client_opts[@]}" "${providers[@]}" >"$out/results.md" &
client_pid=$!
status=0
wait "$client_pid" || status=$?
client_pid=""
cat "$out/results.md"
passed=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$out/results.md" | tail -1)
failed=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$out/results.md" | tail -1)
passed=${passed:-0}
failed=${failed:-0}

# --- the filled file vault: backup, verify, and verify of the backup (docs/benchmarks.md) ---
# puffd still runs with login unlocked, so `verify` opens every record of it, not only the frames.
if [ "$vault" = file ]; then
    items=$("$puffctl" status --json --address "$puff_addr" 2>>"$out/puffctl.log" |
        python3 -c 'import json, sys; print(next(c["items"] for c in json.load(sys.stdin)["collections"] if c["id"] == "login"))') || items=0
    record vault 0 items "$items"
    log "backup and verify of the vault of $items items, $migration_rounds rounds"
    for round in $(seq "$migration_rounds"); do
        archive="$tmp/vault-$round.puffbak"
        record backup "$round" load "$(load1)"
        timed ms "$puffctl" backup "$archive" --address "$puff_addr" >>"$out/puffctl.log" 2>&1
        check "$rc" "puffctl backup of the $items-item vault exits 0 (round $round; see $out/puffctl.log)"
        [ "$rc" = 0 ] && record backup "$round" ms "$ms"
        mode=$(stat -c %a "$archive" 2>/dev/null || echo missing)
        check "$([ "$mode" = 600 ] && [ -s "$archive" ] && echo 0 || echo 1)" "the backup is a non-empty 0600 file (mode $mode)"
        [ "$rc" = 0 ] && record backup "$round" bytes "$(stat -c %s "$archive")"

        record verify "$round" load "$(load1)"
        timed ms "$puffctl" verify --address "$puff_addr" >"$tmp/verify.out" 2>&1
        cat "$tmp/verify.out" >>"$out/puffctl.log"
        check "$rc" "puffctl verify of the $items-item vault exits 0 (round $round; see $out/puffctl.log)"
        [ "$rc" = 0 ] && record verify "$round" ms "$ms"
        records=$(sed -n 's/.* and \([0-9]*\) records\{0,1\} of .*/\1/p' "$tmp/verify.out" | tail -1)
        check "$([ "${records:-0}" -ge "$items" ] && echo 0 || echo 1)" "verify opened every record of login (${records:-none} records, $items items)"

        record verify-backup "$round" load "$(load1)"
        timed ms "$puffctl" verify --backup "$archive" >>"$out/puffctl.log" 2>&1
        check "$rc" "puffctl verify --backup of that backup exits 0 (round $round)"
        [ "$rc" = 0 ] && record verify-backup "$round" ms "$ms"
        rm -f "$archive"
    done
fi

# --- the file vault after the fill: restarts, locked, unlock, unlocked ---
# Control1.Unlock of an empty collection under the same Argon2id parameters costs the KDF and
# nothing else, so the unlock of login minus it is what opening the items costs.
reopen_opts=()
for ((i = 0; i < ${#client_opts[@]}; i++)); do   # the read-phase options also apply to the rounds
    case "${client_opts[i]}" in
        --calls | --min-phase-ms | --seed) reopen_opts+=("${client_opts[i]}" "${client_opts[i + 1]}"); i=$((i + 1)) ;;
    esac
done
if [ "$vault" = file ] && [ "$restarts" -gt 0 ]; then
    probe=$(puffctl_with_passcode collection create kdf-probe) || { echo "run.sh: creating the KDF probe collection failed; see $out/puffctl.log" >&2; exit 1; }
    log "restarting puffd $restarts times on its vault of $items items (journal $(stat -c %s "${journals[0]}") bytes)"
    stop_puffd
    for round in $(seq "$restarts"); do
        start_puffd
        round_status=0
        printf '%s\n' "$passcode" | "$client" --reopen "${smoke_opt[@]}" "${reopen_opts[@]}" --run-id "$run_id" \
            --items "$items" --round "$round" --probe "$probe" --since-us "$puff_t0" --round-startup-ms "$puff_ms" \
            --tsv-append "$out/results.tsv" "puff=$puff_addr" >>"$out/reopen.md" 2>"$tmp/round.log" || round_status=$?
        cat "$tmp/round.log" >>"$out/reopen.log"
        counts=$(sed -n 's/^\[puff-bench\] checks: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$tmp/round.log")
        [ -n "$counts" ] || counts="0 1"   # the client died before counting
        passed=$((passed + ${counts%% *}))
        failed=$((failed + ${counts##* }))
        [ "$round_status" = 0 ] || { status=1; grep -v '^\[puff-bench\]' "$tmp/round.log" | tail -5 >&2 || true; }
        stop_puffd
    done
    tee -a "$out/results.md" <"$out/reopen.md"
    if [ "$smoke" = 0 ]; then
        "$client" --file-targets "$out/results.tsv" --provider puff >"$out/targets.md"
        tee -a "$out/results.md" <"$out/targets.md"
    fi
fi

# --- several clients writing at once on the filled vault (puff-bench --writers) ---
# Every reply is timed; items carry service=bench-writers, so the rounds above never saw them. With
# restarts the filled vault's puffd was stopped: it is started again and login unlocked for this.
if [ "$writers_items" -gt 0 ]; then
    restarted=0
    if [ "$vault" = file ] && [ "$restarts" -gt 0 ]; then
        start_puffd
        restarted=1
        puffctl_with_passcode unlock login >>"$out/puffctl.log" || { echo "run.sh: puffctl unlock login failed; see $out/puffctl.log" >&2; exit 1; }
    fi
    log "$writers writers at once, $writers_items durable CreateItem calls in all"
    round_status=0
    "$client" --writers "$writers" --durable "$writers_items" --run-id "$run_id" --tsv-append "$out/results.tsv" \
        "puff=$puff_addr" >"$out/writers.md" 2>"$tmp/writers.log" || round_status=$?
    cat "$tmp/writers.log" >>"$out/reopen.log"
    counts=$(sed -n 's/^\[puff-bench\] checks: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$tmp/writers.log")
    [ -n "$counts" ] || counts="0 1"   # the client died before counting
    passed=$((passed + ${counts%% *}))
    failed=$((failed + ${counts##* }))
    [ "$round_status" = 0 ] || { status=1; grep -v '^\[puff-bench\]' "$tmp/writers.log" | tail -5 >&2 || true; }
    tee -a "$out/results.md" <"$out/writers.md"
    [ "$restarted" = 0 ] || stop_puffd
fi

# --- import of a gnome-keyring file into a new vault while another client calls GetSecret ---
# The source is written by PuffBenchKeyring with Puff's own gnome-keyring writer. Its key
# derivation (iterated SHA-256, the count the writer puts in the header) is timed alone by
# opening an empty keyring with the same count in-process, so "beyond its KDF" is the whole
# `puffctl import` (exec to exit) minus that. Each round imports into a new vault.
if [ "$vault" = file ] && [ "$import_items" -gt 0 ]; then
    [ "$restarts" -gt 0 ] || stop_puffd   # without restarts the filled vault's puffd still runs
    source_pw="$(head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')"   # a throwaway file's password
    source_file="$tmp/bench.keyring"
    empty_file="$tmp/empty.keyring"
    printf '%s\n' "$source_pw" | "$keyring_tool" write --items "$import_items" --run-id "$run_id" "$source_file"
    printf '%s\n' "$source_pw" | "$keyring_tool" write --items 0 --run-id "$run_id" "$empty_file"
    record import 0 items "$import_items"
    record import 0 source_bytes "$(stat -c %s "$source_file")"
    during_opts=()
    [ "$smoke" = 1 ] && during_opts=(--baseline-ms 100)
    log "import of $import_items items from a gnome-keyring file ($(stat -c %s "$source_file") bytes), $migration_rounds rounds"
    for round in $(seq "$migration_rounds"); do
        record kdf "$round" load "$(load1)"
        kdf_ms=$(printf '%s\n' "$source_pw" | "$keyring_tool" read "$empty_file" | sed -n 's/^items 0 ms //p')
        check "$([ -n "$kdf_ms" ] && echo 0 || echo 1)" "the empty keyring opens with its password (the KDF alone)"
        [ -z "$kdf_ms" ] || record kdf "$round" ms "$kdf_ms"
        read_ms=$(printf '%s\n' "$source_pw" | "$keyring_tool" read "$source_file" | sed -n "s/^items $import_items ms //p")
        check "$([ -n "$read_ms" ] && echo 0 || echo 1)" "the source opens with its password and holds $import_items items"
        [ -z "$read_ms" ] || record read "$round" ms "$read_ms"

        vault_dir="$tmp/import-vault-$round"
        start_puffd
        puffctl_with_passcode init >>"$out/puffctl.log" || { echo "run.sh: puffctl init failed; see $out/puffctl.log" >&2; exit 1; }
        record import-empty "$round" load "$(load1)"
        timed ms "$puffctl" import "$empty_file" --into login --source-passcode-fd 3 --address "$puff_addr" \
            3< <(printf '%s\n' "$source_pw") >>"$out/puffctl.log" 2>&1
        check "$rc" "puffctl import of an empty keyring exits 0 (round $round)"
        [ "$rc" != 0 ] || record import-empty "$round" ms "$ms"

        record import "$round" load "$(load1)"
        round_status=0
        "$client" --during "${during_opts[@]}" --run-id "$run_id" --expect-imported "$import_items" \
            --command-out "$tmp/import.out" "puff=$puff_addr" -- \
            "$puffctl" import "$source_file" --into login --source-passcode-fd 3 --address "$puff_addr" \
            3< <(printf '%s\n' "$source_pw") >"$tmp/during.out" 2>"$tmp/during.log" || round_status=$?
        cat "$tmp/during.log" "$tmp/import.out" >>"$out/import.log"
        while read -r key value; do record import "$round" "$key" "$value"; done <"$tmp/during.out"
        check "$(grep -q "$import_items added, 0 replaced, 0 unchanged, 0 skipped" "$tmp/import.out" && echo 0 || echo 1)" \
            "puffctl import says all $import_items items were added (round $round; see $out/import.log)"
        counts=$(sed -n 's/^\[puff-bench\] checks: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$tmp/during.log")
        [ -n "$counts" ] || counts="0 1"   # the client died before counting
        passed=$((passed + ${counts%% *}))
        failed=$((failed + ${counts##* }))
        [ "$round_status" = 0 ] || { status=1; grep -v '^\[puff-bench\]' "$tmp/during.log" | tail -5 >&2 || true; }
        stop_puffd
    done
fi
if [ -s "$out/migration.tsv" ]; then
    python3 "$root/bench/migration.py" "$out/migration.tsv" $([ "$smoke" = 1 ] && echo --smoke) >"$out/migration.md"
    tee -a "$out/results.md" <"$out/migration.md"
fi

[ "$openbao_items" = 0 ] || openbao_run

if [ "$compare" = 1 ]; then
    if [ -s "$keyring_file" ]; then
        log "gnome-keyring stored to disk: $keyring_file, $(stat -c %s "$keyring_file") bytes"
    else
        log "gnome-keyring did NOT write $keyring_file"
        status=1
    fi
fi
for f in puffd gnome-keyring openbao-puffd-a openbao-puffd-b; do
    if [ -s "$out/$f.log" ]; then log "$f wrote to its log ($out/$f.log), last lines:"; tail -n 5 "$out/$f.log" >&2; fi
done

if [ "$smoke" = 0 ]; then
    if command -v gnuplot >/dev/null; then
        gnuplot -e "tsv='$out/results.tsv'; out='$png'" "$root/bench/plot.gp" && log "plot: $png"
    else
        log "gnuplot is not installed (apt-get install gnuplot-nox); no plot"
    fi
fi
if [ -n "$doc" ] && [ -s "$out/targets.md" ]; then
    write_doc_block "file-store targets" "$out/reopen.md" "$out/targets.md"
fi
if [ -n "$doc" ] && [ "$smoke" = 0 ] && [ -s "$out/migration.md" ]; then
    write_doc_block "import, backup and verify" "$out/migration.md"
fi
finish
