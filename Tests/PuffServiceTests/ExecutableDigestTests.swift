// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffService
import PuffStore
import PuffTesting
import Testing

/// Content digests of executables (`[access] hash_executables`): read once per file version, and
/// a changed file is a new executable to the rules.
struct ExecutableDigestTests {
    @Test func aFileIsReadOncePerVersionAndAChangeGivesAnotherDigest() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("puff-exe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("#!/bin/sh\necho one\n".utf8).write(to: file)
        let digests = ExecutableDigests()
        let first = try #require(digests.digest(ofFile: file.path))
        #expect(first.count == 32)
        #expect(digests.digest(ofFile: file.path) == first)
        #expect(digests.cachedCount == 1)
        try Data("#!/bin/sh\necho two, longer\n".utf8).write(to: file)
        #expect(digests.digest(ofFile: file.path) != first)
        #expect(digests.cachedCount == 2)
    }

    @Test func theRunningProcessIsHashedThroughProc() {
        let digests = ExecutableDigests()
        #expect(digests.digest(ofProcess: UInt32(getpid()))?.count == 32)
        #expect(digests.digest(ofFile: "/nonexistent/puff") == nil)
    }

    @Test func aRuleBoundToOtherContentsDoesNotApplyAndOneWithoutContentsAlwaysDoes() {
        let bound = [UInt8](repeating: 1, count: 32)
        let settings = ItemSettings(rules: [
            .init(executable: "/usr/bin/a", digest: bound, allows: false),
            .init(executable: "/usr/bin/b", digest: nil, allows: true),
        ])
        let other = ExecutableContents.digest([UInt8](repeating: 2, count: 32))
        #expect(AccessDecision.rule(in: settings, executable: "/usr/bin/a", contents: .digest(bound))?.allows == false)
        #expect(AccessDecision.rule(in: settings, executable: "/usr/bin/a", contents: other) == nil)
        #expect(AccessDecision.rule(in: settings, executable: "/usr/bin/b", contents: other)?.allows == true)
        #expect(AccessDecision.rule(in: settings, executable: nil, contents: .notHashed) == nil)
        #expect(AccessDecision.plan(mode: .strict, rule: nil, isProtected: false) == .refuse(.unknownExecutable))
    }

    /// Issue 24 item 9: with hashing on, contents that cannot be read are not a path-only match.
    @Test func withUnreadableContentsABoundAllowAdmitsNothingAndABoundDenyStillRefuses() {
        let bound = [UInt8](repeating: 1, count: 32)
        let settings = ItemSettings(rules: [
            .init(executable: "/usr/bin/allowed", digest: bound, allows: true),
            .init(executable: "/usr/bin/denied", digest: bound, allows: false),
            .init(executable: "/usr/bin/anyversion", digest: nil, allows: true),
        ])
        #expect(AccessDecision.rule(in: settings, executable: "/usr/bin/allowed", contents: .unreadable) == nil)
        #expect(
            AccessDecision.rule(in: settings, executable: "/usr/bin/denied", contents: .unreadable)?.allows == false)
        #expect(
            AccessDecision.rule(in: settings, executable: "/usr/bin/anyversion", contents: .unreadable)?.allows == true)
        // With hashing off a bound rule still matches by its path, as before.
        #expect(AccessDecision.rule(in: settings, executable: "/usr/bin/allowed", contents: .notHashed)?.allows == true)
    }

    /// The path of this test runner, as `/proc/<pid>/exe` names it.
    static var runner: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        return String(decoding: buffer[..<max(length, 0)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The pid of a process that has exited and been reaped: `/proc/<pid>/exe` cannot be read, as
    /// for a caller that connected, forked, and left its connection to the child.
    static func exitedProcess() throws -> UInt32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return UInt32(process.processIdentifier)
    }

    @Test(arguments: [AccessMode.strict, .ask])
    func aCallerWhoseProcessLeftIsNotAdmittedByAnAllowBoundToItsExecutablesContents(_ mode: AccessMode)
        async throws
    {
        let fixture = try await Fixture(
            script: [.reply(.access(.always))], access: AccessConfiguration(mode: mode, hashesExecutables: true))
        let item = try await fixture.store(["service": "digest"])
        try await fixture.service.setAccess(true, for: Self.runner, of: item)
        let bound = try #require(try await fixture.service.accessEntries([item]).first?.settings.rules.first)
        #expect(bound.digest?.count == 32)

        // The process that runs the file the rule was bound to is admitted without a question.
        let running = Caller(Fixture.alice, executable: Self.runner, pid: UInt32(getpid()))
        _ = try await fixture.service.secret(of: item, session: try await fixture.plainSession(), caller: running)
        #expect(await fixture.prompter.requests.isEmpty)

        let left = Caller(Fixture.bob, executable: Self.runner, pid: try Self.exitedProcess())
        let refused = await serviceError { () throws(ServiceError) in
            try await fixture.service.secret(
                of: item, session: try await fixture.plainSession(Fixture.bob), caller: left)
        }
        switch mode {
        case .strict:
            #expect(refused == .readRefused(.unknownExecutable))
            #expect(await fixture.prompter.requests.isEmpty)
        default:
            // Asked, like an unknown executable; "always" is not kept as a path-only rule.
            #expect(refused == nil)
            #expect(await fixture.prompter.requests.map(\.purpose) == [.allowRead(item: item, label: "label")])
        }
        #expect(try await fixture.service.accessEntries([item]).first?.settings.rules == [bound])
    }
}
