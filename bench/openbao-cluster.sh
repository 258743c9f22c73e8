#!/usr/bin/env bash
# A fleet collection on a production-shaped OpenBao, as far as one machine allows (docs/fleet.md,
# "Running it for real"): three OpenBao nodes in one Raft cluster on loopback, TLS with a
# certificate authority of their own, and two puffd (two "machines", each with its own bus, vault
# and token): A talks to node 1, B to node 2 (a standby, which forwards to the active node). Then:
#   1. writes through each (secret-tool store; p50/p90 in ms, the client's own start included),
#   2. the active node killed: how long until B writes again; A (whose node is gone) says offline,
#   3. node 1 started and unsealed again: how long until A has B's write, and writes again.
# Prints one line per measure. Needs the venv's `bao` (make venv), a debug or release build, and
# openssl, dbus-daemon and secret-tool. Everything it starts is stopped on exit.
#
#   bench/openbao-cluster.sh [--writes N] [--bin DIR]
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
bao="$root/.build/venv/bin/bao"
bin="$root/.build/debug"
writes=40
while [ $# -gt 0 ]; do
    case "$1" in
    --writes) writes="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
for tool in "$bao" "$bin/puffd" "$bin/puffctl"; do
    [ -x "$tool" ] || { echo "missing $tool (make venv; swift build)" >&2; exit 2; }
done

work="$(mktemp -d /tmp/puff-cluster.XXXXXX)"
chmod 700 "$work"
cleanup() {
    pkill -f "$work/" 2>/dev/null || true
    sleep 0.5
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

now_ms() { echo $(($(date +%s%N) / 1000000)); }
percentiles() { sort -n | awk '{a[NR]=$1} END {printf "p50 %d ms, p90 %d ms, max %d ms", a[int((NR+1)/2)], a[int(NR*0.9)], a[NR]}'; }
port() { echo $((base + $1 * 10)); }
node_addr() { echo "https://127.0.0.1:$(port "$1")"; }
on() { local m=$1; shift; DBUS_SESSION_BUS_ADDRESS="unix:path=$work/$m/bus" HOME="$work/$m" "$@"; }

# The certificate authority and one certificate for 127.0.0.1 that every node serves.
cd "$work"
printf '[req]\ndistinguished_name=dn\n[dn]\n[ext]\nsubjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n' >tls.cnf
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem -days 1 \
    -subj "/CN=puff cluster CA" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout node.key -out node.csr \
    -subj "/CN=127.0.0.1" -config tls.cnf 2>/dev/null
openssl x509 -req -in node.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out node.pem -days 1 \
    -extfile tls.cnf -extensions ext 2>/dev/null
export BAO_CACERT="$work/ca.pem"

base=$((20000 + RANDOM % 20000))
start_node() {
    "$bao" server -config "$work/n$1.hcl" >>"$work/n$1.log" 2>&1 &
}
for i in 1 2 3; do
    mkdir -p "n$i"
    {
        echo "storage \"raft\" {"
        echo "  path = \"$work/n$i\""
        echo "  node_id = \"n$i\""
        for j in 1 2 3; do
            echo "  retry_join { leader_api_addr = \"$(node_addr $j)\"  leader_ca_cert_file = \"$work/ca.pem\" }"
        done
        echo "}"
        echo "listener \"tcp\" {"
        echo "  address = \"127.0.0.1:$(port $i)\""
        echo "  cluster_address = \"127.0.0.1:$(($(port $i) + 1))\""
        echo "  tls_cert_file = \"$work/node.pem\""
        echo "  tls_key_file = \"$work/node.key\""
        echo "}"
        echo "api_addr = \"$(node_addr $i)\""
        echo "cluster_addr = \"https://127.0.0.1:$(($(port $i) + 1))\""
        echo "disable_mlock = true"
    } >"n$i.hcl"
    start_node "$i"
done

# Polls `command` every 0.2 s for at most `limit` seconds; the elapsed ms on stdout.
wait_for() {
    local limit=$1; shift
    local began; began=$(now_ms)
    while ! "$@" >/dev/null 2>&1; do
        [ $(($(now_ms) - began)) -lt $((limit * 1000)) ] || { echo "gave up after ${limit} s: $*" >&2; return 1; }
        sleep 0.2
    done
    echo $(($(now_ms) - began))
}
answers() { curl -s -o /dev/null --cacert "$work/ca.pem" "$(node_addr "$1")/v1/sys/health"; }
unsealed() { curl -s --cacert "$work/ca.pem" "$(node_addr "$1")/v1/sys/health" | grep -q '"sealed":false'; }
for i in 1 2 3; do wait_for 60 answers "$i" >/dev/null; done
BAO_ADDR=$(node_addr 1) "$bao" operator init -key-shares=1 -key-threshold=1 -format=json >init.json
unseal_key=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["unseal_keys_b64"][0])' init.json)
export BAO_TOKEN
BAO_TOKEN=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["root_token"])' init.json)
unseal() { BAO_ADDR=$(node_addr "$1") "$bao" operator unseal "$unseal_key" >/dev/null; }
unseal 1
wait_for 60 unsealed 1 >/dev/null
# The others join node 1 (retry_join) once they have the unseal key, which they refuse ("not
# initialized") until their join has begun: offered again until they are unsealed.
joined() { unseal "$1" 2>/dev/null || true; unsealed "$1"; }
for i in 2 3; do wait_for 120 joined "$i" >/dev/null; done
# Autopilot makes them voters once they have been healthy a while (10 s): without three voters,
# killing node 1 leaves no quorum and no leader.
voters() { [ "$(BAO_ADDR=$(node_addr 1) "$bao" operator raft list-peers 2>/dev/null | grep -c 'true$')" = 3 ]; }
wait_for 180 voters >/dev/null
export BAO_ADDR
BAO_ADDR=$(node_addr 1)
wait_for 60 "$bao" secrets enable -path=secret kv-v2 >/dev/null
"$bao" policy write puff-fleet - >/dev/null <<'EOF'
path "secret/data/puff/*" { capabilities = ["create", "read", "update"] }
path "secret/metadata/puff/*" { capabilities = ["read", "list"] }
EOF

