#!/usr/bin/env bash
# `make install` / `make uninstall` after the build: copies puffctl, puffd, the man pages, puffctl's
# shell completions and the D-Bus interface files under DESTDIR + PREFIX.
#
#   BIN=DIR scripts/install.sh              install from DIR (holding the built puffctl and puffd)
#   scripts/install.sh --uninstall          remove what install put there
#   scripts/install.sh --list               print the paths install writes (under DESTDIR)
#
# Variables: PREFIX (default /usr/local), DESTDIR (default empty: the running system), and
# ZSH_COMPLETION_DIR (default: share/zsh/vendor-completions under /usr, as Debian's zsh reads it,
# otherwise share/zsh/site-functions, which zsh reads under any prefix it was built for).
#
# Nothing here registers puffd with the bus: `puffctl doctor` prints the activation file that
# makes the bus start it, and the Debian package will ship one (packaging/README.md).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
prefix="${PREFIX:-/usr/local}"
dest="${DESTDIR:-}"
share="$prefix/share"
if [ "$prefix" = /usr ]; then zsh_default="$share/zsh/vendor-completions"; else zsh_default="$share/zsh/site-functions"; fi
zsh_dir="${ZSH_COMPLETION_DIR:-$zsh_default}"

# Every file install puts down (under DESTDIR), for --uninstall.
files=(
    "$prefix/bin/puffctl"
    "$prefix/libexec/puff/puffd"
    "$share/man/man1/puffctl.1"
    "$share/man/man8/puffd.8"
    "$share/bash-completion/completions/puffctl"
    "$zsh_dir/_puffctl"
    "$share/fish/vendor_completions.d/puffctl.fish"
    "$share/dbus-1/interfaces/io.puff.Control1.xml"
    "$share/dbus-1/interfaces/io.puff.Agent1.xml"
)

if [ "${1:-}" = --list ]; then
    printf '%s\n' "${files[@]}"
    exit 0
fi
if [ "${1:-}" = --uninstall ]; then
    for file in "${files[@]}"; do rm -f "$dest$file"; done
    rmdir "$dest$prefix/libexec/puff" 2>/dev/null || true
    exit 0
fi

bin="${BIN:?BIN must name the folder holding the built puffctl and puffd}"
for program in puffctl puffd; do
    [ -x "$bin/$program" ] || { echo "no $bin/$program: build first (make install does)" >&2; exit 1; }
done

put() { # MODE SOURCE DESTINATION
    install -D -m "$1" "$2" "$dest$3"
}
put 0755 "$bin/puffctl" "$prefix/bin/puffctl"
put 0755 "$bin/puffd" "$prefix/libexec/puff/puffd"
put 0644 "$root/docs/man/puffctl.1" "$share/man/man1/puffctl.1"
put 0644 "$root/docs/man/puffd.8" "$share/man/man8/puffd.8"

# Completions come from the puffctl being installed, so they always match its commands.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for shell in bash zsh fish; do
    "$bin/puffctl" --generate-completion-script "$shell" >"$work/$shell"
    [ -s "$work/$shell" ] || { echo "puffctl wrote no $shell completion script" >&2; exit 1; }
done
put 0644 "$work/bash" "$share/bash-completion/completions/puffctl"
put 0644 "$work/zsh" "$zsh_dir/_puffctl"
put 0644 "$work/fish" "$share/fish/vendor_completions.d/puffctl.fish"

put 0644 "$root/dbus/io.puff.Control1.xml" "$share/dbus-1/interfaces/io.puff.Control1.xml"
put 0644 "$root/dbus/io.puff.Agent1.xml" "$share/dbus-1/interfaces/io.puff.Agent1.xml"
echo "installed puffctl and puffd under ${dest}${prefix}"
