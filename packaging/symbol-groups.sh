#!/usr/bin/env bash
# Prints how much of an unstripped binary each group of symbols takes (nm -S sizes, MB), for
# packaging/README.md's size table: ICU data, ICU code, Foundation's three modules, other C++,
# the Swift runtime and standard library, and the rest.
#   packaging/symbol-groups.sh BINARY...
set -euo pipefail
for binary in "$@"; do
    printf '%s: %.1f MB file\n' "$binary" "$(echo "$(stat -c %s "$binary") / 1000000" | bc -l)"
    nm -S -t d --defined-only "$binary" 2>/dev/null | awk '
        NF == 4 {
            size = $2 + 0; name = $4
            if (name ~ /^icudt/) group = "ICU data"
            else if (name ~ /icu_[0-9]+/) group = "ICU code"
            else if (name ~ /FoundationInternationalization/) group = "FoundationInternationalization"
            else if (name ~ /FoundationEssentials/) group = "FoundationEssentials"
            else if (name ~ /_FoundationCollections/) group = "_FoundationCollections"
            else if (name ~ /^\$s10Foundation/) group = "Foundation"
            else if (name ~ /^_Z/) group = "other C++"
            else if (name ~ /^\$ss|^swift_|^_swift/) group = "Swift runtime and stdlib"
            else group = "rest"
            total[group] += size
        }
        END {
            for (group in total) printf "  %-32s %6.2f MB\n", group, total[group] / 1000000
        }' | sort -k1,1
done
