#!/usr/bin/env bash
# Benchmark of Secret Service providers: builds bench/puff-bench.c and puffd, starts puffd (and,
# with --compare, gnome-keyring-daemon) each on its own private dbus-daemon, measures start-up,
# then runs the C client, which fills each provider and measures the workloads. See
# docs/benchmarks.md. Everything started here is stopped on exit, also on error or Ctrl-C.
#
#   bench/run.sh [--max N] [--compare] [--gk-max N] [--smoke] [--debug|--release]
#                [--puffd PATH] [--out DIR] [--png FILE] [--fill-budget-s S]
#                [--calls N] [--min-phase-ms MS] [--lookup-runs N] [--seed N]
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

max=100000
compare=0
smoke=0
gk_max=3000
config=""
puffd=""
out=""
png=""
client_opts=()
puff_starts=5
gk_starts=3

usage() {
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
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
        --out) out="$2"; shift ;;
        --png) png="$2"; shift ;;
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
fi
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

start_puffd() {  # sets puff_pid and puff_ms
    local t0
    t0=$(now_us)
    setsid "$puffd" --address "$puff_addr" --log-level warning --ephemeral >>"$out/puffd.log" 2>&1 </dev/null &
    puff_pid=$!
    pgroups+=("$puff_pid")
    puff_ms=$(wait_owned "$puff_addr" "$puff_pid" "$t0") || { echo "run.sh: puffd did not start; see $out/puffd.log" >&2; exit 1; }
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
if [ "$compare" = 1 ]; then
    command -v gnome-keyring-daemon >/dev/null || { echo "run.sh: --compare needs gnome-keyring-daemon (apt-get install gnome-keyring)" >&2; exit 1; }
fi

tmp="$(mktemp -d "${TMPDIR:-/tmp}/puff-bench.XXXXXX")"
: >"$out/puffd.log"
: >"$out/gnome-keyring.log"

# --- machine ---
{
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "cpu: $(nproc) x $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1) ($(awk -F': ' '/^cpu MHz/ { printf "%.0f MHz", $2; exit }' /proc/cpuinfo))"
    echo "memory: $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
    echo "kernel: $(uname -r); temporary files on: $(findmnt -n -o FSTYPE --target "$tmp" 2>/dev/null || stat -f -c %T "$tmp")"
    echo "puffd: $puffd ($puffd_source)"
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
log "puffd pid $puff_pid on $puff_addr (start-up ms: ${startup[*]})"

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
"$client" "${smoke_opt[@]}" --max "$max" --tsv "$out/results.tsv" "${startup_opts[@]}" "${client_opts[@]}" \
    "${providers[@]}" > >(tee "$out/results.md") &
client_pid=$!
status=0
wait "$client_pid" || status=$?
client_pid=""

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
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/machine.txt"
log "results: $out/results.md, $out/results.tsv, $out/machine.txt"
exit "$status"
