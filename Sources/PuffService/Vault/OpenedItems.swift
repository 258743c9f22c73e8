// SPDX-License-Identifier: Apache-2.0

/// The items an unlocked collection holds opened (label, attributes, type and times read),
/// oldest first: past ``limit`` the oldest goes back to its locked form and is read again from
/// its record when touched (design core-reshaped §5: a bounded cache of opened metadata, so
/// touched and newly written items do not stay opened forever).
struct OpenedItems {
    static let limit = 4096
    private var ring: [UInt64] = []
    private var next = 0

    /// Notes `number` opened; returns the item to close when the ring was full.
    mutating func note(_ number: UInt64) -> UInt64? {
        guard ring.count == Self.limit else {
            ring.append(number)
            return nil
        }
        let oldest = ring[next]
        ring[next] = number
        next = (next + 1) % Self.limit
        return oldest == number ? nil : oldest
    }

    /// Forgets every item noted.
    mutating func removeAll() {
        ring = []
        next = 0
    }
}
