// SPDX-License-Identifier: Apache-2.0
//
// Two entry points over VaultCheck.run (docs/fuzzing.md), their shared body in PuffFuzzing:
// - built with `-DPUFF_FUZZ -sanitize=fuzzer` (`make fuzz`): libFuzzer's LLVMFuzzerTestOneInput,
//   which traps on a broken invariant so libFuzzer saves the input, and a `main` that runs
//   libFuzzer's driver;
// - the normal build: a replay tool, `PuffFuzzVault [-v] FILE|DIR...`, which runs each file (each
//   regular file of a directory) through the same checks and exits 1 if any failed, and
//   `PuffFuzzVault --write-seeds DIR`, which writes the generated seeds.

import PuffFuzzing

#if PUFF_FUZZ
    /// libFuzzer's per-input callback: traps on a broken invariant so libFuzzer saves the input.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzVault(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        do {
            _ = try VaultCheck.run(FuzzMain.bytes(data, size))
        } catch {
            fatalError("PuffFuzzVault: \(error)")
        }
        return 0
    }

    /// Hands the command line to libFuzzer.
    @main
    enum Fuzz {
        static func main() { FuzzMain.runLibFuzzer(fuzzVault) }
    }
#else
    /// Replays saved inputs (a corpus, the golden vault, a crash file) through the checks.
    @main
    enum Replay {
        static func main() {
            FuzzMain.replay(
                FuzzReplayTarget(name: "PuffFuzzVault", checks: "the vault reader's checks", seeds: FuzzSeeds.all) {
                    try VaultCheck.run($0).rawValue
                })
        }
    }
#endif
