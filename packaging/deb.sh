#!/usr/bin/env bash
# `make deb`: Puff's Debian packages, puff and libpam-puff, with dpkg-buildpackage -b -us -uc.
#
# dpkg-buildpackage wants debian/ at the top of a source tree and writes its results beside that
# tree, so the tree is staged: the files git knows (tracked, or new and not ignored) are copied into
# DEB_WORK/puff with packaging/debian as debian/, and the packages come out in DEB_WORK. Only files
# that differ are copied, and the staged tree keeps its .build, so a second `make deb` rebuilds
# only what changed (SwiftPM's build system sees a copied file as new). The .deb, .changes and
# .buildinfo files are then copied to DEB_DIR, the fixed place the checks and tests take them from.
#
# Variables: DEB_DIR (default .build/deb), DEB_WORK (default .build/deb-work), SWIFT (the swift
# driver, passed through to the build). The Swift toolchain is not a Debian package, so
# Build-Depends cannot name it: swift must be on PATH.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
deb_dir="$root/${DEB_DIR:-.build/deb}"
work="$root/${DEB_WORK:-.build/deb-work}"
stage="$work/puff"
command -v "${SWIFT:-swift}" >/dev/null || { echo "swift is not on PATH" >&2; exit 1; }

version="$(dpkg-parsechangelog -l packaging/debian/changelog -SVersion)"
arch="$(dpkg-architecture -qDEB_HOST_ARCH)"

# The tree to stage: what git knows, less the build folders; packaging/debian also becomes debian/.
mkdir -p "$stage"
list="$work/files"
git ls-files -z --cached --others --exclude-standard | tr '\0' '\n' | grep -v '^\.build' | sort >"$list.source"
sed -n 's|^packaging/debian/|debian/|p' "$list.source" >"$list.debian"
sort -u "$list.source" "$list.debian" >"$list"
copy() { # SOURCE DESTINATION (relative to root and stage)
    if ! cmp -s "$root/$1" "$stage/$2"; then
        mkdir -p "$(dirname "$stage/$2")"
        rm -f "$stage/$2"
        cp -p "$root/$1" "$stage/$2"
    fi
}
while IFS= read -r file; do
    [ -f "$file" ] || continue # deleted in the work tree, not yet in the index
    copy "$file" "$file"
done <"$list.source"
while IFS= read -r file; do
    copy "packaging/${file}" "$file"
done <"$list.debian"
# Files of an earlier staging that are gone from the tree go from the stage too (so does what the
# last build left in debian/, which debian/rules clean would remove anyway).
(cd "$stage" && find . -path ./.build -prune -o \( -type f -o -type l \) -print) | sed 's|^\./||' | sort |
    comm -23 - "$list" | while IFS= read -r stale; do rm -f "$stage/$stale"; done

rm -f "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo
start=$SECONDS
(cd "$stage" && dpkg-buildpackage -b -us -uc)
echo "dpkg-buildpackage took $((SECONDS - start)) s"

mkdir -p "$deb_dir"
rm -f "$deb_dir"/*.deb "$deb_dir"/*.changes "$deb_dir"/*.buildinfo
for package in puff libpam-puff; do
    file="$work/${package}_${version}_${arch}.deb"
    [ -f "$file" ] || { echo "dpkg-buildpackage made no $file" >&2; exit 1; }
done
cp "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$deb_dir/"
ls -l "$deb_dir"
