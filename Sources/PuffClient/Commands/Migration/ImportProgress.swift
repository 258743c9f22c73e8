// SPDX-License-Identifier: Apache-2.0
import PuffFormats

/// The progress `puffctl import` shows while it reads its source, before anything reaches
/// puffd: `import-key` for the rounds of a key derivation that can be counted (KDBX's AES-KDF),
/// then `import-read` for the items decrypted and parsed. Each is a bar on a terminal, JSON lines
/// with `--json`, nothing on a pipe (``ProgressReporter/forCommand(_:json:)``); puffd's part,
/// the batch, is `import`.
final class ImportReadProgress: Sendable {
    private let key: ProgressReporter
    private let items: ProgressReporter

    init(json: Bool) {
        key = .forCommand("import-key", json: json)
        items = .forCommand("import-read", json: json)
    }

    /// Runs `read`, one reader's read of the source, with its reports shown; the bars are
    /// erased when it returns or throws.
    func reading<T>(_ read: () throws -> T) rethrows -> T {
        defer { finish() }
        return try ReadProgress.$current.withValue(reporter) { try read() }
    }

    /// Runs `read`, an asynchronous read of the source (a running provider's), with its reports
    /// shown; the bars are erased when it returns or throws.
    func readingAsync<T, E: Error>(_ read: () async throws(E) -> T) async throws(E) -> T {
        defer { finish() }
        // Through a Result: `withValue` rethrows untyped, and `read`'s error is kept typed.
        let result = await ReadProgress.$current.withValue(reporter) { () async -> Result<T, E> in
            do throws(E) { return .success(try await read()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// The reporter a reader sees as ``ReadProgress/current``, drawing this command's bars.
    private var reporter: ReadProgress {
        let (key, items) = (key, items)
        return ReadProgress { stage, done, total in
            switch stage {
            case .keyRounds:
                key.update(ProgressUpdate(done: done, total: total, unit: "rounds"))
            case .items:
                key.finish()
                items.update(ProgressUpdate(done: done, total: total, unit: "items"))
            }
        }
    }

    private func finish() {
        key.finish()
        items.finish()
    }
}
