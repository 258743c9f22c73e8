#!/usr/bin/env bash
# `make man` / `make check-man`: puffctl(1) and puffd(8) from the argument-parser definitions,
# through swift-argument-parser's generate-manual plugin (which runs each built executable with
# --experimental-dump-help). One page per program, subcommands included.
#
#   scripts/man.sh DIR          write DIR/puffctl.1 and DIR/puffd.8
#   scripts/man.sh --check DIR  fail when DIR's pages differ from what the definitions generate now
#
# MAN_DATE (yyyy-mm-dd) is the date the pages show; it is fixed so that a page changes only when
# its definitions do. SWIFT names the swift driver.
set -euo pipefail
cd "$(dirname "$0")/.."
swift="${SWIFT:-swift}"
date="${MAN_DATE:?MAN_DATE (yyyy-mm-dd) must be set}"
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
dest="${1:?usage: scripts/man.sh [--check] DIR}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
outputs=.build/plugins/GenerateManual/outputs
# The plugin gives every program the same --section, so it runs once per section.
for page in puffctl.1 puffd.8; do
    name="${page%.*}" section="${page##*.}"
    if ! "$swift" package plugin generate-manual --configuration debug --date "$date" --section "$section" \
        >"$work/plugin.log" 2>&1; then
        cat "$work/plugin.log" >&2
        exit 1
    fi
    cp "$outputs/$name/$page" "$work/$page"
done

status=0
for page in puffctl.1 puffd.8; do
    if [ "$check" = 1 ]; then
        if ! diff -u "$dest/$page" "$work/$page" >"$work/diff" 2>&1; then
            head -40 "$work/diff" >&2
            echo "$dest/$page is stale: it differs from what the current definitions generate." >&2
            echo "Regenerate it with \`make man\` (or \`make snapshots\` for the help texts too) and commit it." >&2
            status=1
        else
            echo "$dest/$page matches the current definitions"
        fi
    else
        mkdir -p "$dest"
        cp "$work/$page" "$dest/$page"
        echo "wrote $dest/$page"
    fi
done
exit "$status"
