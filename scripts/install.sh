#!/usr/bin/env bash
# `make install` / `make uninstall` after the build: copies puffctl, puffd, the man pages, puffctl's
# shell completions, the D-Bus interface files, the D-Bus activation file, the Secret portal's
# backend file (share/xdg-desktop-portal/portals/puff.portal), the systemd user unit and
# its login socket (enabled by a link in sockets.target.wants),
# and pam_puff.so with its pam-auth-update profile under DESTDIR + PREFIX. The Debian packages are
# made from this same tree (packaging/debian/rules runs `make install`).
#
#   BIN=DIR scripts/install.sh              install from DIR (holding the built puffctl and puffd)
#   scripts/install.sh --uninstall          remove what install put there
#   scripts/install.sh --list               print the paths install writes (under DESTDIR)
#
# Variables: PREFIX (default /usr/local), DESTDIR (default empty: the running system),
# ZSH_COMPLETION_DIR (default: share/zsh/vendor-completions under /usr, as Debian's zsh reads it,
# otherwise share/zsh/site-functions, which zsh reads under any prefix it was built for),
# PAM_MODULE (the built pam_puff.so, default .build/pam/pam_puff.so: `make pam`) and MULTIARCH
# (default: dpkg-architecture's DEB_HOST_MULTIARCH, else gcc -print-multiarch), which names the
# folder lib/MULTIARCH/security the module goes to.
#
# The activation file is installed as io.puff.Secrets.service (its Name= is
# org.freedesktop.secrets), so that it lies beside gnome-keyring's org.freedesktop.secrets.service
# rather than over it; packaging/README.md says which of the two the bus starts. The PAM profile
# goes to share/pam-configs/puff, which pam-auth-update reads only under /usr; it is off by default.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
prefix="${PREFIX:-/usr/local}"
dest="${DESTDIR:-}"
share="$prefix/share"
multiarch="${MULTIARCH:-$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)}"
[ -n "$multiarch" ] || { echo "MULTIARCH is empty: set it (for example x86_64-linux-gnu)" >&2; exit 1; }
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
    "$share/dbus-1/services/io.puff.Secrets.service"
    "$share/dbus-1/services/io.puff.Control.service"
    "$share/xdg-desktop-portal/portals/puff.portal"
    "$prefix/lib/systemd/user/puffd.service"
    "$prefix/lib/systemd/user/puff-login.socket"
    "$prefix/lib/systemd/user/sockets.target.wants/puff-login.socket"
    "$prefix/lib/$multiarch/security/pam_puff.so"
    "$share/pam-configs/puff"
)

if [ "${1:-}" = --list ]; then
    printf '%s\n' "${files[@]}"
    exit 0
fi
if [ "${1:-}" = --uninstall ]; then
    for file in "${files[@]}"; do rm -f "$dest$file"; done
    rmdir "$dest$prefix/libexec/puff" "$dest$prefix/lib/systemd/user/sockets.target.wants" 2>/dev/null || true
    rmdir "$dest$share/xdg-desktop-portal/portals" "$dest$share/xdg-desktop-portal" 2>/dev/null || true
    exit 0
fi

bin="${BIN:?BIN must name the folder holding the built puffctl}"
[ -x "$bin/puffctl" ] || { echo "no $bin/puffctl: build first (make install does)" >&2; exit 1; }
pam_module="${PAM_MODULE:-$root/.build/pam/pam_puff.so}"
[ -f "$pam_module" ] || { echo "no $pam_module: build it first (make pam; make install does)" >&2; exit 1; }

put() { # MODE SOURCE DESTINATION
    install -D -m "$1" "$2" "$dest$3"
}
put 0755 "$bin/puffctl" "$prefix/bin/puffctl"
# puffd is puffctl started under that name (Sources/puffctl/main.swift): a hard link, so the program
# and its static Swift runtime are on disk once (issue 27 item 10), and /proc/PID/exe still names
# libexec/puff/puffd. A copy where bin and libexec are on different file systems.
mkdir -p "$dest$prefix/libexec/puff"
rm -f "$dest$prefix/libexec/puff/puffd"
ln "$dest$prefix/bin/puffctl" "$dest$prefix/libexec/puff/puffd" 2>/dev/null ||
    put 0755 "$bin/puffctl" "$prefix/libexec/puff/puffd"
put 0644 "$root/docs/man/puffctl.1" "$share/man/man1/puffctl.1"
put 0644 "$root/docs/man/puffd.8" "$share/man/man8/puffd.8"

# Completions come from the puffctl being installed, so they always match its commands.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for shell in bash zsh fish; do
    "$bin/puffctl" --generate-completion-script "$shell" >"$work/$shell"
    [ -s "$work/$shell" ] || { echo "puffctl wrote no $shell completion script" >&2; exit 1; }
done
# bash sources a completion file: it needs no #! line (lintian: bash-completion-with-hashbang).
sed -i '1{/^#!/d}' "$work/bash"
put 0644 "$work/bash" "$share/bash-completion/completions/puffctl"
put 0644 "$work/zsh" "$zsh_dir/_puffctl"
put 0644 "$work/fish" "$share/fish/vendor_completions.d/puffctl.fish"

put 0644 "$root/dbus/io.puff.Control1.xml" "$share/dbus-1/interfaces/io.puff.Control1.xml"
put 0644 "$root/dbus/io.puff.Agent1.xml" "$share/dbus-1/interfaces/io.puff.Agent1.xml"

# The activation file and the unit name puffd where this prefix puts it.
for template in org.freedesktop.secrets.service io.puff.Control.service puffd.service; do
    sed "s|@libexecdir@|$prefix/libexec|g" "$root/dbus/$template.in" >"$work/$template"
    if grep -q '@[a-z]*@' "$work/$template"; then echo "dbus/$template.in: a @variable@ is left" >&2; exit 1; fi
done
put 0644 "$work/org.freedesktop.secrets.service" "$share/dbus-1/services/io.puff.Secrets.service"
put 0644 "$work/io.puff.Control.service" "$share/dbus-1/services/io.puff.Control.service"
# xdg-desktop-portal 1.16 reads .portal files only from /usr/share/xdg-desktop-portal/portals (or
# $XDG_DESKTOP_PORTAL_DIR), so under another prefix the file is there for a person to point at.
put 0644 "$root/dbus/puff.portal" "$share/xdg-desktop-portal/portals/puff.portal"
put 0644 "$work/puffd.service" "$prefix/lib/systemd/user/puffd.service"
# The login socket is on for every user (a link, as dbus-user-session enables dbus.socket): the PAM
# module's connection then starts puffd.service instead of a puffd outside the unit (docs/pam.md).
put 0644 "$root/dbus/puff-login.socket" "$prefix/lib/systemd/user/puff-login.socket"
mkdir -p "$dest$prefix/lib/systemd/user/sockets.target.wants"
ln -sfn ../puff-login.socket "$dest$prefix/lib/systemd/user/sockets.target.wants/puff-login.socket"

put 0644 "$pam_module" "$prefix/lib/$multiarch/security/pam_puff.so"
put 0644 "$root/pam/pam-configs/puff" "$share/pam-configs/puff"
echo "installed puffctl and puffd under ${dest}${prefix}"
