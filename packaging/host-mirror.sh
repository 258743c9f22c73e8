# shellcheck shell=bash
# host_mirror SUITE: the http(s) mirrors of Debian (not debian-security) in this machine's apt
# sources that serve SUITE, from deb822 .sources files or one-line sources.list files, first one
# first. Sourced by check-chroot.sh and check-system.sh, which debootstrap from the first.
host_mirror() {
    local suite="$1" file
    for file in /etc/apt/sources.list.d/*.sources; do
        [ -f "$file" ] || continue
        awk -v suite="$suite" '
            function flush() { if (uris != "" && suites ~ "(^| )" suite "( |$)") { n = split(uris, u, " "); for (i = 1; i <= n; i++) if (u[i] !~ /security/) { print u[i]; exit } } uris = ""; suites = "" }
            /^[[:space:]]*$/ { flush(); next }
            /^URIs:/ { sub(/^URIs:[[:space:]]*/, ""); uris = $0 }
            /^Suites:/ { sub(/^Suites:[[:space:]]*/, ""); suites = $0 }
            END { flush() }' "$file"
    done
    { cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true; } |
        awk -v suite="$suite" '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /=/ && $i !~ /\]$/) break; if ($(i + 1) == suite && $i !~ /security/) print $i }'
}
