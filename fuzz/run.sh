#!/bin/bash
# `make fuzz`: build the libFuzzer targets and fuzz them, one after the other (docs/fuzzing.md).
#
#   FUZZ_TARGET=decode|vault|formats|all FUZZ_SECONDS=600 fuzz/run.sh [extra libFuzzer flags...]
#
#   decode  PuffFuzzDecode: WireCodec.decode, puffd's D-Bus message decoder.
#   vault   PuffFuzzVault: the vault reader (journal framing, header, catalog, records, payloads,
#           opening with a fixed key), seeded with the golden vault in Tests/PuffServiceTests/Fixtures.
#   formats PuffFuzzFormats: the foreign-format readers an import runs (gnome-keyring binary and
#           textual, libsecret, KDBX 3.1/4, Bitwarden JSON) with tiny KDF bounds, seeded by the
#           writers' files.
#   all     all three (the default), FUZZ_SECONDS each.
#
# Builds in .build-fuzz (never .build), with -sanitize=fuzzer,address and -DPUFF_FUZZ. Each fuzzer
# reads its seeds (fuzz/corpus/<target>, and for vault the golden vault) but writes new inputs only
# to its work corpus under .build-fuzz (kept between runs; delete it for a fresh start) and a
# crashing input to .build-fuzz/artifacts/. Exits non-zero when libFuzzer finds a crash, leak,
# timeout or out-of-memory input in any target.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
SECONDS_TO_RUN=${FUZZ_SECONDS:-600}
TARGET=${FUZZ_TARGET:-all}
SCRATCH=.build-fuzz
ARTIFACTS=$SCRATCH/artifacts

case "$TARGET" in
    decode | vault | formats) targets=("$TARGET") ;;
    all) targets=(decode vault formats) ;;
    *) echo "FUZZ_TARGET must be decode, vault, formats or all, not '$TARGET'" >&2; exit 2 ;;
esac

# Swift's own crash backtracer would run inside the ASan process and get in libFuzzer's way;
# libFuzzer and ASan print the stack instead.
export SWIFT_BACKTRACE=enable=no
# Objects Swift globals hold look leaked to LeakSanitizer's exit scan (fuzz/lsan.supp says why).
export LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# fuzz_target NAME: builds and runs one target; returns libFuzzer's status (1 if it left a crash).
fuzz_target() {
    local product work log seeds flags
    case "$1" in
        decode)
            # As before the vault target existed: same work corpus, log and flags.
            product=PuffFuzzDecode work=$SCRATCH/corpus log=$SCRATCH/fuzz.log
            seeds=(fuzz/corpus/decode) flags=(-dict=fuzz/decode.dict -artifact_prefix="$ARTIFACTS/") ;;
        vault)
            product=PuffFuzzVault work=$SCRATCH/corpus-vault log=$SCRATCH/fuzz-vault.log
            # Every golden vault there is (vault-v1, -v2, and the slotted vault-v3 once written).
            seeds=(fuzz/corpus/vault Tests/PuffServiceTests/Fixtures/vault-v*)
            flags=(-dict=fuzz/vault.dict -artifact_prefix="$ARTIFACTS/vault-") ;;
        formats)
            product=PuffFuzzFormats work=$SCRATCH/corpus-formats log=$SCRATCH/fuzz-formats.log
            seeds=(fuzz/corpus/formats) flags=(-artifact_prefix="$ARTIFACTS/formats-") ;;
    esac
    local build=(-c release --scratch-path "$SCRATCH" --product "$product"
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -DPUFF_FUZZ)
    # Called in `||`, so `set -e` does not apply here: every step checks for itself.
    "$SWIFT" build "${build[@]}" || return 1
    local bin
    bin="$("$SWIFT" build "${build[@]}" --show-bin-path)/$product" || return 1
    mkdir -p "$work" "$ARTIFACTS"
    local before after status
    before=$(find "$ARTIFACTS" -type f | wc -l)
    echo "fuzzing $product for ${SECONDS_TO_RUN}s; log in $log"
    set +e
    "$bin" "$work" "${seeds[@]}" \
        "${flags[@]}" \
        -max_len=65536 \
        -rss_limit_mb=2048 \
        -timeout=30 \
        -max_total_time="$SECONDS_TO_RUN" \
        -print_final_stats=1 \
        "${EXTRA[@]}" 2>&1 | tee "$log"
    status=${PIPESTATUS[0]}
    set -e
    echo "$product work corpus: $(find "$work" -type f | wc -l) inputs," \
        "$(find "$work" -type f -exec cat {} + | wc -c) bytes in $work"
    after=$(find "$ARTIFACTS" -type f | wc -l)
    if [ "$status" -ne 0 ] || [ "$after" -gt "$before" ]; then
        echo "libFuzzer exited with status $status; crash inputs:"
        find "$ARTIFACTS" -type f -newer "$bin" -print
        echo "reproduce: $bin FILE   or, without sanitizers: swift build --product $product &&"
        echo "           \"\$(swift build --show-bin-path)/$product\" FILE"
        return "$((status == 0 ? 1 : status))"
    fi
}

EXTRA=("$@")
result=0
for target in "${targets[@]}"; do
    fuzz_target "$target" || result=$?
done
exit "$result"
