// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc
import PuffDBus
public import PuffFormats
import PuffProtocol
import PuffSystem
import SystemPackage

/// What puffd did, or would do, with one item of an import (`ImportItems`' `a{sv}`).
public struct ImportOutcomeLine: Sendable, Equatable {
    /// `added`, `replaced`, `unchanged` or `skipped`.
    public var outcome: String
    /// The item's position in the source, from 0.
    public var index: Int
    /// Its label.
    public var label: String
    /// Why it was skipped; empty otherwise.
    public var reason: String
    /// The item it became or matched; empty when skipped or added in a dry run.
    public var path: String
}

extension ControlClient {
    /// How long an import may take: the batch is written while puffd reads it.
    public static let importCallTimeout: Duration = .seconds(600)

    /// `ImportItems`: `items` into `collection` as one batch. The items go over a pipe written
    /// by a thread of its own while the call is in flight, never in the message.
    /// `progress` gets the call's `Progress` signals (items decided, the last once saved).
    public func importItems(
        _ items: [PortableItem], into collection: String, dryRun: Bool,
        progress: (@Sendable (ProgressUpdate) -> Void)? = nil
    ) async throws(ClientError) -> [ImportOutcomeLine] {
        var readEnd: UnixFD?
        let writer: BatchWriter
        do {
            let ends = try UnixFD.pipe()
            readEnd = ends.read
            writer = BatchWriter(items: items, end: ends.write)
        } catch {
            throw .passcodeIOFailed(errno: error.errno)
        }
        // puffd may give up reading (a malformed batch): the writer then gets EPIPE, not a signal.
        signal(SIGPIPE, SIG_IGN)
        writer.start()
        let options = DBusValue.dictionary(
            key: "s", value: "v", [.init(.string(ControlKey.dryRun), .variant(.boolean(dryRun)))])
        let result: Result<[DBusValue], ClientError>
        do {
            let items = readEnd!
            result = .success(
                try await observingProgress(.importItems, progress) { () async throws(ClientError) in
                    try await call(
                        .importItems, [.string(collection), .unixFD(items), options], collection: collection,
                        timeout: Self.importCallTimeout)
                })
        } catch {
            result = .failure(error)
        }
        // Our copy of the read end goes first, so a writer puffd stopped reading from gets EPIPE.
        readEnd = nil
        await writer.finished()
        let reply = try result.get()
        guard case .array(_, let entries)? = reply.first else { throw .unexpectedReply(member: "ImportItems") }
        return entries.compactMap { entry -> ImportOutcomeLine? in
            guard let fields = entry.variantDictionary else { return nil }
            return ImportOutcomeLine(
                outcome: fields[ControlKey.outcome]?.string ?? "", index: Int(fields[ControlKey.index]?.uint32 ?? 0),
                label: fields[ControlKey.label]?.string ?? "", reason: fields[ControlKey.reason]?.string ?? "",
                path: fields[ControlKey.path]?.objectPath.map(\.rawValue).flatMap { $0 == "/" ? "" : $0 } ?? "")
        }
    }
}

/// Writes an import batch into a pipe's write end on a thread of its own and closes it.
private final class BatchWriter: Sendable {
    let items: [PortableItem]
    let end: UnixFD
    let done = DispatchSemaphore(value: 0)

    init(items: [PortableItem], end: UnixFD) {
        self.items = items
        self.end = end
    }

    func start() {
        DispatchQueue.global().async { [self] in
            var output = PipeOutput(fd: end.rawValue)
            // A failed write means puffd stopped reading; its reply says why.
            try? PortableBatch.write(items, to: &output)
            shutdownWrites()
            done.signal()
        }
    }

    /// puffd reads to the end of the pipe: the write end must close once the batch is written,
    /// though this object (and its UnixFD) lives on until the call returns.
    private func shutdownWrites() {
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        if null >= 0 {
            _ = dup2(null, end.rawValue)
            close(null)
        }
    }

    func finished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { [self] in
                done.wait()
                continuation.resume()
            }
        }
    }
}

/// ``PortableBatch/Output`` over a pipe's write end.
private struct PipeOutput: PortableBatch.Output {
    let fd: Int32

    mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        do throws(Errno) {
            try FileDescriptor(rawValue: fd).writeFully(bytes)
        } catch {
            throw ClientError.passcodeIOFailed(errno: error.rawValue)
        }
    }
}
