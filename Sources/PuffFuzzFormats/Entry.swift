// SPDX-License-Identifier: Apache-2.0
//
// Two entry points over ForeignFormatsFuzzing.run (docs/fuzzing.md), as in PuffFuzzVault:
// - built with `-DPUFF_FUZZ -sanitize=fuzzer` (`make fuzz`): libFuzzer's LLVMFuzzerTestOneInput
//   and a `main` that runs libFuzzer's driver; in that build every key-derivation bound
//   (ForeignKDFLimits) is tiny, so no input spends long in a KDF;
// - the normal build: a replay tool, `PuffFuzzFormats [-v] FILE|DIR...`, which runs each file
//   (each regular file of a directory) and exits 0 when none trapped, and
//   `PuffFuzzFormats --write-seeds DIR`, which writes the generated seeds.

import Glibc
import PuffFormats

#if PUFF_FUZZ
    @_silgen_name("LLVMFuzzerRunDriver")
    private func runDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    /// libFuzzer's per-input callback: a reader that traps makes libFuzzer save the input.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzFormats(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        ForeignFormatsFuzzing.run(bytes)
        return 0
    }

    /// Hands the command line to libFuzzer.
    @main
    enum Fuzz {
        static func main() {
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(runDriver(&argc, &argv, fuzzFormats))
        }
    }
#else
    /// Replays saved inputs (a corpus, a crash file) through the readers.
    @main
    enum Replay {
        static func main() {
            var arguments = Array(CommandLine.arguments.dropFirst())
            if arguments.count == 2, arguments[0] == "--write-seeds" {
                exit(writeSeeds(to: arguments[1]) ? 0 : 1)
            }
            let verbose = arguments.first == "-v"
            if verbose { arguments.removeFirst() }
            guard !arguments.isEmpty, !arguments.contains("-h"), !arguments.contains("--help") else {
                print("usage: PuffFuzzFormats [-v] FILE|DIR...    (replays inputs through the foreign-format readers)")
                print("       PuffFuzzFormats --write-seeds DIR   (writes the generated seeds)")
                exit(arguments.isEmpty ? 2 : 0)
            }
            var count = 0
            for path in arguments.flatMap(files(at:)) {
                guard let bytes = read(path) else {
                    print("FAIL \(path): cannot read")
                    exit(1)
                }
                let outcome = ForeignFormatsFuzzing.run(bytes)
                count += 1
                if verbose { print("ok \(path): \(outcome)") }
            }
            print("\(count) inputs, none trapped")
            exit(count > 0 ? 0 : 1)
        }

        /// Writes ``ForeignFormatsFuzzing/seeds()`` into `folder` (which must exist), one file each.
        static func writeSeeds(to folder: String) -> Bool {
            for (name, bytes) in ForeignFormatsFuzzing.seeds() {
                let path = "\(folder)/\(name)"
                guard let file = fopen(path, "wb") else {
                    print("cannot write \(path)")
                    return false
                }
                let written = fwrite(bytes, 1, bytes.count, file)
                fclose(file)
                guard written == bytes.count else { return false }
            }
            return true
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
