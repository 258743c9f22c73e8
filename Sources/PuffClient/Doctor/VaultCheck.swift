// SPDX-License-Identifier: Apache-2.0

/// The owner and permission bits of one path in the vault folder (from `lstat`).
public struct FileFacts: Sendable, Equatable {
    /// The path.
    public var path: String
    /// Whether it is a folder.
    public var isDirectory: Bool
    /// Whether it is a symbolic link (never followed).
    public var isSymlink: Bool
    /// The permission bits, `0o600` for a private file.
    public var permissions: UInt32
    /// The owner's user id.
    public var owner: UInt32

    /// Creates the facts of one path.
    public init(path: String, isDirectory: Bool = false, isSymlink: Bool = false, permissions: UInt32, owner: UInt32) {
        self.path = path
        self.isDirectory = isDirectory
        self.isSymlink = isSymlink
        self.permissions = permissions
        self.owner = owner
    }

    /// The permission bits as `chmod` takes them: `0700`.
    var octal: String {
        let digits = String(permissions & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

/// Check 4: the vault folder is yours and 0700, and everything in it yours and closed to others
/// (puffd makes files 0600 and folders 0700, architecture.md Part A §2).
public enum VaultCheck {
    /// Where the vault is and who said so.
    public struct Location: Sendable, Equatable {
        /// The folder.
        public var folder: String
        /// `"puffd's Status"` or `"the default"`, for the summary.
        public var source: String
        /// Whether puffd is running with this folder (then it must exist).
        public var inUse: Bool

        /// Creates a location.
        public init(folder: String, source: String, inUse: Bool) {
            self.folder = folder
            self.source = source
            self.inUse = inUse
        }
    }

    /// The findings for the folder at `location`, whose facts are `folder` (nil when it does not
    /// exist) and whose contents, at any depth, are `entries`; `userID` is puffctl's user.
    public static func findings(location: Location, folder: FileFacts?, entries: [FileFacts], userID: UInt32)
        -> [DoctorFinding]
    {
        let path = location.folder
        guard let folder else {
            if location.inUse {
                return [
                    DoctorFinding(
                        .fail, "puffd's vault folder \(path) does not exist",
                        next: "restart puffd: it creates the folder when it starts")
                ]
            }
            return [DoctorFinding(.ok, "no vault yet at \(path) (\(location.source)): puffd creates it on first start")]
        }
        var findings: [DoctorFinding] = []
        let foreign = ([folder] + entries).filter { $0.owner != userID }
        if !foreign.isEmpty {
            findings.append(
                DoctorFinding(
                    .fail, "\(foreign.count) path(s) in the vault belong to another user",
                    details: foreign.prefix(5).map { "\($0.path) (uid \($0.owner))" },
                    next: "`chown -R \(userID) \(quoted(path))` (as root), or find out who wrote there"))
        }
        if !folder.isDirectory || folder.isSymlink {
            findings.append(
                DoctorFinding(
                    .fail, "\(path) is not a folder", next: "move it aside; puffd creates the folder when it starts"))
            return findings
        }
        let open = ([folder] + entries).filter { !$0.isSymlink && $0.permissions & 0o077 != 0 }
        if open.isEmpty {
            findings.append(
                DoctorFinding(
                    .ok,
                    "vault \(path) (\(location.source)): folder \(folder.octal), "
                        + "\(entries.filter { !$0.isDirectory }.count) file(s) closed to others"))
        } else {
            findings.append(
                DoctorFinding(
                    .fail, "\(open.count) path(s) in the vault are open to other users",
                    details: open.prefix(5).map { "\($0.path) is \($0.octal)" },
                    next: "`chmod -R go-rwx \(quoted(path))`"))
        }
        let links = entries.filter(\.isSymlink)
        if !links.isEmpty {
            findings.append(
                DoctorFinding(
                    .warn, "\(links.count) symbolic link(s) in the vault", details: links.prefix(5).map(\.path),
                    next: "puffd never makes links: find out where they came from"))
        }
        return findings
    }

    /// The finding for a vault puffd keeps in memory.
    public static func memoryFinding(store: String) -> DoctorFinding {
        DoctorFinding(.ok, "puffd keeps the vault in memory (\(store) store): nothing on disk to check")
    }

    /// `path` in single quotes when it has characters a shell would read.
    static func quoted(_ path: String) -> String {
        path.allSatisfy { $0.isLetter || $0.isNumber || "/._-+".contains($0) } ? path : "'\(path)'"
    }
}
