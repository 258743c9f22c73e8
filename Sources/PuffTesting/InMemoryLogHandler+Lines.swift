// SPDX-License-Identifier: Apache-2.0
public import InMemoryLogging
public import Logging

/// swift-log's own in-memory handler, with what tests need on top: a logger that keeps every level
/// and the entries rendered as lines to search.
extension InMemoryLogHandler {
    /// Makes a logger that writes every level, trace up, to `store` (the handler's copies share one
    /// store).
    public static func logger(store: InMemoryLogHandler, label: String = "test") -> Logger {
        var handler = store
        handler.logLevel = .trace
        return Logger(label: label) { _ in handler }
    }

    /// Every entry so far as one line: level, message and metadata sorted by key.
    public var lines: [String] {
        entries.map { entry in
            let rendered = entry.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                .joined(separator: " ")
            return "\(entry.level) \(entry.message) \(rendered)"
        }
    }
}
