// SPDX-License-Identifier: Apache-2.0
import Synchronization
import Testing

@testable import PuffFormats

/// What a reader tells `puffctl import`'s progress while it reads a real tool's file: the rounds
/// of its AES-KDF as they are done, from none to all, then its items.
@Suite(.serialized) struct ReadProgressTests {
    @Test func aKeepassxcCLIDatabaseReportsItsKeyRoundsThenItsItems() throws {
        let bytes = try KDBXTool.make("make-cli")
        let reports = Mutex<[(ReadProgress.Stage, UInt64, UInt64)]>([])
        let progress = ReadProgress { stage, done, total in reports.withLock { $0.append((stage, done, total)) } }
        let read = try ReadProgress.$current.withValue(progress) {
            try KDBXReader.read(bytes, passcode: KDBXTool.passcode)
        }
        let all = reports.withLock { $0 }
        let rounds = all.filter { $0.0 == .keyRounds }
        let items = all.filter { $0.0 == .items }
        // keepassxc-cli's database has 1,000,000 rounds (KDBXReaderTests): counted every 65,536.
        #expect(rounds.map(\.1) == [0] + (1...15).map { UInt64($0) * 65_536 } + [1_000_000])
        #expect(rounds.allSatisfy { $0.2 == 1_000_000 })
        #expect(all.firstIndex { $0.0 == .items } ?? 0 > all.lastIndex { $0.0 == .keyRounds } ?? .max, "the key first")
        #expect(items.first?.1 == 0 && items.last?.1 == items.last?.2)
        #expect(items.last?.2 ?? 0 >= UInt64(read.items.count), "every entry counted")
    }
}
