// SPDX-License-Identifier: Apache-2.0
import CSodium

/// Bytes the C heap has handed out and not had back now (glibc `mallinfo2().uordblks`): a test of
/// a memory budget reads it before and after building what it measures, holding it alive.
public func heapBytesInUse() -> Int {
    Int(puff_heap_in_use())
}
