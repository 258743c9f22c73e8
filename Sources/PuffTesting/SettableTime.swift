// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Seconds since the epoch that a test sets by hand; pass ``now`` to ``SecretService``.
public final class SettableTime: Sendable {
    private let value: Mutex<UInt64>
    /// Starts at `start`.
    public init(_ start: UInt64 = 1_700_000_000) { value = Mutex(start) }
    /// The closure to hand to ``SecretService``.
    public var now: @Sendable () -> UInt64 { { [self] in self.value.withLock { $0 } } }
    /// Moves the time forward by `seconds`.
    public func advance(by seconds: UInt64) { value.withLock { $0 += seconds } }
}
