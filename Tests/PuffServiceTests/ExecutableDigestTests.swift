// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffService
import PuffStore
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
        let other = [UInt8](repeating: 2, count: 32)
        #expect(AccessDecision.rule(in: settings, executable: "/usr/bin/a", digest: bound)?.allows == false)
        #expect(AccessDecision.rule(in: settings, executable: "/usr/bin/a", digest: other) == nil)
        #expect(AccessDecision.rule(in: settings, executable: "/usr/bin/b", digest: other)?.allows == true)
        #expect(AccessDecision.rule(in: settings, executable: nil, digest: nil) == nil)
        #expect(AccessDecision.plan(mode: .strict, rule: nil, isProtected: false) == .refuse(.unknownExecutable))
    }
}
