// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// How many keyed digests (``KeyedHash``) and seals (``SecretSealer``) a task made: the seam
/// cost tests count through (design core-reshaped §2, `CreateItemCostTests`). Nothing is counted
/// unless a task binds ``current``; child tasks and awaited actor calls inherit the binding.
package final class CryptoCounts: Sendable {
    private let counts = Mutex<(digests: Int, seals: Int)>((0, 0))

    /// Where the current task's digests and seals are counted; nil counts nothing.
    @TaskLocal package static var current: CryptoCounts?

    package init() {}

    /// Keyed digests computed since the counter was made.
    package var digests: Int { counts.withLock { $0.digests } }
    /// Values sealed since the counter was made.
    package var seals: Int { counts.withLock { $0.seals } }

    static func noteDigest() {
        current?.counts.withLock { $0.digests += 1 }
    }

    static func noteSeal() {
        current?.counts.withLock { $0.seals += 1 }
    }
}