# Two machines: A on node 1 (the active one now), B on node 2 (a standby).
for m in a b; do
    node=$([ $m = a ] && echo 1 || echo 2)
    mkdir -m 700 "$m"
    "$bao" token create -policy=puff-fleet -field=token >"$m/token"
    chmod 600 "$m/token"
    printf '[vault]\ndata_dir = "%s"\nkdf = "interactive"\n[store.openbao]\naddress = "%s"\ntoken_file = "%s"\nca_file = "%s"\npoll_interval = 1\n' \
        "$work/$m/vault" "$(node_addr $node)" "$work/$m/token" "$work/ca.pem" >"$m/puffd.toml"
    dbus-daemon --session --fork --address="unix:path=$work/$m/bus" 2>/dev/null
    HOME="$work/$m" "$bin/puffd" --config "$work/$m/puffd.toml" --address "unix:path=$work/$m/bus" \
        --prompter none --login-socket none --system-bus-address "unix:path=$work/no-system-bus" \
        >"$m/puffd.log" 2>&1 &
    wait_for 60 on $m "$bin/puffctl" status >/dev/null
    echo "machine pass" | on $m "$bin/puffctl" init --stdin >/dev/null
done
echo "team pass" | on a "$bin/puffctl" collection create team --store openbao --stdin >/dev/null
echo "team pass" | on b "$bin/puffctl" collection attach team --store openbao --stdin >/dev/null
collection=/org/freedesktop/secrets/collection/team
store() { printf '%s' "$3" | on "$1" secret-tool store --label="$2" --collection=$collection n "$2"; }
found() { on "$1" secret-tool lookup n "$2" | grep -q .; }

# 1. Writes through the active node and through a standby.
for m in a b; do
    took=$(for i in $(seq 1 "$writes"); do
        began=$(now_ms)
        store $m "$m$i" "secret $m$i"
        echo $(($(now_ms) - began))
    done | percentiles)
    echo "writes through $([ $m = a ] && echo 'the active node' || echo 'a standby') ($writes secret-tool store): $took"
done
looked=$(for i in $(seq 1 "$writes"); do
    began=$(now_ms)
    on a secret-tool lookup n "a$i" >/dev/null
    echo $(($(now_ms) - began))
done | percentiles)
echo "reads (secret-tool lookup, from the local copy): $looked"

# 2. The active node killed.
pkill -f "$work/n1.hcl"
ms=$(wait_for 120 store b "after failover" "written on b")
echo "node 1 (active) killed: B writes again after $ms ms"
if store a "while down" "x" 2>"$work/a-error"; then
    echo "A wrote with its node down: unexpected" >&2
    exit 1
fi
echo "A, whose node is down: $(head -c 160 "$work/a-error")..."
found a a1 && echo "A still reads its copy"

# 3. Node 1 back.
start_node 1
wait_for 60 answers 1 >/dev/null
unseal 1
ms=$(wait_for 120 found a "after failover")
echo "node 1 back and unsealed: A has B's write after $ms ms"
store a "a back" "y"
ms=$(wait_for 60 found b "a back")
echo "A writes again (node 1 now a standby); B has it after $ms ms"
BAO_ADDR=$(node_addr 2) "$bao" operator raft list-peers
