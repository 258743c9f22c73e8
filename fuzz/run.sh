#!/bin/bash
# `make fuzz`: build the libFuzzer target PuffFuzzDecode and fuzz WireCodec.decode (docs/fuzzing.md).
#
#   FUZZ_SECONDS=600 fuzz/run.sh [extra libFuzzer flags...]
#
# Builds in .build-fuzz (never .build), with -sanitize=fuzzer,address and -DPUFF_FUZZ. The fuzzer
# reads the seeds in fuzz/corpus/decode but writes new inputs only to .build-fuzz/corpus (kept
# between runs; delete it for a fresh start) and a crashing input to .build-fuzz/artifacts/.
# Exits non-zero when libFuzzer finds a crash, leak, timeout or out-of-memory input.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
SECONDS_TO_RUN=${FUZZ_SECONDS:-600}
SCRATCH=.build-fuzz
WORK=$SCRATCH/corpus
ARTIFACTS=$SCRATCH/artifacts
LOG=$SCRATCH/fuzz.log
BUILD=(-c release --scratch-path "$SCRATCH" --product PuffFuzzDecode
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DPUFF_FUZZ)

"$SWIFT" build "${BUILD[@]}"
BIN="$("$SWIFT" build "${BUILD[@]}" --show-bin-path)/PuffFuzzDecode"
mkdir -p "$WORK" "$ARTIFACTS"
before=$(find "$ARTIFACTS" -type f | wc -l)

# Swift's own crash backtracer would run inside the ASan process and get in libFuzzer's way;
# libFuzzer and ASan print the stack instead.
export SWIFT_BACKTRACE=enable=no
echo "fuzzing for ${SECONDS_TO_RUN}s; log in $LOG"
set +e
"$BIN" "$WORK" fuzz/corpus/decode \
    -dict=fuzz/decode.dict \
    -max_len=65536 \
    -rss_limit_mb=2048 \
    -timeout=30 \
    -max_total_time="$SECONDS_TO_RUN" \
    -artifact_prefix="$ARTIFACTS/" \
    -print_final_stats=1 \
    "$@" 2>&1 | tee "$LOG"
status=${PIPESTATUS[0]}
set -e

echo "work corpus: $(find "$WORK" -type f | wc -l) inputs, $(find "$WORK" -type f -exec cat {} + | wc -c) bytes in $WORK"
after=$(find "$ARTIFACTS" -type f | wc -l)
if [ "$status" -ne 0 ] || [ "$after" -gt "$before" ]; then
    echo "libFuzzer exited with status $status; crash inputs:"
    find "$ARTIFACTS" -type f -newer "$BIN" -print
    echo "reproduce: $BIN FILE   or, without sanitizers: swift build --product PuffFuzzDecode &&"
    echo "           \"\$(swift build --show-bin-path)/PuffFuzzDecode\" FILE"
    exit "$((status == 0 ? 1 : status))"
fi
