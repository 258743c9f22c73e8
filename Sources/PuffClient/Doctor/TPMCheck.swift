// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffText

/// What doctor finds about the machine's TPM, which `tpm2` slots seal with (puffd opens
/// `/dev/tpmrm0` unless `[unlock] tpm2_device` names another).
public struct TPMFacts: Sendable, Equatable {
    /// The device node looked at.
    public var path: String
    /// Whether it exists.
    public var exists: Bool
    /// The errno of opening it for reading and writing as this user; nil: it opened.
    public var openError: Int32?
    /// Whether the group `tss` exists (Debian's tpm-udev makes the node `root:tss 0660`).
    public var tssGroupExists: Bool
    /// Whether this process runs with group `tss`.
    public var processHasTss: Bool
    /// Whether /etc/group lists the user in `tss` (true while the session predates it too).
    public var userListedInTss: Bool

    public init(
        path: String, exists: Bool, openError: Int32? = nil, tssGroupExists: Bool = true, processHasTss: Bool = false,
        userListedInTss: Bool = false
    ) {
        self.path = path
        self.exists = exists
        self.openError = openError
        self.tssGroupExists = tssGroupExists
        self.processHasTss = processHasTss
        self.userListedInTss = userListedInTss
    }
}

/// Check 6: whether puffd, running as this user, can use the TPM for `tpm2` slots.
public enum TPMCheck {
    /// The node puffd uses by default: the kernel's resource manager.
    public static let defaultPath = "/dev/tpmrm0"

    /// The findings for `facts`.
    public static func findings(_ facts: TPMFacts) -> [DoctorFinding] {
        guard facts.exists else {
            return [DoctorFinding(.ok, "no TPM (\(facts.path) is absent): tpm2 slots cannot be used on this machine")]
        }
        guard let error = facts.openError else {
            return [DoctorFinding(.ok, "the TPM at \(facts.path) opens: tpm2 slots can be used")]
        }
        let summary =
            "\(facts.path) exists but cannot be opened (\(String(cString: strerror(error)))): tpm2 slots will not open"
        guard error == EACCES || error == EPERM else {
            return [
                DoctorFinding(
                    .warn, summary, next: "look at `ls -l \(facts.path)` and the kernel log (`dmesg | grep -i tpm`)")
            ]
        }
        let next: String
        if !facts.tssGroupExists {
            next = "the user needs read and write access to \(facts.path); Debian's tpm-udev gives it to group tss"
        } else if facts.userListedInTss && !facts.processHasTss {
            next = "the user is in group tss but this session is not: log out and in again (or restart puffd's session)"
        } else {
            next = "the user needs group tss: `sudo usermod -aG tss $USER`, then log out and in again"
        }
        return [DoctorFinding(.warn, summary, next: next)]
    }
}

extension TPMCheck {
    /// A finding per collection whose locked search keeps its index key sealed by the TPM
    /// (`--locked-search tpm2`) and whose key puffd's TPM did not unseal at start (puffd's `Status`,
    /// nil when puffd does not run this vault).
    static func sealedIndexFindings(_ status: VaultStatus?) -> [DoctorFinding] {
        (status?.collections ?? []).filter(\.searchWaitsForUnlock).map { collection in
            DoctorFinding(
                .warn,
                TerminalText.escaped(
                    "the TPM did not unseal the index key of collection \(collection.id) at start: search finds its "
                        + "items only once it is unlocked"),
                next: TerminalText.escaped(
                    "unlock it (`puffctl unlock \(collection.id)`); if this machine's TPM was replaced or cleared, "
                        + "`puffctl collection set \(collection.id) --locked-search tpm2` seals a fresh key with it"))
        }
    }
}

extension DoctorProbe {
    /// Looks at `path` and this user's groups; opens the node (and closes it at once) to learn whether
    /// puffd, running as this user, could.
    static func tpmFacts(path: String = TPMCheck.defaultPath) -> TPMFacts {
        var facts = TPMFacts(path: path, exists: access(path, F_OK) == 0)
        guard facts.exists else { return facts }
        let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        if fd >= 0 { close(fd) } else { facts.openError = errno }
        guard let group = getgrnam("tss") else {
            facts.tssGroupExists = false
            return facts
        }
        let tss = group.pointee.gr_gid
        var count = getgroups(0, nil)
        var groups = [gid_t](repeating: 0, count: Int(max(count, 0)))
        count = getgroups(count, &groups)
        facts.processHasTss = getegid() == tss || groups.prefix(Int(max(count, 0))).contains(tss)
        if let user = getpwuid(getuid())?.pointee.pw_name, var member = group.pointee.gr_mem {
            let name = String(cString: user)
            while let pointer = member.pointee {
                if String(cString: pointer) == name { facts.userListedInTss = true }
                member += 1
            }
        }
        return facts
    }
}
