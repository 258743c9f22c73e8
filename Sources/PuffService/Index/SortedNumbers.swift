// SPDX-License-Identifier: Apache-2.0

/// Binary search and intersection on ascending lists of item numbers (posting lists).
package enum SortedNumbers {
    /// The first index at or after `start` whose number is not below `number`.
    package static func insertionPoint<Numbers: RandomAccessCollection<UInt64>>(
        of number: UInt64, in numbers: Numbers, from start: Numbers.Index? = nil
    ) -> Numbers.Index {
        var low = start ?? numbers.startIndex
        var high = numbers.endIndex
        while low < high {
            let middle = numbers.index(low, offsetBy: numbers.distance(from: low, to: high) / 2)
            if numbers[middle] < number { low = numbers.index(after: middle) } else { high = middle }
        }
        return low
    }

    /// The numbers of `shortest` that are also in every list of `others`, ascending.
    ///
    /// Each number of `shortest` is looked up in the others by binary search, starting where the
    /// previous one was found: about `shortest.count × log(other.count)` reads, so a one-item
    /// list intersected with a 100,000-item one reads some 17 numbers of it, not 100,000.
    package static func intersection<Numbers: RandomAccessCollection<UInt64>>(
        of shortest: [UInt64], with others: some Collection<Numbers>
    ) -> [UInt64] {
        var starts = others.map(\.startIndex)
        var result: [UInt64] = []
        next: for number in shortest {
            for (i, list) in zip(starts.indices, others) {
                let at = insertionPoint(of: number, in: list, from: starts[i])
                starts[i] = at
                guard at != list.endIndex, list[at] == number else { continue next }
            }
            result.append(number)
        }
        return result
    }
}
