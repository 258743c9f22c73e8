// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffService
import PuffStore
import Testing

/// ``AccessGate`` on its own, with no service: what it decides from the access rules, an item's
/// settings and the caller alone (the service's reads through it are ``AccessGateTests``).
struct AccessGateRulesTests {
    static let git = "/usr/lib/git-core/git-credential-libsecret"
    static let caller = Caller(ClientID(":1.5"), executable: git, pid: 7)
    static let protected = ItemSettings(isProtected: true)
    static let allowGit = ItemSettings(rules: [.init(executable: git, digest: nil, allows: true)])
    static let denyGit = ItemSettings(rules: [.init(executable: git, digest: nil, allows: false)])

    @Test func anOpenVaultAdmitsAnItemWithoutSettingsAtOnceAndNoOtherRead() {
        let open = AccessGate(AccessConfiguration(mode: .open))
        #expect(open.admitsAtOnce(ItemSettings()))
        #expect(!open.admitsAtOnce(Self.protected))
        #expect(!open.mayWait(ItemSettings()) && !open.mayWait(nil))
        #expect(open.mayWait(Self.protected))
        let ask = AccessGate(AccessConfiguration(mode: .ask))
        #expect(!ask.admitsAtOnce(ItemSettings()))
        #expect(ask.mayWait(ItemSettings()))
    }

    @Test func aReadsDeadlineIsTheShorterOfTheQuestionAndPromptTimeouts() {
        let gate = AccessGate(AccessConfiguration(mode: .ask, questionTimeout: .seconds(20)))
        #expect(gate.deadline(from: .seconds(100), promptTimeout: .seconds(60)) == .seconds(120))
        #expect(gate.deadline(from: .seconds(100), promptTimeout: .seconds(5)) == .seconds(105))
    }

    @Test func executablesAreHashedOnlyWhenARuleOrADecisionCouldUseTheDigest() {
        let hashing = AccessGate(AccessConfiguration(mode: .open, hashesExecutables: true))
        #expect(!hashing.hashes(Self.caller, for: ItemSettings()), "open, no rule: nothing to compare with")
        #expect(hashing.hashes(Self.caller, for: Self.allowGit))
        #expect(!hashing.hashes(Caller(ClientID(":1.5")), for: Self.allowGit), "no executable to hash")
        let asking = AccessGate(AccessConfiguration(mode: .ask, hashesExecutables: true))
        #expect(asking.hashes(Self.caller, for: ItemSettings()))
        #expect(!AccessGate(AccessConfiguration(mode: .ask)).hashes(Self.caller, for: Self.allowGit))
    }

    @Test func aCallerWithoutAPidReadsAsUnreadableWhenHashingIsOn() async {
        let gate = AccessGate(AccessConfiguration(mode: .ask, hashesExecutables: true))
        let noPid = Caller(ClientID(":1.5"), executable: Self.git, pid: nil)
        #expect(await gate.contents(of: noPid, for: ItemSettings()) == .unreadable)
        #expect(
            await AccessGate(AccessConfiguration(mode: .ask)).contents(of: noPid, for: ItemSettings()) == .notHashed)
        let gone = Caller(ClientID(":1.5"), executable: Self.git, pid: UInt32(Int32.max))
        #expect(await gate.contents(of: gone, for: ItemSettings()) == .unreadable)
    }

    @Test func thePlanFollowsTheModeTheRuleAndProtection() {
        let strict = AccessGate(AccessConfiguration(mode: .strict))
        #expect(strict.plan(ItemSettings(), caller: Self.caller, contents: .notHashed) == .refuse(.unknownExecutable))
        #expect(
            strict.plan(Self.allowGit, caller: Self.caller, contents: .notHashed)
                == .proceed(askAccess: false, confirm: false))
        let ask = AccessGate(AccessConfiguration(mode: .ask))
        #expect(ask.plan(Self.denyGit, caller: Self.caller, contents: .notHashed) == .refuse(.deniedByRule))
        #expect(
            ask.plan(Self.protected, caller: Self.caller, contents: .notHashed)
                == .proceed(askAccess: true, confirm: true))
    }

    @Test func aRuleIsBoundToTheFilesDigestOnlyWhenHashingIsOn() async throws {
        let path = "/usr/bin/true"
        #expect(try await AccessGate(AccessConfiguration(mode: .ask)).digest(forRuleOf: path) == nil)
        let hashing = AccessGate(AccessConfiguration(mode: .ask, hashesExecutables: true))
        #expect(try await hashing.digest(forRuleOf: path) != nil)
        await #expect(throws: ServiceError.invalidArgument("the executable cannot be read to hash it")) {
            try await hashing.digest(forRuleOf: "/nonexistent/tool")
        }
    }
}
