// SPDX-License-Identifier: Apache-2.0
import Logging
import Synchronization

/// Logs the calls refused with `LimitsExceeded` without letting a hostile client flood the log:
/// the first refusal of a connection is logged with the limit it hit, later ones are only counted,
/// and the count is logged when the connection leaves.
final class RefusalLog: Sendable {
    private let logger: Logger
    private let counts = Mutex<[String: Int]>([:])

    init(logger: Logger) {
        self.logger = logger
    }

    /// Notes `reply` if it refuses a call of `sender` for a limit.
    func note(_ reply: OutgoingMessage, from sender: String) {
        guard case .error(_, let name, let text) = reply.kind, name == .limitsExceeded else { return }
        let count = counts.withLock { counts -> Int in
            counts[sender, default: 0] += 1
            return counts[sender]!
        }
        if count == 1 {
            // The text names the limit, never a value the client sent.
            logger.notice("call refused", metadata: ["client.name": "\(sender)", "limit": "\(text)"])
        }
    }

    /// Logs how many calls of `sender` were refused in all, if more than one, and forgets it.
    func departed(_ sender: String) {
        guard let count = counts.withLock({ $0.removeValue(forKey: sender) }), count > 1 else { return }
        logger.notice("client left after refused calls", metadata: ["client.name": "\(sender)", "refused": "\(count)"])
    }
}
