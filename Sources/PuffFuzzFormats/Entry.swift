// SPDX-License-Identifier: Apache-2.0
//
// Two entry points over ForeignFormatsFuzzing.run (docs/fuzzing.md), their shared body in
// PuffFuzzing:
// - built with `-DPUFF_FUZZ -sanitize=fuzzer` (`make fuzz`): libFuzzer's LLVMFuzzerTestOneInput
//   and a `main` that runs libFuzzer's driver; in that build every key-derivation bound
//   (ForeignKDFLimits) is tiny, so no input spends long in a KDF;
// - the normal build: a replay tool, `PuffFuzzFormats [-v] FILE|DIR...`, which runs each file
//   (each regular file of a directory) and exits 0 when none trapped, and
//   `PuffFuzzFormats --write-seeds DIR`, which writes the generated seeds.

import PuffFormats
import PuffFuzzing

#if PUFF_FUZZ
    /// libFuzzer's per-input callback: a reader that traps makes libFuzzer save the input.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzFormats(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        ForeignFormatsFuzzing.run(FuzzMain.bytes(data, size))
        return 0
    }

    /// Hands the command line to libFuzzer.
    @main
    enum Fuzz {
        static func main() { FuzzMain.runLibFuzzer(fuzzFormats) }
    }
#else
    /// Replays saved inputs (a corpus, a crash file) through the readers.
    @main
    enum Replay {
        static func main() {
            FuzzMain.replay(
                FuzzReplayTarget(
                    name: "PuffFuzzFormats", checks: "the foreign-format readers", seeds: ForeignFormatsFuzzing.seeds
                ) { ForeignFormatsFuzzing.run($0) })
        }
    }
#endif
