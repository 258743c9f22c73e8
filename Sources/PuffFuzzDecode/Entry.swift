// SPDX-License-Identifier: Apache-2.0
//
// Two entry points over DecodeCheck.run (docs/fuzzing.md), their shared body in PuffFuzzing:
// - built with `-DPUFF_FUZZ -sanitize=fuzzer` (`make fuzz`): libFuzzer's LLVMFuzzerTestOneInput,
//   which traps on a broken invariant so libFuzzer saves the input, and a `main` that runs
//   libFuzzer's driver;
// - the normal build: a replay tool, `PuffFuzzDecode [-v] FILE|DIR...`, which runs each file (each
//   regular file of a directory) through the same checks, all of them, and exits 1 if any failed;
//   -v prints each file's outcome.

import PuffFuzzing

#if PUFF_FUZZ
    /// libFuzzer's per-input callback: traps on a broken invariant so libFuzzer saves the input.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzDecode(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        do {
            _ = try DecodeCheck.run(FuzzMain.bytes(data, size))
        } catch {
            fatalError("PuffFuzzDecode: \(error)")
        }
        return 0
    }

    /// Hands the command line to libFuzzer.
    @main
    enum Fuzz {
        static func main() { FuzzMain.runLibFuzzer(fuzzDecode) }
    }
#else
    /// Replays saved inputs (a corpus, a crash file) through the fuzz target's checks.
    @main
    enum Replay {
        static func main() {
            FuzzMain.replay(
                FuzzReplayTarget(name: "PuffFuzzDecode", checks: "WireCodec.decode's checks") { bytes in
                    switch try DecodeCheck.run(bytes) {
                    case .rejected: "rejected by libdbus"
                    case .undecoded: "decoded without a body"
                    case .roundTripped: "round-tripped"
                    }
                })
        }
    }
#endif
