// SPDX-License-Identifier: Apache-2.0
import CSodium
import Synchronization

/// Hands out fixed-size slots of `sodium_malloc`'d pages for small ``SecureBytes`` (keys, IVs of
/// keys, short passcodes), so that thousands of them cost a few memory mappings, not four each.
///
/// Every `sodium_malloc` region brings guard pages and its own mappings (about four); a process
/// has `vm.max_map_count` (65,530) of them, so one region per key would let a client that opens
/// many sessions exhaust the address-space map (issue "puffd at 100,000 items"). A page here holds
/// ``slotsPerPage`` slots: the whole page keeps libsodium's locking and guard pages, a slot loses
/// only its private guard page. Released slots are zeroed before reuse; pages are kept for reuse.
final class SecureSlab: Sendable {
    /// The one slab of the process.
    static let shared = SecureSlab()
    /// Bytes per slot; values up to this size come from the slab.
    static let slotSize = 64
    /// Slots per `sodium_malloc` page (64 KiB pages).
    static let slotsPerPage = 1024

    private struct State: ~Copyable {
        /// Addresses of free slots (as integers: raw pointers are not Sendable).
        var free: [UInt] = []
    }

    private let state = Mutex(State())

    /// A zeroed slot of ``slotSize`` bytes.
    func allocate() -> UnsafeMutableRawPointer {
        let address = state.withLock { state -> UInt in
            if let slot = state.free.popLast() { return slot }
            _ = Sodium.ready
            let pageSize = Self.slotSize * Self.slotsPerPage
            // sodium_malloc only returns nil when the process is out of memory or address space.
            guard let page = sodium_malloc(pageSize) else { fatalError("sodium_malloc(\(pageSize)) failed") }
            sodium_memzero(page, pageSize)
            // Slot 0 goes to the caller; the rest wait in the free list, lowest address last.
            let base = UInt(bitPattern: page)
            for index in stride(from: Self.slotsPerPage - 1, through: 1, by: -1) {
                state.free.append(base + UInt(index * Self.slotSize))
            }
            return base
        }
        return UnsafeMutableRawPointer(bitPattern: address)!
    }

    /// Wipes `slot` and makes it available again.
    func release(_ slot: UnsafeMutableRawPointer) {
        sodium_memzero(slot, Self.slotSize)
        let address = UInt(bitPattern: slot)
        state.withLock { $0.free.append(address) }
    }

}
