// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// The set-up the security-key tests share: the built `puffd` with its vault in a
/// ``SecurityKeyBench``'s folder and `login` made under ``passcode``, the `puffctl` steps run
/// against it, and fido2 slots enrolled through `puffctl slot add` (docs/design/unlock-slots.md §5).
struct SecurityKeyVault {
    /// The passcode `login` is made with: the proof every enrolment gives.
    static let passcode = "collection words"

    let puffd: TestDaemon
    let keys: SecurityKeyBench

    /// Starts puffd (`--kdf interactive`, its vault in `keys`' folder, `--fido2-device` of
    /// `device` when given, then `extra`; `environment` added to its own) and makes `login` under
    /// ``passcode``.
    init(
        _ keys: SecurityKeyBench, device: SoftwareSecurityKey? = nil, _ extra: [String] = [],
        environment: [String: String] = [:]
    ) async throws {
        self.keys = keys
        let configured = device.map { ["--fido2-device", $0.device] } ?? []
        puffd = try await TestDaemon(
            arguments: ["--data-dir", keys.path("vault"), "--kdf", "interactive"] + configured + extra,
            environment: environment)
        let created = try await ChildProcess.run(
            VaultFlowTests.puffctl, ["init", "--stdin"], environment: puffd.clientEnvironment,
            input: Data((Self.passcode + "\n").utf8))
        #expect(created.status == 0, "puffctl init: \(created.output)")
    }

    /// `puffctl ARGUMENTS` against this puffd, `input` on its standard input.
    func puffctl(_ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            VaultFlowTests.puffctl, arguments, environment: puffd.clientEnvironment, input: Data(input.utf8))
    }

    /// `puffctl slot add COLLECTION fido2`: with `passcode` a fido2+passcode slot with that
    /// passcode, with `pin` one that needs the key's PIN, through `device` when given (else
    /// puffd's). The proof (``passcode``), the PIN and the slot's passcode go on standard input,
    /// one line each, never on the command line.
    func enrol(
        _ collection: String = "login", label: String? = nil, passcode slotPasscode: String? = nil,
        pin: String? = nil, device: SoftwareSecurityKey? = nil
    ) async throws -> ChildProcess.Result {
        var arguments = ["slot", "add", collection, "fido2", "--stdin"]
        if let label { arguments += ["--label", label] }
        if slotPasscode != nil { arguments.append("--with-passcode") }
        if pin != nil { arguments += ["--pin-fd", "0"] }
        if let device { arguments += ["--fido2-device", device.device] }
        let lines = [Self.passcode] + [pin, slotPasscode].compactMap { $0 }
        return try await puffctl(arguments, input: lines.map { $0 + "\n" }.joined())
    }

    /// Whether `puffctl status` shows `collection` locked; nil when it lists no such collection.
    func isLocked(_ collection: String = "login") async throws -> Bool? {
        let status = try await puffctl(["status", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        let collections = try #require(json["collections"] as? [[String: Any]])
        return collections.first { $0["id"] as? String == collection }?["locked"] as? Bool
    }

    /// `puffctl lock`: every collection locked.
    func lockAll() async throws {
        let locked = try await puffctl(["lock"])
        #expect(locked.status == 0, "puffctl lock: \(locked.output)")
    }
}
