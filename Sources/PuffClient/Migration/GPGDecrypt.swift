// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc
import PuffCrypto
import PuffSystem
import Subprocess
import SystemPackage

/// Decrypts one file with the `gpg` program found on `PATH`, through the person's own agent (which
/// asks for a key's passphrase where it needs one), as `pass show` does: never a gpg library of
/// Puff's. The plaintext goes from gpg's standard output through a pipe straight into locked
/// memory; it never touches a file. gpg's messages go to puffctl's standard error.
enum GPGDecrypt {
    /// The largest decrypted entry read: puffd's limit for a secret (docs/limits.md).
    static let maximumLength = SecretInput.maximumLength

    enum Plaintext {
        case complete(SecureBytes)
        /// More than the limit: not read on, gpg stopped.
        case tooLong
    }

    /// Why gpg did not decrypt.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The decrypted content of the file open on `input` (which this closes), up to `limit`
    /// bytes; gpg reads it on its standard input, so it never opens a path of its own (the
    /// caller opened the file without following links). `gnupgHome` replaces the inherited
    /// `GNUPGHOME` (tests use a throwaway one).
    static func decrypt(input: Int32, limit: Int, gnupgHome: String? = nil) async throws(Failure) -> Plaintext {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            close(input)
            throw Failure(description: "no pipe: \(describe(errno))")
        }
        // No other child may inherit these; swift-subprocess moves gpg's end onto its output.
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        // A gpg that outputs past the limit gets EPIPE when the reader closes, not puffctl a SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let reader = Reader(fd: ends[0], limit: limit)
        reader.start()
        let status: TerminationStatus
        do {
            let result = try await Subprocess.run(
                .name("gpg"), arguments: ["--quiet", "--yes", "--decrypt"],
                environment: .inherit.updating(environment(gnupgHome: gnupgHome)),
                input: .fileDescriptor(FileDescriptor(rawValue: input), closeAfterSpawningProcess: true),
                output: .fileDescriptor(FileDescriptor(rawValue: ends[1]), closeAfterSpawningProcess: true),
                error: .fileDescriptor(.standardError, closeAfterSpawningProcess: false))
            status = result.terminationStatus
        } catch {
            close(ends[1])
            _ = await reader.finished()
            throw Failure(description: "could not run gpg (\(error))")
        }
        let read = await reader.finished()
        guard let read else { throw Failure(description: "reading its output failed") }
        if read.count > limit { return .tooLong }
        guard case .exited(0) = status else { throw Failure(description: "gpg ended with \(status)") }
        return .complete(read)
    }

    private static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// What gpg's environment changes: `GNUPGHOME` when given, and `GPG_TTY` when unset, from
    /// puffctl's standard input or error. With the file on gpg's standard input, gpg cannot
    /// find the terminal itself, and a curses pinentry asking for a key's passphrase needs it.
    static func environment(gnupgHome: String?) -> [Environment.Key: String?] {
        var changes: [Environment.Key: String?] = [:]
        if let gnupgHome { changes["GNUPGHOME"] = gnupgHome }
        if getenv("GPG_TTY") == nil,
            let fd = [STDIN_FILENO, STDERR_FILENO].first(where: { isatty($0) == 1 }), let name = ttyname(fd)
        {
            changes["GPG_TTY"] = String(cString: name)
        }
        return changes
    }

    /// Reads a pipe to its end (or one byte past `limit`) into locked memory on a thread of its
    /// own, so gpg never blocks on a full pipe while puffctl waits for it to exit.
    private final class Reader: @unchecked Sendable {
        let fd: Int32
        let limit: Int
        private let done = DispatchSemaphore(value: 0)
        private var result: SecureBytes?

        init(fd: Int32, limit: Int) {
            self.fd = fd
            self.limit = limit
        }

        func start() {
            DispatchQueue.global().async { [self] in
                var length = 0
                var failed = false
                let scratch = SecureBytes(count: limit + 1) { (buffer: UnsafeMutableRawBufferPointer) -> Void in
                    do throws(Errno) {
                        length = try FileDescriptor(rawValue: fd).readFully(into: buffer)
                    } catch {
                        failed = true
                    }
                }
                close(fd)
                if !failed {
                    result = scratch.withUnsafeBytes {
                        SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[..<length]))
                    }
                }
                done.signal()
            }
        }

        /// What was read, once the pipe ended; nil when reading failed.
        func finished() async -> SecureBytes? {
            await withCheckedContinuation { (continuation: CheckedContinuation<SecureBytes?, Never>) in
                DispatchQueue.global().async { [self] in
                    done.wait()
                    continuation.resume(returning: result)
                }
            }
        }
    }
}
