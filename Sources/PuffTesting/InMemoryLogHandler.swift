// SPDX-License-Identifier: Apache-2.0
public import Logging
import Synchronization

/// A swift-log handler that keeps every rendered line in memory, so tests can check what was (and
/// was not) logged.
public struct InMemoryLogHandler: LogHandler {
    /// The shared store of lines a handler and its copies write to.
    public final class Store: Sendable {
        private let lines = Mutex<[String]>([])
        /// Creates an empty store.
        public init() {}
        /// Every line so far: level, message and metadata.
        public var entries: [String] { lines.withLock { $0 } }
        func append(_ line: String) { lines.withLock { $0.append(line) } }
    }

    /// Where lines go.
    public let store: Store
    /// Handler metadata merged into each line.
    public var metadata: Logger.Metadata = [:]
    /// Everything is kept by default.
    public var logLevel: Logger.Level = .trace

    /// Creates a handler writing to `store`.
    public init(store: Store) { self.store = store }

    /// Makes a logger that writes to `store`.
    public static func logger(store: Store, label: String = "test") -> Logger {
        Logger(label: label) { _ in InMemoryLogHandler(store: store) }
    }

    /// Handler metadata by key.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Renders and stores one line.
    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let rendered = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        store.append("\(event.level) \(event.message) \(rendered)")
    }
}
