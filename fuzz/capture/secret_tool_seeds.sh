#!/bin/bash
# Drive puffd with libsecret's secret-tool for fuzz/capture-seeds.sh.
# Dummy values only. With `--lock`, only `secret-tool lock` and a lookup of the
# now locked collection (capture-seeds.sh runs that last, since puffd's `none`
# prompter never unlocks; secret-tool 0.20.5 may crash in its own cleanup after
# a successful Lock, which is fine here).
set -u
st() { timeout 10 secret-tool "$@"; }
if [ "${1:-}" = --lock ]; then
    st lock >/dev/null 2>&1
    st lookup service example.com case empty >/dev/null
    exit 0
fi
printf 's3cret' | st store --label='Puff seed' service example.com user alice
printf 's3cret ✓' | st store --label='Ünïcødé ✓ 🗝' service example.com 'ключ' 'значение ✓'
st store --label='Puff empty' service example.com case empty </dev/null
st lookup service example.com user alice >/dev/null
st lookup service example.com user nobody >/dev/null
st search service example.com >/dev/null 2>&1
st search --all service example.com >/dev/null 2>&1
st search --all --unlock service example.com >/dev/null 2>&1
st clear service example.com user alice
st clear service example.com user alice
exit 0
