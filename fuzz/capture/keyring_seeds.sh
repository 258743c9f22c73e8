#!/bin/bash
# Drive puffd with python3-keyring (module and CLI) for fuzz/capture-seeds.sh.
# Dummy values only.
set -u
PY=/usr/bin/python3
export PYTHON_KEYRING_BACKEND=keyring.backends.SecretService.Keyring
$PY -c '
import keyring
keyring.set_password("puff-fuzz", "alice", "s3cret")
print(keyring.get_password("puff-fuzz", "alice") == "s3cret")
c = keyring.get_credential("puff-fuzz", None)
print(c is not None)
keyring.delete_password("puff-fuzz", "alice")
print(keyring.get_password("puff-fuzz", "alice"))
' || true
printf 's3cret\n' | $PY -m keyring set puff-fuzz-cli bob || true
$PY -m keyring get puff-fuzz-cli bob >/dev/null || true
$PY -m keyring del puff-fuzz-cli bob || true
