// SPDX-License-Identifier: Apache-2.0
//
// What the three fuzz targets' entry points share (docs/fuzzing.md): each target keeps its own
// `LLVMFuzzerTestOneInput` and `@main`, and hands them to this module:
// - built with `-DPUFF_FUZZ -sanitize=fuzzer` (`make fuzz`): ``FuzzMain/runLibFuzzer(_:)`` gives
//   the command line to libFuzzer's driver;
// - the normal build: ``FuzzMain/replay(_:)``, `TARGET [-v] FILE|DIR...`, which runs each file
//   (each regular file of a directory but dotfiles and notes) through the target's check and
//   exits 1 when one failed or nothing was read, and `TARGET --write-seeds DIR`.

public import Glibc

/// A fuzz target as its replay tool runs it.
public struct FuzzReplayTarget {
    /// The executable's name, for the usage line.
    public var name: String
    /// What a replay runs the inputs through, for the usage line.
    public var checks: String
    /// The generated seeds `--write-seeds` writes; nil when the target has none.
    public var seeds: (() -> [(name: String, bytes: [UInt8])])?
    /// One input's check: what it came to, in a word or two; throws when an invariant broke.
    public var check: ([UInt8]) throws -> String

    public init(
        name: String, checks: String, seeds: (() -> [(name: String, bytes: [UInt8])])? = nil,
        check: @escaping ([UInt8]) throws -> String
    ) {
        self.name = name
        self.checks = checks
        self.seeds = seeds
        self.check = check
    }
}

#if PUFF_FUZZ
    /// libFuzzer's driver (compiler-rt's libFuzzer, linked by `-sanitize=fuzzer`). SwiftPM points
    /// each executable's `main` at its `@main`, so libFuzzer's own `main` is not used.
    @_silgen_name("LLVMFuzzerRunDriver")
    private func runDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt
#endif

/// The entry points' shared body.
public enum FuzzMain {
    #if PUFF_FUZZ
        /// Hands the command line to libFuzzer, which calls `callback` for every input.
        public static func runLibFuzzer(_ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(runDriver(&argc, &argv, callback))
        }
    #endif

    /// The bytes libFuzzer passes, as an array.
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    }

    /// Replays saved inputs (a corpus, a crash file) through `target`'s check, or writes its seeds.
    public static func replay(_ target: FuzzReplayTarget) -> Never {
        var arguments = Array(CommandLine.arguments.dropFirst())
        if let seeds = target.seeds, arguments.count == 2, arguments[0] == "--write-seeds" {
            exit(writeSeeds(seeds(), to: arguments[1]) ? 0 : 1)
        }
        let verbose = arguments.first == "-v"
        if verbose { arguments.removeFirst() }
        guard !arguments.isEmpty, !arguments.contains("-h"), !arguments.contains("--help") else {
            print("usage: \(target.name) [-v] FILE|DIR...   (replays inputs through \(target.checks))")
            if target.seeds != nil { print("       \(target.name) --write-seeds DIR   (writes the generated seeds)") }
            exit(arguments.isEmpty ? 2 : 0)
        }
        var counts: [String: Int] = [:]
        var failed = 0
        for path in arguments.flatMap(files(at:)) {
            guard let bytes = read(path) else {
                print("FAIL \(path): cannot read")
                failed += 1
                continue
            }
            do {
                let outcome = try target.check(bytes)
                counts[outcome, default: 0] += 1
                if verbose { print("ok \(path): \(outcome)") }
            } catch {
                print("FAIL \(path): \(error)")
                failed += 1
            }
        }
        let total = counts.values.reduce(failed, +)
        let summary = counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        print("\(total) inputs: \((summary + ["\(failed) failed"]).joined(separator: ", "))")
        exit(failed == 0 && total > 0 ? 0 : 1)
    }

    /// Writes `seeds` into `folder` (which must exist), one file each.
    static func writeSeeds(_ seeds: [(name: String, bytes: [UInt8])], to folder: String) -> Bool {
        for (name, bytes) in seeds {
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

    /// `path` itself, or the regular files directly inside it but dotfiles and notes (`*.md`), sorted.
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
            let count = fread(&chunk, 1, chunk.count, file)
            bytes += chunk[0..<count]
            if count < chunk.count { break }
        }
        return ferror(file) == 0 ? bytes : nil
    }
}
