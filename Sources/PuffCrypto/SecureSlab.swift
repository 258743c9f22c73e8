// SPDX-License-Identifier: Apache-2.0
import CSodium
import Synchronization

/// Hands out fixed-size slots of `sodium_malloc`'d pages for ``SecureBytes`` of up to 4 KiB (keys,
/// passcodes, secrets, and a vault record's plaintext while it is sealed or opened), so that they
/// cost neither a memory mapping nor a system call each.
///
/// Every `sodium_malloc` region brings guard pages and its own mappings (about four), and making
/// and freeing one takes some eight system calls (`mmap`, `mprotect`, `mlock`, `madvise`,
/// `munlock`, `munmap`). A process has `vm.max_map_count` (65,530) mappings, so one region per key
/// would let a client that opens many sessions exhaust them (issue "puffd at 100,000 items"), and
/// one region per record made opening 100,000 records spend half its time in the kernel. Slots
/// come in a few sizes (``slotSizes``); a page holds 64 KiB of one size. The whole page keeps
/// libsodium's locking and guard pages, a slot loses only a private guard page. Released slots are
/// zeroed before reuse; pages are kept for reuse.
final class SecureSlab: Sendable {
    /// The one slab of the process.
    static let shared = SecureSlab()
    /// Slot sizes, smallest first; a value gets the smallest slot it fits in, or a region of its
    /// own when it is larger than the last.
    static let slotSizes = [64, 256, 1024, 4096]
    /// Bytes per `sodium_malloc` page, whatever the slot size.
    static let pageSize = 64 * 1024

    /// The index in ``slotSizes`` of the slot a value of `count` bytes takes; nil when it is too
    /// large for any.
    static func sizeClass(for count: Int) -> Int? {
        slotSizes.firstIndex { count <= $0 }
    }

    private struct State: ~Copyable {
        /// Addresses of free slots per size class (as integers: raw pointers are not Sendable).
        var free: [[UInt]] = Array(repeating: [], count: SecureSlab.slotSizes.count)
    }

    private let state = Mutex(State())

    /// A zeroed slot of `slotSizes[sizeClass]` bytes.
    func allocate(sizeClass: Int) -> UnsafeMutableRawPointer {
        let slotSize = Self.slotSizes[sizeClass]
        let address = state.withLock { state -> UInt in
            if let slot = state.free[sizeClass].popLast() { return slot }
            _ = Sodium.ready
            // sodium_malloc only returns nil when the process is out of memory or address space.
            guard let page = sodium_malloc(Self.pageSize) else { fatalError("sodium_malloc(\(Self.pageSize)) failed") }
            sodium_memzero(page, Self.pageSize)
            // Slot 0 goes to the caller; the rest wait in the free list, lowest address last.
            let base = UInt(bitPattern: page)
            for index in stride(from: Self.pageSize / slotSize - 1, through: 1, by: -1) {
                state.free[sizeClass].append(base + UInt(index * slotSize))
            }
            return base
        }
        return UnsafeMutableRawPointer(bitPattern: address)!
    }

    /// Wipes `slot` and makes it available again.
    func release(_ slot: UnsafeMutableRawPointer, sizeClass: Int) {
        sodium_memzero(slot, Self.slotSizes[sizeClass])
        let address = UInt(bitPattern: slot)
        state.withLock { $0.free[sizeClass].append(address) }
    }
}
