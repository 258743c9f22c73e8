// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import PuffSystem
import SystemPackage

/// Runs the clipboard tools with `posix_spawn`: secrets reach them only through a pipe on their
/// standard input, never as an argument (which `ps` would show to every user), and what they
/// print is read into secure memory.
///
/// Not Foundation's `Process`: waiting on it spins a run loop, and its pipes copy through `Data`.
enum ToolProcess {
    /// Runs `argv` to its end with `input` on its standard input and everything it prints
    /// discarded; returns its exit status (128 + N when signal N killed it).
    static func run(_ argv: [String], input: SecureBytes) throws(ClientError) -> Int32 {
        let child = try spawn(argv, feedsInput: true, readsOutput: false)
        let written = write(input, to: child.input!)
        close(child.input!)
        let status = wait(child.pid)
        guard written else { throw .clipboardFailed(tool: argv[0], detail: "it stopped reading its input") }
        return status
    }

    /// Runs `argv` to its end and returns up to `limit` bytes of its standard output in secure
    /// memory, or nil when it exits with a failure. Output past `limit` is not read, so a caller
    /// that passes one more than the length it expects learns that the output was longer.
    static func output(of argv: [String], limit: Int) -> SecureBytes? {
        guard let child = try? spawn(argv, feedsInput: false, readsOutput: true), let fd = child.output else {
            return nil
        }
        var count = 0
        let buffer = SecureBytes(count: limit) { (bytes: UnsafeMutableRawBufferPointer) -> Void in
            // A read error ends the output where it is, as its end would.
            count = (try? FileDescriptor(rawValue: fd).readFully(into: bytes)) ?? 0
        }
        // Closing early makes a tool with more to say exit on SIGPIPE instead of blocking.
        close(fd)
        let status = wait(child.pid)
        guard status == 0 || count == limit else { return nil }
        return buffer.withUnsafeBytes { SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }

    /// Starts `argv` with `input` on its standard input and returns without waiting for it.
    static func start(_ argv: [String], input: SecureBytes) throws(ClientError) {
        let child = try spawn(argv, feedsInput: true, readsOutput: false)
        let written = write(input, to: child.input!)
        close(child.input!)
        guard written else { throw .clipboardFailed(tool: argv[0], detail: "the clearer did not start") }
    }

    private struct Child {
        var pid: pid_t
        /// The write end of the child's standard input.
        var input: Int32?
        /// The read end of the child's standard output.
        var output: Int32?
    }

    /// Spawns `argv[0]` (an absolute path) with standard error and any stream not asked for on
    /// `/dev/null`, SIGPIPE back at its default and no signal blocked.
    private static func spawn(_ argv: [String], feedsInput: Bool, readsOutput: Bool) throws(ClientError) -> Child {
        // puffctl's own writes to a tool that exits early must fail with EPIPE, not kill it.
        signal(SIGPIPE, SIG_IGN)
        markInheritedDescriptorsCloseOnExec()
        var inputPipe: [Int32] = [-1, -1]
        var outputPipe: [Int32] = [-1, -1]
        if feedsInput, !closeOnExecPipe(&inputPipe) { throw failure(argv, "pipe") }
        if readsOutput, !closeOnExecPipe(&outputPipe) { throw failure(argv, "pipe") }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the copy, so only these three descriptors reach the tool.
        if feedsInput {
            posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        if readsOutput {
            posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, argv[0], &actions, &attributes, &cArguments, environ)
        if feedsInput { close(inputPipe[0]) }
        if readsOutput { close(outputPipe[1]) }
        guard result == 0 else {
            if feedsInput { close(inputPipe[1]) }
            if readsOutput { close(outputPipe[0]) }
            throw .clipboardFailed(tool: argv[0], detail: "could not start it (\(String(cString: strerror(result))))")
        }
        return Child(pid: pid, input: feedsInput ? inputPipe[1] : nil, output: readsOutput ? outputPipe[0] : nil)
    }

    /// Writes all of `bytes`; false when the reader went away first.
    private static func write(_ bytes: SecureBytes, to fd: Int32) -> Bool {
        bytes.withUnsafeBytes { raw in (try? FileDescriptor(rawValue: fd).writeFully(raw)) != nil }
    }

    /// Waits for `pid` and returns its exit status, or 128 + the signal that ended it.
    private static func wait(_ pid: pid_t) -> Int32 {
        guard let status = try? SystemCalls.waitForExit(pid) else { return 255 }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import (they are macros).
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Marks every descriptor above standard error close-on-exec.
    ///
    /// puffctl's own are already, but whatever its parent left open is not: a clipboard server
    /// or the clearer holding such a descriptor for 30 s keeps its other end waiting (a test
    /// runner waiting for puffctl's exit through a pipe, a shell's `$( )` reading a descriptor
    /// other than standard output). Glibc's module has no `posix_spawn_file_actions_addclosefrom_np`.
    private static func markInheritedDescriptorsCloseOnExec() {
        guard let directory = opendir("/proc/self/fd") else { return }
        defer { closedir(directory) }
        let own = dirfd(directory)
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let fd = Int32(name), fd > 2, fd != own else { continue }
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
    }

    /// A pipe whose ends do not leak into other children. Glibc's module leaves pipe2 out, so
    /// the flags follow at once (as UnixFD.pipe does); puffctl starts no other process meanwhile.
    private static func closeOnExecPipe(_ ends: inout [Int32]) -> Bool {
        guard pipe(&ends) == 0 else { return false }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    private static func failure(_ argv: [String], _ call: String) -> ClientError {
        .clipboardFailed(tool: argv[0], detail: "\(call) failed (errno \(errno))")
    }
}
