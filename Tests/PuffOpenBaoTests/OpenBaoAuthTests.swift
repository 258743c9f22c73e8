// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffOpenBao
import PuffTesting
import Testing

/// Token files and AppRole: what a machine proves itself with, and the files refused because
/// another local user could have planted or read them.
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct OpenBaoAuthTests {
    /// Writes `bytes` to `name` in `folder` with `mode`.
    func file(_ name: String, _ bytes: [UInt8], mode: Int, in folder: TestFolder) throws -> String {
        let path = folder.appending(name).path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    func token(of auth: OpenBaoAuth) -> [UInt8]? {
        if case .token(let token) = auth { token.unprotectedArray() } else { nil }
    }

    @Test func aTokenFileOfTheUsersOwnIsReadWithoutItsTrailingNewline() throws {
        let folder = try TestFolder("bao-auth")
        let path = try file("token", Array("s.abc123\n".utf8), mode: 0o600, in: folder)
        #expect(token(of: try OpenBaoAuth.tokenFile(path)) == Array("s.abc123".utf8))
    }

    @Test func aTokenFileGroupOrOthersMayReadIsRefusedNamingTheMode() throws {
        let folder = try TestFolder("bao-auth")
        for mode in [0o640, 0o604, 0o620] {
            let path = try file("token-\(mode)", Array("s.abc123".utf8), mode: mode, in: folder)
            let error = #expect(throws: OpenBaoError.self) { try OpenBaoAuth.tokenFile(path) }
            let octal = String(mode, radix: 8)
            #expect(
                error
                    == .refused(
                        "the token file \(path) may be read or written by group or others (mode \(octal)): chmod 600 it"
                    ))
        }
    }

    @Test func aLinkToTheTokenIsNotFollowed() throws {
        let folder = try TestFolder("bao-auth")
        let target = try file("real", Array("s.abc123".utf8), mode: 0o600, in: folder)
        let link = folder.appending("link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let error = #expect(throws: OpenBaoError.self) { try OpenBaoAuth.tokenFile(link) }
        #expect(error == .refused("the token file \(link) is a symbolic link: not followed"))
    }

    @Test func anEmptyTokenFileAndOneWithALineBreakInsideAreRefused() throws {
        let folder = try TestFolder("bao-auth")
        let empty = try file("empty", Array(" \n".utf8), mode: 0o600, in: folder)
        #expect(throws: OpenBaoError.refused("the token file \(empty) is empty")) { try OpenBaoAuth.tokenFile(empty) }
        // A second line would be a header of its own in the request.
        let split = try file("split", Array("s.abc\r\nX-Other: 1".utf8), mode: 0o600, in: folder)
        #expect(throws: OpenBaoError.refused("the token file \(split) holds characters no token or id has")) {
            try OpenBaoAuth.tokenFile(split)
        }
    }

    @Test func theConfiguredWayToSignInIsTheTokenFileThenTheAppRoleFilesThenSystemdCredentials() throws {
        let folder = try TestFolder("bao-auth")
        let token = try file("token", Array("s.token".utf8), mode: 0o600, in: folder)
        let roleID = try file("role-id", Array("role".utf8), mode: 0o600, in: folder)
        let secretID = try file("secret-id", Array("secret".utf8), mode: 0o600, in: folder)
        let credentials = try TestFolder("bao-creds")
        _ = try file(OpenBaoAuth.roleIDCredential, Array("credential-role".utf8), mode: 0o400, in: credentials)
        _ = try file(OpenBaoAuth.secretIDCredential, Array("credential-secret".utf8), mode: 0o400, in: credentials)
        func ids(_ auth: OpenBaoAuth) -> [String] {
            switch auth {
            case .token(let token): [String(decoding: token.unprotectedArray(), as: UTF8.self)]
            case .appRole(let role, let secret, _):
                [role, secret].map { String(decoding: $0.unprotectedArray(), as: UTF8.self) }
            }
        }
        let directory = credentials.url.path
        let first = try OpenBaoAuth.configured(
            tokenFile: token, roleIDFile: nil, secretIDFile: nil, credentialsDirectory: directory)
        #expect(ids(first) == ["s.token"])
        let second = try OpenBaoAuth.configured(
            tokenFile: nil, roleIDFile: roleID, secretIDFile: secretID, credentialsDirectory: directory)
        #expect(ids(second) == ["role", "secret"])
        let third = try OpenBaoAuth.configured(
            tokenFile: nil, roleIDFile: nil, secretIDFile: nil, credentialsDirectory: directory)
        #expect(ids(third) == ["credential-role", "credential-secret"])
        #expect(throws: OpenBaoError.refused("an AppRole needs both approle_role_id_file and approle_secret_id_file")) {
            try OpenBaoAuth.configured(
                tokenFile: nil, roleIDFile: roleID, secretIDFile: nil, credentialsDirectory: directory)
        }
        let empty = try TestFolder("bao-empty")
        let none = #expect(throws: OpenBaoError.self) {
            try OpenBaoAuth.configured(
                tokenFile: nil, roleIDFile: nil, secretIDFile: nil, credentialsDirectory: empty.url.path)
        }
        #expect(none?.description.hasPrefix("no way to sign in to OpenBao: set token_file") == true)
    }

    @Test(.enabled(if: BaoServer.isAvailable))
    func anAppRoleFromTwoFilesLogsInAndGetsItsPolicy() async throws {
        let bao = try await BaoServer()
        let policy = try await bao.policy("fleet", #"path "secret/data/puff/*" { capabilities = ["read"] }"#)
        let (roleID, secretID) = try await bao.appRole("machine", policies: [policy])
        let folder = try TestFolder("bao-auth")
        let auth = try OpenBaoAuth.appRoleFiles(
            roleID: try file("role-id", roleID.unprotectedArray() + [10], mode: 0o600, in: folder),
            secretID: try file("secret-id", secretID.unprotectedArray(), mode: 0o400, in: folder))
        let client = try OpenBaoClient(address: bao.address, auth: auth)
        let info = try await client.lookupSelf()
        #expect(info.policies.sorted() == ["default", "fleet"])
        #expect(try await client.read("puff/none", mount: "secret") == nil)
        let capabilities = try await client.capabilities(["secret/data/puff/x", "secret/data/other"])
        #expect(capabilities == ["secret/data/puff/x": ["read"], "secret/data/other": ["deny"]])
    }

    @Test(.enabled(if: BaoServer.isAvailable))
    func anAppRoleClientWhoseTokenIsUsedUpLogsInAgainAndCarriesOn() async throws {
        let bao = try await BaoServer()
        let policy = try await bao.policy("fleet", #"path "secret/data/puff/*" { capabilities = ["read"] }"#)
        // Each login's token is good for two requests: the third is refused (403) as an expired one is.
        let (roleID, secretID) = try await bao.appRole("machine", policies: [policy], tokenUses: 2)
        let client = try OpenBaoClient(address: bao.address, auth: .appRole(roleID: roleID, secretID: secretID))
        for _ in 0..<5 {
            #expect(try await client.read("puff/none", mount: "secret") == nil)
        }
        // A refusal the policy means stays one: logging in again does not change it.
        let error = await #expect(throws: OpenBaoError.self) { try await client.read("other/x", mount: "secret") }
        #expect(error == .denied(path: "secret/data/other/x"))
    }

    @Test(.enabled(if: BaoServer.isAvailable))
    func aWrongSecretIDIsDeniedAndSystemdCredentialsAreFoundByName() async throws {
        let bao = try await BaoServer()
        let (roleID, _) = try await bao.appRole("machine", policies: ["default"])
        let folder = try TestFolder("bao-creds")
        // systemd's credential files: the directory is the service's own, the mode is not checked.
        _ = try file(OpenBaoAuth.roleIDCredential, roleID.unprotectedArray(), mode: 0o440, in: folder)
        _ = try file(OpenBaoAuth.secretIDCredential, Array("not-the-secret-id".utf8), mode: 0o440, in: folder)
        let auth = try #require(try OpenBaoAuth.systemdCredentials(in: folder.url.path))
        let client = try OpenBaoClient(address: bao.address, auth: auth)
        let error = await #expect(throws: OpenBaoError.self) { try await client.lookupSelf() }
        #expect(error == .denied(path: "auth/approle/login"))
        #expect(try OpenBaoAuth.systemdCredentials(in: try TestFolder("bao-none").url.path) == nil)
    }
}
