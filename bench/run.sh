#!/usr/bin/env bash
# Benchmark of Secret Service providers: builds bench/puff-bench.c and puffd, starts puffd (and,
# with --compare, gnome-keyring-daemon) each on its own private dbus-daemon, measures start-up,
# then runs the C client, which fills each provider and measures the workloads. With the file
# vault (the default) puffd keeps its vault in a temporary folder, gets its passcode from
# `puffctl init --stdin`, and is then restarted on the filled vault --restarts times to measure
# start-up, the locked vault, the unlock and the unlocked vault. See docs/benchmarks.md.
# Everything started here is stopped on exit, also on error or Ctrl-C.
#
#   bench/run.sh [--max N] [--compare] [--gk-max N] [--smoke] [--debug|--release]
#                [--vault file|memory] [--kdf moderate|interactive] [--restarts N] [--doc FILE]
#                [--puffd PATH] [--puffctl PATH] [--out DIR] [--png FILE] [--fill-budget-s S]
#                [--calls N] [--min-phase-ms MS] [--lookup-runs N] [--seed N]
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

usage() {
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
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
fi
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
    for i in $(seq 60); do   # up to 3 s for a clean exit
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
    gcc -O2 -Wall -Wextra -std=c11 -o "$client" "$root/bench/puff-bench.c" $(pkg-config --cflags --libs dbus-1) -lm
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
[ "$vault" = memory ] || [ -x "$puffctl" ] || { echo "run.sh: the file vault needs puffctl (--puffctl PATH; looked at $puffctl)" >&2; exit 1; }
if [ "$compare" = 1 ]; then
    command -v gnome-keyring-daemon >/dev/null || { echo "run.sh: --compare needs gnome-keyring-daemon (apt-get install gnome-keyring)" >&2; exit 1; }
fi

tmp="$(mktemp -d "${TMPDIR:-/tmp}/puff-bench.XXXXXX")"
: >"$out/puffd.log"
: >"$out/gnome-keyring.log"
: >"$out/puffctl.log"
: >"$out/reopen.log"
: >"$out/reopen.md"
rm -f "$out/targets.md"
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
    if [ "$vault" = file ]; then
        echo "vault: file store in a temporary folder (on $(findmnt -n -o FSTYPE --target "$tmp" 2>/dev/null || stat -f -c %T "$tmp")), Argon2id $kdf; $restarts restarts on the filled vault"
    else
        echo "vault: memory (puffd --ephemeral)"
    fi
    if [ "$compare" = 1 ]; then
        echo "gnome-keyring: $(dpkg-query -W -f='${Version}' gnome-keyring 2>/dev/null || echo '?'), fill capped at $gk_max items"
    fi
    echo "dbus-daemon: $(dbus-daemon --version | head -1); $("${SWIFT:-swift}" --version 2>/dev/null | head -1 || true)"
    echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/machine.txt"
cat "$out/machine.txt"

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
# In the background and waited for, so a SIGTERM to this script is handled at once.
"$client" "${smoke_opt[@]}" --max "$max" --run-id "$run_id" --tsv "$out/results.tsv" "${startup_opts[@]}" \
    "${client_opts[@]}" "${providers[@]}" > >(tee "$out/results.md") &
client_pid=$!
status=0
wait "$client_pid" || status=$?
client_pid=""
passed=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$out/results.md" | tail -1)
failed=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$out/results.md" | tail -1)
passed=${passed:-0}
failed=${failed:-0}

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
    items=$("$puffctl" status --json --address "$puff_addr" 2>>"$out/puffctl.log" |
        python3 -c 'import json, sys; print(next(c["items"] for c in json.load(sys.stdin)["collections"] if c["id"] == "login"))')
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

if [ "$compare" = 1 ]; then
    if [ -s "$keyring_file" ]; then
        log "gnome-keyring stored to disk: $keyring_file, $(stat -c %s "$keyring_file") bytes"
    else
        log "gnome-keyring did NOT write $keyring_file"
        status=1
    fi
fi
for f in puffd gnome-keyring; do
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
    begin='<!-- make bench: file-store targets, begin -->'
    end='<!-- make bench: file-store targets, end -->'
    if grep -qF "$begin" "$doc" && grep -qF "$end" "$doc"; then
        {
            echo "Written by \`$invocation\` on $(date -u '+%Y-%m-%d %H:%M UTC'), puffd $(sed -n 's/^puffd: .*(\(.*\))$/\1/p' "$out/machine.txt");"
            echo "load average $(sed -n 's/^load average at start: //p' "$out/machine.txt") at the start of the run (2 cores)."
            cat "$out/reopen.md" "$out/targets.md"
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
        log "wrote the file-store targets into $doc"
    else
        log "$doc has no '$begin' ... '$end' block; left as it is"
    fi
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/machine.txt"
log "results: $out/results.md, $out/results.tsv, $out/machine.txt"
echo "total: $passed passed, $failed failed"
[ "$failed" = 0 ] || status=1
exit "$status"
