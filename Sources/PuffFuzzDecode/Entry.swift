// SPDX-License-Identifier: Apache-2.0
//
// Two entry points over DecodeCheck.run (docs/fuzzing.md):
// - built with `-DPUFF_FUZZ -sanitize=fuzzer` (`make fuzz`): libFuzzer's LLVMFuzzerTestOneInput,
//   which traps on a broken invariant so libFuzzer saves the input, and a `main` that runs
//   libFuzzer's driver;
// - the normal build: a replay tool, `PuffFuzzDecode [-v] FILE|DIR...`, which runs each file (each
//   regular file of a directory) through the same checks, all of them, and exits 1 if any failed;
//   -v prints each file's outcome.

import Glibc

#if PUFF_FUZZ
    /// libFuzzer's driver (compiler-rt's libFuzzer, linked by `-sanitize=fuzzer`). SwiftPM points
    /// the executable's `main` at this module's `@main`, so libFuzzer's own `main` is not used.
    @_silgen_name("LLVMFuzzerRunDriver")
    private func runDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    /// libFuzzer's per-input callback: traps on a broken invariant so libFuzzer saves the input.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzDecode(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        do {
            _ = try DecodeCheck.run(bytes)
        } catch {
            fatalError("PuffFuzzDecode: \(error)")
        }
        return 0
    }

    /// Hands the command line to libFuzzer.
    @main
    enum Fuzz {
        static func main() {
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(runDriver(&argc, &argv, fuzzDecode))
        }
    }
#else
    /// Replays saved inputs (a corpus, a crash file) through the fuzz target's checks.
    @main
    enum Replay {
        static func main() {
            var arguments = Array(CommandLine.arguments.dropFirst())
            let verbose = arguments.first == "-v"
            if verbose { arguments.removeFirst() }
            guard !arguments.isEmpty, !arguments.contains("-h"), !arguments.contains("--help") else {
                print("usage: PuffFuzzDecode [-v] FILE|DIR...  (replays inputs through WireCodec.decode's checks)")
                exit(arguments.isEmpty ? 2 : 0)
            }
            var counts: [String: Int] = ["rejected": 0, "undecoded": 0, "round-tripped": 0]
            var failed = 0
            var total = 0
            for path in arguments.flatMap(files(at:)) {
                guard let bytes = read(path) else {
                    print("FAIL \(path): cannot read")
                    failed += 1
                    continue
                }
                total += 1
                do {
                    let outcome = try DecodeCheck.run(bytes)
                    switch outcome {
                    case .rejected: counts["rejected", default: 0] += 1
                    case .undecoded: counts["undecoded", default: 0] += 1
                    case .roundTripped: counts["round-tripped", default: 0] += 1
                    }
                    if verbose { print("ok \(path): \(outcome)") }
                } catch {
                    print("FAIL \(path): \(error)")
                    failed += 1
                }
            }
            print(
                "\(total) inputs: \(counts["round-tripped"]!) round-tripped, \(counts["undecoded"]!) decoded "
                    + "without a body, \(counts["rejected"]!) rejected by libdbus, \(failed) failed"
            )
            exit(failed == 0 && total > 0 ? 0 : 1)
        }

        /// `path` itself, or the regular files directly inside it but notes (`*.md`), sorted.
        static func files(at path: String) -> [String] {
            guard let directory = opendir(path) else { return [path] }
            defer { closedir(directory) }
            var names: [String] = []
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name.hasPrefix(".") || name.hasSuffix(".md") { continue }
                let child = path.hasSuffix("/") ? path + name : path + "/" + name
                var info = stat()
                if stat(child, &info) == 0, info.st_mode & S_IFMT == S_IFREG { names.append(child) }
            }
            return names.sorted()
        }

        /// The whole file, or nil.
        static func read(_ path: String) -> [UInt8]? {
            guard let file = fopen(path, "rb") else { return nil }
            defer { fclose(file) }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = fread(&chunk, 1, chunk.count, file)
                bytes += chunk[0..<n]
                if n < chunk.count { break }
            }
            return ferror(file) == 0 ? bytes : nil
        }
    }
#endif
