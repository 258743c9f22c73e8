// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc
public import PuffCrypto
import PuffDBus
public import PuffFormats
import PuffProtocol
import PuffSystem
import Synchronization
import SystemPackage

/// An item `ExportItems` kept back, and why (its `left_out` entries).
public struct ExportLeftOut: Sendable, Equatable {
    /// The item's path.
    public var path: String
    /// Its label.
    public var label: String
    /// Why the access gate kept it back.
    public var reason: String
}

/// What `ExportItems` handed over: the collection for a writer, and the items kept back.
public struct ExportedCollection: Sendable {
    public var collection: PortableCollection
    public var leftOut: [ExportLeftOut]
}

extension ControlClient {
    /// How long an export may take: the person may be asked per protected item.
    public static let exportCallTimeout: Duration = .seconds(900)

    /// `ExportItems`: every item of `collection` with its secret, read from a pipe by a thread of
    /// its own while the call is in flight, never from the message. `passcode` is the consent
    /// (and unlocks a locked collection); without it puffd asks the person through its prompters.
    ///
    /// - Parameters:
    ///   - progress: puffd's `Progress` of the items passing the access gate.
    ///   - receiving: The items read from the pipe so far, from the reading thread.
    public func exportItems(
        of collection: String, passcode: SecureBytes?, progress: (@Sendable (ProgressUpdate) -> Void)? = nil,
        receiving: (@Sendable (ProgressUpdate) -> Void)? = nil
    ) async throws(ClientError) -> ExportedCollection {
        var writeEnd: UnixFD?
        let reader: BatchReader
        do {
            let ends = try UnixFD.pipe()
            writeEnd = ends.write
            reader = BatchReader(end: ends.read, progress: receiving)
        } catch {
            throw .passcodeIOFailed(errno: error.errno)
        }
        reader.start()
        let result: Result<[DBusValue], ClientError>
        do {
            let options = try Self.consent(passcode)
            result = .success(
                try await observingProgress(.exportItems, progress) { () async throws(ClientError) in
                    try await call(
                        .exportItems, [.string(collection), .unixFD(writeEnd!), options], collection: collection,
                        timeout: Self.exportCallTimeout)
                })
        } catch {
            result = .failure(error)
        }
        // Our copy of the write end goes first; after a failed call the reader stops waiting.
        writeEnd = nil
        if case .failure = result { reader.stop() }
        let items = await reader.finished()
        let reply = try result.get()
        guard let summary = reply.first?.variantDictionary, case .array(_, let entries)? = reply.last else {
            throw .unexpectedReply(member: "ExportItems")
        }
        let read: [PortableItem]
        switch items {
        case .success(let list): read = list
        case .failure(let error): throw .failed(name: "ExportItems", message: "the items did not arrive: \(error)")
        }
        guard read.count == Int(summary[ControlKey.items]?.uint32 ?? 0) else {
            throw .unexpectedReply(member: "ExportItems")
        }
        let leftOut = entries.compactMap { entry -> ExportLeftOut? in
            guard let fields = entry.variantDictionary else { return nil }
            return ExportLeftOut(
                path: fields[ControlKey.path]?.objectPath?.rawValue ?? "",
                label: fields[ControlKey.label]?.string ?? "",
                reason: fields[ControlKey.reason]?.string ?? "")
        }
        func time(_ name: String) -> UInt64? {
            guard case .uint64(let value)? = summary[name], value > 0 else { return nil }
            return value
        }
        return ExportedCollection(
            collection: PortableCollection(
                label: summary[ControlKey.label]?.string ?? collection, items: read, created: time(ControlKey.created),
                modified: time(ControlKey.modified)),
            leftOut: leftOut)
    }
}

/// Reads an export batch from a pipe's read end on a thread of its own, each secret straight
/// into locked memory.
private final class BatchReader: Sendable {
    let end: UnixFD
    let progress: (@Sendable (ProgressUpdate) -> Void)?
    let done = DispatchSemaphore(value: 0)
    private let outcome = Mutex<Result<[PortableItem], ForeignFormatError>?>(nil)
    private let stopped = Atomic<Bool>(false)

    init(end: UnixFD, progress: (@Sendable (ProgressUpdate) -> Void)?) {
        self.end = end
        self.progress = progress
    }

    func start() {
        DispatchQueue.global().async { [self] in
            var input = PipeInput(fd: end.rawValue, stopped: { [self] in stopped.load(ordering: .relaxed) })
            let reporter = progress.map { report in
                ReadProgress { stage, done, total in
                    if stage == .items { report(ProgressUpdate(done: done, total: total, unit: "items")) }
                }
            }
            let result = ReadProgress.$current.withValue(reporter) {
                Result { () throws(ForeignFormatError) in try PortableBatch.read(from: &input) }
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
    }

    /// Stops waiting for bytes (the call failed: puffd may never write).
    func stop() { stopped.store(true, ordering: .relaxed) }

    func finished() async -> Result<[PortableItem], ForeignFormatError> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { [self] in
                done.wait()
                continuation.resume()
            }
        }
        return outcome.withLock { $0 } ?? .failure(.damaged("batch: not read"))
    }
}

/// ``PortableBatch/Input`` over a pipe's read end, polled so ``BatchReader/stop()`` ends it.
private struct PipeInput: PortableBatch.Input {
    let fd: Int32
    let stopped: @Sendable () -> Bool

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ForeignFormatError) {
        var filled = 0
        while filled < buffer.count {
            guard !stopped() else { throw .damaged("batch: the call failed") }
            let count: Int
            do throws(Errno) {
                guard try SystemCalls.wait(for: Int16(POLLIN), on: fd, timeout: 100) else { continue }
                count = try FileDescriptor(rawValue: fd).readSome(
                    into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            } catch .wouldBlock {
                continue
            } catch {
                throw .damaged("batch: the pipe could not be read")
            }
            guard count > 0 else { throw .damaged("batch: cut short") }
            filled += count
        }
    }
}
