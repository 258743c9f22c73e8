// SPDX-License-Identifier: Apache-2.0

/// One D-Bus activation file (`*.service` in a session service folder) that names
/// `org.freedesktop.secrets`.
public struct ActivationFile: Sendable, Equatable {
    /// Where it is.
    public var path: String
    /// Its `Exec=` line's value.
    public var exec: String

    /// Creates the description of one file.
    public init(path: String, exec: String) {
        self.path = path
        self.exec = exec
    }

    /// The provider its `Exec=` starts.
    public var provider: SecretProvider { SecretProvider(command: exec) }

    /// The bus name and command of an activation file's text, if it has a `[D-BUS Service]`
    /// group with `Name=`.
    public static func parse(_ text: String) -> (name: String, exec: String)? {
        var inGroup = false
        var name: String?
        var exec = ""
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingSpaces
            if line.hasPrefix("[") {
                inGroup = line == "[D-BUS Service]"
                continue
            }
            guard inGroup, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingSpaces
            let value = line[line.index(after: equals)...].trimmingSpaces
            if key == "Name" { name = value }
            if key == "Exec" { exec = value }
        }
        return name.map { ($0, exec) }
    }
}

/// Check 3: which activation files name `org.freedesktop.secrets`, which one the bus starts when
/// nothing owns the name, and how to make that puffd.
public enum ActivationCheck {
    /// The session service folders in dbus-daemon's order of precedence (dbus-daemon(1),
    /// `<standard_session_servicedirs/>`: "if a particular service is found in more than one
    /// service directory, the first directory takes precedence"): `$XDG_RUNTIME_DIR/dbus-1/services`,
    /// `$XDG_DATA_HOME/dbus-1/services`, each of `$XDG_DATA_DIRS` (default
    /// `/usr/local/share:/usr/share`), then the `/usr/share` dbus was built with. Repeats dropped.
    ///
    /// The bus reads the variables of its own environment, usually the same as a login shell's.
    public static func serviceDirectories(environment: [String: String]) -> [String] {
        let value = { (name: String) -> String? in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        var roots: [String] = []
        if let runtime = value("XDG_RUNTIME_DIR") { roots.append(runtime) }
        roots.append(userDataHome(environment: environment))
        let dataDirs = value("XDG_DATA_DIRS") ?? "/usr/local/share:/usr/share"
        roots += dataDirs.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        roots.append("/usr/share")
        var seen: Set<String> = []
        return roots.map { trimmedSlash($0) + "/dbus-1/services" }.filter { seen.insert($0).inserted }
    }

    /// `$XDG_DATA_HOME`, or `$HOME/.local/share`.
    public static func userDataHome(environment: [String: String]) -> String {
        if let home = environment["XDG_DATA_HOME"], home.hasPrefix("/") { return trimmedSlash(home) }
        return trimmedSlash(environment["HOME"] ?? "") + "/.local/share"
    }

    /// The user's own activation file, which takes precedence over every system folder's.
    public static func userFile(environment: [String: String]) -> String {
        userDataHome(environment: environment) + "/dbus-1/services/\(ControlNames.secretsBusName).service"
    }

    /// The activation file that makes the bus start puffd at `puffd`.
    public static func puffFileText(puffd: String) -> String {
        "[D-BUS Service]\nName=\(ControlNames.secretsBusName)\nExec=\(puffd)\n"
    }

    /// The findings for `files`, the activation files naming the name in order of precedence (the
    /// first is the one the bus starts), with `puffd` the executable a new file should start.
    public static func findings(files: [ActivationFile], environment: [String: String], puffd: String)
        -> [DoctorFinding]
    {
        let userFile = userFile(environment: environment)
        let content = puffFileText(puffd: puffd).split(separator: "\n").map { "  \($0)" }.joined(separator: "\n")
        let makePuff = "write \(userFile) with these lines (it overrides every system folder):\n\(content)"
        guard let first = files.first else {
            return [
                DoctorFinding(
                    .warn,
                    "no activation file names \(ControlNames.secretsBusName): nothing starts a provider on first use",
                    next: makePuff)
            ]
        }
        var findings: [DoctorFinding] = []
        let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 + "/dbus-1/services/" }
        // Files in $XDG_RUNTIME_DIR come before the user's own folder: such a file must go.
        let override =
            runtime.map { first.path.hasPrefix($0) } == true
            ? "remove \(first.path), which comes before every other folder, then " : ""
        var listed = files.map { "\($0.path): \($0.provider.displayName) (Exec=\($0.exec))" }
        // Two providers' files in the first file's folder: dbus-daemon keeps whichever it reads
        // first (directory order, which the filesystem decides), so the winner is not settled.
        let folder = folderOf(first.path)
        let rivals = files.dropFirst().filter { folderOf($0.path) == folder && $0.provider != first.provider }
        if let rival = rivals.first {
            listed.append(
                "\(folder) has files for \(first.provider.displayName) and \(rival.provider.displayName): dbus-daemon "
                    + "starts the one it reads first from the folder, in an order no setting decides")
        }
        if first.provider == .puff, let rival = rivals.first {
            findings.append(
                DoctorFinding(
                    .warn,
                    "the bus may start puffd or \(rival.provider.displayName) on first use: both have a file in \(folder)",
                    details: listed, next: override + makePuff))
        } else if first.provider == .puff {
            findings.append(
                DoctorFinding(.ok, "the bus starts puffd on first use (\(first.path))", details: listed))
        } else {
            findings.append(
                DoctorFinding(
                    .warn, "the bus starts \(first.provider.displayName), not puffd, on first use (\(first.path))",
                    details: listed, next: override + makePuff))
        }
        return findings
    }

    private static func folderOf(_ path: String) -> String {
        path.lastIndex(of: "/").map { String(path[..<$0]) } ?? path
    }

    private static func trimmedSlash(_ path: String) -> String {
        path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        let isSpace = { (c: Character) in c == " " || c == "\t" || c == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[start...end])
    }
}
